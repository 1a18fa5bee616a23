//! One TCP flow on a long fat path with the default TCP (defaults a user can live with): 100
//! Mb/s, 100 ms of round trip, a Drop Tail buffer of one bandwidth-delay product, 1500-B
//! packets, every key at its default but the variant. A window that fast recovery
//! inflates never becomes ssthresh or W_max, so the time-average window stays below
//! twice what the path holds (BDP + buffer); a sender that can repair a window's losses
//! in one round trip (SACK, RFC 6675; the `linux` profile) and NewReno, whose window
//! grows by one packet per round trip so that the buffer overflows by one packet, keep
//! the link busy (CUBIC without SACK does not, below).
//! `benchmarks/tcp/long_fat_path.py` prints the same figures over 300 s.

use super::*;

/// Packets in flight the path holds without a queue (100 Mb/s x 100 ms / 1500 B).
const BDP: f64 = 833.0;

/// The flow `flow` (keys of a `[[flow]]` table) alone on the path for 120 s, measured
/// over [50 s, 120 s]: (utilization, time-average window, timeouts).
fn alone(flow: &str) -> (f64, f64, u64) {
    let toml = format!(
        r#"
duration = "120s"
warmup = "50s"
bottleneck = "r1->k1"
[[link]]
a = "s1"
b = "r1"
rate = "1Gbps"
delay = "1ms"
queue = {{ type = "droptail", limit = 8330 }}
[[link]]
a = "r1"
b = "k1"
rate = "100Mbps"
delay = "49ms"
queue = {{ type = "droptail", limit = {BDP} }}
[[flow]]
src = "s1"
dst = "k1"
packet_size = 1500
{flow}
"#
    );
    let s = run(&toml);
    let f = &s.flows[0];
    (s.links["r1->k1"].utilization, f.mean_cwnd, f.timeouts)
}

#[test]
fn a_flow_that_repairs_a_window_in_a_round_trip_fills_the_path() {
    let bound = 2.0 * (BDP + BDP);
    for flow in ["variant = \"cubic\"\nsack = true", "variant = \"newreno\"", "profile = \"linux\""]
    {
        let (u, w, timeouts) = alone(flow);
        assert!(u >= 0.95 && w < bound && timeouts == 0, "{flow}: {u} {w} {timeouts}");
    }
}

/// CUBIC without SACK: the reductions never take a window that fast recovery
/// inflated, so the time-average window stays below 2 x (BDP + buffer) (with the
/// inflated window as ssthresh and W_max it was tens of thousands of packets). Its
/// utilization stays near 0.8: after a timeout RFC 9438 Section 4.8 restarts the cubic
/// curve with K = 0, whose convex growth overflows the buffer by tens of packets in a
/// round trip; NewReno's recovery repairs one per round trip and restarts the timer at
/// the first partial ACK only (RFC 6582 Section 3.2 step 5, the Impatient variant), so
/// such a window ends in the next timeout.
#[test]
fn cubic_without_sack_reduces_from_the_window_before_inflation() {
    let (_, w, _) = alone("variant = \"cubic\"");
    assert!(w < 2.0 * (BDP + BDP), "{w}");
}
