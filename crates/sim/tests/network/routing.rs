//! Static routes: a link outage moves traffic onto the alternate path and back.

use super::*;

/// A link outage moves traffic onto the lower-precedence alternate path and back.
#[test]
fn outage_reroutes_and_restores() {
    let s = run(r#"
duration = "15s"
[[link]]
a = "s"
b = "r1"
rate = "10Mbps"
delay = "1ms"
[[link]]
a = "r1"
b = "r2"
rate = "10Mbps"
delay = "10ms"
[[link]]
a = "r1"
b = "r3"
rate = "10Mbps"
delay = "10ms"
cost = 2
[[link]]
a = "r3"
b = "r2"
rate = "10Mbps"
delay = "10ms"
cost = 2
[[link]]
a = "r2"
b = "k"
rate = "10Mbps"
delay = "1ms"
[[flow]]
type = "cbr"
src = "s"
dst = "k"
rate = "1Mbps"
[[event]]
at = "5s"
a = "r1"
b = "r2"
action = "down"
[[event]]
at = "10s"
a = "r2"
b = "r1"
action = "up"
"#);
    let per_s = 1e6 / 8000.0;
    let alt = s.links["r1->r3"].arrivals as f64;
    let primary = s.links["r1->r2"].arrivals as f64;
    assert!((alt - 5.0 * per_s).abs() <= 2.0, "alternate carried {alt}");
    assert!((primary - 10.0 * per_s).abs() <= 3.0, "primary carried {primary}");
    let f = &s.flows[0];
    // Only the packets on the primary link when it failed are lost.
    assert!(f.drops <= 3, "{f:?}");
    assert_eq!(s.links["r1->r2"].link_down_drops, f.drops);
}
