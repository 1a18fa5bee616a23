//! The sender's extended path: ACKs of a sender with CUBIC, DCTCP, LEDBAT, SACK or
//! limited transmit. Everything a plain Reno-family sender does is done the same way
//! here (the shared steps are the same functions); what differs is the window's growth
//! (CUBIC, LEDBAT), the answer to ECN-Echo (DCTCP, CUBIC), duplicate ACKs (limited
//! transmit, SACK) and loss recovery (SACK, RFC 6675 Section 5).

use super::sack::SackLog;
use super::{EcnCwr, LossSsthresh, RenoGrowth, TcpSender};
use crate::packet::{Pkt, flags};
use aqm::Time;

impl TcpSender {
    /// `on_ack` of a sender with extensions (RACK-TLP's timers around it, with `rack`).
    #[inline(never)]
    pub(super) fn on_ack_ext(&mut self, now: Time, ack: &Pkt, out: &mut Vec<Pkt>, max: u32) {
        let paced = self.pace_enter();
        if self.rack.is_some() {
            let entered = self.rack_enter();
            self.ack_ext(now, ack, out, max, true);
            self.rack_leave(entered, now);
        } else {
            self.ack_ext(now, ack, out, max, false);
        }
        self.pace_leave(paced, now);
    }

    /// The ACK's steps (`rack`: RACK-TLP's among them).
    #[inline(always)]
    fn ack_ext(&mut self, now: Time, ack: &Pkt, out: &mut Vec<Pkt>, max: u32, rack: bool) {
        let a = ack.seq;
        // (BBR: the window is set once the ACK is taken, and only then does it send)
        let bbr = self.bbr.is_some().then(|| (self.in_flight(), self.in_recovery));
        let (max, bbr_max) = if bbr.is_some() { (0, max) } else { (max, max) };
        let newly_sacked = if self.sack.is_some() { self.sack_ack(now, a, ack.epoch) } else { 0 };
        let ece = self.p.ecn && self.ecn_feedback(now, ack);
        if a > self.snd_una
            && let Some(d) = self.dctcp.as_mut()
        {
            d.on_ack(a - self.snd_una, ece, a, self.snd_max);
        }
        if a > self.snd_una
            && let Some(l) = self.ledbat.as_mut()
        {
            // Karn's rule for the delay: no sample in recovery, nor from a segment
            // first sent before the last reduction began (it may be a copy).
            let clean = !self.in_recovery && (!self.have_recover || a > self.recover);
            if let Some(h) = self.sent_times.as_deref() {
                l.on_ack(a, clean, h, now.0);
            }
        }
        self.ecn_echo(a, ece);
        let lost = if rack { self.rack_on_ack(now, a) } else { 0 };
        if a > self.snd_una {
            self.new_ack_ext(now, a, out, max);
        } else if a == self.snd_una && self.snd_max > self.snd_una {
            self.dup_ack_ext(now, a, newly_sacked, out, max);
        }
        if rack {
            self.rack_recover(now, out, max, lost);
        }
        if let Some((prior_in_flight, was_in_recovery)) = bbr {
            // (without RACK, a recovery's start is its one loss)
            let entered = u32::from(self.in_recovery && !was_in_recovery);
            let losses = if self.rack.is_some() { lost } else { entered };
            self.bbr_ack(now, losses, prior_in_flight);
            self.send_ext(now, out, bbr_max);
        } else if self.prague.is_some() {
            self.prague_after(now);
        } else if let Some(p) = self.pacing.as_mut() {
            p.set_from_window(self.cwnd, self.ssthresh, self.snd_max - self.snd_una, self.srtt);
        }
    }

    /// An ECN-capable sender's feedback: ECN-Echo (RFC 3168's, or DCTCP's exact echo),
    /// or for Prague the ACE counter, whose answer `prague_ack` gives (then false).
    #[inline(always)]
    fn ecn_feedback(&mut self, now: Time, ack: &Pkt) -> bool {
        if self.prague.is_some() {
            self.prague_ack(now, ack);
            return false;
        }
        ack.flags & flags::ECE != 0
    }

    /// The scoreboard takes the ACK for `a` and its SACK blocks (of connection epoch
    /// `epoch`): the packets newly SACKed (with RACK's and the delivery-rate records of
    /// the packets newly SACKed, and those of the packets the ACK newly covers); RFC
    /// 6937's DeliveredData noted.
    fn sack_ack(&mut self, now: Time, a: u32, epoch: u8) -> u32 {
        let blocks = match &self.sack_log {
            Some(log) => SackLog::take(log, a, epoch),
            None => Default::default(),
        };
        let Some(before) = self.sack.as_ref().map(|sb| i64::from(sb.sacked)) else { return 0 };
        if a > self.snd_una {
            self.rack_cumulative(now, a);
            self.rate_cumulative(a);
        }
        let sb = self.sack.as_mut().expect("a scoreboard");
        sb.advance(a.max(self.snd_una));
        let newly = match (self.rack.as_deref_mut(), self.rate.as_deref_mut()) {
            (None, None) => sb.update(blocks.as_slice(), self.snd_max),
            (mut rack, mut rate) => sb.update_with(blocks.as_slice(), self.snd_max, |s, f| {
                if let Some(r) = rack.as_mut() {
                    r.delivered(s, f, now);
                }
                if let Some(r) = rate.as_mut() {
                    r.on_delivered(s, true);
                }
            }),
        };
        // RFC 6937's DeliveredData: the change in snd_una plus the change in SACKed
        let acked = i64::from(a.saturating_sub(self.snd_una));
        self.delivered = (acked + i64::from(sb.sacked) - before).max(0) as u32;
        newly
    }

    /// The answer to ECN-Echo, once per window of data: RFC 3168's halving (cwnd exactly
    /// half, ssthresh the integer half, as ns-2 does), DCTCP's
    /// `cwnd (1 - alpha / 2)` (RFC 8257 Section 3.3), CUBIC's congestion event
    /// (RFC 9438 Section 4.6, cwnd at least 1).
    pub(super) fn ecn_reduce(&mut self) {
        if self.bbr.is_some() {
            // (BBR v1 does not answer ECN-Echo; the CWR flag still tells the receiver)
            self.ecn_recover = self.snd_max;
            self.cwr_pending = true;
            return;
        }
        self.end_hystart();
        self.cwnd_cnt = 0;
        let w = self.cwnd.min(self.p.max_window as f64);
        if let Some(d) = self.dctcp.as_ref() {
            self.ssthresh = d.reduced(w);
        } else {
            self.halve();
        }
        let reno = self.cubic.is_none() && self.dctcp.is_none() && self.ledbat.is_none();
        self.cwnd = if reno && self.p.rules.loss_ssthresh != LossSsthresh::Pipe {
            // (ns-2's `slowdown(CLOSE_CWND_HALF | CLOSE_SSTHRESH_HALF)`: cwnd exactly
            // half, ssthresh the integer half)
            (w / 2.0).max(1.0)
        } else {
            self.ssthresh.max(1.0)
        };
        self.ecn_recover = self.snd_max;
        self.in_cwr = self.p.rules.ecn_cwr == EcnCwr::Hold;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// An ACK for new data (`a` > `snd_una`).
    fn new_ack_ext(&mut self, now: Time, a: u32, out: &mut Vec<Pkt>, max: u32) {
        let newly = (a - self.snd_una) as f64;
        let slow = self.cwnd < self.ssthresh;
        let rtt = self.timed_ack(now, a);
        if let Some(r) = rtt
            && let Some(pr) = self.prague.as_deref_mut()
        {
            pr.on_rtt(r);
        }
        if self.in_recovery {
            if self.sack.is_some() {
                if a < self.recover {
                    // RFC 6675 (B): a partial ACK; the timer restarts (RFC 6298 5.3).
                    self.snd_una = a;
                    self.snd_nxt = self.snd_nxt.max(a);
                    self.dupacks = 0;
                    self.restart_timer(now);
                    self.recovery_send(now, out, max, true);
                    return;
                }
                // RFC 6675 (A): recovery ends; cwnd is ssthresh already (RFC 6937: set
                // to it), unless a new one begins at once (Linux's rule)
                if self.end_recovery(now, a, out, max) {
                    return;
                }
            } else if self.recovery_ack(now, a, newly, out, max) {
                return;
            }
        } else if self.in_cwr || self.bbr.is_some() {
            // (ecn_cwr = "hold": no growth in the round trip after an ECN reduction;
            // BBR sets its window once the ACK is taken, `bbr_ack`)
        } else if let Some(l) = self.ledbat.as_ref() {
            // RFC 6817 Section 2.4.2 (no slow start), flightsize before the ACK
            let flight = (self.snd_max - self.snd_una) as f64;
            self.cwnd = l.on_new_ack(self.cwnd, newly, flight);
        } else if let Some(c) = self.cubic.as_mut().filter(|_| a >= self.recover)
            && c.ends_loss(true)
        {
            // (cubic_slow_start = "acked": the end of a timeout's go-back-N opens nothing)
        } else if !self.may_grow() {
            // (app_limited = "hold": the sender did not fill the window)
        } else if let Some(pr) = self.prague.as_deref() {
            // (Prague's additive increase: the packets not CE-marked)
            let unmarked = (newly - f64::from(pr.ce_now)).max(0.0);
            self.cwnd = pr.grown(self.cwnd, self.ssthresh, unmarked);
        } else if let Some(h) = self.hystart.as_mut().filter(|h| slow && !h.done) {
            // RFC 9406 Section 4.2
            let step = h.on_ack(a, newly, rtt, self.snd_nxt);
            self.cwnd += step.increase;
            if step.exit {
                self.ssthresh = self.cwnd;
            }
        } else if self.cubic.is_none() && self.p.rules.reno_growth == RenoGrowth::Segments {
            self.reno_segments(newly as u32);
        } else if slow {
            self.cwnd += self.cubic.as_ref().map_or(1.0, |c| c.slow_start_increase(newly))
        } else if let Some(c) = self.cubic.as_mut() {
            self.cwnd = c.on_ack_n(now.as_secs_f64(), self.cwnd, self.srtt, newly as u32);
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
        self.acked_to(now, a);
        self.send_ext(now, out, max);
    }

    /// A duplicate ACK (`a` == `snd_una`, data outstanding) that newly SACKed
    /// `newly_sacked` packets.
    fn dup_ack_ext(&mut self, now: Time, a: u32, newly_sacked: u32, out: &mut Vec<Pkt>, max: u32) {
        let thresh = self.p.dupack_threshold;
        if self.sack.is_none() {
            if self.in_recovery || self.dupacks + 1 >= thresh || !self.p.rules.limited_transmit {
                return self.dup_ack(now, a, out, max);
            }
            self.dupacks += 1;
            return self.limited_transmit(now, out);
        }
        if self.in_recovery {
            // RFC 6675 (B), (C).
            self.recovery_send(now, out, max, true);
            return;
        }
        if self.rack.is_some() {
            // (RACK deems packets lost by time, not by the duplicates' count)
            if newly_sacked > 0 && self.p.rules.limited_transmit {
                self.limited_transmit(now, out);
            }
            return;
        }
        // RFC 6675 Section 2: a duplicate ACK is one that SACKs new data.
        if newly_sacked > 0 {
            self.dupacks += 1;
        }
        let (una, snd_max) = (self.snd_una, self.snd_max);
        let lost = self.sack.as_ref().is_some_and(|sb| sb.is_lost(una, snd_max, thresh));
        if self.dupacks >= thresh || lost {
            if self.have_recover && a < self.recover {
                // RFC 6675 Section 5.1 / RFC 6582: this window was reduced for already.
                return;
            }
            self.sack_recovery(now, out, max);
        } else if newly_sacked > 0 && self.p.rules.limited_transmit {
            self.limited_transmit(now, out);
        }
    }
}
