//! `recovery_window`: the window through a NewReno fast recovery without SACK, by RFC
//! 5681 and RFC 6582 (`rfc`) and by ns-2 2.35's arithmetic (`ns2`), each figure worked
//! by hand from the RFC's text and from `TcpAgent::slowdown()`, `RenoTcpAgent::window()`,
//! `NewRenoTcpAgent::partialnewack()` and `NewRenoTcpAgent::recv()` (tcp.cc,
//! tcp-reno.cc, tcp-newreno.cc) with ns-2 2.35's defaults (`precisionReduce_ true`,
//! `decrease_num_ 0.5`, `partial_window_deflation_ 1`, `exit_recovery_fix_ 0`,
//! `windowOption_ 1`); and a timeout in recovery (`RenoTcpAgent::timeout`).

use super::*;

/// A NewReno sender in congestion avoidance (cwnd 13, ssthresh 10) that has sent
/// packets 0..12, with `recovery_window = mode`.
fn thirteen(mode: RecoveryWindow) -> (TcpSender, TcpReceiver) {
    let p = TcpParams { init_cwnd: 13.0, ssthresh: 10.0, ..params(Variant::NewReno) };
    let mut conn = connection(ruled(p, |r| r.recovery_window = mode), 0, 0, 1);
    let mut out = Vec::new();
    conn.0.start(ms(0), &mut out, u32::MAX);
    assert_eq!(seqs(&mut out), (0..13).collect::<Vec<_>>());
    conn
}

/// Packets 0 and 5 of 13 lost. At the third duplicate ACK, ssthresh = floor(13 / 2) = 6
/// in both; RFC 5681 step 2 sets cwnd = ssthresh + 3 = 9, ns-2 `cwnd_ = windowd() / 2
/// = 6.5` and `dupwnd_ = 3` (9.5, sending `int(cwnd_) + dupwnd_` = 9). Eight more
/// duplicates: +8 (17, 17.5: packets 13..16 go out). The retransmission's ACK covers
/// 0..4, a partial ACK of 5 packets: RFC 6582 deflates by 5 and adds one (13); ns-2's
/// `dupwnd_` 11 > 5 loses 4 (7), `cwnd_` stays 6.5 (13.5). The ACK of 5 covers
/// everything sent before the fast retransmit: RFC 6582 step 3 sets cwnd = ssthresh
/// (6); ns-2 drops `dupwnd_`, keeps `cwnd_` 6.5 and opens it by `1 / cwnd_` (6.5 >=
/// ssthresh 6: congestion avoidance) to 6.5 + 1 / 6.5.
#[test]
fn one_partial_ack_within_the_inflation() {
    for (mode, at_frx, inflated, partial, exit) in [
        (RecoveryWindow::Rfc, 9.0, 17.0, 13.0, 6.0),
        (RecoveryWindow::Ns2, 9.5, 17.5, 13.5, 6.5 + 1.0 / 6.5),
    ] {
        let mut c = thirteen(mode);
        assert_eq!(deliver(&mut c, &[1, 2, 3], ms(100)), vec![0], "{mode:?}");
        assert_eq!((c.0.cwnd, c.0.ssthresh), (at_frx, 6.0), "{mode:?}");
        let sent = deliver(&mut c, &[4, 6, 7, 8, 9, 10, 11, 12], ms(101));
        assert_eq!((c.0.cwnd, sent), (inflated, vec![13, 14, 15, 16]), "{mode:?}");
        let sent = deliver(&mut c, &[0], ms(200));
        assert_eq!((c.0.cwnd, sent), (partial, vec![5, 17]), "{mode:?}");
        deliver(&mut c, &[5], ms(300));
        assert!(!c.0.in_recovery, "{mode:?}");
        assert_eq!((c.0.cwnd, c.0.ssthresh), (exit, 6.0), "{mode:?}");
    }
}

/// Packets 0 and 11 of 13 lost: ten duplicates (inflation 3 + 7 = 10; windows 16 and
/// 16.5) and then a partial ACK of 11 packets, more than ns-2's `dupwnd_` (10): ns-2
/// takes the 1 left over from `cwnd_` (6.5 - 1 = 5.5) and leaves `dupwnd_` at 1 (6.5),
/// RFC 6582 deflates to 16 - 11 + 1 = 6 (both send 11 again and the new 16). A duplicate (the ACK of 12) inflates by one;
/// the ACK of 11 ends the recovery: RFC cwnd = ssthresh = 6; ns-2 keeps `cwnd_` 5.5,
/// below ssthresh 6, so its `opencwnd()` is slow start's + 1 (6.5).
#[test]
fn a_partial_ack_beyond_the_inflation() {
    for (mode, partial, exit) in [(RecoveryWindow::Rfc, 6.0, 6.0), (RecoveryWindow::Ns2, 6.5, 6.5)]
    {
        let mut c = thirteen(mode);
        deliver(&mut c, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], ms(100));
        assert_eq!(c.0.cwnd, if mode == RecoveryWindow::Ns2 { 16.5 } else { 16.0 });
        assert_eq!(deliver(&mut c, &[0], ms(200)), vec![11, 16], "{mode:?}");
        assert_eq!(c.0.cwnd, partial, "{mode:?}");
        deliver(&mut c, &[12], ms(201));
        assert_eq!(c.0.cwnd, partial + 1.0, "{mode:?}");
        deliver(&mut c, &[11], ms(300));
        assert!(!c.0.in_recovery, "{mode:?}");
        assert_eq!((c.0.cwnd, c.0.ssthresh), (exit, 6.0), "{mode:?}");
    }
}

/// A timeout in fast recovery, with `loss_ssthresh = "cwnd"` (the window as it stands):
/// after packets 0 and 5 of 13 are lost and eight more duplicates arrive, the window is
/// ssthresh + 3 + 8 = 17 by RFC 5681's inflation, so ssthresh = floor(17 / 2) = 8; ns-2
/// zeroes the inflation first (`RenoTcpAgent::timeout`: `dupwnd_ = 0`, then
/// `TcpAgent::timeout`'s `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART)` halves
/// `windowd()` = `cwnd_` = 6.5), so ssthresh = (int) 3.25 = 3. Both restart from cwnd 1.
#[test]
fn a_timeout_in_recovery() {
    for (mode, ssthresh) in [(RecoveryWindow::Rfc, 8.0), (RecoveryWindow::Ns2, 3.0)] {
        let p = TcpParams { init_cwnd: 13.0, ssthresh: 10.0, ..params(Variant::NewReno) };
        let p = ruled(p, |r| (r.recovery_window, r.loss_ssthresh) = (mode, LossSsthresh::Cwnd));
        let mut c = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        c.0.start(ms(0), &mut out, u32::MAX);
        deliver(&mut c, &[1, 2, 3], ms(100));
        deliver(&mut c, &[4, 6, 7, 8, 9, 10, 11, 12], ms(101));
        assert!(c.0.in_recovery, "{mode:?}");
        c.0.on_timeout(ms(3000), &mut out, u32::MAX);
        assert_eq!((c.0.cwnd, c.0.ssthresh), (1.0, ssthresh), "{mode:?}");
    }
}
