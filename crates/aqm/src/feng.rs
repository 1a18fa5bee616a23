//! The original Adaptive RED of Feng, Kandlur, Saha & Shin (1997, 1999), for comparison.
//!
//! After every update of the average: when avg falls below min_th (and was not already
//! below), `max_p <- max_p / alpha`; when it rises above max_th (and was not already
//! above), `max_p <- max_p * beta`; alpha = 3 and beta = 2 as in Feng et al. (and ns-2).
//! (Section 7 of the Adaptive RED paper states the directions the other way round;
//! aqmlab follows Feng et al.'s own algorithm: a low average means too many drops.)

use crate::common::Limit;
use crate::config::build::seed;
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::{AqmError, Result};
use crate::packet::{Backlog, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::red::{RedCore, RedFields, RedParams};
use crate::time::Time;

config_struct! {
    /// Feng et al.'s original Adaptive RED (1997, 1999): max_p divided by `feng_alpha`
    /// when avg falls below min_th, multiplied by `feng_beta` when it rises above
    /// max_th. RED's keys and defaults otherwise.
    pub struct FengConfig {
        /// Minimum threshold of the average.
        min_th: f64 = 5.0,
        /// Maximum threshold of the average.
        max_th: f64 = 15.0,
        /// Weight of the average, (0, 1].
        w_q: f64 = 0.002,
        ..red: RedFields = RedFields::default(),
        /// Divisor of max_p when avg falls below min_th (3), > 1.
        feng_alpha: f64 = 3.0,
        /// Factor of max_p when avg rises above max_th (2), > 1.
        feng_beta: f64 = 2.0,
    }
}

impl AqmConfig for FengConfig {
    fn may_evict(&self) -> bool {
        self.red.drop_front
    }
    fn limit_packets(&self) -> Option<u64> {
        self.red.limit
    }
    fn normalize(&mut self) -> Result<()> {
        self.red.normalize()
    }
}

impl BuildAqm for FengConfig {
    type Aqm = FengAdaptiveRed;
    fn build(&self, ctx: &BuildContext) -> Result<FengAdaptiveRed> {
        let rate = self.red.rate(ctx)?;
        let params = self.red.params(self.min_th, self.max_th, self.w_q, rate)?;
        let adaptation = FengAdaptation { alpha: self.feng_alpha, beta: self.feng_beta };
        FengAdaptiveRed::new(params, adaptation, seed(self.red.seed, ctx))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Below,
    Between,
    Above,
}

/// Feng et al.'s adaptation factors.
#[derive(Clone, Debug, PartialEq)]
pub struct FengAdaptation {
    /// Divisor applied when avg drops below min_th (3).
    pub alpha: f64,
    /// Factor applied when avg rises above max_th (2).
    pub beta: f64,
}

impl Default for FengAdaptation {
    fn default() -> Self {
        FengAdaptation { alpha: 3.0, beta: 2.0 }
    }
}

#[derive(Clone, Debug)]
pub struct FengAdaptiveRed {
    pub core: RedCore,
    pub adaptation: FengAdaptation,
    status: Status,
}

impl FengAdaptiveRed {
    pub fn new(
        params: RedParams,
        adaptation: FengAdaptation,
        seed: u64,
    ) -> Result<FengAdaptiveRed> {
        if !(adaptation.alpha > 1.0 && adaptation.alpha.is_finite()) {
            return Err(AqmError::invalid("feng_alpha", adaptation.alpha, "> 1"));
        }
        if !(adaptation.beta > 1.0 && adaptation.beta.is_finite()) {
            return Err(AqmError::invalid("feng_beta", adaptation.beta, "> 1"));
        }
        Ok(FengAdaptiveRed {
            core: RedCore::new(params, seed)?,
            adaptation,
            status: Status::Between,
        })
    }

    fn adapt(&mut self) {
        let (min_th, max_th) = (self.core.params.min_th, self.core.params.max_th);
        let avg = self.core.avg;
        if min_th < avg && avg < max_th {
            self.status = Status::Between;
        }
        if avg < min_th && self.status != Status::Below {
            self.status = Status::Below;
            self.core.max_p /= self.adaptation.alpha;
        }
        if avg > max_th && self.status != Status::Above {
            self.status = Status::Above;
            self.core.max_p = (self.core.max_p * self.adaptation.beta).min(1.0);
        }
    }

    pub fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        self.core.update_avg(now, backlog);
        self.adapt();
        self.core.decide(pkt, backlog)
    }

    pub fn on_removed(&mut self, now: Time, pkt: &PacketInfo, departed: bool, backlog_after: Backlog) {
        self.core.on_removed(now, pkt, departed, backlog_after);
    }
}

impl QueueDiscipline for FengAdaptiveRed {
    #[inline]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        FengAdaptiveRed::on_arrival(self, now, pkt, backlog)
    }
    #[inline]
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, backlog_after: Backlog, departed: bool) {
        FengAdaptiveRed::on_removed(self, now, pkt, departed, backlog_after)
    }
    fn limit(&self) -> Limit {
        self.core.params.limit
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
