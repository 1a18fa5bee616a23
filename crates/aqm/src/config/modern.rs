//! Building the AQMs beyond the RED family from their configurations: PIE, BLUE, PI,
//! CHOKe and DualPI2. Each reads its quantities, checks them, and leaves the ranges to
//! the type's own `validate()`.

use super::{
    BlueConfig, BuildContext, DEFAULT_SEED, DualPi2Config, PiConfig, PieConfig, SfbConfig,
};
use crate::blue::{Blue, BlueParams};
use crate::common::Limit;
use crate::dualpi2::{DualPi2, DualPi2Params};
use crate::error::{AqmError, Result, check};
use crate::packet::Packet;
use crate::pi::{Pi, PiParams};
use crate::pie::{Pie, PieParams};
use crate::sfb::{Sfb, SfbParams};
use crate::time::Duration;
use crate::units::Quantity;

pub(super) fn seed(s: Option<u64>, ctx: &BuildContext) -> u64 {
    s.or(ctx.seed).unwrap_or(DEFAULT_SEED)
}

/// A time parameter: a number of seconds or a string with a unit, >= 0 (or > 0).
pub(super) fn duration(q: &Quantity, param: &str, positive: bool) -> Result<Duration> {
    let s = q.secs(param)?;
    if positive {
        check::positive(param, s)?;
    } else {
        check::non_negative(param, s)?;
    }
    if s > 1e6 {
        return Err(AqmError::invalid(param, s, "at most 1e6 s"));
    }
    Ok(Duration::from_secs_f64(s))
}

pub(super) fn pie<P: Packet>(c: &PieConfig, ctx: &BuildContext) -> Result<Pie<P>> {
    let params = PieParams {
        target: duration(&c.target, "target", true)?,
        tupdate: duration(&c.tupdate, "tupdate", true)?,
        alpha: c.alpha,
        beta: c.beta,
        max_burst: duration(&c.max_burst, "max_burst", false)?,
        ecn: c.ecn,
        mark_ecn_th: c.mark_ecn_th,
        limit: Limit::new(c.limit, c.limit_bytes)?,
        delay_mode: c.delay_mode,
        dq_threshold: c.dq_threshold,
        mean_pkt_size: c.mean_pkt_size,
        derandomize: c.derandomize,
        burst_reset: c.burst_reset,
    };
    Pie::new(params, seed(c.seed, ctx))
}

pub(super) fn blue(c: &BlueConfig, ctx: &BuildContext) -> Result<Blue> {
    let params = BlueParams {
        d1: c.d1,
        d2: c.d2,
        freeze_time: duration(&c.freeze_time, "freeze_time", false)?,
        limit: Limit::new(c.limit, c.limit_bytes)?,
        threshold: c.threshold,
        ecn: c.ecn,
    };
    Blue::new(params, seed(c.seed, ctx))
}

pub(super) fn pi(c: &PiConfig, ctx: &BuildContext) -> Result<Pi> {
    let params = PiParams {
        a: c.a,
        b: c.b,
        sample_freq: c.sample_freq,
        q_ref: c.q_ref,
        limit: Limit::new(c.limit, c.limit_bytes)?,
        ecn: c.ecn,
    };
    Pi::new(params, seed(c.seed, ctx))
}

pub(super) fn dualpi2<P: Packet>(c: &DualPi2Config, ctx: &BuildContext) -> Result<DualPi2<P>> {
    let params = DualPi2Params {
        target: duration(&c.target, "target", true)?,
        tupdate: duration(&c.tupdate, "tupdate", true)?,
        alpha: c.alpha,
        beta: c.beta,
        k: c.k,
        step_thresh: duration(&c.step_thresh, "step_thresh", false)?,
        c_protection: c.c_protection,
        drop_on_overload: c.drop_on_overload,
        ecn: c.ecn,
        limit: Limit::new(c.limit, c.limit_bytes)?,
        mtu: u32::try_from(c.mtu)
            .map_err(|_| AqmError::invalid("mtu", c.mtu, "[0, 65536] bytes"))?,
        scheduler: c.scheduler,
        tshift: duration(&c.tshift, "tshift", false)?,
    };
    DualPi2::new(params, seed(c.seed, ctx))
}

pub(super) fn sfb(c: &SfbConfig, ctx: &BuildContext) -> Result<Sfb> {
    let params = SfbParams {
        levels: c.levels,
        bins: c.bins,
        bin_size: c.bin_size,
        max: c.max,
        increment: c.increment,
        decrement: c.decrement,
        penalty_rate: c.penalty_rate,
        penalty_burst: c.penalty_burst,
        limit: Limit::new(c.limit, c.limit_bytes)?,
        ecn: c.ecn,
    };
    Sfb::new(params, seed(c.seed, ctx))
}
