//! The unit grammar against the shared table of cases (`tests/units_cases.toml`),
//! which the Python tests of `aqmlab.units` read as well.

use aqm::units::{Dimension, Quantity, parse};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    dim: String,
    text: String,
    value: Option<f64>,
    #[serde(default)]
    error: bool,
}

#[derive(Deserialize)]
struct Cases {
    case: Vec<Case>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../units_cases.toml");
    toml::from_str::<Cases>(text).expect("units_cases.toml parses").case
}

/// Every case parses to its value (to rounding), or is refused, and a refused string names
/// the field and an example of the dimension.
#[test]
fn every_shared_case_parses_as_the_table_says() {
    let cases = cases();
    assert!(cases.len() >= 40);
    for c in cases {
        let dim = Dimension::from_name(&c.dim).expect("a dimension");
        let got = parse(&c.text, dim);
        if c.error {
            assert_eq!(got, None, "{} {:?} should be refused", c.dim, c.text);
            let e = Quantity::Text(c.text.clone()).value("flow[0].x", dim).unwrap_err();
            assert_eq!(e.param(), Some("flow[0].x"));
        } else {
            let want = c.value.expect("a value or error = true");
            let got = got.unwrap_or_else(|| panic!("{} {:?} should parse", c.dim, c.text));
            // (the unit factors are not all exact in binary: 200 * 1e-6 != 2e-4)
            assert!((got - want).abs() <= 1e-15 * want.abs(), "{} {:?}: {got}", c.dim, c.text);
        }
    }
}
