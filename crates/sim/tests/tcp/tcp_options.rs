//! TCP options: delayed ACKs, Lin & Morris's NewReno, tiny windows.

use super::*;

/// With delayed ACKs the receiver sends about one ACK per two data packets.
#[test]
fn delayed_acks_halve_the_acks() {
    let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\ndelayed_ack = true";
    let s = run(&path(r#"{ type = "droptail", limit = 1000 }"#, flows, "20s", "5s"));
    let data = s.links["r1->k1"].arrivals as f64;
    let acks = s.links["k1->r1"].arrivals as f64;
    assert!((acks / data - 0.5).abs() < 0.02, "{acks} ACKs for {data} packets");
    assert!(s.links["r1->k1"].utilization > 0.99);
}

/// Lin & Morris's NewReno (11.2) recovers from three losses in a window without a timeout.
#[test]
fn lin_morris_newreno() {
    let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 40\npackets = 400\nnewreno = \"lin_morris\"\ndrop = [100, 103, 106]";
    let s = run(&path(r#"{ type = "droptail", limit = 1000 }"#, flows, "20s", "0s"));
    let f = &s.flows[0];
    assert_eq!((f.timeouts, f.delivered), (0, 400), "{f:?}");
}

/// With a window of 3 a single loss needs a timeout, unless the 11.3 tiny-window rule is on.
#[test]
fn tiny_window_avoids_timeout() {
    let run_with = |tiny: bool| {
        let flows = format!(
            "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 3\npackets = 100\ndrop = [50]\ntiny_window = {tiny}"
        );
        run(&path(r#"{ type = "droptail", limit = 1000 }"#, &flows, "30s", "0s")).flows[0].clone()
    };
    let plain = run_with(false);
    let tiny = run_with(true);
    assert_eq!((plain.timeouts, plain.delivered), (1, 100), "{plain:?}");
    assert_eq!((tiny.timeouts, tiny.fast_retransmits, tiny.delivered), (0, 1, 100), "{tiny:?}");
}
