//! The default TCP's rules at a loss and around it, each against its RFC: where a
//! reduction starts from (RFC 5681 eq. 4 and Section 3.1, RFC 9438 Sections 4.6 to
//! 4.8), no window growth in fast recovery (RFC 6582, RFC 6675), growth only while the
//! window is used (RFC 7661); and what a timeout does to the SACKs (RFC 6675 Section
//! 5.1, or Linux's `rto_sack = "keep"`).

use super::*;

/// A connection of `variant` in congestion avoidance with a first window of 20 packets
/// (ssthresh 20), losing the first transmission of `lost`; the packets it sent.
fn window_of_20(
    variant: Variant,
    sack: bool,
    lost: &[u32],
) -> ((TcpSender, TcpReceiver), Vec<u32>) {
    let p =
        TcpParams { init_cwnd: 20.0, ssthresh: 20.0, sack, drop: lost.to_vec(), ..params(variant) };
    let mut c = connection(p, 0, 0, 1);
    let mut out = Vec::new();
    c.0.start(ms(0), &mut out, u32::MAX);
    let sent = seqs(&mut out);
    (c, sent)
}

/// ssthresh from a window of W packets: W / 2 (RFC 5681 eq. 4, the integer half), or
/// beta_cubic W (RFC 9438 Section 4.6).
fn reduced(variant: Variant, w: f64) -> f64 {
    match variant {
        Variant::Cubic => w * CubicParams::default().beta,
        _ => (w / 2.0).floor(),
    }
}

/// A timeout in fast recovery, after fast recovery inflated the window from
/// ssthresh + 3 by one packet per further duplicate ACK (RFC 5681 Section 3.2 step 4):
/// by default ssthresh stays what the loss set from the window of 20 it struck (the
/// flight size when the episode began); with `loss_ssthresh = "cwnd"` (ns-2) it is
/// taken from the inflated window.
#[test]
fn timeout_in_fast_recovery_keeps_the_losss_ssthresh() {
    for variant in [Variant::NewReno, Variant::Cubic] {
        for mode in [LossSsthresh::Rfc, LossSsthresh::Cwnd] {
            let (mut c, sent) = window_of_20(variant, false, &[0]);
            c.0.p.rules.loss_ssthresh = mode;
            deliver(&mut c, &sent, ms(100)); // 19 duplicate ACKs
            let s = &mut c.0;
            let at_loss = reduced(variant, 20.0);
            let inflated = at_loss + 3.0 + 16.0;
            assert_eq!((s.ssthresh, s.cwnd), (at_loss, inflated), "{variant:?} {mode:?}");
            s.on_timeout(ms(3000), &mut Vec::new(), u32::MAX);
            let expect = match mode {
                LossSsthresh::Rfc => at_loss,
                _ => reduced(variant, inflated),
            };
            assert_eq!((s.ssthresh, s.cwnd), (expect, 1.0), "{variant:?} {mode:?}");
        }
    }
}

/// RFC 5681 Section 3.1: a timeout of a segment the timer has already retransmitted
/// keeps ssthresh (10 / 2 after the first, beta_cubic 10 for CUBIC); with `"cwnd"` the
/// window of 1 is halved again (ssthresh 2).
#[test]
fn repeated_timeout_keeps_ssthresh() {
    for variant in [Variant::NewReno, Variant::Cubic] {
        for mode in [LossSsthresh::Rfc, LossSsthresh::Cwnd] {
            let p = TcpParams { init_cwnd: 10.0, ..params(variant) };
            let mut s = TcpSender::new(ruled(p, |r| r.loss_ssthresh = mode), 0, 1);
            let mut out = Vec::new();
            s.start(ms(0), &mut out, u32::MAX);
            s.on_timeout(ms(3000), &mut out, u32::MAX);
            let first = reduced(variant, 10.0);
            assert_eq!(s.ssthresh, first, "{variant:?} {mode:?}");
            s.on_timeout(ms(9000), &mut out, u32::MAX);
            let expect = if mode == LossSsthresh::Rfc { first } else { 2.0 };
            assert_eq!(s.ssthresh, expect, "{variant:?} {mode:?}");
        }
    }
}

/// No window growth in recovery: a NewReno partial ACK deflates the window by the
/// packets it acknowledges and adds one (RFC 6582 Section 3.2 step 5), a SACK
/// recovery keeps cwnd = ssthresh (RFC 6675 Section 5), and the ACK that ends the
/// recovery sets cwnd = ssthresh (RFC 6582 step 6); the ACKs of new data in recovery
/// add no congestion-avoidance increase, for Reno's and CUBIC's growth alike.
#[test]
fn no_growth_in_fast_recovery() {
    for variant in [Variant::NewReno, Variant::Cubic] {
        for sack in [false, true] {
            let what = format!("{variant:?} sack {sack}");
            let (mut c, sent) = window_of_20(variant, sack, &[0, 10]);
            deliver(&mut c, &sent, ms(100));
            let ss = reduced(variant, 20.0);
            let before = c.0.cwnd;
            assert!(c.0.in_recovery && c.0.ssthresh == ss, "{what}");
            // the retransmission of 0 arrives: a partial ACK of 10 packets
            deliver(&mut c, &[0], ms(200));
            let expect = if sack { ss } else { before - 10.0 + 1.0 };
            assert_eq!((c.0.in_recovery, c.0.cwnd), (true, expect), "{what}: partial ACK");
            // the retransmission of 10: every packet sent before the loss acknowledged
            deliver(&mut c, &[10], ms(300));
            assert_eq!((c.0.in_recovery, c.0.cwnd), (false, ss), "{what}: full ACK");
        }
    }
}

/// RFC 7661: a sender that does not fill its window does not open it. In congestion
/// avoidance, an application that hands over 3 packets with cwnd 10 leaves the window
/// at 10 (`app_limited = "hold"`), where `"grow"` (ns-2, ns-3) and a bulk sender add
/// 1/cwnd per ACK; in slow start the window grows only up to twice the most packets
/// in flight in the window of data (4 in flight: cwnd 6 -> 8, Linux's
/// `tcp_is_cwnd_limited`), where `"grow"` adds one per ACK (6 -> 10).
#[test]
fn growth_only_while_window_limited() {
    for mode in [AppLimited::Hold, AppLimited::Grow] {
        for (cwnd, ssthresh, app, expect) in [(10.0, 2.0, 3, None), (6.0, 1e9, 4, Some(8.0))] {
            let p = TcpParams { init_cwnd: cwnd, ssthresh, ..params(Variant::NewReno) };
            let mut c = connection(ruled(p, |r| r.app_limited = mode), 0, 0, 1);
            c.0.set_app_limit(app);
            let mut out = Vec::new();
            c.0.start(ms(0), &mut out, u32::MAX);
            let sent = seqs(&mut out);
            assert_eq!(sent.len() as u64, app);
            let mut grown = cwnd;
            for &q in &sent {
                grown += if ssthresh > cwnd { 1.0 } else { 1.0 / grown };
                deliver(&mut c, &[q], ms(100));
            }
            let want = match (mode, expect) {
                (AppLimited::Grow, _) => grown,
                (AppLimited::Hold, Some(w)) => w,
                (AppLimited::Hold, None) => cwnd,
            };
            assert!((c.0.cwnd - want).abs() < 1e-12, "{mode:?} from {cwnd}: {}", c.0.cwnd);
        }
    }
    // a bulk sender in the same state opens the window by 1/cwnd per ACK
    let p = TcpParams { init_cwnd: 10.0, ssthresh: 2.0, ..params(Variant::NewReno) };
    let mut c = connection(p, 0, 0, 1);
    let mut out = Vec::new();
    c.0.start(ms(0), &mut out, u32::MAX);
    deliver(&mut c, &[0], ms(100));
    assert_eq!(c.0.cwnd, 10.0 + 0.1);
}

/// PRR (RFC 6937) in a SACK recovery from one loss in 20 packets: each duplicate ACK
/// delivers a packet; while pipe is above ssthresh the sender sends ssthresh /
/// RecoverFS = 10 / 20 of what was delivered, one packet at a time (the first being
/// the fast retransmission), and the 17 ACKs of the recovery end with pipe = cwnd =
/// ssthresh, 10 packets sent; RFC 6675 without PRR sends nothing until pipe falls below
/// ssthresh.
#[test]
fn prr_sends_in_proportion_to_what_is_delivered() {
    for prr in [true, false] {
        let (mut c, sent) = window_of_20(Variant::NewReno, true, &[0]);
        c.0.p.rules.prr = prr;
        let mut per_ack = Vec::new();
        for &q in &sent {
            per_ack.push(deliver(&mut c, &[q], ms(100)).len());
        }
        // the third duplicate ACK starts recovery
        let in_recovery = &per_ack[2..];
        let total: usize = in_recovery.iter().sum();
        if prr {
            assert!(in_recovery.iter().all(|&n| n <= 1), "{per_ack:?}");
            assert_eq!((in_recovery[0], total), (1, 10), "{per_ack:?}");
            assert_eq!(c.0.cwnd, 10.0);
        } else {
            // pipe = 20 - 3 SACKed - 1 lost = 16: the retransmission goes out, then
            // nothing until six more packets have left
            assert_eq!(&in_recovery[..7], &[1, 0, 0, 0, 0, 0, 0], "{per_ack:?}");
        }
    }
}

/// `rto_sack = "keep"` (tcp_input.c's `tcp_timeout_mark_lost`): a timeout leaves the
/// SACKed packets SACKed when the receiver has not reneged, so the go-back-N resends
/// only the packets the receiver lacks, in order (`tcp_xmit_retransmit_queue` passes
/// over the SACKed ones); forgetting them (RFC 6675 Section 5.1) resends packets the
/// receiver holds, as the three SACK blocks an ACK carries cannot describe five holes.
#[test]
fn a_timeout_keeps_the_sacks_as_linux_does() {
    for keep in [true, false] {
        let mut p = ruled(params(Variant::NewReno), |r| {
            r.rto_sack = if keep { RtoSack::Keep } else { RtoSack::Forget }
        });
        (p.init_cwnd, p.sack, p.dupack_threshold) = (20.0, true, 1000);
        let mut conn = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        conn.0.start(ms(0), &mut out, u32::MAX);
        assert_eq!(seqs(&mut out), (0..20).collect::<Vec<u32>>());
        let lost = [0, 4, 8, 12, 16];
        let held: Vec<u32> = (0..20).filter(|s| !lost.contains(s)).collect();
        deliver(&mut conn, &held, ms(100));
        conn.0.on_timeout(ms(3000), &mut out, u32::MAX);
        let mut sent = seqs(&mut out);
        let mut resent = Vec::new();
        for round in 0..10 {
            resent.extend(sent.iter().copied().filter(|&s| s < 20));
            sent = deliver(&mut conn, &sent, ms(3100 + 100 * round));
        }
        if keep {
            assert_eq!(resent, lost.to_vec());
        } else {
            assert!(resent.iter().any(|s| held.contains(s)), "{resent:?}");
        }
    }
}
