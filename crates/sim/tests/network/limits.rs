//! The guards: an instant that never ends and a run beyond the memory budget stop with
//! an error naming the cause, on one thread or two.

use super::*;
use sim::SimError;
use sim::scenario::FlowKind;

/// A CBR source at `rate` into a Drop Tail queue of `limit` packets on a 10 Mb/s line.
fn flood(rate: &str, limit: u64) -> String {
    path(
        &format!("{{ type = \"droptail\", limit = {limit} }}"),
        &format!("[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"{rate}\""),
        "20s",
        "0s",
    )
}

/// A source whose spacing rounds to zero after validation (only possible by editing
/// a validated scenario) stops the run with an error naming the flow, not a spin.
#[test]
fn no_progress_at_one_instant_is_an_error_naming_the_flow() {
    let mut sc = scenario(&flood("1Mbps", 100));
    sc.flows[0].kind = FlowKind::Cbr { interval: 0.0, batch: 1 };
    let mut s = Sim::new(sc, None).unwrap();
    let bound = s.progress_bound();
    let e = s.run().map(|_| ()).unwrap_err();
    let SimError::Stopped(m) = &e else { panic!("{e:?}") };
    assert!(m.contains("no progress") && m.contains("sends of flow 0"), "{m}");
    assert!(m.contains(&bound.to_string()), "{m}");
    // at most the bound plus one checkpoint's worth of events, and the tally
    assert!(s.events() <= bound + (1 << 16) + 4096 + 10, "{}", s.events());
    assert!(s.events() > bound);
    // the run stays stopped
    assert_eq!(s.run_until(aqm::Time(1)).unwrap_err(), e);
}

/// Many flows starting at one instant are far inside the progress bound.
#[test]
fn a_crowded_instant_is_not_a_stall() {
    let flows =
        "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"1kbps\"\ncount = 5000";
    let s = sim::run(
        scenario(&path("{ type = \"droptail\", limit = 100 }", flows, "0.5s", "0s")),
        None,
    );
    assert!(s.is_ok(), "{s:?}");
}

/// A Drop Tail queue of 10^9 packets is refused before the run: it could hold more
/// than half the machine's memory. The error names the queue's limit.
#[test]
fn a_queue_beyond_the_memory_budget_is_refused() {
    let e = Scenario::from_toml_str(&flood("1Gbps", 1_000_000_000)).unwrap_err().to_string();
    assert!(e.starts_with("link[1].queue.limit: ") && e.contains("max_memory"), "{e}");
    assert!(e.contains("link[1].queue of r1->k1 (1000000000 packets"), "{e}");
    // the same scenario with a budget that fits is accepted
    let ok = format!("max_memory = \"200GB\"\n{}", flood("1Gbps", 1_000_000_000));
    assert!(Scenario::from_toml_str(&ok).is_ok());
}

/// At run time, packets held beyond the budget stop the run cleanly, naming the
/// direction that holds them; memory stays near the budget.
#[test]
fn a_run_that_outgrows_its_budget_stops() {
    let mut sc = scenario(&format!("max_memory = \"2GB\"\n{}", flood("1Gbps", 10_000_000)));
    // (bypass the estimate, as if it were wrong: the guard must hold on its own)
    sc.max_memory = Some(4_000_000);
    let mut s = Sim::new(sc, None).unwrap();
    let e = s.run().map(|_| ()).unwrap_err();
    let SimError::Stopped(m) = &e else { panic!("{e:?}") };
    assert!(
        m.starts_with("max_memory") && m.contains("r1->k1") && m.contains("link[1].queue"),
        "{m}"
    );
    let held = s.in_flight(2);
    // stopped within one checkpoint of the budget (80 B a packet)
    assert!(held as u64 * 80 > 4_000_000 && held < 4_000_000 / 80 + (1 << 16), "{held}");
}

/// Two threads: a guard's error in one part stops both and comes back as the error.
#[test]
fn a_guard_stops_a_two_thread_run() {
    let toml = r#"
duration = "20s"
threads = 2
[[link]]
a = "s1"
b = "r1"
rate = "1Gbps"
delay = "1ms"
queue = { type = "droptail", limit = 10000000 }
[[link]]
a = "s2"
b = "r1"
rate = "1Gbps"
delay = "1ms"
queue = { type = "droptail", limit = 10000000 }
[[link]]
a = "r1"
b = "k1"
rate = "10Mbps"
delay = "20ms"
queue = { type = "droptail", limit = 10000000 }
[[flow]]
type = "cbr"
src = "s1"
dst = "k1"
rate = "500Mbps"
[[flow]]
type = "cbr"
src = "s2"
dst = "k1"
rate = "500Mbps"
"#;
    let mut sc = scenario(toml);
    sc.max_memory = Some(4_000_000);
    let mut s = Sim::new(sc, None).unwrap();
    assert_eq!(s.threads(), 2);
    let e = s.run().map(|_| ()).unwrap_err();
    assert!(matches!(&e, SimError::Stopped(m) if m.starts_with("max_memory")), "{e:?}");
    assert_eq!(s.run().map(|_| ()).unwrap_err(), e);
}
