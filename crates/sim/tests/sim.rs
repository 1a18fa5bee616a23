//! Integration tests of the simulator (one binary, one module per theme).

use sim::{Scenario, Sim, Summary};

mod features;
mod fuzz;
mod network;
mod paths;
mod tcp;

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"))
}

fn run(toml: &str) -> Summary {
    sim::run(scenario(toml), None).unwrap()
}

/// A source, a router and a sink: s1 -100Mb/s 1ms- r1 -10Mb/s 20ms- k1.
fn path(queue: &str, flows: &str, duration: &str, warmup: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "{warmup}"
[[link]]
a = "s1"
b = "r1"
rate = "100Mbps"
delay = "1ms"
queue = {{ type = "droptail", limit = 1000 }}
[[link]]
a = "r1"
b = "k1"
rate = "10Mbps"
delay = "20ms"
queue = {queue}
{flows}
"#
    )
}
