//! [`QueueConfig::build`]: a configuration checked and turned into a discipline. The
//! checks run in a fixed order and the first failure is reported, naming the
//! parameter.

use super::{
    BuildContext, CodelFields, DEFAULT_LINK_RATE_BPS, FqCodelConfig, FqPieConfig, FredConfig,
    QUEUE_TYPES, QueueConfig, RedFields, modern,
};
use crate::ared::{self, AdaptiveRed, AredAdaptation};
use crate::choke::Choke;
use crate::codel::{Codel, CodelParams};
use crate::common::Limit;
use crate::dispatch::{AnyAqm, AnyQdisc};
use crate::droptail::{DropTail, RandomDrop};
use crate::error::{AqmError, Result, check};
use crate::feng::{FengAdaptation, FengAdaptiveRed};
use crate::fq::{FqParams, Overflow};
use crate::fq_codel;
use crate::fq_pie;
use crate::fred::{Fred, FredParams};
use crate::packet::Packet;
use crate::pie::{BurstReset, DelayMode, PieParams};
use crate::qdisc::Fifo;
use crate::red::{Red, RedParams};
use crate::time::Duration;
use crate::units::Quantity;

fn link_rate(q: &Option<Quantity>, ctx: &BuildContext) -> Result<f64> {
    let r = match q {
        Some(q) => q.bps("link_rate_bps")?,
        None => ctx.link_rate_bps.unwrap_or(DEFAULT_LINK_RATE_BPS),
    };
    check::positive("link_rate_bps", r)
}

fn idle_pkt_time(q: &Option<Quantity>, rate: f64, mean_pkt_size: u32) -> Result<f64> {
    match q {
        Some(q) => check::positive("idle_pkt_time", q.secs("idle_pkt_time")?),
        None => Ok(8.0 * mean_pkt_size as f64 / rate),
    }
}

use modern::seed;

impl RedFields {
    /// The link rate (b/s) these fields give or the context supplies, after checking
    /// `mean_pkt_size`, which every automatic parameter divides by.
    pub(super) fn rate(&self, ctx: &BuildContext) -> Result<f64> {
        let rate = link_rate(&self.link_rate_bps, ctx)?;
        check::positive_int("mean_pkt_size", self.mean_pkt_size as u64)?;
        Ok(rate)
    }

    /// RED's parameters from these fields and the thresholds and weight, validated.
    pub(super) fn params(
        &self,
        min_th: f64,
        max_th: f64,
        w_q: f64,
        rate: f64,
    ) -> Result<RedParams> {
        let idle_pkt_time = idle_pkt_time(&self.idle_pkt_time, rate, self.mean_pkt_size)?;
        let p = RedParams {
            min_th,
            max_th,
            w_q,
            max_p: self.max_p,
            limit: Limit::new(self.limit, self.limit_bytes)?,
            gentle: self.gentle,
            ecn: self.ecn,
            byte_mode: self.byte_mode,
            queue_in_bytes: self.queue_in_bytes,
            mark_method: self.mark_method,
            count_mode: self.count_mode,
            efficient: self.efficient,
            drop_front: self.drop_front,
            min_backlog: self.min_backlog,
            idle_pkt_time,
            max_pkt_size: self.max_pkt_size,
            mean_pkt_size: self.mean_pkt_size,
        };
        p.validate()?;
        Ok(p)
    }
}

impl QueueConfig {
    /// Validate and build the discipline. Errors name the parameter (without a path;
    /// callers add theirs with [`crate::AqmError::at`]).
    pub fn build(&self, ctx: &BuildContext) -> Result<AnyAqm> {
        Ok(match self {
            QueueConfig::DropTail(c) => {
                AnyAqm::DropTail(DropTail::new(Limit::new(c.limit, c.limit_bytes)?, c.drop_front))
            }
            QueueConfig::RandomDrop(c) => AnyAqm::RandomDrop(RandomDrop::new(
                Limit::new(c.limit, c.limit_bytes)?,
                seed(c.seed, ctx),
            )),
            QueueConfig::Red(c) => {
                let rate = c.red.rate(ctx)?;
                let params = c.red.params(c.min_th, c.max_th, c.w_q, rate)?;
                AnyAqm::Red(Red::new(params, seed(c.red.seed, ctx))?)
            }
            QueueConfig::Ared(c) => {
                let r = &c.red;
                let rate = r.rate(ctx)?;
                let target_delay =
                    check::positive("target_delay", c.target_delay.secs("target_delay")?)?;
                let unit = if r.queue_in_bytes { r.mean_pkt_size as f64 } else { 1.0 };
                let min_th = match c.min_th {
                    Some(v) => v,
                    None => ared::auto_min_th(rate, r.mean_pkt_size, target_delay) * unit,
                };
                let max_th = c.max_th.unwrap_or_else(|| ared::auto_max_th(min_th));
                let w_q = c.w_q.unwrap_or_else(|| ared::auto_w_q(rate, r.mean_pkt_size));
                let interval = check::positive("interval", c.interval.secs("interval")?)?;
                let params = r.params(min_th, max_th, w_q, rate)?;
                let adaptation = AredAdaptation {
                    interval: Duration::from_secs_f64(interval),
                    alpha: c.alpha,
                    beta: c.beta,
                    max_p_min: c.max_p_min,
                    max_p_max: c.max_p_max,
                };
                AnyAqm::AdaptiveRed(AdaptiveRed::new(params, adaptation, seed(r.seed, ctx))?)
            }
            QueueConfig::FengAred(c) => {
                let rate = c.red.rate(ctx)?;
                let params = c.red.params(c.min_th, c.max_th, c.w_q, rate)?;
                let adaptation = FengAdaptation { alpha: c.feng_alpha, beta: c.feng_beta };
                let seed = seed(c.red.seed, ctx);
                AnyAqm::FengAdaptiveRed(FengAdaptiveRed::new(params, adaptation, seed)?)
            }
            QueueConfig::Fred(c) => AnyAqm::Fred(fred(c, ctx)?),
            QueueConfig::Blue(c) => AnyAqm::Blue(modern::blue(c, ctx)?),
            QueueConfig::Pi(c) => AnyAqm::Pi(modern::pi(c, ctx)?),
            QueueConfig::Sfb(c) => AnyAqm::Sfb(modern::sfb(c, ctx)?),
            QueueConfig::Codel(_)
            | QueueConfig::FqCodel(_)
            | QueueConfig::FqPie(_)
            | QueueConfig::Pie(_)
            | QueueConfig::Choke(_)
            | QueueConfig::DualPi2(_) => {
                let arrival_only: Vec<&str> = QUEUE_TYPES
                    .iter()
                    .copied()
                    .filter(|k| !QueueConfig::default_of(k).is_some_and(|c| c.holds_packets()))
                    .collect();
                return Err(AqmError::config(
                    "type",
                    format!(
                        "`{}` decides at dequeue or schedules among queues, so it needs a \
                         queue that holds its packets (QueueConfig::build_qdisc); this \
                         arrival-time path takes only {}",
                        self.kind(),
                        arrival_only.join(", ")
                    ),
                ));
            }
        })
    }
}

/// A time parameter in seconds (a number or a string with a unit) as a whole number
/// of nanoseconds, `> 0` unless `zero_ok`.
fn duration(q: &Quantity, param: &str, zero_ok: bool) -> Result<Duration> {
    let s = q.secs(param)?;
    let s = if zero_ok { check::non_negative(param, s)? } else { check::positive(param, s)? };
    let d = Duration::from_secs_f64(s);
    if d.0 == 0 && !zero_ok {
        return Err(AqmError::invalid(param, s, "> 0 s (at least 1 ns)"));
    }
    Ok(d)
}

impl CodelFields {
    /// CoDel's parameters from these fields, validated.
    fn params(&self) -> Result<CodelParams> {
        let p = CodelParams {
            target: duration(&self.target, "target", false)?,
            interval: duration(&self.interval, "interval", false)?,
            ecn: self.ecn,
            ce_threshold: match &self.ce_threshold {
                Some(q) => Some(duration(q, "ce_threshold", true)?),
                None => None,
            },
            maxpacket: self.maxpacket,
        };
        p.validate()?;
        Ok(p)
    }

    /// Every time a number of seconds (the normalised form).
    pub(super) fn normalize(&mut self) -> Result<()> {
        self.target = Quantity::Number(self.target.secs("target")?);
        self.interval = Quantity::Number(self.interval.secs("interval")?);
        if let Some(q) = &mut self.ce_threshold {
            *q = Quantity::Number(q.secs("ce_threshold")?);
        }
        Ok(())
    }
}

/// A count parameter within `1..=max`.
fn count_in(param: &str, v: u64, max: u64) -> Result<u64> {
    if (1..=max).contains(&v) {
        Ok(v)
    } else {
        Err(AqmError::invalid(param, v, format!("1..={max}")))
    }
}

impl FqCodelConfig {
    /// The scheduler's parameters, validated.
    fn fq_params(&self, ctx: &BuildContext) -> Result<FqParams> {
        let max = u32::MAX as u64;
        let p = FqParams {
            flows: count_in("flows", self.flows, crate::fq::MAX_FLOWS as u64)? as u32,
            quantum: count_in("quantum", self.quantum, max)? as u32,
            limit: count_in("limit", self.limit, max)? as u32,
            memory_limit: check::positive_int("memory_limit", self.memory_limit)?,
            drop_batch_size: count_in("drop_batch_size", self.drop_batch_size, max)? as u32,
            overflow: Overflow::FattestFlow,
            seed: seed(self.seed, ctx),
        };
        p.validate()?;
        Ok(p)
    }
}

impl FqPieConfig {
    /// The scheduler's and the flows' PIE parameters, validated.
    fn params(&self, ctx: &BuildContext) -> Result<(FqParams, PieParams)> {
        let max = u32::MAX as u64;
        let limit = count_in("limit", self.limit, max)?;
        let fq = FqParams {
            flows: count_in("flows", self.flows, crate::fq::MAX_FLOWS as u64)? as u32,
            quantum: count_in("quantum", self.quantum, max)? as u32,
            limit: limit as u32,
            memory_limit: check::positive_int("memory_limit", self.memory_limit)?,
            drop_batch_size: 1,
            overflow: Overflow::Arrival,
            seed: seed(self.seed, ctx),
        };
        fq.validate()?;
        let pie = PieParams {
            target: modern::duration(&self.target, "target", true)?,
            tupdate: modern::duration(&self.tupdate, "tupdate", true)?,
            alpha: self.alpha,
            beta: self.beta,
            max_burst: modern::duration(&self.max_burst, "max_burst", false)?,
            ecn: self.ecn,
            mark_ecn_th: self.mark_ecn_th,
            limit: Limit::new(Some(limit), None)?,
            delay_mode: DelayMode::Timestamp,
            dq_threshold: 1 << 14,
            mean_pkt_size: self.mean_pkt_size,
            derandomize: self.derandomize,
            burst_reset: BurstReset::Rfc,
        };
        pie.validate()?;
        Ok((fq, pie))
    }
}

impl QueueConfig {
    /// Whether the discipline must hold its packets ([`crate::Qdisc`]): it decides at
    /// dequeue or schedules among several queues. The others decide on arrival only
    /// ([`crate::QueueDiscipline`]) and leave the FIFO to their owner.
    pub fn holds_packets(&self) -> bool {
        matches!(
            self,
            QueueConfig::Codel(_)
                | QueueConfig::FqCodel(_)
                | QueueConfig::FqPie(_)
                | QueueConfig::Pie(_)
                | QueueConfig::Choke(_)
                | QueueConfig::DualPi2(_)
        )
    }

    /// Validate and build the discipline as a queue that holds packets of type `P`:
    /// an arrival-time discipline over a [`Fifo`], or a scheduler.
    pub fn build_qdisc<P: Packet>(&self, ctx: &BuildContext) -> Result<AnyQdisc<P>> {
        Ok(match self {
            QueueConfig::Codel(c) => {
                let limit = count_in("limit", c.limit, u32::MAX as u64)?;
                AnyQdisc::Codel(Codel::new(c.codel.params()?, limit)?)
            }
            QueueConfig::FqCodel(c) => {
                AnyQdisc::FqCodel(fq_codel::fq_codel(c.fq_params(ctx)?, c.codel.params()?)?)
            }
            QueueConfig::FqPie(c) => {
                let (fq, pie) = c.params(ctx)?;
                AnyQdisc::FqPie(fq_pie::fq_pie(fq, pie)?)
            }
            QueueConfig::Pie(c) => AnyQdisc::Pie(modern::pie(c, ctx)?),
            QueueConfig::Choke(c) => {
                let rate = c.red.rate(ctx)?;
                let params = c.red.params(c.min_th, c.max_th, c.w_q, rate)?;
                AnyQdisc::Choke(Choke::new(params, c.candidates, seed(c.red.seed, ctx))?)
            }
            QueueConfig::DualPi2(c) => AnyQdisc::DualPi2(modern::dualpi2(c, ctx)?),
            _ => AnyQdisc::Fifo(Fifo::new(self.build(ctx)?)),
        })
    }
}

fn fred(c: &FredConfig, ctx: &BuildContext) -> Result<Fred> {
    let rate = link_rate(&c.link_rate_bps, ctx)?;
    check::positive_int("mean_pkt_size", c.mean_pkt_size as u64)?;
    let limit = Limit::new(c.limit, c.limit_bytes)?;
    // Section 4.5: min_th = MIN(buffer size / 4, RTT); the RTT term needs the path, so
    // the default takes the buffer term.
    let buffer = match (limit.packets, limit.bytes) {
        (Some(p), _) if !c.byte_mode => p as f64,
        (_, Some(b)) if c.byte_mode => b as f64,
        (Some(p), _) => p as f64 * c.max_pkt_size as f64,
        (None, Some(b)) => b as f64 / c.max_pkt_size as f64,
        (None, None) => unreachable!("Limit::new requires one limit"),
    };
    let min_th = c.min_th.unwrap_or(buffer / 4.0);
    let max_th = c.max_th.unwrap_or(2.0 * min_th);
    check::finite("min_th", min_th)?;
    check::finite("max_th", max_th)?;
    check::thresholds(min_th, max_th)?;
    check::unit_open_closed("w_q", c.w_q)?;
    check::unit_open_closed("max_p", c.max_p)?;
    check::positive("min_q", c.min_q)?;
    check::positive_int("max_pkt_size", c.max_pkt_size as u64)?;
    let params = FredParams {
        min_th,
        max_th,
        w_q: c.w_q,
        max_p: c.max_p,
        limit,
        min_q: c.min_q,
        many_flows: c.many_flows,
        byte_mode: c.byte_mode,
        max_pkt_size: c.max_pkt_size,
        idle_pkt_time: idle_pkt_time(&c.idle_pkt_time, rate, c.mean_pkt_size)?,
    };
    Fred::new(params, seed(c.seed, ctx))
}
