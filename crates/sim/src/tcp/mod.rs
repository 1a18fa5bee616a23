//! TCP senders (Tahoe, Reno, NewReno, CUBIC, DCTCP, LEDBAT, BBR, Prague) and the receiver,
//! counted in packets like ns-2's one-way `Agent/TCP` and `Agent/TCPSink`.
//!
//! Pure state machines: they are told the time and the packet, append what they send
//! to an output buffer, and expose their timer deadlines; the simulator owns the
//! clock and the events. The retransmission timer is a deadline, not an event: the
//! simulator keeps one pending event per flow and re-checks the deadline when it fires
//! (an ACK that restarts the timer costs nothing).
//!
//! Defaults are the RFCs' where they speak and ns-2 2.35's (`tcp-defaults`) otherwise:
//! no receiver-window limit (`max_window` unlimited; ns-2's `window_` is 20, the `ns2`
//! profile's), initial window 2, timer granularity 10 ms, RFC 6298's timer (minimum and
//! initial RTO 1 s, RTO = srtt + max(tick, 4 rttvar), `rto`), backoff doubling capped
//! at 64 and at 60 s, delayed-ACK interval
//! 100 ms, 40-byte ACKs, three duplicate ACKs; RFC 6582's `recover` rule (no new fast
//! retransmit until the ACKs go beyond the highest packet sent when the last reduction
//! began; ns-2's `bug_fix_`) for every variant; reductions from the window before fast
//! recovery's inflation and growth only while the window is used ([`Rules`]).
//!
//! Beyond ns-2's agents (each off by default, so that a scenario that does not ask for
//! them runs exactly as before): CUBIC (RFC 9438, `cubic`), DCTCP (RFC 8257, `dctcp`
//! and the receiver's echo in `receiver`), LEDBAT (RFC 6817, `ledbat`), SACK loss
//! recovery (RFC 6675 with RFC 2018's blocks, `sack`), limited transmit (RFC 3042),
//! ECT(1), HyStart++ (RFC 9406, `hystart`), PRR (RFC 6937, `prr`), RACK-TLP (RFC 8985,
//! `rack`, `timers`), the receiver's quick-ACK mode, pacing (`pacing`), BBR (`bbr`,
//! with its delivery-rate samples, `rate`, and windowed maximum, `minmax`; their part
//! of the sender in `paced`) and TCP Prague with accurate ECN feedback (`prague`). A sender that uses none of them takes the original code
//! path (`ext` false): one test per ACK.
//!
//! Where the RFCs and the peers part ways the sender follows [`Rules`] (`rules`), the
//! keys a profile sets. The sender's code is split by concern: this module holds its
//! state and sending; `ack` its answers to ACKs on the plain path, `ext` on the
//! extended one; `loss` the reductions and the retransmission timeout.

mod ack;
pub mod bbr;
mod cubic;
mod dctcp;
mod ext;
mod growth;
mod hystart;
pub mod ledbat;
mod loss;
mod minmax;
mod paced;
pub mod pacing;
mod params;
mod prague;
mod prr;
mod rack;
pub mod rate;
mod receiver;
mod recovery;
mod rto;
pub mod rtt;
mod rules;
mod sack;
#[cfg(test)]
mod tests;
mod timers;

use aqm::Time;

pub use bbr::{Bbr, BbrParams};
pub use cubic::{
    Cubic, CubicGrowth, CubicParams, CubicRenoAlpha, CubicRules, CubicSlowStart, CubicTimeout,
};
pub use dctcp::Dctcp;
pub use hystart::HyStart;
pub use ledbat::{Ledbat, LedbatParams};
pub use pacing::{Pacing, PacingParams};
pub use params::{TcpParams, TcpStats, UNLIMITED, Variant};
pub use prague::{Prague, PragueParams};
pub use rack::Rack;
pub use receiver::TcpReceiver;
pub use rto::{LinuxRtt, Ns2Rtt, RtoEstimator};
pub use rtt::{RttSampling, SendTimes};
pub use rules::{
    AppLimited, EcnCwr, FrTimer, LossSsthresh, NewRenoFlavor, NewRenoTimer, RecoverRule,
    RecoveryWindow, RenoGrowth, RtoBackoff, RtoSack, Rules,
};
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
    /// With `recovery_window = "ns2"`, in fast recovery: the window and its inflation
    /// kept apart (ns-2's `cwnd_` and `dupwnd_`); cwnd is their sum.
    ns2_base: f64,
    ns2_dupwnd: u32,
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
    /// The peers' estimator state (`rto_estimator`).
    est: rto::PeerRtt,
    /// The phase of the sender's clock, seconds (ns-2's `boot_time_`).
    clock: f64,
    /// The segments' send times, kept for `rtt_sampling = "ack"`, LEDBAT, HyStart++ and
    /// RACK-TLP (`None` otherwise).
    sent_times: Option<Box<SendTimes>>,
    /// Retransmission timer deadline.
    pub rtx_deadline: Option<Time>,
    /// Packets the application has handed over (u64::MAX = unlimited). Made finite with
    /// [`TcpSender::set_app_limit`], which moves the sender to the extended path (the
    /// plain path is a bulk sender's); raising a finite one is a plain write.
    pub app_limit: u64,
    ecn_recover: u32,
    /// In the round trip after an ECN reduction, with `ecn_cwr = "hold"`.
    in_cwr: bool,
    cwr_pending: bool,
    drop_ix: usize,
    /// `app_limited = "hold"` (application-limited senders only): the window kept the
    /// sender from sending in the window of data that ends at `usage_seq`, and the
    /// most packets in flight in it.
    cwnd_limited: bool,
    max_flight: u32,
    usage_seq: u32,
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
    hystart: Option<Box<HyStart>>,
    /// PRR's state during a recovery with `prr`.
    prr: Option<Box<prr::Prr>>,
    /// The packets the last ACK delivered (RFC 6937's DeliveredData; SACK senders).
    delivered: u32,
    /// RACK-TLP's state (`rack`, with SACK).
    rack: Option<Box<Rack>>,
    /// Tail loss probes sent (RACK-TLP).
    pub probes: u64,
    /// Pacing's state (`pacing`).
    pacing: Option<Box<Pacing>>,
    /// BBR's state and its delivery-rate records (`bbr`, `rate`).
    bbr: Option<Box<Bbr>>,
    rate: Option<Box<rate::RateSampler>>,
    /// Prague's state (`prague`).
    prague: Option<Box<Prague>>,
    /// Packets acknowledged toward the next packet of congestion avoidance
    /// (`reno_growth = "segments"`, Linux's `snd_cwnd_cnt`).
    cwnd_cnt: u32,
    /// snd_una at the last retransmission timeout (u32::MAX: none yet); while it stays
    /// there, a timeout repeats one (Linux's `icsk_retransmits` is not zero).
    rto_una: u32,
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
        let (est, clock) =
            (rto::PeerRtt::new(p.rules.rto_estimator), rto::clock_phase(flow) * p.tick);
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
            ns2_base: 0.0,
            ns2_dupwnd: 0,
            recover: 0,
            have_recover: false,
            srtt: 0.0,
            rttvar: 0.0,
            have_rtt: false,
            backoff: 1,
            rto_span: aqm::Duration::ZERO,
            rtt_seq: None,
            est,
            clock,
            sent_times: None,
            rtt_ts: Time::ZERO,
            rtx_deadline: None,
            app_limit,
            ecn_recover: 0,
            in_cwr: false,
            cwr_pending: false,
            drop_ix: 0,
            cwnd_limited: false,
            max_flight: 0,
            usage_seq: 0,
            stats: TcpStats::default(),
            done_at: None,
            started: false,
            ext: false,
            cubic: None,
            dctcp: None,
            ledbat: None,
            sack: None,
            sack_log: None,
            hystart: None,
            prr: None,
            delivered: 0,
            rack: None,
            probes: 0,
            pacing: None,
            bbr: None,
            rate: None,
            prague: None,
            cwnd_cnt: 0,
            rto_una: u32::MAX,
        };
        s.extensions();
        s.set_rto_span();
        s
    }

    /// The state of the extensions the parameters ask for; `ext` if any.
    fn extensions(&mut self) {
        let p = &self.p;
        self.ext = p.sack
            || p.rules.limited_transmit
            || p.rules.hystart
            || p.rules.reno_growth != RenoGrowth::Rfc
            || self.app_limit != u64::MAX
            || !matches!(p.variant, Variant::Tahoe | Variant::Reno | Variant::NewReno);
        match p.variant {
            Variant::Cubic => self.cubic = Some(Box::new(Cubic::new(p.cubic, p.rules.cubic))),
            Variant::Dctcp => self.dctcp = Some(Box::new(Dctcp::new(p.dctcp_g))),
            Variant::Ledbat => {
                self.ledbat = Some(Box::new(Ledbat::new(p.ledbat.unwrap_or_default())))
            }
            Variant::Bbr => {
                let (rng, bp) = (crate::rng::stream_rng(0), p.bbr.unwrap_or_default());
                self.bbr = Some(Box::new(Bbr::new(bp, rng)));
                let mut r = Box::<rate::RateSampler>::default();
                r.newest_sent = bp.rate_newest_sent;
                self.rate = Some(r);
            }
            Variant::Prague => {
                self.prague = Some(Box::new(Prague::new(p.prague.unwrap_or_default())))
            }
            _ => {}
        }
        if let Some(pp) = p.pacing {
            self.ext = true;
            self.pacing = Some(Box::new(Pacing::new(pp)));
        }
        if p.sack {
            self.sack = Some(Box::default());
            if p.rules.rack {
                self.rack = Some(Box::default());
            }
        }
        if p.rules.hystart {
            self.hystart = Some(Box::default());
        }
        if p.rules.rtt_sampling == RttSampling::Ack
            || matches!(p.variant, Variant::Ledbat | Variant::Prague)
            || p.rules.hystart
            || self.rack.is_some()
        {
            self.sent_times = Some(Box::default());
        }
    }

    /// Seed the generator of BBR's random gain-cycle phase (the flow's stream).
    pub fn seed(&mut self, seed: u64) {
        if let Some(b) = self.bbr.as_mut() {
            b.reseed(crate::rng::stream_rng(seed));
        }
    }

    /// BBR's state, for a BBR sender.
    pub fn bbr(&self) -> Option<&Bbr> {
        self.bbr.as_deref()
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

    /// The application has handed over `n` packets in all (u64::MAX: unlimited). A
    /// sender with less than unlimited takes the extended path, which keeps track of
    /// whether it fills its window (`app_limited`).
    pub fn set_app_limit(&mut self, n: u64) {
        self.app_limit = n;
        self.ext |= n != u64::MAX;
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

    /// Recompute `rto_span` after a change of `rto` or `backoff` (ns-2: at least two
    /// ticks, `rtt_timeout`).
    fn set_rto_span(&mut self) {
        let mut rto = (self.rto * self.backoff as f64).min(self.p.max_rto);
        if let rto::PeerRtt::Ns2(_) = self.est {
            rto = rto.max(2.0 * self.p.tick);
        }
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
            // (RACK-TLP keeps the send times too, so that a sender without either
            // tests one option per packet)
            if let Some(r) = self.rack.as_mut() {
                r.on_send(seq, now);
            }
        }
        if retx {
            f |= flags::RETX;
            self.stats.retransmits += 1;
            // Karn: a retransmission invalidates the RTT measurement in progress (ns-2:
            // only a timeout or a fast retransmit does, `reset_rtx_timer`).
            if !matches!(self.est, rto::PeerRtt::Ns2(_)) {
                self.rtt_seq = None;
            }
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
        if !self.ext {
            return self.send_plain::<false>(now, out, max);
        }
        if self.pacing.is_some() {
            return self.send_paced(now, out, max);
        }
        if self.rack.is_none() {
            return self.send_ext(now, out, max);
        }
        let entered = self.rack_enter();
        let n = self.send_ext(now, out, max);
        self.rack_leave(entered, now);
        n
    }

    /// `send_much` without the extensions (inlined where the plain path calls it, as
    /// `send_much` was before the extensions: measured, it matters). On the plain path
    /// the sender is a bulk sender; others note their usage after it (`send_noted`).
    /// `PACED` on the extended path, where the departure time may hold the sender back.
    #[inline(always)]
    fn send_plain<const PACED: bool>(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        let mut n = 0;
        // (sending moves neither the window nor its left edge)
        let limit = self.snd_una.saturating_add(self.window());
        while n < max && self.snd_nxt < limit && self.app_has(self.snd_nxt) {
            if PACED && self.pace_blocked(now) {
                break;
            }
            let seq = self.snd_nxt;
            let retx = seq < self.snd_max;
            if PACED {
                self.emit_ext(now, seq, retx, out);
            } else {
                self.emit(now, seq, retx, out);
            }
            self.snd_nxt += 1;
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
            n += 1;
        }
        n
    }

    /// `send_plain` for a sender that may be application-limited (the extended path
    /// without SACK, and the steps the plain path shares with it): then it notes
    /// whether the window kept the sender from sending.
    #[inline(always)]
    pub(super) fn send_noted(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        if self.pacing.is_some() {
            return self.send_noted_paced(now, out, max);
        }
        let n = self.send_plain::<false>(now, out, max);
        if self.app_limit != u64::MAX {
            self.note_usage();
        }
        n
    }

    /// `send_noted` of a paced sender (the extended path only; out of the plain path's
    /// line, which shares the steps that call `send_noted`).
    #[inline(never)]
    fn send_noted_paced(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        let n = self.send_plain::<true>(now, out, max);
        if self.app_limit != u64::MAX {
            self.note_usage();
        }
        n
    }

    /// After a send (application-limited senders): whether the window kept the sender
    /// from sending more, and the most packets in flight, over the current window of
    /// data (Linux's `tcp_cwnd_validate`; RFC 7661 Section 4.3).
    #[inline(never)]
    pub(super) fn note_usage(&mut self) {
        let flight = self.snd_nxt - self.snd_una;
        // (the congestion window, not the receiver's, is what stops the sender)
        let blocked = self.cwnd < self.p.max_window as f64 + 1.0 && flight >= self.window();
        if self.snd_una >= self.usage_seq
            || blocked
            || (!self.cwnd_limited && flight > self.max_flight)
        {
            self.cwnd_limited = blocked;
            self.max_flight = flight;
            self.usage_seq = self.snd_nxt;
        }
    }

    /// May an ACK of new data open the window (`app_limited`)? A bulk sender always
    /// fills its window (or the receiver's, which caps cwnd anyway).
    #[inline(always)]
    pub(super) fn may_grow(&self) -> bool {
        self.app_limit == u64::MAX
            || self.p.rules.app_limited == AppLimited::Grow
            || self.cwnd_limited
            || (self.cwnd < self.ssthresh && self.cwnd < 2.0 * self.max_flight as f64)
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
        if let (Some(b), Some(p)) = (self.bbr.as_mut(), self.pacing.as_mut()) {
            p.rate = b.start(now.0, self.cwnd, self.srtt);
        }
        self.send_much(now, out, max);
    }

    /// Is everything the application gave acknowledged?
    pub fn idle(&self) -> bool {
        self.snd_una == self.snd_max && !self.app_has(self.snd_max)
    }
}
