//! Unit tests of the senders and the receiver, driven packet by packet.

use aqm::Time;
use rand::{Rng, SeedableRng};

use super::*;
use crate::packet::{Pkt, flags};

fn params(variant: Variant) -> TcpParams {
    TcpParams { variant, max_window: 1000, ..TcpParams::default() }
}

fn ms(t: u64) -> Time {
    Time(t * 1_000_000)
}

/// The data packets' numbers in `out`, which is emptied.
fn seqs(out: &mut Vec<Pkt>) -> Vec<u32> {
    out.drain(..).filter(|p| !p.is_ack()).map(|p| p.seq).collect()
}

/// Deliver data packets `s` to the receiver and their ACKs to the sender at time `t`;
/// returns what the sender sent in answer.
fn deliver(c: &mut (TcpSender, TcpReceiver), s: &[u32], t: Time) -> Vec<u32> {
    let mut acks = Vec::new();
    for &q in s {
        let d = Pkt { seq: q, size: 1000, ..Pkt::default() };
        c.1.on_data(t, &d, &mut acks);
    }
    let mut out = Vec::new();
    for a in acks {
        c.0.on_ack(t, &a, &mut out, u32::MAX);
    }
    seqs(&mut out)
}

mod cubic {
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
        let mut c = Cubic::new(CubicParams::default());
        assert_eq!(c.on_congestion(100.0), 70.0);
        assert_eq!(c.w_max, 100.0);
        assert_eq!(c.on_congestion(80.0), 56.0);
        assert!((c.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-12);
        let mut c = Cubic::new(CubicParams { fast_convergence: false, ..Default::default() });
        c.on_congestion(100.0);
        c.on_congestion(80.0);
        assert_eq!(c.w_max, 80.0);
    }

    /// With a small RTT the Reno-friendly estimate W_est (alpha_cubic per RTT, RFC 9438
    /// Figure 4) outgrows W_cubic, and the window follows W_est.
    #[test]
    fn reno_friendly_region_dominates_at_small_rtt() {
        let p = CubicParams::default();
        let mut c = Cubic::new(p);
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
        let mut c = Cubic::new(p);
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
        let mut c = Cubic::new(CubicParams::default());
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

    fn segments(reno_friendly: bool) -> CubicParams {
        CubicParams { growth: CubicGrowth::Segments, reno_friendly, ..Default::default() }
    }

    /// Segments growth: the reduction is rounded down to whole packets, the window is
    /// a whole number of packets after every ACK and grows by one packet exactly when
    /// `cnt = max(2, floor(cwnd / (target - cwnd)))` packets have been acknowledged
    /// since the last increase, target = W_max - floor(C (K - t - RTT)^3) before K and
    /// W_max + floor(C (t + RTT - K)^3) after it (Linux's and ns-3's integer target).
    #[test]
    fn segments_growth_counts_acks_to_whole_packets() {
        let p = segments(false);
        let mut c = Cubic::new(p);
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
        let mut c = Cubic::new(segments(false));
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
        let p = CubicParams { reno_friendly: false, ..Default::default() };
        let mut c = Cubic::new(p);
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
        let mut c = Cubic::new(CubicParams::default());
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
        let reset = CubicParams { timeout: CubicTimeout::Reset, ..segments(false) };
        let mut c = Cubic::new(reset);
        c.on_congestion(150.0);
        assert_eq!(c.on_timeout(300.0, 105.0), (105.0f64 * 0.7).floor());
        let mut r = Cubic::new(segments(false));
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
            p.cubic.slow_start = ss;
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
        p.cubic.slow_start = ss;
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

/// `recover_rule`: after a timeout whose go-back-N resent packets the receiver held,
/// their duplicate ACKs arrive once everything sent before the timeout is acknowledged
/// (ack == recover). `cover` lets three of them start a fast retransmit; `beyond` (RFC
/// 6582 "covers more than recover", ns-2's `highest_ack_ > recover_`) does not.
#[test]
fn recover_rule_at_the_recovery_point() {
    for (rule, fast_retransmits) in [(RecoverRule::Cover, 1), (RecoverRule::Beyond, 0)] {
        let mut p = params(Variant::NewReno);
        p.recover_rule = rule;
        p.init_cwnd = 4.0;
        let mut conn = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        conn.0.start(ms(0), &mut out, u32::MAX);
        assert_eq!(seqs(&mut out), vec![0, 1, 2, 3]);
        deliver(&mut conn, &[1, 2], ms(100)); // packet 0 lost, 3 delayed: 2 duplicates
        conn.0.on_timeout(ms(3000), &mut out, u32::MAX); // recover = 4
        assert_eq!(seqs(&mut out), vec![0]);
        let sent = deliver(&mut conn, &[0], ms(3100)); // ACK 3: cwnd 2, go back to 1..
        assert_eq!(sent, vec![3, 4], "packet 3 resent (go-back-N), 4 new");
        let sent = deliver(&mut conn, &[3], ms(3150)); // ACK 4 == recover
        assert_eq!(sent, vec![5], "new data only");
        // the go-back-N's needless copies of 1 and 2 and the original 3, which the
        // receiver holds, each raise a duplicate ACK of 4 == recover (data outstanding)
        let before = conn.0.stats.fast_retransmits;
        deliver(&mut conn, &[1, 2, 3], ms(3200));
        assert_eq!(conn.0.stats.fast_retransmits - before, fast_retransmits, "{rule:?}");
    }
}

/// `rto_backoff`: what ends the timer's exponential backoff.
mod rto_backoff {
    use super::*;

    /// After a timeout, the ACK of the retransmitted packet is no valid RTT sample
    /// (Karn): with `karn` the timer restarts with the doubled RTO, with `ack` with the
    /// estimator's RTO again.
    #[test]
    fn ack_of_a_retransmission_ends_backoff_only_with_ack() {
        for (mode, factor) in [(RtoBackoff::Karn, 2.0), (RtoBackoff::Ack, 1.0)] {
            let p = TcpParams { rto_backoff: mode, ..params(Variant::NewReno) };
            let rto = p.initial_rto;
            let mut conn = connection(p, 0, 0, 1);
            let mut out = Vec::new();
            conn.0.start(ms(0), &mut out, u32::MAX);
            assert_eq!(seqs(&mut out), vec![0, 1]);
            conn.0.on_timeout(ms(3000), &mut out, u32::MAX);
            assert_eq!(seqs(&mut out), vec![0], "go back to the first packet");
            deliver(&mut conn, &[0], ms(3100));
            let left = conn.0.rtx_deadline.expect("packet 1 outstanding") - ms(3100);
            assert!((left.as_secs_f64() - factor * rto).abs() < 1e-6, "{mode:?}: {left:?}");
        }
    }
}

/// `rtt_sampling`: one timed segment per round trip feeds the estimator once, every
/// ACK of a segment sent once feeds it each time (RFC 6298 Section 2's gains: srtt =
/// 7/8 srtt + 1/8 r after the first sample r0, rttvar = 3/4 rttvar + 1/4 |srtt - r|);
/// with `"ack"` the samples keep their resolution and the RTO, srtt + max(tick, 4
/// rttvar), is not rounded up to the tick (ns-3's estimator).
#[test]
fn rtt_sampling_segment_or_ack() {
    for mode in [RttSampling::Segment, RttSampling::Ack] {
        let p = TcpParams { rtt_sampling: mode, ..params(Variant::NewReno) };
        let (tick, min_rto) = (p.tick, p.min_rto);
        let mut conn = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        conn.0.start(ms(0), &mut out, u32::MAX);
        assert_eq!(seqs(&mut out), vec![0, 1]);
        deliver(&mut conn, &[0], ms(100));
        deliver(&mut conn, &[1], ms(183));
        let (r0, r1): (f64, f64) = (0.1, 0.183);
        let (srtt, rttvar, rto) = if mode == RttSampling::Segment {
            // segment 0 only (a multiple of the tick already)
            let rto = ((r0 + (2.0 * r0).max(tick)) / tick).ceil() * tick;
            (r0, r0 / 2.0, rto)
        } else {
            let rttvar = 0.75 * (r0 / 2.0) + 0.25 * (r0 - r1).abs();
            let srtt = 0.875 * r0 + 0.125 * r1;
            (srtt, rttvar, srtt + (4.0 * rttvar).max(tick))
        };
        assert!((conn.0.srtt - srtt).abs() < 1e-9, "{mode:?}: srtt {}", conn.0.srtt);
        assert!((conn.0.rttvar - rttvar).abs() < 1e-9, "{mode:?}: rttvar {}", conn.0.rttvar);
        let rto = rto.max(min_rto);
        assert!((conn.0.rto - rto).abs() < 1e-9, "{mode:?}: rto {} for {rto}", conn.0.rto);
    }
}

/// `fast_retransmit_timer`: a fast retransmission restarts a running timer
/// (`restart`), or leaves it to expire one RTO after the last ACK of new data
/// (`keep`, RFC 6298 rule 5.1); with and without SACK.
#[test]
fn fast_retransmit_timer_restart_or_keep() {
    for sack in [false, true] {
        for mode in [FrTimer::Restart, FrTimer::Keep] {
            let p = TcpParams {
                fast_retransmit_timer: mode,
                init_cwnd: 6.0,
                sack,
                ..params(Variant::NewReno)
            };
            let mut conn = connection(p, 0, 0, 1);
            let mut out = Vec::new();
            conn.0.start(ms(0), &mut out, u32::MAX);
            assert_eq!(seqs(&mut out), vec![0, 1, 2, 3, 4, 5]);
            deliver(&mut conn, &[0], ms(100)); // the last ACK of new data: the timer restarts
            let rto = conn.0.rto;
            let sent = deliver(&mut conn, &[2, 3, 4], ms(150)); // 1 lost: three duplicates
            assert_eq!(sent.first(), Some(&1), "sack {sack}, {mode:?}: fast retransmission");
            let due = conn.0.rtx_deadline.expect("data outstanding");
            let from = if mode == FrTimer::Restart { ms(150) } else { ms(100) };
            let expect = from + aqm::Duration::from_secs_f64(rto);
            assert_eq!(due, expect, "sack {sack}, {mode:?}");
        }
    }
}

mod dctcp {
    use super::*;

    /// Under marks with a steady probability p, alpha converges to p (RFC 8257 3.3: it
    /// is a moving average of the marked fraction per window).
    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        for p in [0.05, 0.3, 0.7] {
            let mut d = Dctcp::new(1.0 / 16.0);
            let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
            let (w, mut una) = (20u32, 0u32);
            let mut sum = 0.0;
            let mut n = 0;
            for round in 0..4000 {
                for _ in 0..w {
                    una += 1;
                    d.on_ack(1, rng.random::<f64>() < p, una, una + w);
                }
                if round >= 400 {
                    sum += d.alpha;
                    n += 1;
                }
            }
            let mean = sum / n as f64;
            assert!((mean - p).abs() < 0.01, "p {p}: mean alpha {mean}");
            assert!(d.windows > 3000, "{} windows", d.windows);
        }
    }

    /// One observation window of all-marked ACKs moves alpha by g towards 1; the
    /// reduction is cwnd (1 - alpha / 2).
    #[test]
    fn alpha_update_and_reduction() {
        let mut d = Dctcp::new(1.0 / 16.0);
        d.alpha = 0.0;
        d.on_ack(1, true, 1, 10);
        assert_eq!(d.alpha, 1.0 / 16.0);
        for s in 2..=10 {
            d.on_ack(1, s == 5, s, 20);
            assert_eq!(d.alpha, 1.0 / 16.0, "inside the window");
        }
        d.on_ack(1, false, 11, 20);
        assert_eq!(d.alpha, (15.0 / 16.0) * (1.0 / 16.0) + (1.0 / 16.0) * (1.0 / 10.0));
        assert_eq!(d.reduced(40.0), 40.0 * (1.0 - d.alpha / 2.0));
    }

    /// The receiver echoes CE exactly: with delayed ACKs, a change of the CE state first
    /// acknowledges the packets before it with the old state (RFC 8257 3.2).
    #[test]
    fn receiver_echoes_every_mark() {
        let p = TcpParams {
            variant: Variant::Dctcp,
            ecn: true,
            delayed_ack: true,
            ..params(Variant::Dctcp)
        };
        let mut r = TcpReceiver::new(&p, 0, 1);
        let mut out = Vec::new();
        let ce = [false, true, true, true, false, false, true, false];
        for (i, &m) in ce.iter().enumerate() {
            let f = flags::ECT | if m { flags::CE } else { 0 };
            r.on_data(ms(i as u64), &Pkt { seq: i as u32, flags: f, ..Pkt::default() }, &mut out);
        }
        r.on_delack(&mut out);
        // Each ACK covers the packets since the one before; its ECE must be their CE.
        let mut from = 0u32;
        for a in &out {
            let covered = &ce[from as usize..a.seq as usize];
            assert!(!covered.is_empty());
            let ece = a.flags & flags::ECE != 0;
            assert!(
                covered.iter().all(|&m| m == ece),
                "ACK {} ECE {ece} covers {covered:?}",
                a.seq
            );
            from = a.seq;
        }
        assert_eq!(from, ce.len() as u32);
    }

    /// ECT(1) on data packets when asked.
    #[test]
    fn ect1_on_data() {
        let p = TcpParams { ecn: true, ect1: true, ..params(Variant::Dctcp) };
        let mut s = TcpSender::new(p, 0, 1);
        let mut out = Vec::new();
        s.start(ms(0), &mut out, u32::MAX);
        assert!(
            out.iter().all(|p| p.flags & (flags::ECT | flags::ECT1) == flags::ECT | flags::ECT1)
        );
    }
}

mod sack {
    use super::*;

    /// The first block holds the packet that triggered the ACK, then the blocks
    /// reported before, most recent first, at most `sack_blocks` (RFC 2018 Section 4).
    #[test]
    fn receiver_reports_blocks_most_recent_first() {
        let p = TcpParams { sack: true, ..params(Variant::NewReno) };
        let mut r = TcpReceiver::new(&p, 0, 1);
        let log = r.sack_log().expect("a log");
        let mut out = Vec::new();
        let mut ack = |s: u32, out: &mut Vec<Pkt>| {
            r.on_data(ms(0), &Pkt { seq: s, ..Pkt::default() }, out);
            let a = out.pop().expect("an ACK");
            (a.seq, SackLog::take(&log, a.seq, a.epoch), a.size)
        };
        assert_eq!(ack(0, &mut out).1.n, 0);
        let (a, b, size) = ack(2, &mut out);
        assert_eq!((a, b.as_slice()), (1, &[(2, 3)][..]));
        assert_eq!(size, 40 + 4 + 8);
        let (_, b, _) = ack(4, &mut out);
        assert_eq!(b.as_slice(), &[(4, 5), (2, 3)]);
        let (_, b, _) = ack(6, &mut out);
        assert_eq!(b.as_slice(), &[(6, 7), (4, 5), (2, 3)]);
        let (_, b, size) = ack(8, &mut out);
        assert_eq!(b.as_slice(), &[(8, 9), (6, 7), (4, 5)]);
        assert_eq!(size, 40 + 4 + 24);
        let (_, b, _) = ack(3, &mut out);
        assert_eq!(b.as_slice(), &[(2, 5), (8, 9), (6, 7)]);
        // the hole at 1 fills: blocks below the cumulative point go
        let (a, b, _) = ack(1, &mut out);
        assert_eq!((a, b.as_slice()), (5, &[(8, 9), (6, 7)][..]));
    }

    /// Round trips spent in loss recovery after losing `lost` out of a first window of
    /// 30 (in congestion avoidance), every later packet arriving (each round delivers what the last one sent).
    fn recovery_rounds(sack: bool, lost: &[u32]) -> (u32, TcpStats) {
        let p = TcpParams {
            sack,
            init_cwnd: 30.0,
            ssthresh: 30.0,
            drop: lost.to_vec(),
            newreno_timer: NewRenoTimer::SlowButSteady,
            ..params(Variant::NewReno)
        };
        let mut c = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        c.0.start(ms(0), &mut out, u32::MAX);
        let mut sent = seqs(&mut out);
        let mut rounds = 0;
        for r in 1..50 {
            sent = deliver(&mut c, &sent, ms(100 * r));
            if c.0.in_recovery {
                rounds += 1;
            } else if c.0.snd_una > 30 {
                break;
            }
        }
        (rounds, c.0.stats)
    }

    /// Four losses in one window: SACK repairs them in one round trip of recovery,
    /// NewReno in one round trip per loss; each retransmits exactly the four.
    #[test]
    fn several_losses_in_one_round_trip() {
        let lost = [10u32, 12, 14, 16];
        let (sack_rounds, s) = recovery_rounds(true, &lost);
        let (newreno_rounds, n) = recovery_rounds(false, &lost);
        assert_eq!(sack_rounds, 1, "SACK");
        assert_eq!(newreno_rounds, lost.len() as u32, "NewReno");
        for st in [s, n] {
            assert_eq!((st.retransmits, st.fast_retransmits, st.timeouts), (4, 1, 0));
        }
    }

    /// The scoreboard's pipe and IsLost (RFC 6675 Section 4).
    #[test]
    fn pipe_and_is_lost() {
        let mut sb = Scoreboard::default();
        // outstanding 0..10, SACKed 3, 5, 6, 7
        sb.update(&[(3, 4), (5, 8)], 10);
        assert!(sb.is_lost(0, 10, 3) && sb.is_lost(4, 10, 3));
        assert!(!sb.is_lost(5, 10, 3) && !sb.is_lost(8, 10, 3));
        // not SACKed: 0 1 2 4 8 9; lost: 0 1 2 4 (3 or more SACKed above)
        assert_eq!(sb.pipe(10, 3), 2);
        sb.high_rxt = 2; // 0 and 1 retransmitted
        assert_eq!(sb.pipe(10, 3), 4);
        assert_eq!(sb.next_retransmission(10, 3), Some((2, true)));
    }

    /// A timeout forgets the SACKs (RFC 2018 Section 8).
    #[test]
    fn timeout_clears_the_scoreboard() {
        let p =
            TcpParams { sack: true, init_cwnd: 10.0, drop: vec![0], ..params(Variant::NewReno) };
        let mut c = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        c.0.start(ms(0), &mut out, u32::MAX);
        let sent = seqs(&mut out);
        deliver(&mut c, &sent[..2], ms(100));
        assert!(c.0.scoreboard().is_some_and(|sb| sb.is_sacked(1)));
        c.0.on_timeout(ms(3000), &mut out, u32::MAX);
        assert!(c.0.scoreboard().is_some_and(|sb| !sb.is_sacked(1) && sb.high_sacked == 0));
        assert_eq!(seqs(&mut out), vec![0]);
    }
}

mod options {
    use super::*;

    /// Limited transmit: each of the first two duplicate ACKs sends one new packet
    /// (RFC 3042); the third retransmits.
    #[test]
    fn limited_transmit_on_the_first_two_dupacks() {
        for sack in [false, true] {
            let p = TcpParams {
                init_cwnd: 4.0,
                limited_transmit: true,
                sack,
                drop: vec![0],
                ..params(Variant::NewReno)
            };
            let mut c = connection(p, 0, 0, 1);
            let mut out = Vec::new();
            c.0.start(ms(0), &mut out, u32::MAX);
            assert_eq!(seqs(&mut out), vec![1, 2, 3]);
            assert_eq!(deliver(&mut c, &[1], ms(100)), vec![4], "sack {sack}");
            assert_eq!(deliver(&mut c, &[2], ms(101)), vec![5], "sack {sack}");
            let third = deliver(&mut c, &[3], ms(102));
            assert_eq!(third.first(), Some(&0), "sack {sack}: {third:?}");
            assert_eq!(c.0.stats.fast_retransmits, 1);
        }
        // off (the default): nothing on the first two
        let p = TcpParams { init_cwnd: 4.0, drop: vec![0], ..params(Variant::NewReno) };
        let mut c = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        c.0.start(ms(0), &mut out, u32::MAX);
        assert!(deliver(&mut c, &[1, 2], ms(100)).is_empty());
    }

    /// An initial window of 10 sends 10 packets at the start.
    #[test]
    fn initial_window_ten() {
        let p = TcpParams { init_cwnd: 10.0, ..params(Variant::Cubic) };
        let mut s = TcpSender::new(p, 0, 1);
        let mut out = Vec::new();
        s.start(ms(0), &mut out, u32::MAX);
        assert_eq!(seqs(&mut out), (0..10).collect::<Vec<_>>());
    }
}
