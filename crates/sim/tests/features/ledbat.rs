//! LEDBAT (RFC 6817, `variant = "ledbat"`): a window steered by the queueing delay
//! toward `ledbat_target`, yielding to loss-based TCP.

use super::*;

/// The bottleneck of [`path`], s1's packets through r1 -> k1.
fn bottleneck(s: &Summary) -> &aqm::stats::LinkSummary {
    &s.links["r1->k1"]
}

/// One LEDBAT flow alone keeps the bottleneck's queueing delay at its target. The
/// tolerance follows from what the sender sees: its current delay is the minimum of
/// the last `CURRENT_FILTER` samples, consecutive packets' delays differ by about one
/// transmission time each, so the filtered value may sit up to that many transmissions
/// below the delay the queue holds, plus the transmission of the sampled packet
/// itself, which the base delay's sample holds as well (one more either way).
#[test]
fn alone_it_holds_the_queueing_delay_at_its_target() {
    let tx = 1000.0 * 8.0 / 10e6;
    let tol = (sim::tcp::ledbat::CURRENT_FILTER as f64 + 1.0) * tx;
    // (with a preparation delay the simulator sends some packets after the ACK that
    // opened the window, in events of their own: their send times count from then)
    for (target, prep) in [(0.025, 0.0), (0.060, 0.0), (0.025, 0.0005), (0.060, 0.0005)] {
        let flow = format!(
            "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"ledbat\"\nmax_window = 1000\nledbat_target = \"{}ms\"\nprep_delay = {prep}\n",
            target * 1e3
        );
        let s = run(&path(r#"{ type = "droptail", limit = 1000 }"#, &flow, "90s", "30s"));
        let b = bottleneck(&s);
        assert!(
            (b.mean_delay - target).abs() < tol,
            "target {target} prep {prep}: {} (tol {tol})",
            b.mean_delay
        );
        assert!(b.utilization > 0.99, "target {target} prep {prep}: utilization {}", b.utilization);
        assert_eq!(b.drops, 0, "target {target} prep {prep}: no loss below the buffer");
    }
}

/// Beside a NewReno flow that keeps a 300-packet Drop Tail buffer (up to 240 ms) from
/// draining below the 100 ms target, LEDBAT yields: its window falls to MIN_CWND and
/// its goodput to a few percent of NewReno's, where alone on the same path it takes
/// nearly all of the link.
#[test]
fn beside_newreno_it_yields() {
    let ledbat = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"ledbat\"\nmax_window = 1000\nstart = \"1s\"\n";
    let reno = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 1000\n";
    let q = r#"{ type = "droptail", limit = 300 }"#;
    let both = run(&path(q, &format!("{ledbat}{reno}"), "120s", "30s"));
    let (l, r) = (&both.flows[0], &both.flows[1]);
    assert!(bottleneck(&both).mean_delay > 0.100, "{}", bottleneck(&both).mean_delay);
    assert!(
        l.goodput_bps < 0.05 * r.goodput_bps,
        "LEDBAT {} NewReno {}",
        l.goodput_bps,
        r.goodput_bps
    );
    // MIN_CWND (2 packets) per round trip at the least, the round trip at most
    // 42 ms plus the full buffer's 240 ms (and the sampled packet's transmissions)
    let floor = 2.0 * 8000.0 / (0.042 + 0.240 + 0.01);
    assert!(l.goodput_bps > 0.9 * floor, "LEDBAT {} floor {floor}", l.goodput_bps);
    let alone = run(&path(q, ledbat, "120s", "30s"));
    assert!(alone.flows[0].goodput_bps > 0.95 * 10e6, "alone {}", alone.flows[0].goodput_bps);
}

/// With ECN, a CE mark is answered as a loss (RFC 6817 Section 2.4.2 via RFC 3168):
/// RED marking at a 5-to-15-packet average keeps the queue far below the 100 ms (125
/// packets) the target would allow, with no drop.
#[test]
fn a_ce_echo_reduces_like_a_loss() {
    let flow = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"ledbat\"\nmax_window = 1000\necn = true\n";
    let q = r#"{ type = "red", limit = 1000, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, ecn = true }"#;
    let s = run(&path(q, flow, "60s", "20s"));
    let b = bottleneck(&s);
    assert!(b.marks > 0 && b.drops == 0, "marks {} drops {}", b.marks, b.drops);
    assert!(b.mean_queue < 30.0, "mean queue {}", b.mean_queue);
    // without ECN the same RED drops instead
    let s = run(&path(q, &flow.replace("ecn = true\n", ""), "60s", "20s"));
    assert!(bottleneck(&s).drops > 0 && bottleneck(&s).mean_queue < 30.0);
}

/// The keys are checked with their ranges; a LEDBAT flow's normalised parameters
/// carry them, other flows' do not.
#[test]
fn keys_and_ranges() {
    for (k, v, allowed) in [
        ("ledbat_target", "\"0s\"", "(0, 10] s"),
        ("ledbat_target", "\"11s\"", "(0, 10] s"),
        ("ledbat_gain", "0", "(0, 100]"),
        ("ledbat_gain", "101", "(0, 100]"),
        ("ledbat_base_history", "0", "1"),
    ] {
        let flow =
            format!("[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"ledbat\"\n{k} = {v}\n");
        let e = Scenario::from_toml_str(&path(
            r#"{ type = "droptail", limit = 10 }"#,
            &flow,
            "1s",
            "0s",
        ))
        .err()
        .unwrap_or_else(|| panic!("{k} = {v} accepted"))
        .to_string();
        assert!(e.contains(k) && e.contains(allowed), "{k} = {v}: {e}");
    }
    let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"ledbat\"\nledbat_gain = 2\n[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\n";
    let n = scenario(&path(r#"{ type = "droptail", limit = 10 }"#, flows, "1s", "0s"))
        .normalized()
        .unwrap();
    let tcp = |i: usize| n.flows[i].tcp.clone().unwrap();
    let l = tcp(0).ledbat.unwrap();
    assert_eq!((l.gain, l.target, l.base_history), (2.0, 0.1, 10));
    assert_eq!(tcp(1).ledbat, None, "(and so left out of the serialised form)");
}
