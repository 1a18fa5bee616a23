//! Loss recovery of Tahoe, Reno and NewReno, and the retransmission timer's backoff.

use super::*;

fn losses(variant: &str, drops: &str) -> sim::FlowSummary {
    let flows = format!(
        "[[flow]]\ntype = \"tcp\"\nvariant = \"{variant}\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 40\npackets = 400\ndrop = [{drops}]"
    );
    let s = run(&path(r#"{ type = "droptail", limit = 1000 }"#, &flows, "20s", "0s"));
    let f = s.flows[0].clone();
    assert!(f.completion_time.is_some(), "{variant} [{drops}]: transfer not finished: {f:?}");
    assert_eq!(
        f.goodput_bps * 20.0 / 8.0,
        400.0 * 1000.0,
        "{variant}: every packet delivered once"
    );
    f
}

/// NewReno recovers from 1, 2 and 3 losses in a window with one fast retransmit and no timeout.
#[test]
fn newreno_recovers_without_timeouts() {
    for d in ["100", "100, 103", "100, 103, 106"] {
        let f = losses("newreno", d);
        assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "newreno [{d}]: {f:?}");
    }
}

/// Reno recovers from one loss by fast retransmit; with several losses in a window
/// its first partial ACK ends recovery and the rest waits for a timeout.
#[test]
fn reno_times_out_on_multiple_losses() {
    let f = losses("reno", "100");
    assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "{f:?}");
    for d in ["100, 103", "100, 103, 106"] {
        let f = losses("reno", d);
        assert_eq!(f.timeouts, 1, "reno [{d}]: {f:?}");
    }
}

/// Tahoe answers any number of losses in a window with one fast retransmit and go-back-N slow start.
#[test]
fn tahoe_go_back_n() {
    for d in ["100", "100, 103", "100, 103, 106"] {
        let f = losses("tahoe", d);
        assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "tahoe [{d}]: {f:?}");
        assert!(f.retransmits >= 1);
    }
}

/// While a link is down the retransmission timeout doubles at each expiry (Karn/Jacobson backoff).
#[test]
fn rto_backoff_doubles() {
    let mut toml = path(
        r#"{ type = "droptail", limit = 100 }"#,
        "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 20",
        "200s",
        "0s",
    );
    toml.push_str("[[event]]\nat = \"2s\"\na = \"r1\"\nb = \"k1\"\naction = \"down\"\n");
    let mut sim = Sim::new(scenario(&toml), None).unwrap();
    sim.run().unwrap();
    let t: Vec<f64> = sim.timeout_times(0).iter().map(|t| t.as_secs_f64()).collect();
    assert!(t.len() >= 6, "{t:?}");
    let gaps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    for g in gaps.windows(2).take(4) {
        assert!((g[1] / g[0] - 2.0).abs() < 0.01, "gaps {gaps:?}");
    }
    // Capped at 64 times the base RTO.
    let last = *gaps.last().unwrap();
    let first = gaps[0] / 2.0;
    assert!(last <= 64.0 * first * 1.01 + 1e-9, "gaps {gaps:?}");
}
