//! CUBIC, DCTCP, SACK, limited transmit and the initial window, each against the
//! property its RFC states.

use super::*;

/// s1 -1 Gb/s 1 ms- r1 -`rate` `delay`- k1, with `queue` at r1 -> k1.
fn line(rate: &str, delay: &str, queue: &str, flow: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "0s"
[[link]]
a = "s1"
b = "r1"
rate = "1Gbps"
delay = "1ms"
queue = {{ type = "droptail", limit = 10000 }}
[[link]]
a = "r1"
b = "k1"
rate = "{rate}"
delay = "{delay}"
queue_ab = {queue}
[[flow]]
src = "s1"
dst = "k1"
{flow}
"#
    )
}

/// Step the simulation by 1 ms to `until` (s), calling `f` with the time and sender.
fn watch(sim: &mut Sim, until: f64, mut f: impl FnMut(f64, &sim::tcp::TcpSender)) {
    let mut k = (sim.now().0 / 1_000_000) + 1;
    while (k as f64) * 1e-3 <= until {
        sim.run_until(aqm::Time(k * 1_000_000)).unwrap();
        f(k as f64 * 1e-3, sim.tcp_sender(0).unwrap());
        k += 1;
    }
}

/// After a single loss CUBIC's window follows W_cubic(t) = C (t - K)^3 + W_max
/// (RFC 9438 Figure 1) with W_max the window at the loss, cwnd_epoch = 0.7 W_max
/// and K = cbrt((W_max - cwnd_epoch) / C) (Figure 2), t from the start of the
/// congestion avoidance stage. 100 Mb/s, RTT 98 ms: the window (~500) stays below
/// the bandwidth-delay product (1225), so no other loss and a constant RTT; the
/// Reno-friendly estimate (+0.53 per RTT) stays far below W_cubic.
#[test]
fn cubic_window_follows_w_cubic_after_a_loss() {
    let toml = line(
        "100Mbps",
        "48ms",
        r#"{ type = "droptail", limit = 10000 }"#,
        "variant = \"cubic\"\nmax_window = 5000\nssthresh = 500\ndrop = [4000]",
        "12s",
    );
    let mut sim = Sim::new(scenario(&toml), None).unwrap();
    let (mut w_loss, mut prev) = (None, 0.0);
    let mut epoch_start = None;
    let mut samples = Vec::new();
    watch(&mut sim, 12.0, |t, s| {
        if w_loss.is_none() && s.stats.fast_retransmits == 1 {
            w_loss = Some(prev);
        }
        prev = s.cwnd;
        // the stage starts at the first ACK that grows the window after recovery
        if w_loss.is_some() && epoch_start.is_none() && !s.in_recovery && s.cwnd > s.ssthresh {
            epoch_start = Some(t);
        }
        samples.push((t, s.cwnd, s.ssthresh));
    });
    let s = sim.tcp_sender(0).unwrap();
    assert_eq!((s.stats.fast_retransmits, s.stats.timeouts, s.stats.retransmits), (1, 0, 1));
    let (w_max, t0) = (w_loss.unwrap(), epoch_start.unwrap());
    assert!(w_max > 480.0 && w_max < 520.0, "window at the loss {w_max}");
    let (c, beta) = (0.4, 0.7);
    let epoch = beta * w_max;
    let k = ((w_max - epoch) / c).cbrt();
    let cub = s.cubic().unwrap();
    assert!((cub.w_max - w_max).abs() < 0.05, "W_max {} observed {w_max}", cub.w_max);
    let (t_epoch, cwnd_epoch, k_state) = cub.epoch.unwrap();
    assert!((cwnd_epoch - epoch).abs() < 0.05 && (k_state - k).abs() < 1e-3, "{cub:?}");
    assert!(t0 - t_epoch >= 0.0 && t0 - t_epoch <= 1e-3, "stage start {t_epoch}, seen {t0}");
    let at = |t: f64| samples.iter().find(|x| x.0 >= t).unwrap();
    assert!((at(t0).2 - epoch).abs() < 0.05, "ssthresh {} = 0.7 W_max", at(t0).2);
    // the concave region, the plateau at K (7.2 s), the convex region
    let pts: Vec<(f64, f64, f64)> = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
        .iter()
        .map(|&dt| (dt, at(t0 + dt).1, c * (dt - k).powi(3) + w_max))
        .collect();
    for &(dt, cwnd, w) in &pts {
        assert!((cwnd - w).abs() < 0.005 * w, "t {dt}: cwnd {cwnd}, W_cubic {w}: {pts:?}");
    }
}

/// DCTCP's alpha tracks the fraction of its packets marked by a queue that marks
/// every arrival finding 20 or more packets waiting (RED with w_q = 1 and max_p =
/// 1 as a step at K = 20), and the flow keeps the link busy without a loss.
#[test]
fn dctcp_alpha_tracks_the_marked_fraction() {
    let toml = line(
        "10Mbps",
        "20ms",
        r#"{ type = "red", limit = 1000, min_th = 19, max_th = 20, w_q = 1, max_p = 1, gentle = true, ecn = true }"#,
        "variant = \"dctcp\"\nmax_window = 1000",
        "40s",
    )
    .replace("warmup = \"0s\"", "warmup = \"10s\"");
    let mut sim = Sim::new(scenario(&toml), None).unwrap();
    let (mut sum, mut n) = (0.0, 0);
    watch(&mut sim, 40.0, |t, s| {
        if t > 10.0 && ((t * 1000.0).round() as u64).is_multiple_of(10) {
            sum += s.dctcp().unwrap().alpha;
            n += 1;
        }
    });
    let summary = sim.run().unwrap();
    let f = &summary.flows[0];
    let frac = f.marks as f64 / f.arrivals as f64;
    let alpha = sum / n as f64;
    assert!(frac > 0.02 && f.drops == 0 && f.timeouts == 0, "{f:?}");
    assert!((alpha - frac).abs() < 0.2 * frac, "mean alpha {alpha}, marked fraction {frac}");
    assert!(summary.links["r1->k1"].utilization > 0.99);
}

/// The recovery from `drops` in one window: its length in round trips (the srtt at
/// its start), the retransmissions sent in its first round trip, and the sender's
/// counters.
fn recovery(keys: &str, drops: &str) -> (f64, u64, sim::FlowSummary) {
    let toml = path(
        r#"{ type = "droptail", limit = 1000 }"#,
        &format!(
            "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 40\npackets = 600\ndrop = [{drops}]\n{keys}"
        ),
        "20s",
        "0s",
    );
    let mut sim = Sim::new(scenario(&toml), None).unwrap();
    let (mut began, mut ended, mut rtt, mut first) = (None, None, 0.0, None);
    watch(&mut sim, 5.0, |t, s| {
        if s.in_recovery && began.is_none() {
            (began, rtt) = (Some(t), s.srtt);
        }
        if began.is_some_and(|b| t >= b + rtt) && first.is_none() {
            first = Some(s.stats.retransmits);
        }
        if !s.in_recovery && began.is_some() && ended.is_none() {
            ended = Some(t);
        }
    });
    let f = sim.run().unwrap().flows[0].clone();
    assert_eq!(f.goodput_bps * 20.0 / 8.0, 600.0 * 1000.0, "{keys}: every packet delivered");
    ((ended.unwrap() - began.unwrap()) / rtt, first.unwrap(), f)
}

/// Four losses in one window: SACK (RFC 6675) retransmits all four in the first
/// round trip of the recovery and ends it in the second, with no timeout; NewReno
/// retransmits one per round trip and needs four.
#[test]
fn sack_repairs_several_losses_in_one_round_trip() {
    let drops = "200, 203, 206, 209";
    for v in ["reno", "newreno", "cubic", "dctcp"] {
        let (rtts, first, f) = recovery(&format!("variant = \"{v}\"\nsack = true"), drops);
        assert_eq!((f.fast_retransmits, f.retransmits, f.timeouts), (1, 4, 0), "{v}: {f:?}");
        assert_eq!(first, 4, "{v} with SACK: retransmissions in the first round trip");
        assert!(rtts < 2.0, "{v} with SACK: recovery took {rtts} round trips");
    }
    let (rtts, first, f) = recovery("newreno_timer = \"steady\"", drops);
    assert_eq!((f.fast_retransmits, f.retransmits, f.timeouts), (1, 4, 0), "{f:?}");
    assert_eq!(first, 1, "NewReno: retransmissions in the first round trip");
    assert!(rtts > 3.5 && rtts < 4.5, "NewReno: recovery took {rtts} round trips");
}

/// The initial window: 10 packets go out before the first ACK can return with
/// `initial_window = 10`; `"rfc6928"` and `"rfc3390"` follow the RFCs' byte rules
/// with MSS = packet size - 40.
#[test]
fn initial_window_sends_in_the_first_round_trip() {
    let first = |keys: &str| {
        let toml = path(
            r#"{ type = "droptail", limit = 1000 }"#,
            &format!("[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\n{keys}"),
            "1s",
            "0s",
        );
        let mut sim = Sim::new(scenario(&toml), None).unwrap();
        // the base RTT is 42 ms plus transmissions
        sim.run_until(aqm::Time(40_000_000)).unwrap();
        sim.tcp_sender(0).unwrap().stats.sent
    };
    assert_eq!(first(""), 2, "the default stays 2");
    assert_eq!(first("initial_window = 10"), 10);
    for size in [576.0, 1000.0, 1500.0, 9000.0] {
        let mss: f64 = size - 40.0;
        let iw10 = ((10.0 * mss).min((2.0 * mss).max(14600.0)) / mss).floor() as u64;
        let iw4 = ((4.0 * mss).min((2.0 * mss).max(4380.0)) / mss).floor() as u64;
        let keys = |r: &str| format!("packet_size = {size}\ninitial_window = \"{r}\"");
        assert_eq!(first(&keys("rfc6928")), iw10, "{size} B");
        assert_eq!(first(&keys("rfc3390")), iw4, "{size} B");
    }
}

/// The new keys at their defaults change nothing.
#[test]
fn defaults_change_nothing() {
    let run_with = |keys: &str| {
        run(&path(
            r#"{ type = "red", limit = 100, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }"#,
            &format!(
                "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\ncount = 5\nstart = {{ uniform = [0, 1] }}\n{keys}"
            ),
            "30s",
            "10s",
        ))
    };
    let keys = "sack = false\nsack_blocks = 3\nlimited_transmit = false\nect1 = false\ninitial_window = 2\ndctcp_g = 0.0625";
    let (mut a, mut b) = (run_with(""), run_with(keys));
    (a.wall_seconds, b.wall_seconds) = (0.0, 0.0);
    assert_eq!(a, b);
}
