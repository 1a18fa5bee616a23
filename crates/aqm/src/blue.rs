//! BLUE (Feng, Kandlur, Saha & Shin, "The BLUE active queue management algorithms",
//! IEEE/ACM ToN 2002, Section IV; first in the 1999 technical report CSE-TR-387-99).
//!
//! BLUE keeps one marking probability `p_m` and moves it from two events instead of the
//! queue length: a packet loss from buffer overflow raises it by `d1`, the link going
//! idle lowers it by `d2`, and after a change `p_m` stays frozen for `freeze_time`:
//! ```text
//! upon packet loss (or Qlen > L) event:
//!     if (now - last_update) > freeze_time: p_m = p_m + d1; last_update = now
//! upon link idle event:
//!     if (now - last_update) > freeze_time: p_m = p_m - d2; last_update = now
//! ```
//! Every arrival is marked (ECN) or dropped with probability `p_m`.
//!
//! # Choices where the paper leaves room
//! - **Link idle** is a departure that leaves the queue empty (the discipline sees the
//!   waiting packets, not the line); an idle period lowers `p_m` once per freeze time.
//! - **`Qlen > L`**: with `threshold = L` an arrival that would make more than `L`
//!   packets wait counts as a loss event as well (the paper's variant that keeps room
//!   for bursts); without it only buffer overflow does.
//! - **The first change** is allowed at any time (`last_update` starts unset).
//! - `p_m` is kept in [0, 1].

use crate::common::{self, AqmRng, Limit};
use crate::config::build::{duration, secs_number, seed};
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::{AqmError, Result, check};
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::time::{Duration, Time};
use crate::units::Quantity;

config_struct! {
    /// BLUE (Feng, Kandlur, Saha & Shin 2002): a marking probability p_m raised by `d1`
    /// on buffer overflow and lowered by `d2` when the link goes idle, at most once per
    /// `freeze_time`. Defaults: one of the paper's configurations (d1 0.02, d2 0.002,
    /// freeze_time 100 ms).
    pub struct BlueConfig {
        /// Increase of p_m on a loss event, (0, 1].
        d1: f64 = 0.02,
        /// Decrease of p_m on a link idle event, (0, 1].
        d2: f64 = 0.002,
        /// The least time between two changes of p_m (seconds or "100ms").
        freeze_time: Quantity = Quantity::Number(0.1),
        /// Buffer in packets (required unless `limit_bytes`).
        limit: Option<u64> = None,
        /// Buffer in bytes.
        limit_bytes: Option<u64> = None,
        /// L, packets: an arrival that would make more than L wait is a loss event too.
        threshold: Option<u32> = None,
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool = false,
        /// Seed of the drop decisions' random stream.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for BlueConfig {
    fn limit_packets(&self) -> Option<u64> {
        self.limit
    }
    fn normalize(&mut self) -> Result<()> {
        secs_number(&mut self.freeze_time, "freeze_time")
    }
}

impl BuildAqm for BlueConfig {
    type Aqm = Blue;
    fn build(&self, ctx: &BuildContext) -> Result<Blue> {
        let params = BlueParams {
            d1: self.d1,
            d2: self.d2,
            freeze_time: duration(&self.freeze_time, "freeze_time", false)?,
            limit: Limit::new(self.limit, self.limit_bytes)?,
            threshold: self.threshold,
            ecn: self.ecn,
        };
        Blue::new(params, seed(self.seed, ctx))
    }
}

/// Validated BLUE parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BlueParams {
    /// d1: increase of p_m on a loss event, in (0, 1].
    pub d1: f64,
    /// d2: decrease of p_m on a link idle event, in (0, 1].
    pub d2: f64,
    /// freeze_time: the least time between two changes of p_m.
    pub freeze_time: Duration,
    /// The physical buffer.
    pub limit: Limit,
    /// L, packets: an arrival that would make more than L wait is a loss event too.
    pub threshold: Option<u32>,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl BlueParams {
    pub fn validate(&self) -> Result<()> {
        check::unit_open_closed("d1", self.d1)?;
        check::unit_open_closed("d2", self.d2)?;
        if self.threshold == Some(0) {
            return Err(AqmError::invalid("threshold", 0, ">= 1 packet"));
        }
        Ok(())
    }
}

/// BLUE (see the module documentation).
#[derive(Clone, Debug)]
pub struct Blue {
    pub params: BlueParams,
    /// p_m, the marking probability.
    pub p_m: f64,
    /// last_update: when p_m last changed.
    last_update: Option<Time>,
    rng: AqmRng,
}

impl Blue {
    pub fn new(params: BlueParams, seed: u64) -> Result<Blue> {
        params.validate()?;
        Ok(Blue { params, p_m: 0.0, last_update: None, rng: common::rng_from_seed(seed) })
    }

    /// Whether p_m may change at `now`: `(now - last_update) > freeze_time`.
    fn unfrozen(&self, now: Time) -> bool {
        self.last_update.is_none_or(|t| now.saturating_since(t) > self.params.freeze_time)
    }

    /// A loss event: `p_m = p_m + d1` unless frozen.
    pub fn on_loss(&mut self, now: Time) {
        if self.unfrozen(now) {
            self.p_m = (self.p_m + self.params.d1).min(1.0);
            self.last_update = Some(now);
        }
    }

    /// A link idle event: `p_m = p_m - d2` unless frozen.
    pub fn on_idle(&mut self, now: Time) {
        if self.unfrozen(now) {
            self.p_m = (self.p_m - self.params.d2).max(0.0);
            self.last_update = Some(now);
        }
    }

    pub fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        if self.params.limit.overflows(backlog, pkt) {
            self.on_loss(now);
            return Verdict::Drop(DropReason::Overflow);
        }
        if self.params.threshold.is_some_and(|l| backlog.packets >= l) {
            self.on_loss(now);
        }
        if self.p_m > 0.0 && common::uniform01(&mut self.rng) < self.p_m {
            if self.params.ecn && pkt.ecn_capable {
                Verdict::Mark
            } else {
                Verdict::Drop(DropReason::Early)
            }
        } else {
            Verdict::Enqueue
        }
    }

    pub fn on_removed(&mut self, now: Time, backlog_after: Backlog, departed: bool) {
        if departed && backlog_after.packets == 0 {
            self.on_idle(now);
        }
    }
}

// BLUE, PI and SFB are kept out of line so that the RED family's inlined dispatch (the
// simulator's hot path) compiles as before they were added.
impl QueueDiscipline for Blue {
    #[inline(never)]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        Blue::on_arrival(self, now, pkt, backlog)
    }
    #[inline(never)]
    fn on_removed(&mut self, now: Time, _pkt: &PacketInfo, backlog_after: Backlog, departed: bool) {
        Blue::on_removed(self, now, backlog_after, departed)
    }
    fn limit(&self) -> Limit {
        self.params.limit
    }
    /// p_m.
    fn signal(&self) -> f64 {
        self.p_m
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::Probability
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p_m", self.p_m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blue(freeze_ms: u64) -> Blue {
        let params = BlueParams {
            d1: 0.02,
            d2: 0.002,
            freeze_time: Duration::from_millis(freeze_ms),
            limit: Limit { packets: Some(10), bytes: None },
            threshold: None,
            ecn: false,
        };
        Blue::new(params, 1).unwrap()
    }
    fn ms(m: u64) -> Time {
        Time(m * 1_000_000)
    }
    fn full() -> Backlog {
        Backlog { packets: 10, bytes: 10_000 }
    }

    #[test]
    fn p_m_steps_by_d1_and_d2_once_per_freeze_time() {
        let mut b = blue(100);
        let pkt = PacketInfo::new(1000, 0);
        // Overflow every millisecond for 1 s: one increase per freeze time (strictly
        // more than 100 ms apart), so at t = 0, 101, 202, ... 909: ten steps of d1.
        for t in 0..1000 {
            assert_eq!(b.on_arrival(ms(t), &pkt, full()), Verdict::Drop(DropReason::Overflow));
        }
        let steps = (0..1000u64).step_by(101).count() as f64;
        assert!((b.p_m - steps * 0.02).abs() < 1e-12, "{}", b.p_m);
        // The queue empties every millisecond from 1 s on: p_m falls by d2 per freeze
        // time, the first step a freeze time after the last increase (909 ms).
        let p_top = b.p_m;
        for t in 1000..2000 {
            b.on_removed(ms(t), Backlog::default(), true);
        }
        let downs = (1010..2000u64).step_by(101).count() as f64;
        assert!((b.p_m - (p_top - downs * 0.002)).abs() < 1e-12, "{}", b.p_m);
    }

    #[test]
    fn arrivals_are_dropped_with_probability_p_m() {
        let mut b = blue(0);
        b.p_m = 0.3;
        b.last_update = Some(Time::MAX);
        let n = 20_000;
        let pkt = PacketInfo::new(1000, 0);
        let small = Backlog { packets: 1, bytes: 1000 };
        let drops = (0..n)
            .filter(|&i| matches!(b.on_arrival(Time(i), &pkt, small), Verdict::Drop(_)))
            .count() as f64;
        let sd = (n as f64 * 0.3 * 0.7).sqrt();
        assert!((drops - 0.3 * n as f64).abs() < 5.0 * sd, "{drops}");
        // ECN-capable packets are marked instead.
        b.params.ecn = true;
        let mut e = pkt;
        e.ecn_capable = true;
        let v: Vec<Verdict> = (0..100).map(|i| b.on_arrival(Time(i), &e, small)).collect();
        assert!(v.contains(&Verdict::Mark) && !v.iter().any(|v| matches!(v, Verdict::Drop(_))));
    }

    #[test]
    fn threshold_counts_as_loss() {
        let mut b = blue(10);
        b.params.threshold = Some(5);
        let pkt = PacketInfo::new(1000, 0);
        b.on_arrival(ms(0), &pkt, Backlog { packets: 4, bytes: 4000 });
        assert_eq!(b.p_m, 0.0);
        b.on_arrival(ms(1), &pkt, Backlog { packets: 5, bytes: 5000 });
        assert_eq!(b.p_m, 0.02);
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let mut p = blue(1).params;
        p.d1 = 0.0;
        assert_eq!(Blue::new(p, 1).unwrap_err().param(), Some("d1"));
        let mut p = blue(1).params;
        p.d2 = 2.0;
        assert_eq!(Blue::new(p, 1).unwrap_err().param(), Some("d2"));
    }
}
