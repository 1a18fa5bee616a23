//! ECN: RED marks instead of dropping, and the senders back off.

use super::*;

/// With ECN, RED marks instead of dropping and the senders back off without losses.
#[test]
fn red_marks_ecn_flows() {
    let flows = "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 200\ncount = 4\necn = true";
    let s = run(&path(
        r#"{ type = "red", limit = 300, min_th = 5, max_th = 30, w_q = 0.002, max_p = 0.1, ecn = true, gentle = true }"#,
        flows,
        "20s",
        "5s",
    ));
    let l = &s.links["r1->k1"];
    assert!(l.marks > 10, "{l:?}");
    assert_eq!(l.drops, 0, "{l:?}");
    assert!(l.utilization > 0.9);
    assert!(l.mean_avg > 5.0 && l.mean_avg < 30.0, "{l:?}");
}
