//! NewReno's retransmission timer rules (Impatient, Slow-but-Steady).

use super::*;

/// A window that loses many packets: the Impatient timer ends the recovery with
/// one timeout, the Slow-but-Steady timer retransmits one hole per round trip. With a
/// timer of 0.2 s (ns-2's and Linux's minimum, below the 30 round trips of the holes;
/// RFC 6582 Section 4's trade-off turns with RFC 6298's 1 s).
fn many_losses(timer: &str) -> sim::FlowSummary {
    let drops: Vec<String> = (100..160).step_by(2).map(|p| p.to_string()).collect();
    let flows = format!(
        "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 200\nssthresh = 100\nmin_rto = 0.2\nnewreno_timer = \"{timer}\"\ndrop = [{}]",
        drops.join(", ")
    );
    run(&path(r#"{ type = "droptail", limit = 1000 }"#, &flows, "20s", "0s")).flows[0].clone()
}

#[test]
fn impatient_times_out_steady_does_not() {
    let imp = many_losses("impatient");
    let steady = many_losses("steady");
    assert_eq!(steady.timeouts, 0, "steady: {steady:?}");
    assert!(imp.timeouts >= 1, "impatient: {imp:?}");
    // 30 holes: steady needs ~30 round trips (~1.3 s) in recovery, impatient ends sooner.
    assert!(
        imp.goodput_bps > steady.goodput_bps,
        "impatient {} vs steady {}",
        imp.goodput_bps,
        steady.goodput_bps
    );
}

#[test]
fn unknown_timer_is_rejected_with_its_path() {
    let e = Scenario::from_toml_str(&path(
        r#"{ type = "droptail", limit = 10 }"#,
        "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nnewreno_timer = \"slow\"",
        "1s",
        "0s",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("flow[0].newreno_timer") && e.contains("impatient"), "{e}");
}
