//! TCP senders (Tahoe, Reno, NewReno, CUBIC, DCTCP, LEDBAT) and the receiver, counted in
//! packets like ns-2's one-way `Agent/TCP` and `Agent/TCPSink`.
//!
//! Pure state machines: they are told the time and the packet, append what they send
//! to an output buffer, and expose their timer deadlines; the simulator owns the
//! clock and the events. The retransmission timer is a deadline, not an event: the
//! simulator keeps one pending event per flow and re-checks the deadline when it fires
//! (an ACK that restarts the timer costs nothing).
//!
//! Defaults follow ns-2 2.35 (`tcp-defaults`): maximum window 20, initial window 2,
//! timer granularity 10 ms, minimum RTO 0.2 s, initial RTO 3 s, RTO = srtt + 4 rttvar,
//! backoff doubling capped at 64, delayed-ACK interval 100 ms, 40-byte ACKs,
//! three duplicate ACKs; and ns-2's `bug_fix_`: no new fast retransmit for duplicate
//! ACKs that do not cover the highest packet sent when the last one began (RFC 6582's
//! `recover`), for every variant.
//!
//! Beyond ns-2's agents (each off by default, so that a scenario that does not ask for
//! them runs exactly as before): CUBIC (RFC 9438, `cubic`), DCTCP (RFC 8257, `dctcp`
//! and the receiver's echo in `receiver`), LEDBAT (RFC 6817, `ledbat`), SACK loss
//! recovery (RFC 6675 with RFC 2018's blocks, `sack`), limited transmit (RFC 3042) and
//! ECT(1). A sender that uses none of them takes the original code path (`ext` false):
//! one test per ACK.

mod cubic;
mod dctcp;
mod ext;
pub mod ledbat;
mod params;
mod receiver;
pub mod rtt;
mod sack;
#[cfg(test)]
mod tests;

use aqm::Time;

pub use cubic::{Cubic, CubicGrowth, CubicParams, CubicSlowStart, CubicTimeout};
pub use dctcp::Dctcp;
pub use ext::{EcnCwr, FrTimer, LossSsthresh, RecoverRule, RtoBackoff};
pub use ledbat::{Ledbat, LedbatParams};
pub use params::{NewRenoFlavor, NewRenoTimer, TcpParams, TcpStats, Variant};
pub use receiver::TcpReceiver;
pub use rtt::{RttSampling, SendTimes};
pub use sack::{SackBlocks, SackLog, Scoreboard, SharedSackLog};

use crate::packet::{Pkt, flags};

/// A TCP sender.
#[derive(Clone, Debug)]
pub struct TcpSender {
    pub p: TcpParams,
    flow: u32,
    dst: u16,
    /// Congestion window, packets.
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Oldest unacknowledged packet.
    pub snd_una: u32,
    /// Next packet to send.
    pub snd_nxt: u32,
    /// One past the highest packet sent.
    pub snd_max: u32,
    dupacks: u32,
    pub in_recovery: bool,
    /// A partial ACK has been seen in the current recovery (the Impatient timer).
    partial_seen: bool,
    /// snd_max when the last loss recovery (or timeout) began.
    recover: u32,
    have_recover: bool,
    // RTT estimation (seconds).
    pub srtt: f64,
    pub rttvar: f64,
    have_rtt: bool,
    /// Base RTO (before backoff), seconds. Read-only outside the sender: `rto_span`
    /// follows it and `backoff`.
    pub rto: f64,
    pub backoff: u32,
    /// The timer's length, `min(rto * backoff, max_rto)` as a duration, kept up to date
    /// with `rto` and `backoff` (every ACK restarts the timer).
    rto_span: aqm::Duration,
    rtt_seq: Option<u32>,
    rtt_ts: Time,
    /// The segments' send times, kept for `rtt_sampling = "ack"` and LEDBAT (`None`
    /// otherwise).
    sent_times: Option<Box<SendTimes>>,
    /// Retransmission timer deadline.
    pub rtx_deadline: Option<Time>,
    /// Packets the application has handed over (u64::MAX = unlimited).
    pub app_limit: u64,
    ecn_recover: u32,
    /// In the round trip after an ECN reduction, with `ecn_cwr = "hold"`.
    in_cwr: bool,
    cwr_pending: bool,
    drop_ix: usize,
    pub stats: TcpStats,
    /// When the last packet of a finite transfer was acknowledged.
    pub done_at: Option<Time>,
    pub started: bool,
    /// Some extension is on (CUBIC, DCTCP, LEDBAT, SACK, limited transmit): ACKs take the
    /// extended path.
    ext: bool,
    cubic: Option<Box<Cubic>>,
    dctcp: Option<Box<Dctcp>>,
    ledbat: Option<Box<Ledbat>>,
    sack: Option<Box<Scoreboard>>,
    sack_log: Option<SharedSackLog>,
}

/// A connection's two ends, sharing the SACK log if they use SACK.
pub fn connection(p: TcpParams, flow: u32, src: u16, dst: u16) -> (TcpSender, TcpReceiver) {
    let r = TcpReceiver::new(&p, flow, src);
    let mut s = TcpSender::new(p, flow, dst);
    s.sack_log = r.sack_log();
    (s, r)
}

impl TcpSender {
    pub fn new(p: TcpParams, flow: u32, dst: u16) -> TcpSender {
        let app_limit = if p.packets == 0 { u64::MAX } else { p.packets };
        let mut s = TcpSender {
            cwnd: p.init_cwnd,
            ssthresh: p.ssthresh,
            rto: p.initial_rto,
            p,
            flow,
            dst,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            in_recovery: false,
            partial_seen: false,
            recover: 0,
            have_recover: false,
            srtt: 0.0,
            rttvar: 0.0,
            have_rtt: false,
            backoff: 1,
            rto_span: aqm::Duration::ZERO,
            rtt_seq: None,
            sent_times: None,
            rtt_ts: Time::ZERO,
            rtx_deadline: None,
            app_limit,
            ecn_recover: 0,
            in_cwr: false,
            cwr_pending: false,
            drop_ix: 0,
            stats: TcpStats::default(),
            done_at: None,
            started: false,
            ext: false,
            cubic: None,
            dctcp: None,
            ledbat: None,
            sack: None,
            sack_log: None,
        };
        let p = &s.p;
        s.ext = p.sack
            || p.limited_transmit
            || !matches!(p.variant, Variant::Tahoe | Variant::Reno | Variant::NewReno);
        if p.variant == Variant::Cubic {
            s.cubic = Some(Box::new(Cubic::new(p.cubic)));
        }
        if p.variant == Variant::Dctcp {
            s.dctcp = Some(Box::new(Dctcp::new(p.dctcp_g)));
        }
        if p.variant == Variant::Ledbat {
            s.ledbat = Some(Box::new(Ledbat::new(p.ledbat.unwrap_or_default())));
        }
        if p.sack {
            s.sack = Some(Box::default());
        }
        if p.rtt_sampling == RttSampling::Ack || p.variant == Variant::Ledbat {
            s.sent_times = Some(Box::default());
        }
        s.set_rto_span();
        s
    }

    /// CUBIC's state, for a CUBIC sender.
    pub fn cubic(&self) -> Option<&Cubic> {
        self.cubic.as_deref()
    }

    /// DCTCP's state, for a DCTCP sender.
    pub fn dctcp(&self) -> Option<&Dctcp> {
        self.dctcp.as_deref()
    }

    /// LEDBAT's state, for a LEDBAT sender.
    pub fn ledbat(&self) -> Option<&Ledbat> {
        self.ledbat.as_deref()
    }

    /// The SACK scoreboard, for a SACK sender.
    pub fn scoreboard(&self) -> Option<&Scoreboard> {
        self.sack.as_deref()
    }

    /// The usable window: min(cwnd, receiver window), at least one packet.
    #[inline]
    fn window(&self) -> u32 {
        (self.cwnd.min(self.p.max_window as f64) as u32).max(1)
    }

    /// Has the application more to send than has been sent?
    #[inline]
    fn app_has(&self, seq: u32) -> bool {
        (seq as u64) < self.app_limit
    }

    #[inline]
    fn restart_timer(&mut self, now: Time) {
        self.rtx_deadline = Some(now + self.rto_span);
    }

    /// Recompute `rto_span` after a change of `rto` or `backoff`.
    fn set_rto_span(&mut self) {
        let rto = (self.rto * self.backoff as f64).min(self.p.max_rto);
        self.rto_span = aqm::Duration::from_secs_f64(rto);
    }

    /// Emit packet `seq` (new or retransmitted).
    #[inline]
    fn emit(&mut self, now: Time, seq: u32, retx: bool, out: &mut Vec<Pkt>) {
        let mut f = 0u8;
        if self.p.ecn {
            f |= flags::ECT;
            if self.p.ect1 {
                f |= flags::ECT1;
            }
            if self.cwr_pending {
                f |= flags::CWR;
                self.cwr_pending = false;
            }
        }
        if let Some(h) = self.sent_times.as_mut() {
            h.on_send(seq, retx, now);
        }
        if retx {
            f |= flags::RETX;
            self.stats.retransmits += 1;
            // Karn: a retransmission invalidates the RTT measurement in progress.
            self.rtt_seq = None;
        } else if self.rtt_seq.is_none() {
            self.rtt_seq = Some(seq);
            self.rtt_ts = now;
        }
        self.stats.sent += 1;
        if !retx && self.drop_ix < self.p.drop.len() && self.p.drop[self.drop_ix] == seq {
            self.drop_ix += 1;
            self.stats.injected_losses += 1;
        } else {
            out.push(Pkt {
                flow: self.flow,
                seq,
                size: self.p.packet_size,
                dst: self.dst,
                flags: f,
                epoch: 0,
            });
        }
        if self.rtx_deadline.is_none() {
            self.restart_timer(now);
        }
    }

    /// Send what the window and the application allow; with `max` set, at most that many.
    pub fn send_much(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        if self.ext { self.send_ext(now, out, max) } else { self.send_plain(now, out, max) }
    }

    /// `send_much` without the extensions (inlined where the plain path calls it, as
    /// `send_much` was before the extensions: measured, it matters).
    #[inline(always)]
    fn send_plain(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        let mut n = 0;
        // (sending moves neither the window nor its left edge)
        let limit = self.snd_una.saturating_add(self.window());
        while n < max && self.snd_nxt < limit && self.app_has(self.snd_nxt) {
            let seq = self.snd_nxt;
            let retx = seq < self.snd_max;
            self.emit(now, seq, retx, out);
            self.snd_nxt += 1;
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
            n += 1;
        }
        n
    }

    /// Could `send_much` send something now?
    pub fn can_send(&self) -> bool {
        if self.in_recovery && self.sack.is_some() {
            return self.sack_can_send();
        }
        self.snd_nxt < self.snd_una.saturating_add(self.window()) && self.app_has(self.snd_nxt)
    }

    /// The connection starts (or the application hands over data): send.
    pub fn start(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        self.started = true;
        self.send_much(now, out, max);
    }

    /// Jacobson/Karels with Karn's rule (RFC 6298), samples rounded to ticks as ns-2 does
    /// (with `rtt_sampling = "ack"` neither the samples nor the RTO are rounded, as in ns-3).
    #[inline(always)]
    fn rtt_sample(&mut self, r: f64) {
        if let Some(c) = self.cubic.as_mut() {
            c.note_rtt(r);
        }
        let tick = self.p.tick;
        // (rtt_sampling = "ack": ns-3's estimator keeps the samples' resolution and does
        // not round the RTO up to the tick)
        let exact = self.p.rtt_sampling == RttSampling::Ack;
        let r = if exact { r } else { ((r / tick).round().max(1.0)) * tick };
        if !self.have_rtt {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.have_rtt = true;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
        let rto = self.srtt + (4.0 * self.rttvar).max(tick);
        let rto = if exact { rto } else { (rto / tick).ceil() * tick };
        self.rto = rto.clamp(self.p.min_rto, self.p.max_rto);
        self.set_rto_span();
    }

    /// ssthresh after a loss: half the window (CUBIC: beta_cubic times it; LEDBAT:
    /// RFC 6817's `min(cwnd, max(cwnd / 2, MIN_CWND))`); with `loss_ssthresh = "pipe"`
    /// the Reno family takes half the packets in flight instead ([`Self::pipe_now`]).
    fn halve(&mut self) {
        let w = self.cwnd.min(self.p.max_window as f64);
        self.ssthresh = match (self.cubic.as_mut(), self.ledbat.is_some()) {
            (Some(c), _) => c.on_congestion(w),
            (None, true) => Ledbat::on_loss(w),
            (None, false) if self.p.loss_ssthresh == LossSsthresh::Pipe => {
                (self.pipe_now() / 2.0).max(2.0)
            }
            (None, false) => (w / 2.0).floor().max(2.0),
        };
    }

    /// The packets in flight as ns-3 3.37 counts them when it reduces
    /// (`loss_ssthresh = "pipe"`): RFC 6675's pipe with SACK; without it the
    /// outstanding packets less the duplicate ACKs (ns-3 counts each as a SACKed
    /// packet, marks the head lost and adds one packet back).
    fn pipe_now(&self) -> f64 {
        match self.sack.as_ref() {
            Some(sb) => sb.pipe(self.snd_max, self.p.dupack_threshold) as f64,
            None => (self.snd_max - self.snd_una).saturating_sub(self.dupacks) as f64,
        }
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
    fn ecn_echo(&mut self, a: u32, ece: bool) {
        if self.in_cwr && a > self.ecn_recover {
            self.in_cwr = false;
        }
        if ece && a > self.ecn_recover && !self.in_recovery {
            self.ecn_reduce();
        }
    }

    /// An ACK for new data (`a` > `snd_una`).
    #[inline(always)]
    fn new_ack(&mut self, now: Time, a: u32, out: &mut Vec<Pkt>, max: u32) {
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
        self.send_plain(now, out, max);
    }

    /// An ACK for new data ends the RTT measurement it covers.
    #[inline(always)]
    fn timed_ack(&mut self, now: Time, a: u32) {
        // the send-time record (rtt_sampling = "ack", LEDBAT) drops what `a` covers
        let covered = self.sent_times.as_mut().and_then(|h| h.on_ack(a, now));
        let sample = if self.p.rtt_sampling == RttSampling::Ack {
            // every ACK of a segment sent once (rtt.rs)
            covered
        } else if let Some(s) = self.rtt_seq
            && a > s
        {
            self.rtt_seq = None;
            Some((now - self.rtt_ts).as_secs_f64())
        } else {
            None
        };
        if let Some(r) = sample {
            self.rtt_sample(r);
            self.backoff = 1;
            self.set_rto_span();
        } else if self.backoff > 1 && self.p.rto_backoff == RtoBackoff::Ack {
            self.backoff = 1;
            self.set_rto_span();
        }
    }

    /// The left edge moves to `a` (after the window's update): the timer, a finite
    /// transfer's end.
    #[inline(always)]
    fn acked_to(&mut self, now: Time, a: u32) {
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
    fn recovery_ack(
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
                self.cwnd = (self.cwnd - newly + 1.0).max(1.0);
                if !self.partial_seen || self.p.newreno_timer == NewRenoTimer::SlowButSteady {
                    self.restart_timer(now);
                }
                self.partial_seen = true;
                self.send_much(now, out, max);
                return true;
            }
            Variant::NewReno if self.p.newreno == NewRenoFlavor::LinMorris => {
                if a as f64 + self.ssthresh >= self.snd_max as f64 {
                    self.in_recovery = false;
                    self.cwnd = (self.snd_max - a) as f64 + 1.0;
                } else {
                    // Stay in recovery: deflate as for a partial ACK, no retransmission.
                    self.cwnd = (self.cwnd - newly + 1.0).max(1.0);
                }
            }
            _ => {
                self.in_recovery = false;
                self.cwnd = self.ssthresh;
            }
        }
        false
    }

    /// A duplicate ACK (`a` == `snd_una`, data outstanding).
    #[inline(always)]
    fn dup_ack(&mut self, now: Time, a: u32, out: &mut Vec<Pkt>, max: u32) {
        self.dupacks += 1;
        if self.in_recovery {
            // Fast recovery: each duplicate ACK means a packet has left the network.
            self.cwnd =
                (self.cwnd + 1.0).min(self.p.max_window as f64 + self.p.dupack_threshold as f64);
            self.send_much(now, out, max);
        } else if self.dupacks == self.p.dupack_threshold {
            let beyond = self.p.recover_rule == RecoverRule::Beyond;
            if self.have_recover && (a < self.recover || (beyond && a == self.recover)) {
                // ns-2 bug_fix_ / RFC 6582 step 2: these duplicates belong to a
                // window already reduced for.
                return;
            }
            self.fast_retransmit(now, out, max);
        } else if self.p.tiny_window && self.dupacks < self.p.dupack_threshold && self.window() < 10
        {
            // Lin & Morris 11.3: one new packet per early duplicate ACK (packet
            // conservation); if the receiver window forbids it, resend the last one.
            if self.app_has(self.snd_max) && self.snd_max < self.snd_una + self.p.max_window {
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
    fn fast_retransmit(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        self.stats.fast_retransmits += 1;
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
                self.cwnd = self.ssthresh + self.p.dupack_threshold as f64;
                self.in_recovery = true;
                self.partial_seen = false;
            }
        }
        if self.p.fast_retransmit_timer == FrTimer::Restart {
            self.restart_timer(now);
        }
        self.send_much(now, out, max);
    }

    /// The retransmission timer fired (the caller checked the deadline).
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        self.stats.timeouts += 1;
        match self.cubic.as_mut() {
            // RFC 9438 Section 4.8
            Some(c) => {
                let w = self.cwnd.min(self.p.max_window as f64);
                self.ssthresh = c.on_timeout(w, if self.in_recovery { self.ssthresh } else { w });
            }
            None => self.halve(),
        }
        if let Some(sb) = self.sack.as_mut() {
            // RFC 2018 Section 8, RFC 6675 Section 5.1: forget the SACKs (the receiver
            // may have reneged); what later ACKs report is used again.
            sb.clear();
        }
        self.cwnd = 1.0;
        self.backoff = (self.backoff * 2).min(self.p.max_backoff);
        self.set_rto_span();
        self.snd_nxt = self.snd_una;
        self.in_recovery = false;
        self.in_cwr = false;
        self.dupacks = 0;
        self.recover = self.snd_max;
        self.have_recover = true;
        self.rtt_seq = None;
        if let Some(h) = self.sent_times.as_mut() {
            h.forget(self.snd_max);
        }
        self.restart_timer(now);
        self.send_much(now, out, max);
    }

    /// Is everything the application gave acknowledged?
    pub fn idle(&self) -> bool {
        self.snd_una == self.snd_max && !self.app_has(self.snd_max)
    }
}
