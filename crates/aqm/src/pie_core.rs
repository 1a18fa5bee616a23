//! PIE's controller (RFC 8033), without the packets: [`PieCore`] and its parameters,
//! shared by PIE over one FIFO ([`crate::pie`]) and FQ-PIE's flows ([`crate::fq_pie`]).
//!
//! PIE drops (or marks) arriving packets at random with a probability `drop_prob` that a
//! controller moves every `tupdate` from the queueing delay: up when the delay is above
//! `target` or growing, down otherwise (Section 4.2). The delay is either estimated from
//! the backlog and the measured departure rate (Section 4.3, the RFC's method) or taken
//! from the time the packet at the head of the queue waited (the timestamp mode, Linux's
//! default since 4.20). [`PieCore`] holds the controller and its state so that FQ-PIE
//! can keep one per flow queue; [`crate::pie::Pie`] is the single-queue qdisc.
//!
//! # Where RFC 8033 leaves room, and what this implementation does
//! - **The decay rule.** Section 4.2 decays `drop_prob *= 0.98` when the delay was 0 at
//!   this update and the previous one (as Linux and ns-3 do); the appendix pseudocode
//!   tests `< target/2` instead. The code follows Section 4.2.
//! - **Queue length.** The RFC's `byte_length()` counts the packet in transmission;
//!   aqmlab's backlog counts waiting packets only (the crate's convention).
//! - **The averaging weight of Section 4.3** is `DQ_THRESHOLD / 2^16` (0.25 at the
//!   default 16 KB); `dq_threshold` is therefore limited to 2^16 bytes.
//! - **Timestamp mode** takes the sojourn time of each departing packet (0 when it
//!   leaves the queue empty, as Linux does) as the current delay; the burst allowance
//!   still runs down by `tupdate` per update, as in Section 4.4.
//! - **Not implemented:** Linux's extra +2% step above 250 ms of delay (not in the RFC),
//!   byte mode (Section 5.4 "may"), and the optional switching PIE on and off
//!   (Section 5.2).

use serde::{Deserialize, Serialize};

use crate::common::{self, AqmRng, Limit};
use crate::config::fields::param_enum;
use crate::error::{AqmError, Result, check};
use crate::time::{Duration, Time};

/// How PIE measures the queueing delay. Written `"rate_estimator"` or `"timestamp"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DelayMode {
    /// RFC 8033 Section 4.3: `current_qdelay = backlog * avg_dq_time / DQ_THRESHOLD`.
    RateEstimator,
    /// The time the last departing packet waited (Linux's default since 4.20).
    Timestamp,
}

/// When PIE's burst allowance is given again. Written `"rfc"` or `"quiet"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstReset {
    /// RFC 8033 Section 4.4 and Linux: at every update that finds the probability at 0
    /// and both delays under half the target; the probability is updated meanwhile.
    #[default]
    Rfc,
    /// ns-3 3.37's `PieQueueDisc`: once 1.5 s of such updates have passed in a row (its
    /// burst state machine), by the next arrival; the probability is held at 0 while
    /// the allowance lasts.
    Quiet,
}

param_enum!(DelayMode);
param_enum!(BurstReset);

/// ns-3's burst state (`burst_reset = "quiet"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BurstState {
    /// The next arrival gives the allowance.
    NoBurst,
    /// The allowance is running or has just run out.
    Protecting,
    /// Quiet updates are being counted.
    InBurst,
}

/// Validated PIE parameters (RFC 8033 Section 4 and the appendix's defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF, the delay target (15 ms).
    pub target: Duration,
    /// T_UPDATE, the period of the probability update (15 ms).
    pub tupdate: Duration,
    /// alpha, 1/s (0.125).
    pub alpha: f64,
    /// beta, 1/s (1.25).
    pub beta: f64,
    /// MAX_BURST, the burst allowance (150 ms).
    pub max_burst: Duration,
    /// Mark ECN-capable packets instead of dropping them while `drop_prob <= mark_ecn_th`.
    pub ecn: bool,
    /// The probability above which ECN-capable packets are dropped too (0.1, Section 5.1).
    pub mark_ecn_th: f64,
    /// TAIL_DROP, the physical buffer.
    pub limit: Limit,
    /// How the queueing delay is measured.
    pub delay_mode: DelayMode,
    /// DQ_THRESHOLD, bytes (2^14): the departures one rate measurement spans.
    pub dq_threshold: u64,
    /// MEAN_PKTSIZE, bytes: no early drop while at most two of them wait (Section 4.1).
    pub mean_pkt_size: u32,
    /// Section 5.1's derandomization through `accu_prob`.
    pub derandomize: bool,
    /// When the burst allowance is given again.
    pub burst_reset: BurstReset,
}

impl PieParams {
    /// Check every parameter; the error names the first one that is wrong.
    pub fn validate(&self) -> Result<()> {
        if self.target.0 == 0 {
            return Err(AqmError::invalid("target", 0, "> 0 s"));
        }
        if self.tupdate.0 == 0 {
            return Err(AqmError::invalid("tupdate", 0, "> 0 s"));
        }
        check::positive("alpha", self.alpha)?;
        check::non_negative("beta", self.beta)?;
        check::unit_open_closed("mark_ecn_th", self.mark_ecn_th)?;
        if !(1..=1 << 16).contains(&self.dq_threshold) {
            return Err(AqmError::invalid("dq_threshold", self.dq_threshold, "1 ..= 65536 bytes"));
        }
        check::positive_int("mean_pkt_size", self.mean_pkt_size as u64)?;
        Ok(())
    }
}

/// Section 4.2's auto-scaling table: the factor applied to the controller's step when
/// `drop_prob` is in each range (from 1/2048 below 10^-6 up to 1 at 10% and above).
pub fn auto_scale(drop_prob: f64) -> f64 {
    const TABLE: [(f64, f64); 6] = [
        (0.000001, 1.0 / 2048.0),
        (0.00001, 1.0 / 512.0),
        (0.0001, 1.0 / 128.0),
        (0.001, 1.0 / 32.0),
        (0.01, 1.0 / 8.0),
        (0.1, 1.0 / 2.0),
    ];
    TABLE.iter().find(|(below, _)| drop_prob < *below).map_or(1.0, |(_, f)| *f)
}

/// PIE's controller and state, without the packets (reusable per flow queue).
#[derive(Clone, Debug)]
pub struct PieCore {
    pub params: PieParams,
    /// drop_prob_, in [0, 1].
    pub drop_prob: f64,
    /// accu_prob_ (Section 5.1), the probability accumulated since the last drop.
    pub accu_prob: f64,
    /// (`burst_reset = "quiet"`) the burst state and its count of quiet updates.
    burst_state: BurstState,
    quiet_updates: u32,
    /// qdelay_old_: the delay at the previous update, seconds.
    pub qdelay_old: f64,
    /// The current delay estimate, seconds (at the last update; in timestamp mode, at
    /// the last departure).
    pub qdelay: f64,
    /// burst_allowance_ (Section 4.4).
    pub burst_allowance: Duration,
    /// avg_dq_time_: seconds to send DQ_THRESHOLD bytes (0 = no estimate yet).
    pub avg_dq_time: f64,
    in_measurement: bool,
    measurement_start: Time,
    /// dq_count_: bytes sent in the current measurement.
    dq_count: u64,
    next_update: Time,
}

impl PieCore {
    pub fn new(params: PieParams) -> Result<PieCore> {
        params.validate()?;
        Ok(PieCore::from_validated(params))
    }

    /// The controller of parameters already validated ([`PieParams::validate`]).
    pub fn from_validated(params: PieParams) -> PieCore {
        PieCore {
            drop_prob: 0.0,
            accu_prob: 0.0,
            burst_state: BurstState::NoBurst,
            quiet_updates: 0,
            qdelay_old: 0.0,
            qdelay: 0.0,
            burst_allowance: params.max_burst,
            avg_dq_time: 0.0,
            in_measurement: false,
            measurement_start: Time::ZERO,
            dq_count: 0,
            next_update: Time::ZERO + params.tupdate,
            params,
        }
    }

    /// The state as named values: `drop_prob`, `accu_prob`, `qdelay`, `qdelay_old`,
    /// `burst_allowance` and `avg_dq_time` (seconds).
    pub fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("drop_prob", self.drop_prob);
        out("accu_prob", self.accu_prob);
        out("qdelay", self.qdelay);
        out("qdelay_old", self.qdelay_old);
        out("burst_allowance", self.burst_allowance.as_secs_f64());
        out("avg_dq_time", self.avg_dq_time);
    }

    /// current_qdelay: Section 4.3 from the backlog, or the last sojourn time.
    pub fn current_qdelay(&self, backlog_bytes: u64) -> f64 {
        match self.params.delay_mode {
            DelayMode::RateEstimator => {
                backlog_bytes as f64 * self.avg_dq_time / self.params.dq_threshold as f64
            }
            DelayMode::Timestamp => self.qdelay,
        }
    }

    /// One periodic update (Sections 4.2 and 4.4) with the current delay `qdelay`
    /// (seconds):
    /// ```text
    /// p = alpha (qdelay - target) + beta (qdelay - qdelay_old)     Section 4.2
    /// p *= auto_scale(drop_prob)                                  Section 4.2 table
    /// if drop_prob >= 0.1 and p > 0.02: p = 0.02                  Section 5.5
    /// drop_prob += p
    /// if qdelay == 0 and qdelay_old == 0: drop_prob *= 0.98       Section 4.2
    /// drop_prob in [0, 1]
    /// burst_allowance = max(0, burst_allowance - tupdate)         Section 4.4
    /// if drop_prob == 0 and qdelay, qdelay_old < target/2: burst_allowance = max_burst
    /// qdelay_old = qdelay
    /// ```
    pub fn update_from_delay(&mut self, qdelay: f64) {
        let pr = &self.params;
        let target = pr.target.as_secs_f64();
        if pr.burst_reset == BurstReset::Quiet {
            return self.update_quiet(qdelay);
        }
        self.drop_prob = self.next_drop_prob(qdelay);
        self.burst_allowance = Duration(self.burst_allowance.0.saturating_sub(pr.tupdate.0));
        if self.drop_prob == 0.0 && qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst_allowance = pr.max_burst;
        }
        self.qdelay_old = qdelay;
        self.qdelay = qdelay;
    }

    /// Section 4.2's new drop_prob from the delay `qdelay` (the lines above down to the
    /// bounds).
    fn next_drop_prob(&self, qdelay: f64) -> f64 {
        let pr = &self.params;
        let target = pr.target.as_secs_f64();
        let mut p = pr.alpha * (qdelay - target) + pr.beta * (qdelay - self.qdelay_old);
        p *= auto_scale(self.drop_prob);
        if self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        let mut prob = self.drop_prob + p;
        if qdelay == 0.0 && self.qdelay_old == 0.0 {
            prob *= 0.98;
        }
        prob.clamp(0.0, 1.0)
    }

    /// `update_from_delay` with `burst_reset = "quiet"` (ns-3 3.37's `CalculateP`): the
    /// probability is held at 0 while the allowance lasts; the allowance comes back
    /// (by the next arrival, [`Self::drop_early`]) after 1.5 s of updates in a row with
    /// the probability at 0, no allowance left and both delays under half the target.
    fn update_quiet(&mut self, qdelay: f64) {
        let pr = &self.params;
        let target = pr.target.as_secs_f64();
        self.drop_prob = if self.burst_allowance.0 > 0 { 0.0 } else { self.next_drop_prob(qdelay) };
        self.burst_allowance = Duration(self.burst_allowance.0.saturating_sub(pr.tupdate.0));
        let quiet = qdelay < target / 2.0
            && self.qdelay_old < target / 2.0
            && self.drop_prob == 0.0
            && self.burst_allowance.0 == 0;
        // (ns-3's BURST_RESET_TIMEOUT / T_UPDATE, 1.5 s / 15 ms = 100, in whole nanoseconds)
        let limit = (1_500_000_000 / pr.tupdate.0.max(1)) as u32;
        match (quiet, self.burst_state) {
            (true, BurstState::Protecting) => {
                self.burst_state = BurstState::InBurst;
                self.quiet_updates = 0;
            }
            (true, BurstState::InBurst) => {
                self.quiet_updates += 1;
                if self.quiet_updates > limit {
                    self.quiet_updates = 0;
                    self.burst_state = BurstState::NoBurst;
                }
            }
            (false, BurstState::InBurst) => self.quiet_updates = 0,
            _ => {}
        }
        self.qdelay_old = qdelay;
        self.qdelay = qdelay;
    }

    /// When the next update is due.
    pub fn poll_at(&self) -> Time {
        self.next_update
    }

    /// Run every update due at or before `now`, the backlog (bytes) having been
    /// `backlog_bytes` since the last event. Once an update changes nothing, the later
    /// ones would not either (the delay is constant between events): they are skipped.
    pub fn poll(&mut self, now: Time, backlog_bytes: u64) {
        let step = self.params.tupdate.0;
        while now >= self.next_update {
            let state = |s: &Self| {
                (s.drop_prob, s.qdelay_old, s.burst_allowance, s.burst_state, s.quiet_updates)
            };
            let before = state(self);
            self.update_from_delay(self.current_qdelay(backlog_bytes));
            self.next_update += self.params.tupdate;
            if before == state(self) && now >= self.next_update {
                let behind = (now.0 - self.next_update.0) / step + 1;
                self.next_update = Time(self.next_update.0.saturating_add(behind * step));
            }
        }
    }

    /// Section 4.1 with the burst allowance of Section 4.4 and the derandomization of
    /// Section 5.1: whether to drop (or mark) an arrival of `size` bytes finding
    /// `backlog_bytes` waiting.
    /// ```text
    /// if burst_allowance > 0: enqueue
    /// if (qdelay_old < target/2 and drop_prob < 0.2) or backlog <= 2 MEAN_PKTSIZE: enqueue
    /// if drop_prob == 0: accu_prob = 0
    /// accu_prob += drop_prob
    /// if accu_prob < 0.85: enqueue;  if accu_prob >= 8.5: drop
    /// drop with probability drop_prob (then accu_prob = 0)
    /// ```
    pub fn drop_early(&mut self, backlog_bytes: u64, rng: &mut AqmRng) -> bool {
        let pr = &self.params;
        if self.burst_allowance.0 > 0 {
            return false;
        }
        if pr.burst_reset == BurstReset::Quiet && self.burst_state == BurstState::NoBurst {
            // (ns-3: the allowance starts again from this arrival, which is still judged)
            self.burst_state = BurstState::Protecting;
            self.burst_allowance = pr.max_burst;
        }
        let half_target = pr.target.as_secs_f64() / 2.0;
        if (self.qdelay_old < half_target && self.drop_prob < 0.2)
            || backlog_bytes <= 2 * pr.mean_pkt_size as u64
        {
            return false;
        }
        if pr.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        if common::uniform01(rng) < self.drop_prob {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// The arrival was dropped (early, or the buffer was full): the appendix resets
    /// accu_prob.
    pub fn on_drop(&mut self) {
        self.accu_prob = 0.0;
    }

    /// A packet of `size` bytes that waited `sojourn` left at `now`, leaving
    /// `backlog_bytes` waiting.
    ///
    /// Rate estimator (Section 4.3): a measurement starts when at least DQ_THRESHOLD
    /// bytes wait, counts the bytes sent until DQ_THRESHOLD have gone, and averages the
    /// time it took: `avg_dq_time = w dq_time + (1 - w) avg_dq_time`,
    /// `w = DQ_THRESHOLD / 2^16` (the first measurement is taken as it is).
    pub fn on_dequeue(&mut self, now: Time, size: u32, sojourn: Duration, backlog_bytes: u64) {
        match self.params.delay_mode {
            DelayMode::Timestamp => {
                self.qdelay = if backlog_bytes == 0 { 0.0 } else { sojourn.as_secs_f64() };
            }
            DelayMode::RateEstimator => {
                let th = self.params.dq_threshold;
                if self.in_measurement {
                    self.dq_count += size as u64;
                    if self.dq_count >= th {
                        let dq_time = now.saturating_since(self.measurement_start).as_secs_f64();
                        let w = th as f64 / 65536.0;
                        self.avg_dq_time = if self.avg_dq_time == 0.0 {
                            dq_time
                        } else {
                            w * dq_time + (1.0 - w) * self.avg_dq_time
                        };
                        self.in_measurement = false;
                    }
                }
                if !self.in_measurement && backlog_bytes >= th {
                    self.in_measurement = true;
                    self.measurement_start = now;
                    self.dq_count = 0;
                }
            }
        }
    }
}
