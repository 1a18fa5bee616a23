//! The sender's hooks on each packet it sends (the send-time record, RACK's, the
//! delivery-rate record, pacing's departure time), the pacing check of its send loops,
//! and BBR's part of an ACK: the delivery-rate sample, the model, the window and the
//! pacing rate.

use aqm::Time;

use super::bbr::{CaState, Io};
use super::{Pkt, TcpSender};

/// Bytes of IP and TCP headers in a packet (the payload is `packet_size` less these).
const HEADERS: f64 = 40.0;

impl TcpSender {
    /// `emit` on the extended path, which also records the packet for the delivery
    /// rate (BBR) and moves the departure time (pacing). (The plain path's `emit`, and
    /// the single retransmissions of a sender without SACK, skip both: a paced sender
    /// without SACK sends those without moving its departure time.)
    #[inline]
    pub(super) fn emit_ext(&mut self, now: Time, seq: u32, retx: bool, out: &mut Vec<Pkt>) {
        self.emit(now, seq, retx, out);
        if self.rate.is_some() || self.pacing.is_some() {
            self.ext_hooks(now, seq, retx);
        }
    }

    #[inline(never)]
    fn ext_hooks(&mut self, now: Time, seq: u32, retx: bool) {
        if let Some(r) = self.rate.as_mut() {
            r.on_send(seq, now.0, self.snd_max - self.snd_una, retx);
        }
        if let Some(p) = self.pacing.as_mut() {
            p.on_send(now.0);
        }
    }

    /// `send_much` of a paced sender.
    #[inline(never)]
    pub(super) fn send_paced(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        let paced = self.pace_enter();
        let entered = self.rack_enter();
        let n = self.send_ext(now, out, max);
        self.rack_leave(entered, now);
        self.pace_leave(paced, now);
        n
    }

    /// A call of a paced sender begins (the outermost only, which the result says):
    /// `rtx_deadline` is its timers' again, without the departure time.
    #[inline]
    pub(super) fn pace_enter(&mut self) -> bool {
        let Some(p) = self.pacing.as_mut() else { return false };
        if p.inside {
            return false;
        }
        p.inside = true;
        self.rtx_deadline = p.timers_at;
        true
    }

    /// The outermost call ends: the deadline the simulator sees is the earliest of the
    /// timers and, if the sender waits for it with something to send, the departure
    /// time (the paced release).
    pub(super) fn pace_leave(&mut self, entered: bool, now: Time) {
        if !entered {
            return;
        }
        let release = self.pace_at(now);
        let Some(p) = self.pacing.as_mut() else { return };
        p.inside = false;
        p.timers_at = self.rtx_deadline;
        self.rtx_deadline = [self.rtx_deadline, release].into_iter().flatten().min();
    }

    /// The deadline of a paced sender passed: its timers' if due (RACK-TLP's or the
    /// retransmission timeout), else the departure time: send.
    pub(super) fn paced_timeout(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        let entered = self.pace_enter();
        if self.rtx_deadline.is_some_and(|d| d <= now) {
            self.timer_fired(now, out, max);
        } else {
            self.send_much(now, out, max);
        }
        self.pace_leave(entered, now);
    }

    /// Must a send loop wait for the next departure time (`tcp_pacing_check`)?
    #[inline]
    pub(super) fn pace_blocked(&self, now: Time) -> bool {
        self.pacing.as_ref().is_some_and(|p| p.blocked(now.0))
    }

    /// When a paced sender that has something to send may send again (None: not
    /// paced, nothing to send, or free to send now).
    pub fn pace_at(&self, now: Time) -> Option<Time> {
        let p = self.pacing.as_ref()?;
        (p.next_at > now.0 && self.can_send()).then_some(Time(p.next_at))
    }

    /// The pacing rate, packets per second (0: none, or not paced).
    pub fn pacing_rate(&self) -> f64 {
        self.pacing.as_ref().map_or(0.0, |p| p.rate)
    }

    /// Packets in flight (`tcp_packets_in_flight`): RFC 6675's pipe (or RACK's) in
    /// recovery; otherwise those sent since the last go-back-N began less those SACKed.
    pub(super) fn in_flight(&self) -> u32 {
        match self.sack.as_ref() {
            Some(sb) if self.in_recovery => self.pipe_of(sb),
            Some(sb) => (self.snd_nxt - self.snd_una).saturating_sub(sb.sacked),
            None => self.snd_nxt - self.snd_una,
        }
    }

    /// The delivery-rate records of the packets an ACK up to `a` newly covers.
    pub(super) fn rate_cumulative(&mut self, a: u32) {
        if let Some(r) = self.rate.as_mut() {
            for s in self.snd_una..a {
                r.on_delivered(s, false);
            }
        }
    }

    /// BBR's part of an ACK, once the loss machinery has taken it (Linux's
    /// `tcp_rate_gen` then `bbr_main` from `tcp_cong_control`): `losses` packets newly
    /// deemed lost, `prior_in_flight` in flight before the ACK.
    pub(super) fn bbr_ack(&mut self, now: Time, losses: u32, prior_in_flight: u32) {
        let (in_flight, mss) = (self.in_flight(), self.bbr_mss());
        let (una, recover) = (self.snd_una, self.recover);
        let (Some(b), Some(r)) = (self.bbr.as_mut(), self.rate.as_mut()) else { return };
        r.advance(una);
        let rs = r.sample(now.0, losses, prior_in_flight);
        b.in_loss &= una < recover;
        let state = match (self.in_recovery, b.in_loss) {
            (true, _) => CaState::Recovery,
            (false, true) => CaState::Loss,
            _ => CaState::Open,
        };
        let pacing = self.pacing.as_deref_mut().expect("BBR paces");
        let mut io = Io {
            now: now.0,
            in_flight,
            delivered: r.delivered,
            delivered_at: r.delivered_at,
            state,
            srtt: self.srtt,
            next_departure: pacing.next_at,
            clamp: f64::from(self.p.max_window),
            mss,
            cwnd: self.cwnd,
            pacing_rate: pacing.rate,
            ssthresh: self.ssthresh,
            app_limited: 0,
        };
        b.on_ack(&rs, &mut io);
        (self.cwnd, self.ssthresh, pacing.rate) = (io.cwnd, io.ssthresh, io.pacing_rate);
        if io.app_limited > 0 {
            r.app_limited = io.app_limited;
        }
    }

    /// BBR's part of a retransmission timeout: Linux's `tcp_enter_loss` saves the window
    /// outside a recovery and deems what is in flight lost (`tcp_timeout_mark_lost`).
    pub(super) fn bbr_timeout(&mut self) {
        let (lost, mss, in_recovery, cwnd) =
            (self.in_flight(), self.bbr_mss(), self.in_recovery, self.cwnd);
        let (delivered, at) = self.rate.as_ref().map_or((0, 0), |r| (r.delivered, r.delivered_at));
        let Some(b) = self.bbr.as_mut() else { return };
        if !in_recovery {
            b.save_cwnd(cwnd);
        }
        b.enter_loss(lost, delivered, at, mss);
    }

    /// Bytes of payload per packet, as BBR counts its send quantum (`mss_cache`).
    pub(super) fn bbr_mss(&self) -> f64 {
        (f64::from(self.p.packet_size) - HEADERS).max(1.0)
    }

    /// After a send with nothing more to send and room in the window: the delivery-
    /// rate samples of what follows are application-limited.
    pub(super) fn check_app_limited(&mut self) {
        if self.rate.is_none() || self.in_recovery || self.app_has(self.snd_max) {
            return;
        }
        let flight = self.in_flight();
        if f64::from(flight) < self.cwnd
            && let Some(r) = self.rate.as_mut()
        {
            r.check_app_limited(flight);
        }
    }
}
