//! RACK-TLP (RFC 8985): losses deemed by time, and the tail loss probe.

use super::*;

/// A SACK sender with RACK-TLP that sent packets 0..n at time 0 (ssthresh n: in
/// congestion avoidance), losing the first transmission of `lost`.
fn rack_sender(n: u32, lost: &[u32], app: u64) -> (TcpSender, TcpReceiver) {
    let p = TcpParams {
        sack: true,
        init_cwnd: n as f64,
        ssthresh: n as f64,
        drop: lost.to_vec(),
        ..params(Variant::NewReno)
    };
    let mut c = connection(ruled(p, |r| r.rack = true), 0, 0, 1);
    c.0.set_app_limit(app);
    let mut out = Vec::new();
    c.0.start(ms(0), &mut out, u32::MAX);
    c
}

/// Section 6.2: one SACK for packet 1 at 100 ms (the RTT; packet 0, sent at the same
/// time, is lost) deems nothing lost yet: the reorder window min_RTT / 4 = 25 ms holds
/// packet 0 until 0 + RACK.rtt + 25 ms = 125 ms, when the reorder timer fires, packet 0
/// is deemed lost and recovery retransmits it; three duplicate ACKs are not needed.
#[test]
fn reorder_timer_deems_the_head_lost_a_quarter_rtt_after_a_sack() {
    let mut c = rack_sender(10, &[0], u64::MAX);
    assert!(deliver(&mut c, &[1], ms(100)).is_empty());
    let s = &mut c.0;
    assert_eq!((s.in_recovery, s.rtx_deadline), (false, Some(ms(125))));
    let mut out = Vec::new();
    s.on_timeout(ms(125), &mut out, u32::MAX);
    assert_eq!(seqs(&mut out).first(), Some(&0), "the retransmission of packet 0");
    assert!(s.in_recovery && s.stats.timeouts == 0 && s.stats.fast_retransmits == 1);
}

/// Section 6.2 step 4: with three packets SACKed (DupThresh) and no reordering seen the
/// reordering window is 0: the third SACK deems the head lost at once.
#[test]
fn dupthresh_sacks_deem_the_head_lost_at_once() {
    let mut c = rack_sender(10, &[0], u64::MAX);
    deliver(&mut c, &[1, 2], ms(100));
    assert!(!c.0.in_recovery);
    let sent = deliver(&mut c, &[3], ms(100));
    assert!(c.0.in_recovery && sent.first() == Some(&0), "{sent:?}");
}

/// Section 7: a tail lost with nothing after it to SACK it: after the ACK of packet 7
/// (RTT 100 ms) the probe timeout is 2 SRTT; when it fires with no new data to send,
/// the highest packet (9) goes out again, the RTO is re-armed, and it is no timeout.
#[test]
fn tail_loss_probe_resends_the_last_packet_after_two_srtt() {
    let mut c = rack_sender(10, &[8, 9], 10);
    deliver(&mut c, &(0..8).collect::<Vec<u32>>(), ms(100));
    let s = &mut c.0;
    let pto = ms(100) + aqm::Duration::from_secs_f64(2.0 * s.srtt);
    assert_eq!(s.rtx_deadline, Some(pto));
    let mut out = Vec::new();
    s.on_timeout(pto, &mut out, u32::MAX);
    assert_eq!(seqs(&mut out), vec![9]);
    assert_eq!((s.probes, s.stats.timeouts), (1, 0));
    let rto = pto + aqm::Duration::from_secs_f64(s.rto);
    assert_eq!(s.rtx_deadline, Some(rto), "the RTO, not another probe");
}

/// Section 6.2 step 5 (Linux's `tcp_rack_detect_loss` likewise): a retransmission is
/// judged by its own send time, so a lost retransmission is deemed lost again once a
/// packet sent after it is delivered and its time is up; only a packet deemed lost and
/// not yet retransmitted is passed over. Packet 0 is lost; SACKs of 1-3 at 100 ms
/// deem it lost (DupThresh) and it goes out again at 100 ms; the SACKs of 4-9 let new
/// packets follow it. That copy is lost too: the SACK of the first new packet (sent
/// after it) at 200 ms deems it
/// lost again (RACK.rtt 100 ms, reordering window 0 in recovery) and it is sent a
/// third time, with no retransmission timeout.
#[test]
fn a_lost_retransmission_is_deemed_lost_again() {
    let mut c = rack_sender(10, &[0], u64::MAX);
    deliver(&mut c, &[1, 2], ms(100));
    let mut sent = deliver(&mut c, &[3], ms(100));
    assert_eq!(sent.first(), Some(&0), "{sent:?}");
    for s in 4..10 {
        sent.extend(deliver(&mut c, &[s], ms(100)));
    }
    let new = sent[1..].first().copied().expect("new data after the retransmission");
    assert!(new >= 10, "{sent:?}");
    let sent = deliver(&mut c, &[new], ms(200));
    assert_eq!(sent.first(), Some(&0), "packet 0 a third time: {sent:?}");
    assert_eq!(c.0.stats.timeouts, 0);
}

/// "Sent after" is the order of sending: when new packet 5 and the retransmission of
/// packet 2 leave at one instant (5 first), the delivery of 5 says nothing about 2,
/// which went after it; had 2 gone first, 5's delivery would deem it lost once
/// RACK.rtt has passed (reordering window 0). RFC 8985's tie-break by sequence number
/// stands for the order of sending, and would take 2 for the earlier either way.
#[test]
fn a_retransmission_sent_after_new_data_at_one_instant_is_not_deemed_lost_by_it() {
    use super::super::rack::Rack;
    use super::super::sack::{EVER, LOST, RETX, Scoreboard};
    for retx_first in [false, true] {
        let (mut r, mut sb) = (Rack::default(), Scoreboard::default());
        for s in 0..5 {
            r.on_send(s, ms(0));
        }
        sb.set_flag(2, LOST, 0);
        let order: [u32; 2] = if retx_first { [2, 5] } else { [5, 2] };
        for s in order {
            r.on_send(s, ms(100));
        }
        sb.set_flag(2, RETX | EVER, 0);
        r.delivered(5, 0, ms(200));
        r.detect_loss(&mut sb, (2, 6), aqm::Duration::ZERO, ms(201));
        // (deemed lost again: LOST with RETX cleared, to be sent again)
        let again = sb.flag(2) & (LOST | RETX) == LOST;
        assert_eq!(again, retx_first, "retransmission first: {retx_first}");
    }
}

/// `fast_retransmit_timer = "head"` (Linux's `tcp_xmit_retransmit_queue` re-arms the
/// RTO when it retransmits the head): packet 0 is lost, and so is its first
/// retransmission (at 100 ms); RACK deems that copy lost once packets sent after it are
/// SACKed (at 200 ms, RACK.rtt 100 ms later) and sends 0 a third time. Under `head` the
/// RTO then runs from that send; under `restart` from the fast retransmission.
#[test]
fn a_retransmission_of_the_head_rearms_the_timer_under_head() {
    for mode in [FrTimer::Head, FrTimer::Restart] {
        let p =
            TcpParams { sack: true, init_cwnd: 10.0, ssthresh: 10.0, ..params(Variant::NewReno) };
        let p = ruled(p, |r| (r.rack, r.fast_retransmit_timer) = (true, mode));
        let mut c = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        c.0.start(ms(0), &mut out, u32::MAX);
        assert_eq!(seqs(&mut out), (0..10).collect::<Vec<u32>>());
        // 1..9 SACKed at 100 ms: 0 deemed lost at once (nine SACKed, no reordering)
        let sent = deliver(&mut c, &(1..10).collect::<Vec<u32>>(), ms(100));
        assert_eq!(sent.first(), Some(&0), "{mode:?}: the fast retransmission");
        let rto = aqm::Duration::from_secs_f64(c.0.rto);
        assert_eq!(c.0.rtx_deadline, Some(ms(100) + rto), "{mode:?}");
        // that copy of 0 is lost; what was sent after it arrives at 200 ms
        let after: Vec<u32> = sent.iter().copied().filter(|&s| s != 0).collect();
        assert!(!after.is_empty());
        let again = deliver(&mut c, &after, ms(200));
        assert_eq!(again.first(), Some(&0), "{mode:?}: 0 sent a third time");
        let rto = aqm::Duration::from_secs_f64(c.0.rto);
        let from = if mode == FrTimer::Head { ms(200) } else { ms(100) };
        assert_eq!(c.0.rtx_deadline, Some(from + rto), "{mode:?}");
    }
}

/// A loss among the packets sent during a recovery, deemed lost and retransmitted
/// before the recovery ends, starts a new recovery at the ACK that ends it (Linux's
/// `tcp_fastretrans_alert`: `tcp_try_undo_recovery` sets the state Open, then
/// `tcp_time_to_recover` finds `lost_out` above 0 and `tcp_enter_recovery` reduces
/// again): ssthresh halves again, and from then on PRR (RFC 6937) sends as the ACKs come,
/// `ceil(prr_delivered ssthresh / RecoverFS) - prr_out` while pipe is above ssthresh,
/// the first ACK at least one packet (new data: the one packet deemed lost is already
/// retransmitted). Packets 0 and 10 of the first window are lost, then packet 20, the
/// first sent in the recovery; the ACK of 10's retransmission reaches the recovery point
/// with 20's retransmission in flight. Before, the sender left the recovery there with
/// the packets SACKed above 20 filling its window, sent nothing on the duplicate ACKs and
/// a window at once when 20's retransmission was acknowledged.
#[test]
fn a_loss_left_at_the_end_of_a_recovery_starts_another() {
    let p = TcpParams { sack: true, init_cwnd: 20.0, ssthresh: 20.0, ..params(Variant::NewReno) };
    let mut c = connection(ruled(p, |r| (r.rack, r.prr) = (true, true)), 0, 0, 1);
    let mut out = Vec::new();
    c.0.start(ms(0), &mut out, u32::MAX);
    // 1..9 SACKed: 0 deemed lost, recovery (ssthresh 10, recovery point 20)
    let s1 = deliver(&mut c, &(1..10).collect::<Vec<u32>>(), ms(100));
    assert_eq!((s1[0], s1[1], c.0.ssthresh), (0, 20, 10.0), "{s1:?}");
    // 11..19 SACKed: 10 deemed lost and retransmitted first
    let s2 = deliver(&mut c, &(11..20).collect::<Vec<u32>>(), ms(110));
    assert_eq!(s2[0], 10, "{s2:?}");
    // what went at 100 ms arrives but 20: 0's retransmission moves the ACK to 10, and
    // 20 is deemed lost and retransmitted
    let s3 = deliver(&mut c, &s1.iter().copied().filter(|&s| s != 20).collect::<Vec<_>>(), ms(200));
    assert!(s3.contains(&20) && c.0.in_recovery && c.0.snd_una == 10, "{s3:?}");
    // 10's retransmission: the ACK reaches 20, the recovery point
    let flight = c.0.snd_max - 20;
    let mut sent = vec![deliver(&mut c, &s2[..1], ms(210))];
    let s = &c.0;
    assert!(s.in_recovery, "a new recovery begins");
    assert_eq!((s.ssthresh, s.stats.fast_retransmits), (5.0, 2));
    assert!(!sent[0].contains(&20), "20 is not sent again: {:?}", sent[0]);
    // the duplicate ACKs of what went at 110 ms; at 300 ms those of the packets sent at
    // 200 ms before 20's retransmission, then its ACK (which delivers one packet: the
    // others it covers were SACKed)
    let before_20 = s3.iter().take_while(|&&q| q != 20);
    for &q in s2[1..].iter().chain(before_20) {
        let t = if s2.contains(&q) { ms(210) } else { ms(300) };
        sent.push(deliver(&mut c, &[q], t));
    }
    sent.push(deliver(&mut c, &[20], ms(300)));
    assert!(c.0.in_recovery && c.0.snd_una > 20);
    // each ACK delivered one packet; pipe stayed above ssthresh (5), so PRR's share
    let recover_fs = f64::from(flight);
    let mut prr_out = 0;
    for (k, pkts) in sent.iter().enumerate() {
        let due = ((k + 1) as f64 * 5.0 / recover_fs).ceil() as usize - prr_out;
        assert_eq!(pkts.len(), due.max(usize::from(prr_out == 0)), "ACK {}: {sent:?}", k + 1);
        prr_out += pkts.len();
    }
}
