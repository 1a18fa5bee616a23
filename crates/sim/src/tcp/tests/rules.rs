//! The rules a profile sets (`tcp::rules`), each against the rule it implements.

use super::*;

/// `recover_rule`: after a timeout whose go-back-N resent packets the receiver held,
/// their duplicate ACKs arrive once everything sent before the timeout is acknowledged
/// (ack == recover). `cover` lets three of them start a fast retransmit; `beyond` (RFC
/// 6582 "covers more than recover", ns-2's `highest_ack_ > recover_`) does not.
#[test]
fn recover_rule_at_the_recovery_point() {
    for (rule, fast_retransmits) in [(RecoverRule::Cover, 1), (RecoverRule::Beyond, 0)] {
        let mut p = params(Variant::NewReno);
        p.rules.recover_rule = rule;
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
            let mut p = params(Variant::NewReno);
            p.rules.rto_backoff = mode;
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
        let mut p = params(Variant::NewReno);
        p.rules.rtt_sampling = mode;
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
            let p = TcpParams { init_cwnd: 6.0, sack, ..params(Variant::NewReno) };
            let p = ruled(p, |r| r.fast_retransmit_timer = mode);
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

/// The reductions' rules (`ecn_cwr`, `loss_ssthresh`).
mod reductions {
    use super::*;

    /// A NewReno connection with `p`'s keys, started with a first window of `w` packets
    /// (ssthresh 10, so that it grows by 1/cwnd per ACK); the packets it sent.
    fn started(p: TcpParams, w: f64) -> (TcpSender, TcpReceiver, Vec<Pkt>) {
        let p = TcpParams { variant: Variant::NewReno, init_cwnd: w, ssthresh: 10.0, ..p };
        let (mut s, r) = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        s.start(ms(0), &mut out, u32::MAX);
        assert_eq!(
            out.iter().map(|p| p.seq).collect::<Vec<_>>(),
            (0..w as u32).collect::<Vec<_>>()
        );
        (s, r, out)
    }

    /// An ECN reduction halves cwnd (11 -> 5.5) and sets ssthresh to the integer half
    /// (5), as ns-2 does; `ecn_cwr`: the window then grows by 1/cwnd per ACK of new data
    /// from the ACK that carried the echo on (`grow`), or stays until an ACK covers a
    /// packet sent after the reduction (`hold`, as ns-2 and ns-3 end it).
    #[test]
    fn ecn_cwr_grow_or_hold() {
        for mode in [EcnCwr::Grow, EcnCwr::Hold] {
            let p = ruled(TcpParams { ecn: true, ..TcpParams::default() }, |r| r.ecn_cwr = mode);
            let (mut s, mut r, data) = started(p, 11.0);
            let (mut out, mut acks) = (Vec::new(), Vec::new());
            // packet 0 arrives marked, then 1..10 (acknowledged while the receiver echoes);
            // the ACK of packet i acknowledges up to i + 1, the reduction's snd_max is 11:
            // with `hold` no ACK of these grows the window
            let mut w = 0.0;
            for (i, d) in data.iter().enumerate() {
                let mut d = *d;
                if i == 0 {
                    d.flags |= flags::CE;
                    w = 11.0 / 2.0;
                }
                acks.clear();
                r.on_data(ms(100 + i as u64), &d, &mut acks);
                s.on_ack(ms(100 + i as u64), &acks[0], &mut out, u32::MAX);
                if mode == EcnCwr::Grow {
                    w += 1.0 / w;
                }
                assert_eq!((s.cwnd, s.ssthresh), (w, 5.0), "{mode:?}: ACK of {i}");
            }
            // the first packet sent after the reduction carries CWR; its ACK grows it
            let first = *out.iter().find(|p| !p.is_ack()).expect("a packet sent");
            assert_eq!((first.seq, first.flags & flags::CWR != 0), (11, true));
            acks.clear();
            r.on_data(ms(200), &first, &mut acks);
            s.on_ack(ms(200), &acks[0], &mut out, u32::MAX);
            assert_eq!(s.cwnd, w + 1.0 / w, "{mode:?}: after it");
        }
    }

    /// `loss_ssthresh`: at the third duplicate ACK after losing packet 0 of 20, ssthresh
    /// is half the window (10) by default (RFC 5681 eq. 4: FlightSize / 2 with the
    /// window full) and with `"cwnd"`, or half the packets in flight: with SACK
    /// RFC 6675's pipe, 20 sent less 3 SACKed less the lost one (8); without, the 20
    /// outstanding less the 3 duplicates (8.5).
    #[test]
    fn loss_ssthresh_cwnd_or_pipe() {
        for sack in [false, true] {
            for mode in [LossSsthresh::Rfc, LossSsthresh::Cwnd, LossSsthresh::Pipe] {
                let p =
                    ruled(TcpParams { sack, ..TcpParams::default() }, |r| r.loss_ssthresh = mode);
                let (mut s, mut r, data) = started(p, 20.0);
                let (mut out, mut acks) = (Vec::new(), Vec::new());
                for d in &data[1..4] {
                    acks.clear();
                    r.on_data(ms(100), d, &mut acks);
                    s.on_ack(ms(100), &acks[0], &mut out, u32::MAX);
                }
                let (sent, sacked, lost, dupacks) = (20.0, 3.0, 1.0, 3.0);
                let expect = match (mode, sack) {
                    (LossSsthresh::Rfc | LossSsthresh::Cwnd, _) => (sent / 2.0f64).floor(),
                    (LossSsthresh::Pipe, true) => (sent - sacked - lost) / 2.0,
                    (LossSsthresh::Pipe, false) => (sent - dupacks) / 2.0,
                };
                assert_eq!(s.stats.fast_retransmits, 1, "sack {sack}, {mode:?}");
                assert_eq!(s.ssthresh, expect, "sack {sack}, {mode:?}");
            }
        }
    }
}
