//! `[trace] drops`: the congestion signals of a direction, and nothing else.

use super::*;

/// A CSV trace's data rows, split into fields.
fn rows(p: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines().skip(1).map(|l| l.split(',').map(str::to_string).collect()).collect()
}

/// Run `toml` with a packet trace and a drop trace of `r1->k1`; returns the summary,
/// the packet trace's rows and the drop trace's rows.
fn traced(toml: &str, tag: &str) -> (Summary, Vec<Vec<String>>, Vec<Vec<String>>) {
    let dir = std::env::temp_dir().join(format!("aqmlab-drops-{tag}-{}", std::process::id()));
    let t = format!("{toml}\n[trace]\npackets = [\"r1->k1\"]\ndrops = [\"r1->k1\"]\n");
    let s = sim::run(scenario(&t), Some(&dir)).unwrap();
    let (p, d) = (rows(&dir.join("packets.csv")), rows(&dir.join("drops.csv")));
    std::fs::remove_dir_all(&dir).ok();
    (s, p, d)
}

/// ECN and non-ECN TCP flows and a Poisson source through the queue `queue`, from
/// time 0 (the window is the whole run, so the summary counts every signal).
fn mixed(queue: &str) -> String {
    let flows = r#"
[[flow]]
src = "s1"
dst = "k1"
max_window = 200
count = 3
ecn = true
[[flow]]
src = "s1"
dst = "k1"
max_window = 200
count = 2
[[flow]]
type = "poisson"
src = "s1"
dst = "k1"
rate = "2Mbps"
"#;
    path(queue, flows, "15s", "0s")
}

/// The packet trace's drop and mark rows as the drop trace writes them
/// (`time, link, flow, seq, event`).
fn signals_of(packets: &[Vec<String>]) -> Vec<Vec<String>> {
    (packets.iter())
        .filter(|r| r[2] == "x" || r[2] == "m")
        .map(|r| vec![r[0].clone(), r[1].clone(), r[3].clone(), r[4].clone(), r[2].clone()])
        .collect()
}

fn count(rows: &[Vec<String>], ev: &str) -> u64 {
    rows.iter().filter(|r| r[4] == ev).count() as u64
}

/// Disciplines deciding at arrival (RED marking and dropping, Random Drop evicting):
/// the drop trace is the packet trace's `x` and `m` rows, and its counts are the
/// link summary's drops and marks.
#[test]
fn drop_trace_is_the_packet_traces_signals() {
    let queues = [
        r#"{ type = "red", limit = 60, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, ecn = true }"#,
        r#"{ type = "randomdrop", limit = 30 }"#,
        r#"{ type = "droptail", limit = 30 }"#,
    ];
    for (i, q) in queues.iter().enumerate() {
        let (s, packets, drops) = traced(&mixed(q), &i.to_string());
        let l = &s.links["r1->k1"];
        assert!(l.drops > 50, "{q}: {l:?}");
        assert_eq!(drops, signals_of(&packets), "{q}");
        assert_eq!(count(&drops, "x"), l.drops, "{q}");
        assert_eq!(count(&drops, "m"), l.marks, "{q}");
        assert_eq!(drops.len() as u64, l.drops + l.marks, "{q}: only x and m rows");
        if i == 0 {
            assert!(l.marks > 50, "{l:?}");
        }
    }
}

/// A discipline deciding at dequeue (CoDel with ECN): drops at either end and marks at
/// dequeue are in the drop trace once each, as the summary counts them.
#[test]
fn drop_trace_counts_codels_signals() {
    let q = r#"{ type = "codel", limit = 100, ecn = true }"#;
    let (s, packets, drops) = traced(&mixed(q), "codel");
    let l = &s.links["r1->k1"];
    assert!(l.drops > 20 && l.marks > 20, "{l:?}");
    assert_eq!(count(&drops, "x"), l.drops);
    assert_eq!(count(&drops, "m"), l.marks);
    let x = |r: &Vec<Vec<String>>| r.iter().filter(|r| r[4] == "x").cloned().collect::<Vec<_>>();
    assert_eq!(x(&drops), x(&signals_of(&packets)));
    // a mark's row names a packet that left the queue marked at that instant
    let marked_departures: std::collections::HashSet<(String, String, String)> = (packets.iter())
        .filter(|r| r[2] == "d" && r[7] == "1")
        .map(|r| (r[0].clone(), r[3].clone(), r[4].clone()))
        .collect();
    for r in drops.iter().filter(|r| r[4] == "m") {
        assert!(marked_departures.contains(&(r[0].clone(), r[2].clone(), r[3].clone())), "{r:?}");
    }
}

/// The drop trace alone (no packet trace) gives the same rows, and the summary of the
/// run without traces.
#[test]
fn drop_trace_alone_changes_nothing() {
    let q = r#"{ type = "red", limit = 60, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, ecn = true }"#;
    let toml = mixed(q);
    let (s_both, _, drops_both) = traced(&toml, "both");
    let dir = std::env::temp_dir().join(format!("aqmlab-drops-alone-{}", std::process::id()));
    let s = sim::run(scenario(&format!("{toml}\n[trace]\ndrops = [\"r1->k1\"]\n")), Some(&dir))
        .unwrap();
    let drops = rows(&dir.join("drops.csv"));
    assert!(!dir.join("packets.csv").exists());
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(drops, drops_both);
    let plain = run(&toml);
    for s in [&s, &s_both] {
        assert_eq!(s.links, plain.links);
        assert_eq!(s.flows, plain.flows);
    }
}

#[test]
fn drop_trace_names_a_direction() {
    let t = format!(
        "{}\n[trace]\ndrops = [\"k1->s1\"]\n",
        mixed(r#"{ type = "droptail", limit = 50 }"#)
    );
    let e = Scenario::from_toml_str(&t).unwrap_err().to_string();
    assert!(e.contains("trace.drops[0]") && e.contains("a link direction"), "{e}");
}
