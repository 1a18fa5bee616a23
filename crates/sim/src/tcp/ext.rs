//! The sender's extended path: ACKs of a sender with CUBIC, DCTCP, LEDBAT, SACK or
//! limited transmit. Everything a plain Reno-family sender does is done the same way
//! here (the shared steps are the same functions); what differs is the window's growth
//! (CUBIC, LEDBAT), the answer to ECN-Echo (DCTCP, CUBIC), duplicate ACKs (limited
//! transmit, SACK) and loss recovery (SACK, RFC 6675 Section 5).

use aqm::Time;
use serde::Serialize;

use super::TcpSender;
use super::sack::SackLog;
use crate::packet::{Pkt, flags};

/// What ends the exponential backoff of the retransmission timer (`rto_backoff`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoBackoff {
    /// Karn's rule (RFC 6298 Section 5): the backed-off RTO is kept until a valid RTT
    /// sample (a packet not retransmitted) is acknowledged.
    #[default]
    Karn,
    /// Any ACK of new data recomputes the RTO from the estimator (ns-3 3.37).
    Ack,
}

/// When duplicate ACKs may start a new fast retransmit after a reduction
/// (`recover_rule`; `recover` is one past the highest packet sent when it began).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoverRule {
    /// Once they acknowledge everything sent then (ack >= recover).
    #[default]
    Cover,
    /// Only once they acknowledge more than that (ack > recover): RFC 6582 Section 3.2
    /// step 2 ("covers more than recover"), ns-2's `bug_fix_` (`highest_ack_ >
    /// recover_`), ns-3 with the peer benchmark's hook. The duplicate ACKs that a
    /// go-back-N's needless copies raise once everything is acknowledged start none.
    Beyond,
}

/// What entering loss recovery does to a running retransmission timer
/// (`fast_retransmit_timer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrTimer {
    /// The fast retransmission restarts it, so the retransmission has a whole RTO to be
    /// acknowledged (ns-2's `reset_rtx_timer` on a fast retransmit; Linux re-arms it
    /// when it retransmits the head).
    #[default]
    Restart,
    /// It keeps running from the last ACK of new data: RFC 6298 rule 5.1 starts the
    /// timer on a send only when it is not running (ns-3 3.37). A retransmission whose
    /// ACK comes later than one RTO after that ACK then times out.
    Keep,
}

/// What the window does in the round trip after an ECN reduction (`ecn_cwr`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnCwr {
    /// The window stays until an ACK covers a packet sent after the reduction, as
    /// through a loss's recovery (RFC 3168 Section 6.1.2 answers ECN-Echo as a loss):
    /// ns-2 2.35 (no window opening on an ACK with ECN-Echo, which its receiver sets
    /// until that packet's CWR) and ns-3 3.37's CWR state; Linux's ends one ACK earlier.
    #[default]
    Hold,
    /// Congestion avoidance goes on from ssthresh at once, from the ACK that carried
    /// the echo on.
    Grow,
}

/// What a reduction halves (`loss_ssthresh`), in the Reno family (Tahoe, Reno,
/// NewReno).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossSsthresh {
    /// ssthresh = max(floor(cwnd / 2), 2) (ns-2's `window() / 2`; RFC 5681's FlightSize
    /// / 2 while the window is full).
    #[default]
    Cwnd,
    /// ssthresh = max(pipe / 2, 2), the packets in flight as ns-3 3.37's
    /// `TcpNewReno::GetSsThresh` receives them (`BytesInFlight()`: RFC 6675's pipe, which
    /// leaves out the SACKed and lost packets), at a fast retransmit, an ECN-Echo and a
    /// timeout; cwnd then starts from ssthresh.
    Pipe,
}

impl LossSsthresh {
    pub(super) fn is_cwnd(&self) -> bool {
        *self == LossSsthresh::Cwnd
    }
}

impl EcnCwr {
    pub(super) fn is_hold(&self) -> bool {
        *self == EcnCwr::Hold
    }
}

impl FrTimer {
    pub(super) fn is_restart(&self) -> bool {
        *self == FrTimer::Restart
    }
}

impl RecoverRule {
    pub(super) fn is_cover(&self) -> bool {
        *self == RecoverRule::Cover
    }
}

impl RtoBackoff {
    pub(super) fn is_karn(&self) -> bool {
        *self == RtoBackoff::Karn
    }
}

impl TcpSender {
    /// `on_ack` of a sender with extensions.
    #[inline(never)]
    pub(super) fn on_ack_ext(&mut self, now: Time, ack: &Pkt, out: &mut Vec<Pkt>, max: u32) {
        let a = ack.seq;
        let ece = self.p.ecn && ack.flags & flags::ECE != 0;
        let mut newly_sacked = 0;
        if let Some(sb) = self.sack.as_mut() {
            let blocks = match &self.sack_log {
                Some(log) => SackLog::take(log, a, ack.epoch),
                None => Default::default(),
            };
            sb.advance(a.max(self.snd_una));
            newly_sacked = sb.update(blocks.as_slice(), self.snd_max);
        }
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
        if a > self.snd_una {
            self.new_ack_ext(now, a, out, max);
        } else if a == self.snd_una && self.snd_max > self.snd_una {
            self.dup_ack_ext(now, a, newly_sacked, out, max);
        }
    }

    /// The answer to ECN-Echo, once per window of data: RFC 3168's halving (cwnd exactly
    /// half, ssthresh the integer half, as ns-2 does), DCTCP's
    /// `cwnd (1 - alpha / 2)` (RFC 8257 Section 3.3), CUBIC's congestion event
    /// (RFC 9438 Section 4.6, cwnd at least 1).
    pub(super) fn ecn_reduce(&mut self) {
        let w = self.cwnd.min(self.p.max_window as f64);
        if let Some(d) = self.dctcp.as_ref() {
            self.ssthresh = d.reduced(w);
        } else {
            self.halve();
        }
        let reno = self.cubic.is_none() && self.dctcp.is_none() && self.ledbat.is_none();
        self.cwnd = if reno && self.p.loss_ssthresh == LossSsthresh::Cwnd {
            // (ns-2's `slowdown(CLOSE_CWND_HALF | CLOSE_SSTHRESH_HALF)`: cwnd exactly
            // half, ssthresh the integer half)
            (w / 2.0).max(1.0)
        } else {
            self.ssthresh.max(1.0)
        };
        self.ecn_recover = self.snd_max;
        self.in_cwr = self.p.ecn_cwr == EcnCwr::Hold;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// An ACK for new data (`a` > `snd_una`).
    fn new_ack_ext(&mut self, now: Time, a: u32, out: &mut Vec<Pkt>, max: u32) {
        let newly = (a - self.snd_una) as f64;
        self.timed_ack(now, a);
        if self.in_recovery {
            if self.sack.is_some() {
                if a < self.recover {
                    // RFC 6675 (B): a partial ACK; the timer restarts (RFC 6298 5.3).
                    self.snd_una = a;
                    self.snd_nxt = self.snd_nxt.max(a);
                    self.dupacks = 0;
                    self.restart_timer(now);
                    self.sack_send(now, out, max);
                    return;
                }
                // RFC 6675 (A): recovery ends; cwnd is ssthresh already.
                self.in_recovery = false;
            } else if self.recovery_ack(now, a, newly, out, max) {
                return;
            }
        } else if self.in_cwr {
            // (ecn_cwr = "hold": no growth in the round trip after an ECN reduction)
        } else if let Some(l) = self.ledbat.as_ref() {
            // RFC 6817 Section 2.4.2 (no slow start), flightsize before the ACK
            let flight = (self.snd_max - self.snd_una) as f64;
            self.cwnd = l.on_new_ack(self.cwnd, newly, flight);
        } else if let Some(c) = self.cubic.as_mut().filter(|_| a >= self.recover)
            && c.ends_loss(true)
        {
            // (cubic_slow_start = "acked": the end of a timeout's go-back-N opens nothing)
        } else if self.cwnd < self.ssthresh {
            self.cwnd += self.cubic.as_ref().map_or(1.0, |c| c.slow_start_increase(newly));
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
            if self.in_recovery || self.dupacks + 1 >= thresh || !self.p.limited_transmit {
                return self.dup_ack(now, a, out, max);
            }
            self.dupacks += 1;
            return self.limited_transmit(now, out);
        }
        if self.in_recovery {
            // RFC 6675 (B), (C).
            self.sack_send(now, out, max);
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
        } else if newly_sacked > 0 && self.p.limited_transmit {
            self.limited_transmit(now, out);
        }
    }

    /// RFC 3042: on each of the first two duplicate ACKs a new packet goes out, if the
    /// receiver window and the application allow it and the data outstanding stays
    /// within cwnd + 2 packets; cwnd does not change.
    fn limited_transmit(&mut self, now: Time, out: &mut Vec<Pkt>) {
        if self.dupacks >= self.p.dupack_threshold || self.snd_nxt != self.snd_max {
            return;
        }
        let outstanding = self.snd_max - self.snd_una;
        if self.app_has(self.snd_max)
            && outstanding < self.p.max_window
            && outstanding < self.window() + 2
        {
            let seq = self.snd_max;
            self.emit(now, seq, false, out);
            self.snd_max += 1;
            self.snd_nxt = self.snd_max;
        }
    }

    /// RFC 6675 Section 5, steps 1 to 5: enter loss recovery.
    fn sack_recovery(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        self.stats.fast_retransmits += 1;
        self.halve();
        self.cwnd = self.ssthresh;
        self.recover = self.snd_max;
        self.have_recover = true;
        self.in_recovery = true;
        let una = self.snd_una;
        if let Some(sb) = self.sack.as_mut() {
            sb.high_rxt = una + 1;
        }
        self.emit(now, una, true, out);
        if self.p.fast_retransmit_timer == FrTimer::Restart {
            self.restart_timer(now);
        }
        self.sack_send(now, out, max);
    }

    /// RFC 6675 step (C): while `cwnd - pipe >= 1`, send what `NextSeg()` names:
    /// a lost packet (rule 1), else new data (rule 2), else an unSACKed packet below
    /// the highest SACKed one (rule 3).
    fn sack_send(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        let Some(mut sb) = self.sack.take() else { return };
        let thresh = self.p.dupack_threshold;
        // (pipe is recounted only here; each packet sent adds one, RFC 6675 C.4)
        let mut pipe = sb.pipe(self.snd_max, thresh) as f64;
        let mut n = 0;
        while n < max && self.cwnd - pipe >= 1.0 {
            let rx = sb.next_retransmission(self.snd_max, thresh);
            let new_ok = self.app_has(self.snd_max)
                && self.snd_max < self.snd_una.saturating_add(self.p.max_window);
            let seq = match rx {
                Some((s, true)) => s,
                _ if new_ok => self.snd_max,
                Some((s, false)) => s,
                None => break,
            };
            if seq < self.snd_max {
                sb.high_rxt = seq + 1;
                self.emit(now, seq, true, out);
            } else {
                self.emit(now, seq, false, out);
                self.snd_max += 1;
                self.snd_nxt = self.snd_nxt.max(self.snd_max);
            }
            pipe += 1.0;
            n += 1;
        }
        self.sack = Some(sb);
    }

    /// Could `sack_send` send now (`can_send` in SACK's recovery)?
    pub(super) fn sack_can_send(&self) -> bool {
        let Some(sb) = self.sack.as_ref() else { return false };
        let thresh = self.p.dupack_threshold;
        let new_ok = self.app_has(self.snd_max)
            && self.snd_max < self.snd_una.saturating_add(self.p.max_window);
        self.cwnd - sb.pipe(self.snd_max, thresh) as f64 >= 1.0
            && (new_ok || sb.next_retransmission(self.snd_max, thresh).is_some())
    }

    /// `send_much` with the extensions: SACK's rules in recovery; otherwise the
    /// window, skipping packets SACKed since a timeout.
    pub(super) fn send_ext(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) -> u32 {
        if self.sack.is_none() {
            return self.send_plain(now, out, max);
        }
        if self.in_recovery {
            self.sack_send(now, out, max);
            return 0;
        }
        let mut n = 0;
        let limit = self.snd_una.saturating_add(self.window());
        while n < max && self.snd_nxt < limit && self.app_has(self.snd_nxt) {
            let seq = self.snd_nxt;
            let retx = seq < self.snd_max;
            self.snd_nxt += 1;
            if retx && self.sack.as_ref().is_some_and(|sb| sb.is_sacked(seq)) {
                continue;
            }
            self.emit(now, seq, retx, out);
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::super::{TcpParams, TcpReceiver, Variant, connection};
    use super::*;
    use crate::packet::flags;

    fn ms(t: u64) -> Time {
        Time(t * 1_000_000)
    }

    /// A NewReno connection with `p`'s keys, started with a first window of `w` packets
    /// (ssthresh 10, so that it grows by 1/cwnd per ACK); the packets it sent.
    fn started(p: TcpParams, w: f64) -> (TcpSender, TcpReceiver, Vec<Pkt>) {
        let p = TcpParams { variant: Variant::NewReno, init_cwnd: w, ssthresh: 10.0, ..p };
        let (mut s, r) = connection(p, 0, 0, 1);
        let mut out = Vec::new();
        s.start(ms(0), &mut out, u32::MAX);
        assert_eq!(
            out.iter().map(|p| p.seq).collect::<Vec<_>>(),
            (0..w as u32).collect::<Vec<_>>()
        );
        (s, r, out)
    }

    /// An ECN reduction halves cwnd (11 -> 5.5) and sets ssthresh to the integer half
    /// (5), as ns-2 does; `ecn_cwr`: the window then grows by 1/cwnd per ACK of new data
    /// from the ACK that carried the echo on (`grow`), or stays until an ACK covers a
    /// packet sent after the reduction (`hold`, as ns-2 and ns-3 end it).
    #[test]
    fn ecn_cwr_grow_or_hold() {
        for mode in [EcnCwr::Grow, EcnCwr::Hold] {
            let p = TcpParams { ecn: true, ecn_cwr: mode, ..TcpParams::default() };
            let (mut s, mut r, data) = started(p, 11.0);
            let (mut out, mut acks) = (Vec::new(), Vec::new());
            // packet 0 arrives marked, then 1..10 (acknowledged while the receiver echoes);
            // the ACK of packet i acknowledges up to i + 1, the reduction's snd_max is 11:
            // with `hold` no ACK of these grows the window
            let mut w = 0.0;
            for (i, d) in data.iter().enumerate() {
                let mut d = *d;
                if i == 0 {
                    d.flags |= flags::CE;
                    w = 11.0 / 2.0;
                }
                acks.clear();
                r.on_data(ms(100 + i as u64), &d, &mut acks);
                s.on_ack(ms(100 + i as u64), &acks[0], &mut out, u32::MAX);
                if mode == EcnCwr::Grow {
                    w += 1.0 / w;
                }
                assert_eq!((s.cwnd, s.ssthresh), (w, 5.0), "{mode:?}: ACK of {i}");
            }
            // the first packet sent after the reduction carries CWR; its ACK grows it
            let first = *out.iter().find(|p| !p.is_ack()).expect("a packet sent");
            assert_eq!((first.seq, first.flags & flags::CWR != 0), (11, true));
            acks.clear();
            r.on_data(ms(200), &first, &mut acks);
            s.on_ack(ms(200), &acks[0], &mut out, u32::MAX);
            assert_eq!(s.cwnd, w + 1.0 / w, "{mode:?}: after it");
        }
    }

    /// `loss_ssthresh`: at the third duplicate ACK after losing packet 0 of 20, ssthresh
    /// is half the window (10) by default, or half the packets in flight: with SACK
    /// RFC 6675's pipe, 20 sent less 3 SACKed less the lost one (8); without, the 20
    /// outstanding less the 3 duplicates (8.5).
    #[test]
    fn loss_ssthresh_cwnd_or_pipe() {
        for sack in [false, true] {
            for mode in [LossSsthresh::Cwnd, LossSsthresh::Pipe] {
                let p = TcpParams { sack, loss_ssthresh: mode, ..TcpParams::default() };
                let (mut s, mut r, data) = started(p, 20.0);
                let (mut out, mut acks) = (Vec::new(), Vec::new());
                for d in &data[1..4] {
                    acks.clear();
                    r.on_data(ms(100), d, &mut acks);
                    s.on_ack(ms(100), &acks[0], &mut out, u32::MAX);
                }
                let (sent, sacked, lost, dupacks) = (20.0, 3.0, 1.0, 3.0);
                let expect = match (mode, sack) {
                    (LossSsthresh::Cwnd, _) => (sent / 2.0f64).floor(),
                    (LossSsthresh::Pipe, true) => (sent - sacked - lost) / 2.0,
                    (LossSsthresh::Pipe, false) => (sent - dupacks) / 2.0,
                };
                assert_eq!(s.stats.fast_retransmits, 1, "sack {sack}, {mode:?}");
                assert_eq!(s.ssthresh, expect, "sack {sack}, {mode:?}");
            }
        }
    }
}
