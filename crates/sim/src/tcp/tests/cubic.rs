//! CUBIC (RFC 9438) and the keys that give ns-3 3.37's rules.

use super::*;

mod rfc {
    use super::*;

    /// K is the time W_cubic takes to climb from cwnd_epoch back to W_max (RFC 9438
    /// Figure 2), and W_cubic(K) = W_max.
    #[test]
    fn k_brings_w_cubic_back_to_w_max() {
        let p = CubicParams::default();
        for w_max in [10.0, 100.0, 1000.0] {
            let epoch = w_max * p.beta;
            let k = p.k(w_max, epoch);
            assert!((0.4 * k * k * k - (w_max - epoch)).abs() < 1e-9 * w_max);
            assert!((p.w_cubic(0.0, k, w_max) - epoch).abs() < 1e-9 * w_max);
            assert!((p.w_cubic(k, k, w_max) - w_max).abs() < 1e-12);
        }
        // alpha_cubic = 3 (1 - 0.7) / 1.7
        assert!((p.alpha() - 0.9 / 1.7).abs() < 1e-15);
    }

    /// A congestion event sets ssthresh = 0.7 cwnd and W_max = cwnd; with fast
    /// convergence a second event below W_max sets W_max = cwnd (1 + 0.7) / 2.
    #[test]
    fn congestion_event_and_fast_convergence() {
        let mut c = Cubic::new(CubicParams::default(), CubicRules::default());
        assert_eq!(c.on_congestion(100.0), 70.0);
        assert_eq!(c.w_max, 100.0);
        assert_eq!(c.on_congestion(80.0), 56.0);
        assert!((c.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-12);
        let mut c = Cubic::new(
            CubicParams { fast_convergence: false, ..Default::default() },
            CubicRules::default(),
        );
        c.on_congestion(100.0);
        c.on_congestion(80.0);
        assert_eq!(c.w_max, 80.0);
    }

    /// With a small RTT the Reno-friendly estimate W_est (alpha_cubic per RTT, RFC 9438
    /// Figure 4) outgrows W_cubic, and the window follows W_est.
    #[test]
    fn reno_friendly_region_dominates_at_small_rtt() {
        let p = CubicParams::default();
        let mut c = Cubic::new(p, CubicRules::default());
        let w_max = 20.0;
        let mut cwnd = c.on_congestion(w_max);
        let (rtt, epoch) = (0.002, cwnd);
        let k = p.k(w_max, epoch);
        let mut t = 0.0;
        let mut rounds = 0;
        while cwnd < w_max - 1.0 {
            // one round trip: one ACK per packet of the window
            let n = cwnd.floor() as usize;
            for _ in 0..n {
                cwnd = c.on_ack(t, cwnd, rtt);
            }
            t += rtt;
            rounds += 1;
            let w_est = epoch + p.alpha() * rounds as f64;
            assert!(cwnd >= p.w_cubic(t, k, w_max), "round {rounds}: {cwnd}");
            assert!((cwnd - w_est).abs() < 0.6, "round {rounds}: cwnd {cwnd}, W_est {w_est}");
        }
        assert!(cwnd > p.w_cubic(t, k, w_max) + 4.0, "{cwnd} at {t} s");
        // alpha_cubic per round trip: (20 - 1 - 14) / 0.529 = 9.4 rounds, far below K
        assert!(rounds as f64 * rtt < k / 100.0, "{rounds} rounds");
    }

    /// Past cwnd_prior, W_est grows by one packet per round trip (alpha_cubic = 1).
    #[test]
    fn w_est_grows_like_reno_past_cwnd_prior() {
        let p = CubicParams::default();
        let mut c = Cubic::new(p, CubicRules::default());
        let mut cwnd = c.on_congestion(10.0);
        let mut t = 0.0;
        while cwnd < 10.0 {
            for _ in 0..cwnd.floor() as usize {
                cwnd = c.on_ack(t, cwnd, 0.001);
            }
            t += 0.001;
        }
        let start = cwnd;
        for _ in 0..10 {
            let n = cwnd;
            for _ in 0..n.floor() as usize {
                cwnd = c.on_ack(t, cwnd, 0.001);
            }
            t += 0.001;
        }
        assert!((cwnd - start - 10.0).abs() < 1.0, "{start} -> {cwnd} in 10 round trips");
    }

    /// After a timeout the next stage starts with W_max = cwnd_epoch (K = 0).
    #[test]
    fn timeout_restarts_with_k_zero() {
        let mut c = Cubic::new(CubicParams::default(), CubicRules::default());
        c.on_congestion(100.0);
        assert_eq!(c.on_timeout(50.0, 50.0), 35.0);
        c.on_ack(3.0, 35.0, 0.1);
        let (t0, w0, k) = c.epoch.expect("an epoch");
        assert_eq!((t0, w0, k), (3.0, 35.0, 0.0));
        assert_eq!(c.w_max, 35.0);
    }
}

/// The keys that give ns-3 3.37's CUBIC rules (`cubic_reno_friendly`, `cubic_growth`,
/// `cubic_slow_start`, `cubic_timeout`), each against the rule it implements.
mod cubic_rules {
    use super::*;

    fn segments(reno_friendly: bool) -> CubicRules {
        CubicRules { growth: CubicGrowth::Segments, reno_friendly, ..Default::default() }
    }

    /// Segments growth: the reduction is rounded down to whole packets, the window is
    /// a whole number of packets after every ACK and grows by one packet exactly when
    /// `cnt = max(2, floor(cwnd / (target - cwnd)))` packets have been acknowledged
    /// since the last increase, target = W_max - floor(C (K - t - RTT)^3) before K and
    /// W_max + floor(C (t + RTT - K)^3) after it (Linux's and ns-3's integer target).
    #[test]
    fn segments_growth_counts_acks_to_whole_packets() {
        let p = CubicParams::default();
        let mut c = Cubic::new(p, segments(false));
        let ss = c.on_congestion(101.6);
        assert_eq!((ss, c.w_max), ((101.0f64 * 0.7).floor(), 101.0));
        let (rtt, w_max, epoch) = (0.1, 101.0, ss);
        let k = ((w_max - epoch) / p.c).cbrt();
        let (mut cwnd, mut since, mut increases) = (ss, 0u32, 0);
        for i in 0..20_000 {
            let t = i as f64 * 0.001;
            let delta = (p.c * (t + rtt - k).abs().powi(3)).floor();
            let target = if t + rtt < k { w_max - delta } else { w_max + delta };
            let cnt = if target > cwnd { (cwnd / (target - cwnd)).floor() } else { 100.0 * cwnd };
            let cnt = cnt.max(2.0) as u32;
            let next = c.on_ack_n(t, cwnd, rtt, 1);
            since += 1;
            assert_eq!(next.fract(), 0.0, "ACK {i}: {next}");
            if since >= cnt {
                assert_eq!(next, cwnd + 1.0, "ACK {i}: {since} ACKs, cnt {cnt}");
                since -= cnt;
                increases += 1;
            } else {
                assert_eq!(next, cwnd, "ACK {i}: {since} ACKs, cnt {cnt}");
            }
            cwnd = next;
        }
        assert!(increases > 50, "{increases} increases");
        assert!(cwnd > w_max, "past W_max after 20 s: {cwnd}");
    }

    /// Segments growth: cnt >= 2 bounds the increase to one packet per two acknowledged
    /// (1.5 cwnd per round trip), however far above the target is.
    #[test]
    fn segments_growth_is_at_most_half_a_packet_per_ack() {
        let mut c = Cubic::new(CubicParams::default(), segments(false));
        c.on_congestion(10.0);
        let mut cwnd = 7.0;
        // 100 s after the epoch the target is far above: every second ACK adds one
        c.on_ack_n(0.0, cwnd, 0.1, 0);
        for _ in 0..7 {
            cwnd = c.on_ack_n(100.0, cwnd, 0.1, 1);
        }
        assert_eq!(cwnd, 7.0 + (7 / 2) as f64);
    }

    /// Without the Reno-friendly region, at a small W and RTT (where the RFC's window
    /// follows W_est, `reno_friendly_region_dominates_at_small_rtt`), the window
    /// follows W_cubic only: it never passes W_cubic(t + RTT), and stays below W_est.
    #[test]
    fn without_reno_friendly_region_window_follows_w_cubic() {
        let p = CubicParams::default();
        let mut c = Cubic::new(p, CubicRules { reno_friendly: false, ..Default::default() });
        let w_max = 20.0;
        let mut cwnd = c.on_congestion(w_max);
        let (rtt, epoch) = (0.002, cwnd);
        let k = p.k(w_max, epoch);
        let mut t = 0.0;
        for round in 1..=10 {
            for _ in 0..cwnd.floor() as usize {
                cwnd = c.on_ack(t, cwnd, rtt);
                assert!(cwnd <= p.w_cubic(t + rtt, k, w_max) + 1e-9, "round {round}: {cwnd}");
            }
            t += rtt;
            let w_est = epoch + p.alpha() * round as f64;
            assert!(cwnd < w_est - 0.4 * round as f64, "round {round}: {cwnd} vs W_est {w_est}");
        }
        // with the region (the default) the same ACKs follow W_est
        let mut c = Cubic::new(CubicParams::default(), CubicRules::default());
        let mut w = c.on_congestion(w_max);
        for _ in 0..10 {
            for _ in 0..w.floor() as usize {
                w = c.on_ack(0.0, w, rtt);
            }
        }
        assert!(w > cwnd + 3.0, "{w} against {cwnd}");
    }

    /// `cubic_timeout = "reset"`: a timeout during recovery reduces the window without
    /// the inflation, and with W_max forgotten segments growth adds a packet every 20
    /// packets acknowledged even with the target at cwnd (cnt capped at 20), where the
    /// RFC's timeout leaves cnt at 100 cwnd.
    #[test]
    fn reset_timeout_reduces_deflated_window_and_forgets_w_max() {
        let reset = CubicRules { timeout: CubicTimeout::Reset, ..segments(false) };
        let mut c = Cubic::new(CubicParams::default(), reset);
        c.on_congestion(150.0);
        assert_eq!(c.on_timeout(300.0, 105.0), (105.0f64 * 0.7).floor());
        let mut r = Cubic::new(CubicParams::default(), segments(false));
        r.on_congestion(150.0);
        assert_eq!(r.on_timeout(300.0, 105.0), 210.0);
        for (cubic, per_40) in [(&mut c, 2.0), (&mut r, 0.0)] {
            let mut cwnd = 50.0;
            for _ in 0..40 {
                // t = epoch and a tiny RTT: the target is cwnd itself
                cwnd = cubic.on_ack_n(1.0, cwnd, 1e-6, 1);
            }
            assert_eq!(cwnd, 50.0 + per_40);
        }
        // the next congestion event sets W_max = cwnd (no fast convergence against 0)
        c.on_congestion(40.0);
        assert_eq!(c.w_max, 40.0);
    }

    /// `cubic_slow_start = "acked"`: an ACK that covers two packets (delayed ACKs) opens
    /// the window by two; the RFC's slow start by one.
    #[test]
    fn acked_slow_start_counts_packets_acknowledged() {
        for (ss, grown) in [(CubicSlowStart::Acked, 4.0), (CubicSlowStart::Rfc, 3.0)] {
            let mut p = params(Variant::Cubic);
            p.delayed_ack = true;
            p.rules.cubic.slow_start = ss;
            let mut conn = connection(p, 0, 0, 1);
            let mut out = Vec::new();
            conn.0.start(ms(0), &mut out, u32::MAX);
            let sent = seqs(&mut out);
            assert_eq!(sent, vec![0, 1]);
            deliver(&mut conn, &sent, ms(100));
            assert_eq!(conn.0.cwnd, grown, "{ss:?}");
        }
    }
}

/// `cubic_slow_start = "acked"` after a timeout: a cumulative ACK below the highest
/// packet sent before the timeout opens the window by every packet it covers; the ACK
/// that covers it (the end of the go-back-N) opens nothing.
#[test]
fn acked_slow_start_after_timeout() {
    for (ss, after) in [(CubicSlowStart::Acked, [6.0, 6.0]), (CubicSlowStart::Rfc, [2.0, 3.0])] {
        let mut p = params(Variant::Cubic);
        p.rules.cubic.slow_start = ss;
        p.init_cwnd = 10.0;
        p.dupack_threshold = 1000; // no fast retransmit: the timer repairs
        let mut conn = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        conn.0.start(ms(0), &mut out, u32::MAX);
        assert_eq!(seqs(&mut out), (0..10).collect::<Vec<u32>>());
        // packets 0 and 5 are lost
        deliver(&mut conn, &[1, 2, 3, 4, 6, 7, 8, 9], ms(100));
        conn.0.on_timeout(ms(3000), &mut out, u32::MAX);
        assert_eq!(seqs(&mut out), vec![0]);
        deliver(&mut conn, &[0], ms(3100)); // ACK 5: packets 0-4, below the 10 sent
        assert_eq!(conn.0.cwnd, after[0], "{ss:?}");
        deliver(&mut conn, &[5], ms(3200)); // ACK 10: the go-back-N ends
        assert_eq!(conn.0.cwnd, after[1], "{ss:?}");
    }
}

/// RFC 9438's W_est (Figure 4): alpha_cubic (0.529) per window acknowledged below
/// cwnd_prior, 1 past it.
#[test]
fn rfc_reno_alpha_becomes_one_past_cwnd_prior() {
    let p = CubicParams::default();
    let r = CubicRules { growth: CubicGrowth::Segments, ..Default::default() };
    let mut c = Cubic::new(p, r);
    c.note_rtt(0.02);
    assert_eq!(c.on_congestion(30.0), 21.0); // W_max = cwnd_prior = 30
    c.on_ack_n(0.0, 21.0, 0.02, 0); // the stage begins: W_est = 21
    assert_eq!(c.w_est, 21.0);
    for i in 0..21 {
        c.on_ack_n(0.001 * f64::from(i), 21.0, 0.02, 1);
    }
    assert!((c.w_est - (21.0 + p.alpha())).abs() < 1e-9, "{}", c.w_est);
    c.w_est = 35.0;
    for i in 0..40 {
        c.on_ack_n(0.1 + 0.001 * f64::from(i), 40.0, 0.02, 1);
    }
    assert!((c.w_est - 36.0).abs() < 1e-9, "{}", c.w_est);
}

/// `cubic_reno_alpha = "fixed"` is tcp_cubic.c's `tcp_friendliness`: `tcp_cwnd` starts
/// at cwnd with the stage (`ca->tcp_cwnd = cwnd`, `ca->ack_cnt = acked`) and is a whole
/// number of packets: `while (ca->ack_cnt > delta) { ca->ack_cnt -= delta;
/// ca->tcp_cwnd++; }` with `delta = (cwnd * beta_scale) >> 3`, and `beta_scale = 8 *
/// (1024 + 717) / 3 / (1024 - 717)` in integers (15, `cubictcp_register`), below
/// cwnd_prior and past it alike. At cwnd 21 (delta 39), one packet acknowledged per ACK
/// from the stage's start, W_est is 22 from the 40th ACK (40 > 39, 1 left over) and 23
/// from the 79th (1 + 39 > 39); then past cwnd_prior at cwnd 40 (delta 75), with 2 left
/// over, 24 from the 74th (2 + 74 > 75) and 25 from the 149th.
#[test]
fn fixed_reno_alpha_is_tcp_friendliness() {
    let p = CubicParams::default();
    let beta_scale = 8 * (1024 + 717) / 3 / (1024 - 717);
    assert_eq!((p.beta_scale(), beta_scale), (15, 15));
    assert_eq!(((21 * beta_scale) >> 3, (40 * beta_scale) >> 3), (39, 75));
    let r = CubicRules {
        growth: CubicGrowth::Segments,
        reno_alpha: CubicRenoAlpha::Fixed,
        ..Default::default()
    };
    let mut c = Cubic::new(p, r);
    c.note_rtt(0.02);
    assert_eq!(c.on_congestion(30.0), 21.0); // W_max = cwnd_prior = 30
    c.on_ack_n(0.0, 21.0, 0.02, 0); // the stage begins: W_est = 21
    assert_eq!(c.w_est, 21.0);
    let mut grew = Vec::new();
    for i in 1..=80 {
        let before = c.w_est;
        c.on_ack_n(0.001 * f64::from(i), 21.0, 0.02, 1);
        if c.w_est != before {
            grew.push((i, c.w_est));
        }
    }
    assert_eq!(grew, vec![(40, 22.0), (79, 23.0)]);
    // 80 - 39 - 39 = 2 left over; past cwnd_prior (30) the rule is the same
    grew.clear();
    for i in 1..=150 {
        let before = c.w_est;
        c.on_ack_n(0.1 + 0.001 * f64::from(i), 40.0, 0.02, 1);
        if c.w_est != before {
            grew.push((i, c.w_est));
        }
    }
    assert_eq!(grew, vec![(74, 24.0), (149, 25.0)]);
}

/// `cubic_timeout = "linux"` against tcp_input.c's `tcp_enter_loss` and tcp_cubic.c's
/// `cubictcp_recalc_ssthresh` and `cubictcp_state(sk, TCP_CA_Loss)`.
mod linux_timeout {
    use super::*;

    /// A CUBIC sender with SACK, RACK-TLP, PRR and HyStart in congestion avoidance at 20
    /// packets (ssthresh 20), which sent 0..20 at 0 s.
    fn sender(timeout: CubicTimeout) -> (TcpSender, TcpReceiver) {
        let mut p =
            TcpParams { sack: true, init_cwnd: 20.0, ssthresh: 20.0, ..params(Variant::Cubic) };
        p.rules.cubic = CubicRules { growth: CubicGrowth::Linux, timeout, ..Default::default() };
        (p.rules.rack, p.rules.prr, p.rules.hystart) = (true, true, true);
        let mut c = connection(p, 0, 0, 1);
        c.0.start(ms(0), &mut Vec::new(), u32::MAX);
        c
    }

    /// Fire the sender's timers (a tail loss probe first) until a retransmission timeout
    /// has fired; returns when.
    fn time_out(s: &mut TcpSender) -> Time {
        let n = s.stats.timeouts;
        loop {
            let t = s.rtx_deadline.expect("a timer");
            s.on_timeout(t, &mut Vec::new(), u32::MAX);
            if s.stats.timeouts > n {
                return t;
            }
        }
    }

    /// `cubictcp_recalc_ssthresh`: max(cwnd * beta / BICTCP_BETA_SCALE, 2), beta = 717,
    /// in integers.
    fn linux_ssthresh(cwnd: f64) -> f64 {
        f64::from((cwnd as u32 * 717 / 1024).max(2))
    }

    /// In the Open state a timeout takes ssthresh from cwnd as it stands; one repeated
    /// with no ACK of new data since keeps it (`icsk_retransmits` is not zero); after an
    /// ACK of new data (`tcp_ack` zeroes `icsk_retransmits`) the next takes it from the
    /// window then, here the 2 packets of the slow start after the timeout (the RFC's
    /// rule keeps the episode's ssthresh until the ACKs cover what was sent before the
    /// first timeout). Each timeout arms HyStart again (`bictcp_hystart_reset`).
    #[test]
    fn ssthresh_as_tcp_enter_loss_takes_it() {
        for timeout in [CubicTimeout::Linux, CubicTimeout::Rfc] {
            let mut c = sender(timeout);
            // RTT samples at 100 ms; what is sent next is lost
            deliver(&mut c, &(0..10).collect::<Vec<u32>>(), ms(100));
            let w = c.0.cwnd;
            time_out(&mut c.0);
            assert_eq!(c.0.ssthresh, linux_ssthresh(w), "{timeout:?}");
            let armed = c.0.hystart.as_ref().is_some_and(|h| !h.done);
            assert_eq!(armed, timeout == CubicTimeout::Linux, "{timeout:?}: HyStart");
            let first = c.0.ssthresh;
            let t = time_out(&mut c.0);
            assert_eq!(c.0.ssthresh, first, "{timeout:?}: a repeated timeout");
            let una = c.0.snd_una;
            deliver(&mut c, &[una], t + aqm::Duration::from_secs_f64(0.1));
            assert!(c.0.snd_una > una && c.0.in_episode());
            let w = c.0.cwnd;
            time_out(&mut c.0);
            let want = if timeout == CubicTimeout::Linux { linux_ssthresh(w) } else { first };
            assert_eq!(c.0.ssthresh, want, "{timeout:?}: after an ACK of new data, cwnd {w}");
        }
    }

    /// In fast recovery (state Recovery, `snd_una` before `high_seq`) a timeout keeps
    /// the recovery's ssthresh; ns-3 3.37's reset takes 0.7 of it again.
    #[test]
    fn a_timeout_in_recovery_keeps_ssthresh() {
        for (timeout, kept) in [(CubicTimeout::Linux, true), (CubicTimeout::Reset, false)] {
            let mut c = sender(timeout);
            deliver(&mut c, &(1..10).collect::<Vec<u32>>(), ms(100));
            assert!(c.0.in_recovery, "{timeout:?}: 0 deemed lost");
            let ss = c.0.ssthresh;
            assert_eq!(ss, linux_ssthresh(20.0));
            time_out(&mut c.0);
            let want = if kept { ss } else { (ss * 0.7).floor() };
            assert_eq!(c.0.ssthresh, want, "{timeout:?}");
        }
    }
}
