//! The sender's timers with RACK-TLP (`rack`, see `rack`): the RTO, the reorder timer
//! and the probe timeout share the one deadline the simulator sees, `rtx_deadline`
//! (the earliest); inside a call of the sender it is the RTO's, as without RACK. Here
//! too: RACK's part of an ACK and of the reorder timer, and the tail loss probe.

use aqm::Time;

use super::sack::{EVER, RETX, SACKED};
use super::{Pkt, TcpSender};

impl TcpSender {
    /// A call of the sender begins: `rtx_deadline` is the RTO's again. Returns whether
    /// this call is the outermost (which `rack_leave` needs).
    #[inline(always)]
    pub(super) fn rack_enter(&mut self) -> Option<(u32, u32)> {
        let r = self.rack.as_mut()?;
        if r.inside {
            return None;
        }
        r.inside = true;
        self.rtx_deadline = r.rto_at;
        Some((self.snd_una, self.snd_max))
    }

    /// The outermost call ends: the probe timer re-armed if the call acknowledged or
    /// sent new data (RFC 8985 Section 7.2), and `rtx_deadline` the earliest timer.
    #[inline(always)]
    pub(super) fn rack_leave(&mut self, entered: Option<(u32, u32)>, now: Time) {
        if let Some(e) = entered {
            self.rack_left(e, now);
        }
    }

    /// `rack_leave` of the outermost call (`entered`: snd_una and snd_max then).
    #[inline(never)]
    fn rack_left(&mut self, (una, snd_max): (u32, u32), now: Time) {
        let flight = self.snd_max - self.snd_una;
        let open =
            !self.in_episode() && self.sack.as_ref().is_none_or(|sb| sb.sacked == 0) && flight > 0;
        let (srtt, rto) = (self.srtt, self.rtx_deadline);
        let Some(r) = self.rack.as_mut() else { return };
        if !open || r.tlp_end.is_some() {
            r.pto_at = None;
        } else if r.pto_at.is_none() || self.snd_una > una || self.snd_max > snd_max {
            r.arm_pto(now, srtt, flight, rto);
        }
        r.inside = false;
        r.rto_at = rto;
        self.rtx_deadline = [rto, r.reo_at, r.pto_at].into_iter().flatten().min();
    }

    /// RACK's part of an ACK for `a` (RFC 8985 Sections 6.2 steps 4 and 5, 7.4; steps
    /// 2 and 3 ran as the scoreboard took the ACK): the packets newly deemed lost.
    pub(super) fn rack_on_ack(&mut self, now: Time, a: u32) -> u32 {
        let (Some(r), Some(sb)) = (self.rack.as_mut(), self.sack.as_mut()) else { return 0 };
        let una = a.max(self.snd_una);
        r.advance(una);
        let mut repaired = false;
        if let Some(end) = r.tlp_end
            && una >= end
        {
            r.tlp_end = None;
            repaired = r.tlp_retx;
        }
        let in_loss = self.in_recovery || (self.have_recover && una < self.recover);
        let reo = r.reo_wnd(in_loss, sb.sacked, self.p.dupack_threshold, self.srtt);
        let lost = r.detect_loss(sb, (una, self.snd_max), reo, now);
        if repaired && !self.in_recovery && lost == 0 && self.bbr.is_none() {
            // Section 7.4: the probe repaired a loss (no DSACK says otherwise)
            self.halve();
            self.cwnd = self.ssthresh;
        }
        lost
    }

    /// After an ACK: packets deemed lost start recovery unless this window was reduced
    /// for already.
    pub(super) fn rack_recover(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32, lost: u32) {
        if lost == 0 || self.in_episode() {
            return;
        }
        self.sack_recovery(now, out, max);
    }

    /// The RACK packets newly delivered by a cumulative ACK up to `a` (those not
    /// SACKed before): steps 2 and 3.
    pub(super) fn rack_cumulative(&mut self, now: Time, a: u32) {
        let (Some(r), Some(sb)) = (self.rack.as_mut(), self.sack.as_ref()) else { return };
        for s in self.snd_una..a {
            let f = sb.flag(s);
            if f & SACKED == 0 {
                r.delivered(s, f, now);
            }
        }
    }

    /// The deadline passed: the reorder timer, the probe or the RTO, whichever is due;
    /// a paced sender's departure time (`paced`).
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        if self.pacing.is_some() {
            return self.paced_timeout(now, out, max);
        }
        self.timer_fired(now, out, max);
    }

    /// The reorder timer, the probe or the RTO, whichever is due.
    pub(super) fn timer_fired(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        let Some(r) = self.rack.as_ref() else { return self.rto(now, out, max) };
        let due = |t: Option<Time>| t.is_some_and(|t| t <= now);
        let (reo, pto, rto) = (due(r.reo_at), due(r.pto_at), due(r.rto_at));
        let entered = self.rack_enter();
        if reo {
            self.rack_reorder(now, out, max);
        } else if pto {
            self.tlp_probe(now, out);
        } else if rto {
            self.rto(now, out, max);
        }
        self.rack_leave(entered, now);
    }

    /// The reorder timer fired: detect losses again (Section 6.2 step 5).
    fn rack_reorder(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        let in_loss = self.in_episode();
        let (Some(r), Some(sb)) = (self.rack.as_mut(), self.sack.as_mut()) else { return };
        r.reo_at = None;
        let reo = r.reo_wnd(in_loss, sb.sacked, self.p.dupack_threshold, self.srtt);
        let lost = r.detect_loss(sb, (self.snd_una, self.snd_max), reo, now);
        if lost > 0 && self.in_recovery {
            self.recovery_send(now, out, max, false);
        } else {
            self.rack_recover(now, out, max, lost);
        }
    }

    /// The probe timeout fired (Section 7.3): one new packet if the application and
    /// the receiver window allow it, else the highest packet sent again; then the RTO.
    fn tlp_probe(&mut self, now: Time, out: &mut Vec<Pkt>) {
        let new_ok = self.app_has(self.snd_max)
            && self.snd_max < self.snd_una.saturating_add(self.p.max_window);
        let retx = !new_ok && self.snd_max > self.snd_una;
        if new_ok {
            let seq = self.snd_max;
            self.emit_ext(now, seq, false, out);
            self.snd_max += 1;
            self.snd_nxt = self.snd_nxt.max(self.snd_max);
        } else if retx {
            let seq = self.snd_max - 1;
            if let Some(sb) = self.sack.as_mut() {
                sb.set_flag(seq, RETX | EVER, 0);
            }
            self.emit_ext(now, seq, true, out);
        }
        let end = self.snd_max;
        if let Some(r) = self.rack.as_mut() {
            r.pto_at = None;
            r.tlp_end = (new_ok || retx).then_some(end);
            r.tlp_retx = retx;
        }
        self.probes += 1;
        self.restart_timer(now);
    }
}
