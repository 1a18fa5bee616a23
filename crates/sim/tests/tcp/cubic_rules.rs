//! The keys of ns-3 3.37's CUBIC rules reach the senders: with whole-segment growth,
//! ns-3's slow start and timeout every window the sender holds is a whole number of
//! packets, and the run differs from the RFC's.

use super::*;

fn cubic(keys: &str) -> sim::FlowSummary {
    let flows = format!(
        "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"cubic\"\nmax_window = 200\n{keys}"
    );
    run(&path(r#"{ type = "droptail", limit = 30 }"#, &flows, "20s", "10s")).flows[0].clone()
}

#[test]
fn ns3_rules_keep_whole_windows() {
    let ns3 = cubic(
        "cubic_reno_friendly = false\ncubic_growth = \"segments\"\n\
         cubic_slow_start = \"acked\"\ncubic_timeout = \"reset\"\nrto_backoff = \"ack\"",
    );
    let rfc = cubic("");
    assert!(ns3.fast_retransmits > 0, "{ns3:?}");
    assert_eq!(ns3.cwnd.fract(), 0.0, "{ns3:?}");
    assert_eq!(ns3.ssthresh.fract(), 0.0, "{ns3:?}");
    assert_ne!(ns3.mean_cwnd, rfc.mean_cwnd);
}
