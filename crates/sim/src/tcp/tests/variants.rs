//! DCTCP, SACK and the options (limited transmit, the initial window).

use super::*;

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
            ..params(Variant::NewReno)
        };
        let p = ruled(p, |r| r.newreno_timer = NewRenoTimer::SlowButSteady);
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
            let p = TcpParams { init_cwnd: 4.0, sack, drop: vec![0], ..params(Variant::NewReno) };
            let p = ruled(p, |r| r.limited_transmit = true);
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

    /// Quick-ACK mode with delayed ACKs: the first 16 packets (Linux's
    /// TCP_MAX_QUICKACKS) are each acknowledged at once, then every second one; a
    /// packet received before (a retransmission) brings 16 quick ACKs back. Without the
    /// mode, every second packet from the first.
    #[test]
    fn quickack_acknowledges_the_first_16_packets_at_once() {
        for quick in [true, false] {
            let p = ruled(TcpParams { delayed_ack: true, ..params(Variant::NewReno) }, |r| {
                r.quickack = quick
            });
            let mut r = TcpReceiver::new(&p, 0, 1);
            let mut acks = Vec::new();
            let mut per_packet = Vec::new();
            for s in 0..24 {
                let before = acks.len();
                r.on_data(ms(s as u64), &Pkt { seq: s, ..Pkt::default() }, &mut acks);
                per_packet.push(acks.len() - before);
            }
            let first = if quick { 16 } else { 0 };
            for (s, &n) in per_packet.iter().enumerate() {
                let want = if s < first { 1 } else { (s - first) % 2 };
                assert_eq!(n, want, "quickack {quick}: packet {s}");
            }
            // a copy of packet 3 arrives: acknowledged at once (a duplicate), then 16
            // quick ACKs again with the mode
            r.on_data(ms(30), &Pkt { seq: 3, ..Pkt::default() }, &mut acks);
            let before = acks.len();
            for s in 24..28 {
                r.on_data(ms(31), &Pkt { seq: s, ..Pkt::default() }, &mut acks);
            }
            assert_eq!(acks.len() - before, if quick { 4 } else { 2 }, "quickack {quick}");
        }
    }
}
