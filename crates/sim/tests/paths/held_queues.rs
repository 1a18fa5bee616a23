//! Queues that decide at dequeue (CoDel) run through the qdisc path.

use super::*;

fn codel_run(queue: &str, ecn: bool) -> Summary {
    let flows = format!(
        "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 300\ncount = 6\necn = {ecn}"
    );
    run(&path(queue, &flows, "20s", "0s"))
}

/// A queue that decides at dequeue (CoDel) runs in the simulator: every arrival is
/// accounted for (sent, dropped at either end, or still held at the end), its
/// drops at dequeue keep the waiting time near its target where Drop Tail's buffer
/// fills, and with ECN it marks ECN-capable packets instead of dropping them.
#[test]
fn codel_runs_through_the_qdisc_path() {
    let tail = codel_run(r#"{ type = "droptail", limit = 300 }"#, false);
    let codel = codel_run(r#"{ type = "codel", limit = 300 }"#, false);
    for s in [&tail, &codel] {
        let l = &s.links["r1->k1"];
        assert_eq!(l.arrivals, l.departures + l.drops + l.queued_at_end, "{l:?}");
    }
    let (t, c) = (&tail.links["r1->k1"], &codel.links["r1->k1"]);
    assert_eq!(c.queue_type, "codel");
    assert!(c.drops > 0 && c.utilization > 0.9, "{c:?}");
    assert!(c.mean_delay < 0.02 && c.mean_delay * 5.0 < t.mean_delay, "{c:?} {t:?}");
    let ecn = codel_run(r#"{ type = "codel", limit = 300, ecn = true }"#, true);
    let e = &ecn.links["r1->k1"];
    // (only the buffer drops: the start-up overshoot fills it)
    assert!(e.marks > 0 && e.drops == e.overflow_drops, "{e:?}");
    let flow_marks: u64 = ecn.flows.iter().map(|f| f.marks).sum();
    assert_eq!(flow_marks, e.marks);
    assert!(e.mean_delay < 0.02, "{e:?}");
}
