//! Web mice: transfers on a pool of connections.

use super::*;

/// Web mice: Poisson arrivals of Pareto-sized transfers complete on a pool of connections.
#[test]
fn web_mice_transfers_complete() {
    let flows = "[[flow]]\ntype = \"web\"\nsrc = \"s1\"\ndst = \"k1\"\narrival_rate = 20\nmean_packets = 12\nshape = 1.2\nmax_transfers = 50\nmax_window = 64";
    let s = run(&path(
        r#"{ type = "red", limit = 100, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }"#,
        flows,
        "100s",
        "10s",
    ));
    assert_eq!(s.flows.len(), 50);
    let transfers: u64 = s.flows.iter().map(|f| f.transfers).sum();
    // About 20 per second over 90 s.
    assert!((transfers as f64 - 1800.0).abs() < 200.0, "{transfers}");
    assert_eq!(s.flows[0].rejected, 0);
    let fct: f64 =
        s.flows.iter().filter_map(|f| f.mean_fct.map(|m| m * f.transfers as f64)).sum::<f64>()
            / transfers as f64;
    assert!(fct > 0.04 && fct < 2.0, "mean completion time {fct}");
    // Offered load ~ 20 * 12 * 8000 b/s = 1.9 Mb/s (heavy-tailed: loose bounds).
    let load = s.links["r1->k1"].throughput_bps;
    assert!(load > 0.8e6 && load < 4e6, "{load}");
}
