//! A single path: one TCP flow, slow start, CBR below capacity, packet conservation.

use super::*;

/// One TCP flow over an idle path fills the bottleneck and loses nothing.
#[test]
fn one_tcp_flow_fills_the_link() {
    let s = run(&path(
        r#"{ type = "droptail", limit = 300 }"#,
        "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\nssthresh = 16",
        "20s",
        "5s",
    ));
    let l = &s.links["r1->k1"];
    assert!(l.utilization > 0.99, "utilization {}", l.utilization);
    assert_eq!(l.drops, 0);
    let f = &s.flows[0];
    assert!((f.goodput_bps - 10e6).abs() / 10e6 < 0.01, "goodput {}", f.goodput_bps);
    assert!((f.throughput_bps - 10e6).abs() / 10e6 < 0.01, "throughput {}", f.throughput_bps);
    assert_eq!(f.timeouts, 0);
}

/// cwnd doubles every round trip up to ssthresh, then grows by about one packet per round trip.
#[test]
fn cwnd_slow_start_then_linear() {
    let sc = scenario(&path(
        r#"{ type = "droptail", limit = 300 }"#,
        "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\nssthresh = 16\ninit_cwnd = 1",
        "3s",
        "0s",
    ));
    let mut sim = Sim::new(sc, None).unwrap();
    let mut samples = Vec::new();
    for k in 1..=3000u64 {
        sim.run_until(aqm::Time(k * 1_000_000)).unwrap();
        samples.push((k as f64 * 1e-3, sim.cwnd(0).unwrap()));
    }
    // Base RTT: 2 * (1 + 20) ms plus transmission times, about 43 ms.
    let at = |t: f64| samples.iter().find(|(x, _)| *x >= t).unwrap().1;
    // Slow start: 1, 2, 4, 8, 16 after about four round trips.
    let t16 = samples.iter().find(|(_, c)| *c >= 16.0).unwrap().0;
    assert!(t16 > 3.0 * 0.043 && t16 < 4.0 * 0.043 + 0.01, "cwnd reached 16 at {t16}");
    assert!(at(0.05) <= 2.0 + 1e-9, "cwnd after one RTT: {}", at(0.05));
    // Congestion avoidance: about one packet per RTT (RTT grows a little with cwnd).
    let gained = at(t16 + 1.0) - 16.0;
    assert!(gained > 18.0 && gained < 24.0, "gained {gained} packets in 1 s (~23 RTTs)");
}

/// A CBR flow below capacity loses nothing and gets its rate.
#[test]
fn cbr_below_capacity() {
    let s = run(&path(
        r#"{ type = "droptail", limit = 50 }"#,
        "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"5Mbps\"\npacket_size = 500",
        "10s",
        "1s",
    ));
    let f = &s.flows[0];
    assert_eq!(f.drops, 0);
    assert!((f.goodput_bps - 5e6).abs() / 5e6 < 0.001, "goodput {}", f.goodput_bps);
    assert!((s.links["r1->k1"].utilization - 0.5).abs() < 0.001);
    assert!(s.links["r1->k1"].mean_queue < 1e-9, "a CBR flow below capacity never waits");
}

/// Every packet offered to a queue departs, is dropped or is still waiting.
#[test]
fn packet_conservation_at_every_queue() {
    for q in [
        r#"{ type = "droptail", limit = 20 }"#,
        r#"{ type = "droptail", limit = 20, drop_front = true }"#,
        r#"{ type = "randomdrop", limit = 20 }"#,
        r#"{ type = "red", limit = 30, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }"#,
        r#"{ type = "ared", limit = 60 }"#,
        r#"{ type = "droptail", limit_bytes = 15000 }"#,
    ] {
        let flows = "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 200\ncount = 5\nstart = { uniform = [0, 1] }\n\
                     [[flow]]\ntype = \"poisson\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"3Mbps\"\n\
                     [[flow]]\ntype = \"cbr\"\nsrc = \"k1\"\ndst = \"s1\"\nrate = \"9.9Mbps\"";
        let s = run(&path(q, flows, "10s", "0s"));
        let mut total_drops = 0;
        for (name, l) in &s.links {
            assert_eq!(l.arrivals, l.departures + l.drops + l.queued_at_end, "{q}: {name}: {l:?}");
            total_drops += l.drops;
        }
        assert!(total_drops > 0, "{q}: the test needs drops");
        let flow_drops: u64 = s.flows.iter().map(|f| f.drops).sum();
        assert!(flow_drops <= total_drops, "{q}");
    }
}
