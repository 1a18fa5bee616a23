//! CoDel and FQ-CoDel on the shipped dumbbells, and a CoDel buffer beyond the memory
//! budget refused.

use super::*;

/// `scenarios/NAME.toml` with its duration and warm-up shortened.
fn short(name: &str) -> Scenario {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
    let text = text
        .replace("duration = \"60s\"", "duration = \"12s\"")
        .replace("warmup = \"20s\"", "warmup = \"4s\"");
    scenario(&text)
}

/// The dumbbell with CoDel or FQ-CoDel at the bottleneck validates and runs; the
/// bottleneck's drops are all CoDel's (none from the buffer), the same seed gives the
/// same summary, and the standing delay is CoDel's business: the median waiting
/// time at the bottleneck stays below RED's in the same dumbbell.
#[test]
fn dumbbell_scenarios_run_codel_and_fq_codel() {
    let red = sim::run(short("dumbbell_10mbps"), None).unwrap();
    for (name, kind) in
        [("dumbbell_10mbps_codel", "codel"), ("dumbbell_10mbps_fq_codel", "fq_codel")]
    {
        let mut a = sim::run(short(name), None).unwrap();
        let mut b = sim::run(short(name), None).unwrap();
        let l = &a.links["r1->r2"];
        assert_eq!(l.queue_type, kind);
        assert!(l.drops > 0 && l.drops == l.forced_drops, "{name}: {l:?}");
        assert!(l.delay_p50 < red.links["r1->r2"].delay_p50, "{name}: {l:?}");
        for s in [&mut a, &mut b] {
            s.wall_seconds = 0.0;
            s.events = 0;
        }
        assert_eq!(a, b, "{name}");
    }
}

/// The memory budget counts what a packet-holding queue may hold: a CoDel buffer
/// of 10^9 packets is refused before the run, naming its limit.
#[test]
fn a_codel_queue_beyond_the_memory_budget_is_refused() {
    let flood = "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"1Gbps\"";
    let big = path("{ type = \"codel\", limit = 1000000000 }", flood, "20s", "0s");
    let e = Scenario::from_toml_str(&big).unwrap_err().to_string();
    assert!(e.starts_with("link[1].queue.limit: ") && e.contains("max_memory"), "{e}");
    let small = path("{ type = \"codel\", limit = 1000 }", flood, "20s", "0s");
    assert!(Scenario::from_toml_str(&small).is_ok());
}
