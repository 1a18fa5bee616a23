//! RACK-TLP (RFC 8985) for SACK senders, in packets: loss detection by time (RACK)
//! and the tail loss probe (TLP).
//!
//! **RACK** (Section 6). The sender keeps each outstanding packet's latest transmission
//! time. On each ACK, of the packets newly delivered (cumulatively or by SACK) the one
//! sent last becomes `RACK.segment` (`xmit_ts`, `end_seq`), with its round trip
//! `RACK.rtt` (a retransmitted packet's only if that round trip is at least the
//! minimum RTT: the ACK may be for the first copy); a packet delivered below the
//! highest delivered one that was never retransmitted shows reordering. A packet sent
//! before `RACK.segment` (a retransmission: its last copy), neither delivered nor
//! deemed lost and waiting for its retransmission, is lost once
//! `xmit_ts + RACK.rtt + reo_wnd` has passed; until then the reorder timer waits for
//! it. `reo_wnd` is `min(RACK.min_RTT / 4, SRTT)`, or 0 while no reordering was seen
//! and the sender is in recovery or has `DupThresh` packets SACKed (Step 4; without
//! DSACK the multiplier stays 1). A packet deemed lost starts recovery (RFC 6675's
//! steps, or PRR) as three duplicate ACKs would; RACK replaces the duplicate-ACK count
//! and `IsLost()`: the recovery sends the lowest packet deemed lost and not yet
//! retransmitted, then new data, and its pipe counts each packet not SACKed once unless
//! deemed lost, once more while its retransmission is in flight.
//!
//! **TLP** (Section 7). Out of recovery, with data in flight and nothing SACKed, the
//! probe timeout `PTO = 2 SRTT` (1 s before a sample; plus `WCDelAckT` = 200 ms with one
//! packet in flight), at most the time left to the RTO, is armed after new data is sent
//! and at each ACK of new data. When it fires the sender sends one new packet if it
//! may, else retransmits the highest one sent, once per tail (until an ACK covers the
//! probe), and re-arms the RTO. Without DSACK the receiver cannot say that a
//! retransmitted probe was needless, so an ACK that covers it counts as a repaired
//! loss: ssthresh is reduced and cwnd set to it (Section 7.4, Linux's
//! `tcp_process_tlp_ack`).
//!
//! The three timers (RTO, reorder, probe) are one deadline for the simulator
//! (`TcpSender::rtx_deadline`, the earliest), as Linux's `icsk_pending` does; the
//! sender knows which one fired.

use std::collections::VecDeque;

use aqm::{Duration, Time};

use super::sack::{EVER, LOST, RETX, SACKED, Scoreboard};

/// WCDelAckT, s: the worst case of the receiver's delayed ACK that a probe waits for
/// with one packet in flight (RFC 8985 Section 7.2).
const WC_DEL_ACK: f64 = 0.2;

/// RACK-TLP's state.
#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// The latest transmission of each packet from `base` on: its time and its place
    /// in the order of sending.
    xmit: VecDeque<(Time, u64)>,
    base: u32,
    /// Transmissions so far.
    sends: u64,
    /// RACK.xmit_ts and RACK.end_seq (one past the packet) of RACK.segment, and its
    /// place in the order of sending.
    pub xmit_ts: Time,
    pub end_seq: u32,
    order: u64,
    /// RACK.rtt and RACK.min_RTT (zero: none yet).
    pub rtt: Duration,
    pub min_rtt: Duration,
    /// RACK.fack: one past the highest packet delivered.
    fack: u32,
    pub reordering_seen: bool,
    /// The reorder timer and the probe timer.
    pub reo_at: Option<Time>,
    pub pto_at: Option<Time>,
    /// TLP.end_seq (one past the highest packet sent when the probe went out), and
    /// whether the probe was a retransmission.
    pub tlp_end: Option<u32>,
    pub tlp_retx: bool,
    /// The RTO deadline, while the sender's `rtx_deadline` shows the earliest timer.
    pub rto_at: Option<Time>,
    /// Inside a call of the sender (its `rtx_deadline` is the RTO's).
    pub inside: bool,
}

/// RACK_sent_after: was the transmission (t1, o1) after (t2, o2)? Times tie when a
/// sender emits several packets at one instant (the simulator's clock is exact): then
/// the order of sending decides, which RFC 8985's sequence tie-break stands for (it
/// takes a retransmission sent after new data at the same instant for the earlier).
fn sent_after(t1: Time, o1: u64, t2: Time, o2: u64) -> bool {
    t1 > t2 || (t1 == t2 && o1 > o2)
}

impl Rack {
    /// Packet `seq` leaves at `now`.
    pub fn on_send(&mut self, seq: u32, now: Time) {
        if self.xmit.is_empty() {
            self.base = seq;
        }
        if seq < self.base {
            return;
        }
        let i = (seq - self.base) as usize;
        if i >= self.xmit.len() {
            self.xmit.resize(i + 1, (now, 0));
        }
        self.sends += 1;
        self.xmit[i] = (now, self.sends);
    }

    /// When packet `s` was last sent, and that transmission's place in the order.
    fn sent(&self, s: u32) -> Option<(Time, u64)> {
        self.xmit.get(s.checked_sub(self.base)? as usize).copied()
    }

    /// When packet `s` was last sent.
    pub fn sent_at(&self, s: u32) -> Option<Time> {
        self.sent(s).map(|(t, _)| t)
    }

    /// The cumulative ACK moved to `una`.
    pub fn advance(&mut self, una: u32) {
        while self.base < una && !self.xmit.is_empty() {
            self.xmit.pop_front();
            self.base += 1;
        }
        self.base = self.base.max(una);
    }

    /// Steps 2 and 3 for packet `s`, delivered at `now` with flags `flags` before: RACK
    /// becomes it if it was sent last; reordering if it lies below RACK.fack.
    pub fn delivered(&mut self, s: u32, flags: u8, now: Time) {
        let Some((t, o)) = self.sent(s) else { return };
        let end = s + 1;
        if end > self.fack {
            self.fack = end;
        } else if end < self.fack && flags & EVER == 0 {
            self.reordering_seen = true;
        }
        let rtt = now - t;
        if flags & EVER != 0 && rtt < self.min_rtt {
            return; // (perhaps the ACK of the first copy)
        }
        if self.min_rtt == Duration::ZERO || rtt < self.min_rtt {
            self.min_rtt = rtt;
        }
        if sent_after(t, o, self.xmit_ts, self.order) {
            (self.xmit_ts, self.end_seq, self.order, self.rtt) = (t, end, o, rtt);
        }
    }

    /// Step 4: the reordering window (`srtt` in s, 0 before the first sample).
    pub fn reo_wnd(&self, in_recovery: bool, sacked: u32, dupthresh: u32, srtt: f64) -> Duration {
        if !self.reordering_seen && (in_recovery || sacked >= dupthresh) {
            return Duration::ZERO;
        }
        let quarter = Duration(self.min_rtt.0 / 4);
        // (no smoothed RTT before the first sample: no cap)
        if srtt > 0.0 { quarter.min(Duration::from_secs_f64(srtt)) } else { quarter }
    }

    /// Step 5: mark lost the packets of `una..snd_max` sent before RACK.segment whose
    /// time is up at `now` (a retransmission by its last send: a lost retransmission is
    /// deemed lost again, as in Linux's `tcp_rack_detect_loss`); arm the reorder timer
    /// for the others. Returns the packets newly deemed lost.
    pub fn detect_loss(
        &mut self,
        sb: &mut Scoreboard,
        span: (u32, u32),
        reo: Duration,
        now: Time,
    ) -> u32 {
        let (una, snd_max) = span;
        let (mut lost, mut wait) = (0, None::<Time>);
        for s in una..snd_max {
            let f = sb.flag(s);
            // (a packet deemed lost and not yet retransmitted waits for its copy; a
            // retransmission is judged by its own send time, and may be lost again)
            if f & SACKED != 0 || f & (LOST | RETX) == LOST {
                continue;
            }
            let Some((t, o)) = self.sent(s) else { continue };
            if !sent_after(self.xmit_ts, self.order, t, o) {
                continue;
            }
            let due = t + self.rtt + reo;
            if due <= now {
                sb.set_flag(s, LOST, RETX);
                lost += 1;
            } else {
                wait = wait.max(Some(due));
            }
        }
        self.reo_at = wait;
        lost
    }

    /// Section 7.2: the probe timeout from `now` with smoothed RTT `srtt` (0: none),
    /// `flight` packets outstanding and the RTO due at `rto_at`.
    pub fn arm_pto(&mut self, now: Time, srtt: f64, flight: u32, rto_at: Option<Time>) {
        let mut pto = if srtt > 0.0 { 2.0 * srtt } else { 1.0 };
        if flight == 1 {
            pto += WC_DEL_ACK;
        }
        let at = now + Duration::from_secs_f64(pto);
        self.pto_at = Some(rto_at.map_or(at, |r| at.min(r)));
    }
}
