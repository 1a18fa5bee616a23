//! `[[event]] action = "rate"`: a link's rate changes during the run.

use super::*;

/// Departure times (ns) of the data packets of `r1->k1` and of the packets of
/// `k1->r1` in a run of `toml`.
fn departures(toml: &str, tag: &str) -> [Vec<u64>; 2] {
    let dir = std::env::temp_dir().join(format!("aqmlab-rate-{tag}-{}", std::process::id()));
    let t = format!("{toml}\n[trace]\npackets = [\"r1->k1\", \"k1->r1\"]\n");
    sim::run(scenario(&t), Some(&dir)).unwrap();
    let text = std::fs::read_to_string(dir.join("packets.csv")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let mut out = [Vec::new(), Vec::new()];
    for r in text.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()) {
        if r[2] == "d" {
            let t = (r[0].parse::<f64>().unwrap() * 1e9).round() as u64;
            out[usize::from(r[1] == "k1->r1")].push(t);
        }
    }
    out
}

/// CBR sources overloading both directions of the 10 Mb/s link `r1 - k1` (1000-byte
/// packets), whose rate goes to 5 Mb/s at 1 s and back to 10 Mb/s at 2 s.
fn overloaded(queue: &str) -> String {
    let flows = r#"
[[flow]]
type = "cbr"
src = "s1"
dst = "k1"
rate = "12Mbps"
[[flow]]
type = "cbr"
src = "k1"
dst = "s1"
rate = "12Mbps"
[[event]]
at = "1s"
a = "r1"
b = "k1"
action = "rate"
rate = "5Mbps"
[[event]]
at = "2s"
a = "k1"
b = "r1"
action = "rate"
rate = "10Mbps"
"#;
    path(queue, flows, "3s", "0s")
}

/// A saturated line sends one packet every transmission time: 800 us at 10 Mb/s,
/// 1600 us at 5 Mb/s, in both directions; the packet on the line at a change finishes
/// at the rate it started with.
#[test]
fn a_saturated_line_serves_at_each_rate() {
    let (tx10, tx5) = (800_000u64, 1_600_000u64);
    for q in [r#"{ type = "droptail", limit = 20 }"#, r#"{ type = "codel", limit = 20 }"#] {
        for (side, d) in departures(&overloaded(q), "sat").iter().enumerate() {
            let gaps: Vec<(u64, u64)> = d.windows(2).map(|w| (w[1], w[1] - w[0])).collect();
            // the line is busy from shortly after the start to the end
            let busy: Vec<&(u64, u64)> = gaps.iter().filter(|(t, _)| *t > 100_000_000).collect();
            let at = |lo: u64, hi: u64| busy.iter().filter(move |(t, _)| *t > lo && *t <= hi);
            let s = 1_000_000_000;
            assert!(at(0, s).all(|&&(_, g)| g == tx10), "{q} side {side}: before 1 s");
            // the packet started before 1 s leaves at its old pace; the next ones at 5 Mb/s
            let first = at(s, 2 * s).next().unwrap();
            assert!(first.1 == tx10 && first.0 - tx10 <= s, "{q}: {first:?}");
            assert!(at(first.0, 2 * s).all(|&&(_, g)| g == tx5), "{q} side {side}: 1-2 s");
            let back = at(2 * s, 3 * s).next().unwrap();
            assert_eq!(back.1, tx5, "{q}: the packet on the line at 2 s");
            assert!(at(back.0, 3 * s).all(|&&(_, g)| g == tx10), "{q} side {side}: after 2 s");
            assert_eq!(at(s, 2 * s).count() as u64, s / tx5, "{q}");
        }
    }
}

/// TCP through the link before and after its rate halves: the throughput of each
/// window is the rate of that window (a saturated link).
#[test]
fn tcp_throughput_follows_the_rate() {
    let flows = r#"
[[flow]]
src = "s1"
dst = "k1"
max_window = 500
count = 4
[[event]]
at = "30s"
a = "r1"
b = "k1"
action = "rate"
rate = "5Mbps"
"#;
    let q = r#"{ type = "droptail", limit = 100 }"#;
    let before = run(&path(q, flows, "30s", "10s"));
    let after = run(&path(q, flows, "60s", "40s"));
    let thr = |s: &Summary| s.links["r1->k1"].throughput_bps;
    assert!((thr(&before) - 10e6).abs() < 0.01 * 10e6, "{}", thr(&before));
    assert!((thr(&after) - 5e6).abs() < 0.01 * 5e6, "{}", thr(&after));
    assert!(after.links["r1->k1"].utilization > 0.99);
}

#[test]
fn rate_events_are_checked() {
    let q = r#"{ type = "droptail", limit = 100 }"#;
    let ev = |keys: &str| {
        let f = "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"1Mbps\"\n";
        let t =
            path(q, &format!("{f}[[event]]\nat = 1\na = \"r1\"\nb = \"k1\"\n{keys}"), "3s", "0s");
        Scenario::from_toml_str(&t).err().map(|e| e.to_string())
    };
    assert!(ev("action = \"rate\"\nrate = \"5Mbps\"\n").is_none());
    let bad = [
        ("action = \"rate\"\n", "event[0].rate: missing"),
        (
            "action = \"down\"\nrate = \"5Mbps\"\n",
            "event[0].rate: allowed only with action = \"rate\"",
        ),
        ("action = \"rate\"\nrate = 0\n", "event[0].rate"),
        ("action = \"rate\"\nrate = 1e16\n", "[1, 1e15]"),
        ("action = \"rate\"\nrate = \"1e13Gbps\"\n", "event[0].rate"),
        ("action = \"speed\"\n", "event[0].action"),
    ];
    for (keys, want) in bad {
        let e = ev(keys).unwrap_or_else(|| panic!("{keys} accepted"));
        assert!(e.contains(want), "{keys}: {e}");
    }
}
