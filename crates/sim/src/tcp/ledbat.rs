//! LEDBAT (RFC 6817): a less-than-best-effort window that aims at a queueing delay of
//! `target` and yields to loss-based TCP, in packets and nanoseconds.
//!
//! Readings of the RFC that the code takes:
//! - **The delay.** RFC 6817 measures one-way delay with timestamps the receiver
//!   echoes. The simulated packet (16 bytes) carries none, so the sender keeps the
//!   send time of each segment it has outstanding (stamped whenever the sender sends:
//!   on an ACK, a timeout, or a send the simulator schedules later) and takes, on
//!   each ACK of new data, the round-trip time of the segment that triggered it
//!   (`ack - 1`); the queueing delay is the current delay less the base delay, both
//!   round-trip times. Equal to the RFC's one-way queueing delay when the ACKs' path
//!   has no queue (the simulated clocks are exact, and the propagation and
//!   transmission times cancel out in the difference); with congestion on the ACKs'
//!   path, LEDBAT would also yield to it. No sample is taken from an ACK during loss
//!   recovery, nor from one whose segment was sent before the last loss event began
//!   (it may have been retransmitted: Karn's rule).
//! - **The base delay** is the minimum over the last `base_history` per-minute minima
//!   (minutes of the simulated clock, counted from 0), the current minute's included
//!   (`update_base_delay` of Section 2.4.2).
//! - **The current delay** (`FILTER(current_delays)`) is the minimum of the last
//!   samples, as many as `CURRENT_FILTER`: 4, but no more than half the window and
//!   at least one (the RFC asks for a filter over samples no older than about an
//!   RTT).
//! - **The window**: on each ACK of new data outside loss recovery,
//!   `cwnd += gain * off_target * acked / cwnd` with `off_target = (target -
//!   queuing_delay) / target` and `acked` the packets newly acknowledged (the RFC's
//!   `bytes_newly_acked / MSS`), then `cwnd <= flightsize + ALLOWED_INCREASE` (the
//!   packets outstanding before the ACK, plus 1) and `cwnd >= MIN_CWND` (2). No slow
//!   start (the RFC's pseudo-code has none): the window starts at the flow's initial
//!   window.
//! - **Loss** (three duplicate ACKs, SACK's loss detection, a CE echo with ECN):
//!   `cwnd = min(cwnd, max(cwnd / 2, MIN_CWND))`, at most once per window of data
//!   (the Reno family's `recover` rule), recovered as NewReno (or SACK) recovers.
//!   A retransmission timeout sets cwnd to 1, as the RFC's congestion timeout does.

use std::collections::VecDeque;

use serde::Serialize;

use super::rtt::SendTimes;

/// MIN_CWND, packets (Section 2.5: SHOULD be 2).
pub const MIN_CWND: f64 = 2.0;
/// ALLOWED_INCREASE, packets (Section 2.5: SHOULD be 1).
pub const ALLOWED_INCREASE: f64 = 1.0;
/// The most samples the current delay is the minimum of.
pub const CURRENT_FILTER: usize = 4;
const MINUTE_NS: u64 = 60_000_000_000;

/// LEDBAT's constants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LedbatParams {
    /// TARGET, s (0.1).
    pub target: f64,
    /// GAIN (1).
    pub gain: f64,
    /// BASE_HISTORY, minutes (10).
    pub base_history: u32,
}

impl Default for LedbatParams {
    fn default() -> Self {
        LedbatParams { target: 0.1, gain: 1.0, base_history: 10 }
    }
}

/// LEDBAT's state.
#[derive(Clone, Debug)]
pub struct Ledbat {
    pub p: LedbatParams,
    /// Per-minute minima of the delay (ns), the current minute's last; and that
    /// minute's number.
    base: VecDeque<u64>,
    minute: u64,
    /// The last delay samples (ns), newest last.
    current: VecDeque<u64>,
    /// Delay samples taken.
    pub samples: u64,
}

impl Ledbat {
    pub fn new(p: LedbatParams) -> Ledbat {
        Ledbat { p, base: VecDeque::new(), minute: 0, current: VecDeque::new(), samples: 0 }
    }

    /// An ACK for everything below `ack` arrived at `now` (ns); `sample` says whether
    /// the segment `ack - 1` gives a delay sample (see the module notes), its send time
    /// read from the sender's record `sent`.
    pub fn on_ack(&mut self, ack: u32, sample: bool, sent: &SendTimes, now: u64) {
        if sample
            && let Some(prev) = ack.checked_sub(1)
            && let Some(t) = sent.sent_at(prev)
        {
            self.delay_sample(now.saturating_sub(t.0), now);
        }
    }

    /// A delay sample `d` (ns) at `now`: `update_base_delay` and
    /// `update_current_delay` (RFC 6817 Section 2.4.2).
    pub fn delay_sample(&mut self, d: u64, now: u64) {
        self.samples += 1;
        let minute = now / MINUTE_NS;
        match self.base.back_mut() {
            Some(tail) if minute == self.minute => *tail = (*tail).min(d),
            _ => {
                self.minute = minute;
                if self.base.len() >= self.p.base_history as usize {
                    self.base.pop_front();
                }
                self.base.push_back(d);
            }
        }
        if self.current.len() >= CURRENT_FILTER {
            self.current.pop_front();
        }
        self.current.push_back(d);
    }

    /// The queueing delay, s: `FILTER(current_delays) - MIN(base_delays)` over the
    /// last `filter` samples; 0 before the first sample.
    pub fn queuing_delay(&self, filter: usize) -> f64 {
        let base = self.base.iter().min();
        let skip = self.current.len().saturating_sub(filter.max(1));
        let cur = self.current.iter().skip(skip).min();
        match (cur, base) {
            (Some(c), Some(b)) => c.saturating_sub(*b) as f64 * 1e-9,
            _ => 0.0,
        }
    }

    /// The window after an ACK newly acknowledging `acked` packets, from `cwnd` with
    /// `flight` packets outstanding before the ACK.
    pub fn on_new_ack(&self, cwnd: f64, acked: f64, flight: f64) -> f64 {
        let filter = ((cwnd / 2.0) as usize).clamp(1, CURRENT_FILTER);
        let off_target = (self.p.target - self.queuing_delay(filter)) / self.p.target;
        let w = cwnd + self.p.gain * off_target * acked / cwnd;
        w.min(flight + ALLOWED_INCREASE).max(MIN_CWND)
    }

    /// The window after a loss (or a CE echo) with window `cwnd`.
    pub fn on_loss(cwnd: f64) -> f64 {
        cwnd.min((cwnd / 2.0).max(MIN_CWND))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A sender with base delay 100 ms (one sample) and then the delay `d`.
    fn at_delay(p: LedbatParams, d: u64) -> Ledbat {
        let mut l = Ledbat::new(p);
        l.delay_sample(100 * MS, 0);
        for k in 1..=CURRENT_FILTER as u64 {
            l.delay_sample(d, k * MS);
        }
        l
    }

    /// Below the target the window grows, above it shrinks; at it, it stays; the
    /// change per ACK is gain * off_target * acked / cwnd (RFC 6817 Section 2.4.2).
    #[test]
    fn window_grows_below_target_and_shrinks_above() {
        let p = LedbatParams { target: 0.025, gain: 1.0, base_history: 10 };
        let (cwnd, flight) = (20.0, 20.0);
        for (q_ms, off) in [(0u64, 1.0), (10, 0.6), (25, 0.0), (50, -1.0), (100, -3.0)] {
            let l = at_delay(p, (100 + q_ms) * MS);
            assert!((l.queuing_delay(4) - q_ms as f64 * 1e-3).abs() < 1e-12);
            let w = l.on_new_ack(cwnd, 1.0, flight);
            assert!((w - (cwnd + off / cwnd)).abs() < 1e-12, "{q_ms} ms: {w}");
        }
        // gain scales the change; a cumulative ACK of 3 packets triples it
        let l = at_delay(LedbatParams { gain: 0.5, ..p }, 150 * MS);
        assert!((l.on_new_ack(cwnd, 3.0, flight) - (cwnd - 0.5 * 1.0 * 3.0 / cwnd)).abs() < 1e-12);
    }

    /// ALLOWED_INCREASE caps the window at the flight size plus one; MIN_CWND floors it.
    #[test]
    fn window_caps() {
        let p = LedbatParams::default();
        let l = at_delay(p, 100 * MS);
        assert_eq!(l.on_new_ack(10.0, 1.0, 5.0), 6.0);
        let l = at_delay(p, 2000 * MS); // off_target -18
        assert_eq!(l.on_new_ack(2.5, 1.0, 3.0), MIN_CWND);
        assert_eq!(Ledbat::on_loss(30.0), 15.0);
        assert_eq!(Ledbat::on_loss(3.0), 2.0);
        assert_eq!(Ledbat::on_loss(1.0), 1.0);
    }

    /// The base delay is the minimum of the per-minute minima of the last
    /// `base_history` minutes: an old low delay is forgotten after that many minutes.
    #[test]
    fn base_delay_history() {
        let p = LedbatParams { base_history: 2, ..LedbatParams::default() };
        let mut l = Ledbat::new(p);
        let min = |m: u64| m * MINUTE_NS;
        l.delay_sample(50 * MS, min(0));
        l.delay_sample(80 * MS, min(1));
        assert!((l.queuing_delay(1) - 0.030).abs() < 1e-12, "minute 0 still counts");
        l.delay_sample(80 * MS, min(2) + 1);
        assert!(l.queuing_delay(1).abs() < 1e-12, "minute 0 forgotten");
        l.delay_sample(60 * MS, min(2) + 2);
        assert!((l.queuing_delay(1)).abs() < 1e-12, "a lower delay is the base at once");
        assert_eq!(l.base.len(), 2);
    }

    /// A sample is the time since the segment before the ACK was sent; acknowledged
    /// segments are forgotten.
    #[test]
    fn samples_from_send_times() {
        let mut l = Ledbat::new(LedbatParams::default());
        let mut sent = SendTimes::default();
        let at = |ns: u64| aqm::Time(ns);
        for seq in 0..4 {
            sent.on_send(seq, false, at(10 * MS)); // 0..4 at 10 ms
        }
        for seq in 4..6 {
            sent.on_send(seq, false, at(20 * MS)); // 4, 5 at 20 ms
        }
        let mut ack = |l: &mut Ledbat, a: u32, sample: bool, now: u64| {
            l.on_ack(a, sample, &sent, now);
            sent.on_ack(a, at(now));
            sent.len()
        };
        ack(&mut l, 2, true, 110 * MS); // segment 1: 100 ms
        ack(&mut l, 5, true, 125 * MS); // segment 4: 105 ms
        assert_eq!(l.samples, 2);
        assert!((l.queuing_delay(4) - 0.0).abs() < 1e-12);
        assert!((l.queuing_delay(1) - 0.005).abs() < 1e-12);
        let left = ack(&mut l, 6, false, 500 * MS);
        assert_eq!((l.samples, left), (2, 0));
    }
}
