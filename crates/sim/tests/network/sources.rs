//! Open-loop sources (Poisson, batch Poisson, Pareto ON/OFF, TELNET), the preparation
//! delay and finite transfers.

use super::*;

fn one(flow: &str) -> Summary {
    run(&path(
        r#"{ type = "droptail", limit = 10000 }"#,
        &format!("[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\n{flow}"),
        "200s",
        "0s",
    ))
}

/// Poisson and batch-Poisson sources deliver their mean rate.
#[test]
fn poisson_and_batch_rates() {
    let p = &one("type = \"poisson\"\nrate = \"2Mbps\"").flows[0];
    assert!((p.goodput_bps - 2e6).abs() / 2e6 < 0.02, "{p:?}");
    let b = one("type = \"batch_poisson\"\nrate = \"2Mbps\"\nbatch = 10");
    let f = &b.flows[0];
    assert!((f.goodput_bps - 2e6).abs() / 2e6 < 0.06, "{f:?}");
    assert_eq!(f.sent % 10, 0, "whole batches");
    // Batches queue behind each other: a batch of 10 waits longer than Poisson singles.
    assert!(
        b.links["s1->r1"].mean_delay
            > one("type = \"poisson\"\nrate = \"2Mbps\"").links["s1->r1"].mean_delay
    );
}

/// A Pareto ON/OFF source sends at its peak rate for a fraction on/(on+off) of the time.
#[test]
fn pareto_onoff_mean_rate() {
    let f = &one("type = \"pareto_onoff\"\nrate = \"4Mbps\"\non_time = \"0.5s\"\noff_time = \"1.5s\"\nshape = 1.5").flows[0];
    let want = 4e6 * 0.5 / 2.0;
    assert!((f.goodput_bps - want).abs() / want < 0.25, "{f:?}");
}

/// A TELNET source writes one packet per exponential interval of mean `interval`.
#[test]
fn telnet_packet_rate() {
    let f = &one("type = \"telnet\"\ninterval = \"0.1s\"\npacket_size = 100").flows[0];
    let pkts = f.delivered as f64;
    assert!((pkts - 2000.0).abs() < 150.0, "{f:?}");
    assert_eq!(f.timeouts, 0);
}

/// A CBR source with a packet-preparation delay U[0, t] keeps its mean rate.
#[test]
fn prep_delay_keeps_rate() {
    let f = &one("type = \"cbr\"\nrate = \"1Mbps\"\nprep_delay = \"4ms\"").flows[0];
    let want = 1e6 * 8.0 / (8.0 + 0.002 * 1e6 / 1000.0 * 8.0 / 8.0 * 1.0);
    assert!((f.goodput_bps - want).abs() / want < 0.01, "{f:?} vs {want}");
}

/// A finite transfer of N packets delivers N packets and stops.
#[test]
fn finite_transfer() {
    let f = &one("type = \"tcp\"\npackets = 500\nmax_window = 30").flows[0];
    assert_eq!(f.delivered, 500);
    assert!(f.completion_time.unwrap() < 5.0, "{f:?}");
}
