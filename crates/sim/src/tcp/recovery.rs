//! Sending around SACK's loss recovery: limited transmit (RFC 3042), RFC 6675's entry
//! into recovery and its `NextSeg()` sending, and the window during recovery
//! (RFC 6675's cwnd = ssthresh, or Proportional Rate Reduction, RFC 6937, `prr`).

use aqm::Time;

use super::prr::Prr;
use super::sack::{EVER, RETX, Scoreboard};
use super::{FrTimer, Pkt, TcpSender};

impl TcpSender {
    /// RFC 3042: on each of the first two duplicate ACKs a new packet goes out, if the
    /// receiver window and the application allow it and the data outstanding stays
    /// within cwnd + 2 packets; cwnd does not change.
    pub(super) fn limited_transmit(&mut self, now: Time, out: &mut Vec<Pkt>) {
        if self.dupacks >= self.p.dupack_threshold || self.snd_nxt != self.snd_max {
            return;
        }
        let outstanding = self.snd_max - self.snd_una;
        if self.app_has(self.snd_max)
            && outstanding < self.p.max_window
            && outstanding < self.window() + 2
        {
            let seq = self.snd_max;
            self.emit_ext(now, seq, false, out);
            self.snd_max += 1;
            self.snd_nxt = self.snd_max;
        }
    }

    /// RFC 6675 Section 5, steps 1 to 5: enter loss recovery.
    pub(super) fn sack_recovery(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        self.stats.fast_retransmits += 1;
        if let Some(b) = self.bbr.as_mut() {
            // (BBR sets the window itself: Linux's `bbr_ssthresh` keeps it to restore)
            b.save_cwnd(self.cwnd);
        } else {
            self.halve();
            self.cwnd = self.ssthresh;
        }
        self.recover = self.snd_max;
        self.have_recover = true;
        self.in_recovery = true;
        let una = self.snd_una;
        if self.p.rules.prr && self.bbr.is_none() {
            // RFC 6937: RecoverFS, then the first ACK's share (the fast retransmission)
            self.prr = Some(Box::new(Prr::start(self.snd_max - una)));
            self.prr_window();
        }
        // the fast retransmission: the first packet deemed lost (RACK's mark, else the
        // head, RFC 6675 (4.3)); none when RACK's every packet deemed lost is already
        // retransmitted (a recovery that follows another at once, `end_recovery`)
        let first = match (self.rack.is_some(), self.sack.as_mut()) {
            (true, Some(sb)) => {
                let s = sb.next_marked(self.snd_max);
                if let Some(s) = s {
                    sb.set_flag(s, RETX | EVER, 0);
                }
                s
            }
            (false, Some(sb)) => {
                sb.high_rxt = una + 1;
                Some(una)
            }
            _ => Some(una),
        };
        if let Some(first) = first {
            self.emit_ext(now, first, true, out);
            if let Some(p) = self.prr.as_mut() {
                p.out += 1;
            }
            if self.p.rules.fast_retransmit_timer != FrTimer::Keep {
                self.restart_timer(now);
            }
        }
        self.recovery_send(now, out, max, false);
    }

    /// RFC 6675 (A): an ACK for `a`, beyond the recovery point, ends the recovery (RFC
    /// 6937: cwnd = ssthresh). With RACK, if a packet deemed lost is still not
    /// delivered (one sent during the recovery and lost, its retransmission in flight),
    /// a new recovery begins at this ACK, as in Linux's `tcp_fastretrans_alert`: the
    /// state goes back to Open, then `tcp_time_to_recover` finds `lost_out` above 0 and
    /// `tcp_enter_recovery` reduces again with PRR from this ACK on. Without it the
    /// sender would leave the recovery with the packets SACKed above the hole filling
    /// its window: nothing sent until the retransmission's ACK, then a window at once.
    /// True if a new recovery began (it has sent what it may).
    pub(super) fn end_recovery(&mut self, now: Time, a: u32, out: &mut Vec<Pkt>, max: u32) -> bool {
        self.in_recovery = false;
        if self.prr.take().is_some() {
            self.cwnd = self.ssthresh;
        }
        let lost = self.rack.is_some() && self.sack.as_ref().is_some_and(|sb| sb.any_marked());
        if !lost {
            return false;
        }
        self.acked_to(now, a);
        self.sack_recovery(now, out, max);
        true
    }

    /// Send in recovery: RFC 6675's (C) with the window RFC 6675 keeps (ssthresh) or,
    /// with `prr`, the one PRR sets on each ACK (`step`: this ACK's share is still to
    /// be set).
    pub(super) fn recovery_send(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32, step: bool) {
        if step && self.prr.is_some() {
            self.prr_window();
        }
        let sent = self.sack_send(now, out, max);
        if let Some(p) = self.prr.as_mut() {
            p.out += u64::from(sent);
        }
    }

    /// PRR (RFC 6937 Section 3): cwnd = pipe + sndcnt for this ACK's delivered data.
    fn prr_window(&mut self) {
        let Some(sb) = self.sack.as_ref() else { return };
        let pipe = self.pipe_of(sb);
        let Some(p) = self.prr.as_mut() else { return };
        let n = p.sndcnt(self.delivered, pipe, self.ssthresh);
        self.cwnd = f64::from(pipe) + f64::from(n);
    }

    /// RFC 6675 step (C): while `cwnd - pipe >= 1`, send what `NextSeg()` names:
    /// a lost packet (rule 1), else new data (rule 2), else an unSACKed packet below
    /// the highest SACKed one (rule 3).
    pub(super) fn sack_send(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        let Some(mut sb) = self.sack.take() else { return 0 };
        let thresh = self.p.dupack_threshold;
        // (pipe is recounted only here; each packet sent adds one, RFC 6675 C.4)
        let mut pipe = self.pipe_of(&sb) as f64;
        let mut n = 0;
        while n < max && self.cwnd - pipe >= 1.0 {
            if self.pace_blocked(now) {
                break;
            }
            let rx = self.next_of(&sb, thresh);
            let new_ok = self.app_has(self.snd_max)
                && self.snd_max < self.snd_una.saturating_add(self.p.max_window);
            let seq = match rx {
                Some((s, true)) => s,
                _ if new_ok => self.snd_max,
                Some((s, false)) => s,
                None => break,
            };
            if seq < self.snd_max {
                if self.rack.is_some() {
                    sb.set_flag(seq, RETX | EVER, 0);
                } else {
                    sb.high_rxt = seq + 1;
                }
                self.emit_ext(now, seq, true, out);
                if seq == self.snd_una && self.head_rearms() {
                    self.restart_timer(now);
                }
            } else {
                self.emit_ext(now, seq, false, out);
                self.snd_max += 1;
                self.snd_nxt = self.snd_nxt.max(self.snd_max);
            }
            pipe += 1.0;
            n += 1;
        }
        self.sack = Some(sb);
        n
    }

    /// Does a retransmission of the head restart the timer (`fast_retransmit_timer =
    /// "head"`, not while RACK's reorder timer is pending)?
    fn head_rearms(&self) -> bool {
        self.p.rules.fast_retransmit_timer == FrTimer::Head
            && self.rack.as_ref().is_none_or(|r| r.reo_at.is_none())
    }

    /// Could `sack_send` send now (`can_send` in SACK's recovery)?
    pub(super) fn sack_can_send(&self) -> bool {
        let Some(sb) = self.sack.as_ref() else { return false };
        let thresh = self.p.dupack_threshold;
        let new_ok = self.app_has(self.snd_max)
            && self.snd_max < self.snd_una.saturating_add(self.p.max_window);
        self.cwnd - self.pipe_of(sb) as f64 >= 1.0 && (new_ok || self.next_of(sb, thresh).is_some())
    }

    /// The packets in flight: RFC 6675's pipe, or RACK's.
    pub(super) fn pipe_of(&self, sb: &Scoreboard) -> u32 {
        if self.rack.is_some() {
            sb.pipe_marked(self.snd_max)
        } else {
            sb.pipe(self.snd_max, self.p.dupack_threshold)
        }
    }

    /// RFC 6675's `NextSeg()` rules (1) and (3), or RACK's next packet deemed lost.
    fn next_of(&self, sb: &Scoreboard, thresh: u32) -> Option<(u32, bool)> {
        if self.rack.is_some() {
            sb.next_marked(self.snd_max).map(|s| (s, true))
        } else {
            sb.next_retransmission(self.snd_max, thresh)
        }
    }

    /// `send_much` with the extensions: SACK's rules in recovery; otherwise the
    /// window, skipping packets SACKed since a timeout.
    pub(super) fn send_ext(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        if self.sack.is_none() {
            return self.send_noted(now, out, max);
        }
        if self.in_recovery {
            self.recovery_send(now, out, max, false);
            return 0;
        }
        let mut n = 0;
        let limit = self.snd_una.saturating_add(self.window());
        while n < max && self.snd_nxt < limit && self.app_has(self.snd_nxt) {
            if self.pace_blocked(now) {
                break;
            }
            let seq = self.snd_nxt;
            let retx = seq < self.snd_max;
            self.snd_nxt += 1;
            if retx && self.sack.as_ref().is_some_and(|sb| sb.is_sacked(seq)) {
                continue;
            }
            self.emit_ext(now, seq, retx, out);
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
            n += 1;
        }
        if self.app_limit != u64::MAX {
            self.note_usage();
            self.check_app_limited();
        }
        n
    }
}
