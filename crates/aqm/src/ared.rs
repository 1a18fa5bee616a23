//! Adaptive RED (Floyd, Gummadi & Shenker 2001, Fig. 10 and Section 4).
//!
//! RED in gentle mode whose `max_p` is moved by AIMD every `interval` to bring the
//! average into the target band `[min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]`,
//! with `w_q`, `min_th` and `max_th` optionally set from the link rate (Section 4.3, 6).
//! [`AdaptRule`] says when and within which bounds max_p moves: Fig. 10's, or ns-2
//! 2.35's `red.cc`.

use serde::{Deserialize, Serialize};

use crate::common::Limit;
use crate::config::build::{secs_number, seed};
use crate::config::fields::{config_struct, param_enum};
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::{AqmError, Result, check};
use crate::packet::{Backlog, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::red::{RedCore, RedFields, RedParams};
use crate::time::{Duration, Time};
use crate::units::Quantity;

config_struct! {
    /// Adaptive RED (Floyd, Gummadi & Shenker 2001, Fig. 10): RED in gentle mode whose
    /// max_p moves by AIMD every `interval`. RED's keys (initial max_p 0.1, gentle on);
    /// `min_th`, `max_th`, `w_q` left out (or None) are set automatically from the link
    /// rate (Sections 4.3, 6): w_q = 1 - exp(-1/C), min_th = max(5, target_delay C / 2),
    /// max_th = 3 min_th.
    pub struct AredConfig {
        /// Minimum threshold (None: automatic).
        min_th: Option<f64> = None,
        /// Maximum threshold (None: 3 min_th).
        max_th: Option<f64> = None,
        /// Weight of the average (None: 1 - exp(-1/C)).
        w_q: Option<f64> = None,
        ..red: RedFields = RedFields::ared(),
        /// Adaptation interval (0.5 s; seconds or "500ms").
        interval: Quantity = Quantity::Number(0.5),
        /// delay_target of the automatic min_th (5 ms).
        target_delay: Quantity = Quantity::Number(0.005),
        /// Additive increase; None: min(0.01, max_p/4) at each step.
        alpha: Option<f64> = None,
        /// Multiplicative decrease (0.9).
        beta: f64 = 0.9,
        /// Lower bound of max_p (0.01).
        max_p_min: f64 = 0.01,
        /// Upper bound of max_p (0.5).
        max_p_max: f64 = 0.5,
        /// When and within which bounds max_p moves: "figure10" (every `interval`
        /// boundary, kept in [max_p_min, max_p_max]) or "ns2" (at an arrival once
        /// `interval` has passed since max_p last moved, unclamped steps, the gentle
        /// ramp from the initial max_p: ns-2's `red.cc`).
        adapt_rule: AdaptRule = AdaptRule::Figure10,
    }
}

/// When Adaptive RED moves max_p, within which bounds, and from which max_p the gentle
/// ramp starts. Written `"figure10"` or `"ns2"` in a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdaptRule {
    /// Fig. 10: one step at every `interval` boundary (0.5 s, 1 s, ...) with the average
    /// of that moment; max_p kept in `[max_p_min, max_p_max]` (Section 4.1's range); the
    /// gentle ramp starts from the current max_p.
    Figure10,
    /// ns-2 2.35's `red.cc`: `estimator()` calls `updateMaxP(new_ave, now)` at an
    /// arrival, with the average that arrival gives, when `now > lastset + interval_`;
    /// `lastset` is 0 at the start and moves only when max_p does (a step inside the band
    /// leaves it, so the next arrival outside the band steps at once). A decrease needs
    /// `cur_max_p > bottom_` and multiplies by `beta_`, an increase needs `cur_max_p <
    /// top_` and adds `min(alpha_, cur_max_p / 4)`; neither is clamped, so max_p can end
    /// below `bottom_` (by up to a factor beta) or above `top_` (by up to alpha). The band
    /// is `[th_min + 0.4 d, th_max - 0.4 d]`. The gentle ramp keeps the initial max_p's
    /// slope (`v_c`, `v_d` are set once, at reset).
    Ns2,
}

param_enum!(AdaptRule);

impl AqmConfig for AredConfig {
    fn may_evict(&self) -> bool {
        self.red.drop_front
    }
    fn limit_packets(&self) -> Option<u64> {
        self.red.limit
    }
    fn normalize(&mut self) -> Result<()> {
        secs_number(&mut self.interval, "interval")?;
        secs_number(&mut self.target_delay, "target_delay")?;
        self.red.normalize()
    }
}

impl BuildAqm for AredConfig {
    type Aqm = AdaptiveRed;
    fn build(&self, ctx: &BuildContext) -> Result<AdaptiveRed> {
        let r = &self.red;
        let rate = r.rate(ctx)?;
        let target_delay =
            check::positive("target_delay", self.target_delay.secs("target_delay")?)?;
        let unit = if r.queue_in_bytes { r.mean_pkt_size as f64 } else { 1.0 };
        let min_th = match self.min_th {
            Some(v) => v,
            None => auto_min_th(rate, r.mean_pkt_size, target_delay) * unit,
        };
        let max_th = self.max_th.unwrap_or_else(|| auto_max_th(min_th));
        let w_q = self.w_q.unwrap_or_else(|| auto_w_q(rate, r.mean_pkt_size));
        let interval = check::positive("interval", self.interval.secs("interval")?)?;
        let params = r.params(min_th, max_th, w_q, rate)?;
        let adaptation = AredAdaptation {
            interval: Duration::from_secs_f64(interval),
            alpha: self.alpha,
            beta: self.beta,
            max_p_min: self.max_p_min,
            max_p_max: self.max_p_max,
            rule: self.adapt_rule,
        };
        AdaptiveRed::new(params, adaptation, seed(r.seed, ctx))
    }
}

/// Link capacity in packets per second for packets of `mean_pkt_size` bytes (C of eq. 1).
pub fn capacity_pkts(link_rate_bps: f64, mean_pkt_size: u32) -> f64 {
    link_rate_bps / (8.0 * mean_pkt_size as f64)
}

/// Automatic queue weight, eq. (1) of Section 4.3: `w_q = 1 - exp(-1/C)`, a time
/// constant of one second (ten 100 ms round-trip times).
pub fn auto_w_q(link_rate_bps: f64, mean_pkt_size: u32) -> f64 {
    1.0 - (-1.0 / capacity_pkts(link_rate_bps, mean_pkt_size)).exp()
}

/// Automatic minimum threshold of Section 6, in packets:
/// `min_th = max(5, delay_target * C / 2)`.
///
/// The paper's worked numbers (12.5 packets at 10 Mb/s, 125 at 100 Mb/s, 500-byte
/// packets) are `delay_target * C` without the division by two; the formula with it
/// is the one that gives the stated target average delay (the target band is centred
/// on `2 min_th` when `max_th = 3 min_th`), and it is what ns-2 computes. aqmlab
/// follows the formula.
pub fn auto_min_th(link_rate_bps: f64, mean_pkt_size: u32, delay_target: f64) -> f64 {
    (delay_target * capacity_pkts(link_rate_bps, mean_pkt_size) / 2.0).max(5.0)
}

/// Automatic maximum threshold of Section 4.3: `max_th = 3 min_th`.
pub fn auto_max_th(min_th: f64) -> f64 {
    3.0 * min_th
}

/// The adaptation rule's parameters (Fig. 10).
#[derive(Clone, Debug, PartialEq)]
pub struct AredAdaptation {
    /// Time between adaptations (0.5 s).
    pub interval: Duration,
    /// Additive increase; `None` = `min(0.01, max_p / 4)` at each step (Fig. 10).
    pub alpha: Option<f64>,
    /// Multiplicative decrease factor (0.9).
    pub beta: f64,
    /// Lower bound of max_p (0.01).
    pub max_p_min: f64,
    /// Upper bound of max_p (0.5).
    pub max_p_max: f64,
    /// When and within which bounds max_p moves.
    pub rule: AdaptRule,
}

impl Default for AredAdaptation {
    fn default() -> Self {
        AredAdaptation {
            interval: Duration::from_millis(500),
            alpha: None,
            beta: 0.9,
            max_p_min: 0.01,
            max_p_max: 0.5,
            rule: AdaptRule::Figure10,
        }
    }
}

impl AredAdaptation {
    pub fn validate(&self, initial_max_p: f64) -> Result<()> {
        if self.interval.0 == 0 {
            return Err(AqmError::invalid("interval", 0, "> 0 s"));
        }
        if let Some(a) = self.alpha
            && !(a > 0.0 && a < 1.0)
        {
            return Err(AqmError::invalid("alpha", a, "(0, 1)"));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(AqmError::invalid("beta", self.beta, "(0, 1)"));
        }
        check::unit_open_closed("max_p_min", self.max_p_min)?;
        check::unit_open_closed("max_p_max", self.max_p_max)?;
        if self.max_p_min > self.max_p_max {
            return Err(AqmError::invalid(
                "max_p_min",
                self.max_p_min,
                format!("<= max_p_max ({})", self.max_p_max),
            ));
        }
        if initial_max_p < self.max_p_min || initial_max_p > self.max_p_max {
            return Err(AqmError::invalid(
                "max_p",
                initial_max_p,
                format!("[max_p_min, max_p_max] = [{}, {}]", self.max_p_min, self.max_p_max),
            ));
        }
        Ok(())
    }
}

/// Adaptation steps of one catch-up run one by one (see [`AdaptiveRed::poll`]).
pub const STEPWISE: u64 = 1 << 20;

/// Adaptive RED. Under [`AdaptRule::Figure10`] `max_p` moves only at interval
/// boundaries; the owner calls [`AdaptiveRed::poll`] at [`AdaptiveRed::poll_at`], and
/// every arrival also catches up on boundaries that have passed, so a caller that never
/// polls gets the same result. Under [`AdaptRule::Ns2`] only arrivals move it (no
/// boundary is ever due).
#[derive(Clone, Debug)]
pub struct AdaptiveRed {
    pub core: RedCore,
    pub adaptation: AredAdaptation,
    next_adapt: Time,
    /// When max_p last moved ([`AdaptRule::Ns2`]'s `lastset`; 0 at the start).
    last_set: Time,
}

impl AdaptiveRed {
    pub fn new(params: RedParams, adaptation: AredAdaptation, seed: u64) -> Result<AdaptiveRed> {
        adaptation.validate(params.max_p)?;
        let mut core = RedCore::new(params, seed)?;
        let next_adapt = match adaptation.rule {
            AdaptRule::Figure10 => Time::ZERO + adaptation.interval,
            AdaptRule::Ns2 => {
                core.gentle_max_p = Some(core.params.max_p);
                Time::MAX
            }
        };
        Ok(AdaptiveRed { core, adaptation, next_adapt, last_set: Time::ZERO })
    }

    /// The target band for avg (Fig. 10; [`AdaptRule::Ns2`]: `red.cc`'s arithmetic,
    /// `th_max - 0.4 d` for the upper edge).
    pub fn target(&self) -> (f64, f64) {
        let p = &self.core.params;
        let d = p.max_th - p.min_th;
        match self.adaptation.rule {
            AdaptRule::Figure10 => (p.min_th + 0.4 * d, p.min_th + 0.6 * d),
            AdaptRule::Ns2 => (p.min_th + 0.4 * d, p.max_th - 0.4 * d),
        }
    }

    /// One step of Fig. 10's AIMD. Returns whether max_p changed. Under
    /// [`AdaptRule::Figure10`] max_p is clamped to [max_p_min, max_p_max]: Fig. 10 tests
    /// `max_p <= 0.5` before adding alpha, which alone would let max_p reach 0.5 + alpha;
    /// the text's range is kept. [`AdaptRule::Ns2`] steps as `updateMaxP` does: alpha is
    /// always at most max_p / 4, and neither step is clamped.
    pub fn adapt(&mut self) -> bool {
        let (lo, hi) = self.target();
        let a = &self.adaptation;
        let old = self.core.max_p;
        let ns2 = a.rule == AdaptRule::Ns2;
        if self.core.avg < lo && old > a.max_p_min {
            let new = old * a.beta;
            self.core.max_p = if ns2 { new } else { new.max(a.max_p_min) };
        } else if self.core.avg > hi && old < a.max_p_max {
            let alpha = match a.alpha {
                Some(x) if !ns2 => x,
                Some(x) => x.min(old / 4.0),
                None => (old / 4.0).min(0.01),
            };
            self.core.max_p = if ns2 { old + alpha } else { (old + alpha).min(a.max_p_max) };
        }
        self.core.max_p != old
    }

    /// [`AdaptRule::Ns2`] after an arrival's average: `estimator()`'s `if (now > lastset +
    /// interval_) updateMaxP(new_ave, now)`, and `lastset = now` when max_p moved.
    fn adapt_ns2(&mut self, now: Time) {
        if now > self.last_set + self.adaptation.interval && self.adapt() {
            self.last_set = now;
        }
    }

    /// When the next adaptation is due (never, `Time::MAX`, under [`AdaptRule::Ns2`]).
    pub fn poll_at(&self) -> Time {
        self.next_adapt
    }

    /// Run every adaptation due at or before `now`. The average does not move between
    /// arrivals, so once a step changes nothing the remaining steps are skipped, and
    /// after [`STEPWISE`] steps that all changed max_p (a tiny alpha, a beta near 1)
    /// the rest are taken at once: `behind` additions of alpha, or `beta^behind`
    /// (the direction cannot turn while avg stands still). No boundary lies at the
    /// clock's end (`Time::MAX`), so catching up always ends.
    pub fn poll(&mut self, now: Time) {
        let iv = self.adaptation.interval.0;
        let mut steps = 0u64;
        while now >= self.next_adapt && self.next_adapt < Time::MAX {
            let changed = self.adapt();
            self.next_adapt += self.adaptation.interval;
            steps += 1;
            if (!changed || steps >= STEPWISE) && now >= self.next_adapt {
                let behind = (now.0 - self.next_adapt.0) / iv + 1;
                if changed {
                    self.adapt_many(behind);
                }
                self.next_adapt = Time(self.next_adapt.0.saturating_add(behind.saturating_mul(iv)));
            }
        }
    }

    /// `k` steps of Fig. 10's AIMD at once, with avg standing still (for a catch-up
    /// longer than [`STEPWISE`] steps; alpha then is its explicit value, or 0.01: the
    /// default `min(max_p / 4, 0.01)` reaches 0.01 within a few hundred steps).
    fn adapt_many(&mut self, k: u64) {
        let (lo, hi) = self.target();
        let a = &self.adaptation;
        let old = self.core.max_p;
        if self.core.avg > hi && old < a.max_p_max {
            let alpha = a.alpha.unwrap_or(0.01);
            self.core.max_p = (old + k as f64 * alpha).min(a.max_p_max);
        } else if self.core.avg < lo && old > a.max_p_min {
            self.core.max_p = (old * a.beta.powf(k as f64)).max(a.max_p_min);
        }
    }

    pub fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        match self.adaptation.rule {
            AdaptRule::Figure10 => {
                self.poll(now);
                self.core.update_avg(now, backlog);
            }
            AdaptRule::Ns2 => {
                self.core.update_avg(now, backlog);
                self.adapt_ns2(now);
            }
        }
        self.core.decide(pkt, backlog)
    }

    pub fn on_removed(&mut self, now: Time, pkt: &PacketInfo, departed: bool, backlog_after: Backlog) {
        self.core.on_removed(now, pkt, departed, backlog_after);
    }
}

impl QueueDiscipline for AdaptiveRed {
    #[inline]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        AdaptiveRed::on_arrival(self, now, pkt, backlog)
    }
    #[inline]
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, backlog_after: Backlog, departed: bool) {
        AdaptiveRed::on_removed(self, now, pkt, departed, backlog_after)
    }
    fn limit(&self) -> Limit {
        self.core.params.limit
    }
    fn poll_at(&self) -> Option<Time> {
        (self.adaptation.rule == AdaptRule::Figure10).then(|| AdaptiveRed::poll_at(self))
    }
    fn poll(&mut self, now: Time) {
        AdaptiveRed::poll(self, now)
    }
    /// avg.
    fn signal(&self) -> f64 {
        self.core.avg
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::AverageQueue
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.core.inspect(out)
    }
}
