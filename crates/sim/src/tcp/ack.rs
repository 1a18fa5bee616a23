//! The plain sender's answers to ACKs: new data (slow start, congestion avoidance,
//! the RTT sample and the timer), duplicates (fast retransmit and fast recovery, RFC
//! 5681 and RFC 6582), the ECN echo (RFC 3168). Senders without SACK only (the extended
//! path hands them these steps too), so they send with `send_noted`: without SACK,
//! `send_ext` is `send_noted` and RACK-TLP's timers are off.

use aqm::Time;

use super::rto::{Ns2Rtt, PeerRtt};
use super::{
    FrTimer, NewRenoFlavor, NewRenoTimer, Pkt, RecoverRule, RecoveryWindow, RtoBackoff, RttSampling,
};
use super::{TcpSender, Variant, flags};

impl TcpSender {
    /// A round trip of `r` seconds of a segment sent at `sent`, acknowledged by `a`:
    /// the estimator `rto_estimator` names updates srtt, rttvar and the RTO.
    #[inline(always)]
    pub(super) fn rtt_sample(&mut self, r: f64, sent: Time, a: u32) {
        if let Some(c) = self.cubic.as_mut() {
            c.note_rtt(r);
        }
        match &mut self.est {
            PeerRtt::Rfc => self.rfc6298_sample(r),
            PeerRtt::Ns2(e) => {
                let tick = self.p.tick;
                let t = Ns2Rtt::ticks(r, sent.as_secs_f64() + self.clock, tick);
                let rtxcur = e.update(t) as f64 * tick;
                (self.srtt, self.rttvar) = e.seconds(tick);
                self.rto = rtxcur.max(self.p.min_rto);
                self.have_rtt = true;
                self.set_rto_span();
            }
            PeerRtt::Linux(e) => {
                let us = |s: f64| (s * 1e6).round() as i64;
                let rto = e.update(us(r).max(1), a, self.snd_max, us(self.p.min_rto));
                (self.srtt, self.rttvar) = ((e.srtt >> 3) as f64 * 1e-6, e.rttvar as f64 * 1e-6);
                // usecs_to_jiffies rounds up; tcp_bound_rto caps at TCP_RTO_MAX
                let jiffy = us(self.p.tick).max(1);
                let rto = ((rto + jiffy - 1) / jiffy * jiffy) as f64 * 1e-6;
                self.rto = rto.min(self.p.max_rto);
                self.have_rtt = true;
                self.set_rto_span();
            }
        }
    }

    /// RFC 6298 Section 2 (Jacobson/Karels): samples measured in ticks of the clock
    /// (rounded, at least one; with `rtt_sampling = "ack"` at full resolution, as
    /// ns-3's `RttMeanDeviation`), RTO = SRTT + max(G, 4 RTTVAR) with G the tick.
    #[inline(always)]
    fn rfc6298_sample(&mut self, r: f64) {
        let tick = self.p.tick;
        let exact = self.p.rules.rtt_sampling == RttSampling::Ack;
        let r = if exact { r } else { ((r / tick).round().max(1.0)) * tick };
        if !self.have_rtt {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.have_rtt = true;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
        // (2.3), (2.4) and (2.5)
        let rto = self.srtt + (4.0 * self.rttvar).max(tick);
        self.rto = rto.clamp(self.p.min_rto, self.p.max_rto);
        self.set_rto_span();
    }

    /// An ACK arrived. `max` bounds the packets sent in response (prep-delay pacing).
    pub fn on_ack(&mut self, now: Time, ack: &Pkt, out: &mut Vec<Pkt>, max: u32) {
        if self.ext {
            return self.on_ack_ext(now, ack, out, max);
        }
        let a = ack.seq;
        self.ecn_echo(a, self.p.ecn && ack.flags & flags::ECE != 0);
        if a > self.snd_una {
            self.new_ack(now, a, out, max);
        } else if a == self.snd_una && self.snd_max > self.snd_una {
            self.dup_ack(now, a, out, max);
        }
    }

    /// An ACK acknowledging up to `a`, with ECN-Echo (`ece`) or not: RFC 3168's answer,
    /// once per window, as to a loss but without retransmitting; the round trip after
    /// it (`ecn_cwr`) ends once `a` covers a packet sent after the reduction.
    #[inline(always)]
    pub(super) fn ecn_echo(&mut self, a: u32, ece: bool) {
        if self.in_cwr && a > self.ecn_recover {
            self.in_cwr = false;
        }
        if ece && a > self.ecn_recover && !self.in_recovery {
            self.ecn_reduce();
        }
    }

    /// An ACK for new data (`a` > `snd_una`), on the plain path: a bulk sender, which
    /// always fills its window (`app_limited` has nothing to hold).
    #[inline(always)]
    pub(super) fn new_ack(&mut self, now: Time, a: u32, out: &mut Vec<Pkt>, max: u32) {
        let newly = (a - self.snd_una) as f64;
        self.timed_ack(now, a);
        if self.in_recovery {
            if self.recovery_ack(now, a, newly, out, max) {
                return;
            }
        } else if self.in_cwr {
            // (ecn_cwr = "hold": no growth in the round trip after an ECN reduction)
        } else if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
        self.acked_to(now, a);
        self.send_plain::<false>(now, out, max);
    }

    /// An ACK for new data ends the RTT measurement it covers.
    #[inline(always)]
    /// Returns the round trip of the oldest segment it covers, if the send-time record
    /// is kept and that segment was sent once (HyStart++'s sample).
    pub(super) fn timed_ack(&mut self, now: Time, a: u32) -> Option<f64> {
        // the send-time record (rtt_sampling = "ack", LEDBAT, HyStart++) drops what `a` covers
        let covered = self.sent_times.as_mut().and_then(|h| h.on_ack(a, now));
        let sample = if self.p.rules.rtt_sampling == RttSampling::Ack {
            // every ACK of a segment sent once (rtt.rs)
            // (the send time is read by ns-2's estimator only, which times segments)
            covered.map(|r| (r, now))
        } else if let Some(s) = self.rtt_seq
            && a > s
        {
            self.rtt_seq = None;
            Some(((now - self.rtt_ts).as_secs_f64(), self.rtt_ts))
        } else {
            None
        };
        if let Some((r, sent)) = sample {
            self.rtt_sample(r, sent, a);
            self.backoff = 1;
            self.set_rto_span();
        } else if self.backoff > 1 && self.p.rules.rto_backoff == RtoBackoff::Ack {
            self.backoff = 1;
            self.set_rto_span();
        }
        covered
    }

    /// The left edge moves to `a` (after the window's update): the timer, a finite
    /// transfer's end.
    #[inline(always)]
    pub(super) fn acked_to(&mut self, now: Time, a: u32) {
        // cwnd never grows past the receiver window (it could not be used; Linux's
        // snd_cwnd_clamp). Fast-recovery inflation is bounded the same way below.
        self.cwnd = self.cwnd.min(self.p.max_window as f64);
        self.dupacks = 0;
        self.snd_una = a;
        if self.snd_nxt < a {
            self.snd_nxt = a;
        }
        if self.snd_max < a {
            self.snd_max = a;
        }
        if self.snd_una >= self.snd_max {
            self.rtx_deadline = None;
        } else {
            self.restart_timer(now);
        }
        if self.p.packets > 0 && self.snd_una as u64 >= self.p.packets && self.done_at.is_none() {
            self.done_at = Some(now);
            self.rtx_deadline = None;
        }
    }

    /// A new ACK during fast recovery, acknowledging `newly` packets: a NewReno partial
    /// ACK is answered here in full (true); otherwise the window is set for the exit
    /// from recovery, or deflated for Lin & Morris's NewReno that stays in it (false).
    #[inline(always)]
    pub(super) fn recovery_ack(
        &mut self,
        now: Time,
        a: u32,
        newly: f64,
        out: &mut Vec<Pkt>,
        max: u32,
    ) -> bool {
        let partial = a < self.recover;
        match self.p.variant {
            v if v.newreno_recovery() && partial => {
                // RFC 6582 step 5: retransmit the first unacknowledged packet,
                // deflate by the amount acknowledged, add back one.
                self.snd_una = a;
                if self.snd_nxt < a {
                    self.snd_nxt = a;
                }
                self.emit(now, a, true, out);
                self.cwnd = if self.p.rules.recovery_window == RecoveryWindow::Ns2 {
                    self.ns2_deflate(newly as u32)
                } else {
                    (self.cwnd - newly + 1.0).max(1.0)
                };
                if !self.partial_seen || self.p.rules.newreno_timer == NewRenoTimer::SlowButSteady {
                    self.restart_timer(now);
                }
                self.partial_seen = true;
                self.send_noted(now, out, max);
                return true;
            }
            Variant::NewReno if self.p.rules.newreno == NewRenoFlavor::LinMorris => {
                if a as f64 + self.ssthresh >= self.snd_max as f64 {
                    self.in_recovery = false;
                    self.cwnd = (self.snd_max - a) as f64 + 1.0;
                } else {
                    // Stay in recovery: deflate as for a partial ACK, no retransmission.
                    self.cwnd = (self.cwnd - newly + 1.0).max(1.0);
                }
            }
            _ if self.p.rules.recovery_window == RecoveryWindow::Ns2 => {
                self.in_recovery = false;
                self.cwnd = self.ns2_base;
                if !self.in_cwr {
                    self.cwnd += if self.cwnd < self.ssthresh { 1.0 } else { 1.0 / self.cwnd };
                }
            }
            _ => {
                self.in_recovery = false;
                self.cwnd = self.ssthresh;
            }
        }
        false
    }

    /// `recovery_window = "ns2"`: a partial ACK of `deflate` packets deflates ns-2's
    /// inflation (`dupwnd_`) by `deflate - 1`, or, where it is not larger than
    /// `deflate`, takes the rest from the window and leaves an inflation of one
    /// (`NewRenoTcpAgent::partialnewack()`); the new cwnd.
    fn ns2_deflate(&mut self, deflate: u32) -> f64 {
        if self.ns2_dupwnd > deflate {
            self.ns2_dupwnd -= deflate - 1;
        } else {
            self.ns2_base = (self.ns2_base - f64::from(deflate - self.ns2_dupwnd)).max(1.0);
            self.ns2_dupwnd = 1;
        }
        self.ns2_base + f64::from(self.ns2_dupwnd)
    }

    /// A duplicate ACK (`a` == `snd_una`, data outstanding).
    #[inline(always)]
    pub(super) fn dup_ack(&mut self, now: Time, a: u32, out: &mut Vec<Pkt>, max: u32) {
        self.dupacks += 1;
        if self.in_recovery {
            // Fast recovery: each duplicate ACK means a packet has left the network.
            self.cwnd = if self.p.rules.recovery_window == RecoveryWindow::Ns2 {
                // (ns-2: `++dupwnd_`; `window()` caps the sum at `wnd_`)
                self.ns2_dupwnd += 1;
                self.ns2_base + f64::from(self.ns2_dupwnd)
            } else {
                (self.cwnd + 1.0).min(self.p.max_window as f64 + self.p.dupack_threshold as f64)
            };
            self.send_noted(now, out, max);
        } else if self.dupacks == self.p.dupack_threshold {
            let beyond = self.p.rules.recover_rule == RecoverRule::Beyond;
            if self.have_recover && (a < self.recover || (beyond && a == self.recover)) {
                // ns-2 bug_fix_ / RFC 6582 step 2: these duplicates belong to a
                // window already reduced for.
                return;
            }
            self.fast_retransmit(now, out, max);
        } else if self.p.rules.tiny_window
            && self.dupacks < self.p.dupack_threshold
            && self.window() < 10
        {
            // Lin & Morris 11.3: one new packet per early duplicate ACK (packet
            // conservation); if the receiver window forbids it, resend the last one.
            if self.app_has(self.snd_max)
                && self.snd_max < self.snd_una.saturating_add(self.p.max_window)
            {
                let seq = self.snd_max;
                self.emit(now, seq, false, out);
                self.snd_max += 1;
                if self.snd_nxt < self.snd_max {
                    self.snd_nxt = self.snd_max;
                }
            } else {
                let seq = self.snd_max - 1;
                self.emit(now, seq, true, out);
            }
        }
    }

    /// The duplicate-ACK threshold is reached: Tahoe goes back to slow start from the
    /// lost packet, Reno and NewReno retransmit it and enter fast recovery.
    pub(super) fn fast_retransmit(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        self.stats.fast_retransmits += 1;
        // (ns-2's precisionReduce_: cwnd_ = windowd() / 2, unrounded, at least 1)
        let half = (self.cwnd.min(self.p.max_window as f64) / 2.0).max(1.0);
        self.halve();
        self.recover = self.snd_max;
        self.have_recover = true;
        match self.p.variant {
            Variant::Tahoe => {
                self.cwnd = 1.0;
                self.snd_nxt = self.snd_una;
                self.rtt_seq = None;
            }
            _ => {
                self.emit(now, self.snd_una, true, out);
                // (ns-2's reset_rtx_timer ends the measurement; the others' emit did)
                self.rtt_seq = None;
                self.cwnd = self.ssthresh + self.p.dupack_threshold as f64;
                if self.p.rules.recovery_window == RecoveryWindow::Ns2 {
                    (self.ns2_base, self.ns2_dupwnd) = (half, self.p.dupack_threshold);
                    self.cwnd = half + f64::from(self.ns2_dupwnd);
                }
                self.in_recovery = true;
                self.partial_seen = false;
            }
        }
        if self.p.rules.fast_retransmit_timer != FrTimer::Keep {
            self.restart_timer(now);
        }
        self.send_noted(now, out, max);
    }
}
