//! What every built-in AQM's configuration answers ([`AqmConfig`]) and how it is built
//! ([`BuildAqm`] for an arrival-time discipline, [`BuildQdisc`] for a queue that holds
//! its packets), with the checks their builds share. Each AQM's file implements these
//! beside its `config_struct!`; the checks run in a fixed order and the first failure
//! is reported, naming the parameter (without a path: callers add theirs with
//! [`crate::AqmError::at`]).

use super::fields::Fields;
use crate::error::{AqmError, Result, check};
use crate::packet::Packet;
use crate::qdisc::Qdisc;
use crate::queue::QueueDiscipline;
use crate::time::Duration;
use crate::units::{Dimension, Quantity};

/// Link rate assumed for idle-time aging and automatic parameters when neither the
/// configuration nor the caller (the simulator passes the real link rate) gives one.
pub const DEFAULT_LINK_RATE_BPS: f64 = 10e6;
/// Seed used when neither the configuration nor the caller gives one.
pub const DEFAULT_SEED: u64 = 1;

/// What the owner of the queue knows that the configuration may leave out.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildContext {
    /// Rate of the link the queue feeds, b/s.
    pub link_rate_bps: Option<f64>,
    /// Seed for this queue's random stream (a `seed` in the configuration wins).
    pub seed: Option<u64>,
}

/// A built-in AQM's configuration, as the generic code (the reader, the simulator's
/// analyses, the normalised scenario) sees every type.
pub trait AqmConfig: Fields + Default + Clone + std::fmt::Debug + PartialEq {
    /// Whether the discipline may discard a packet already waiting (Random Drop,
    /// drop-from-front on overflow, CoDel's drops at dequeue, ...) instead of, or
    /// besides, the arriving one.
    fn may_evict(&self) -> bool {
        false
    }
    /// The packet limit the configuration gives, if any.
    fn limit_packets(&self) -> Option<u64>;
    /// Every quantity as a number in SI units (seconds, b/s), as the normalised
    /// scenario shows it; an error names a string that does not parse.
    fn normalize(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A configuration of an arrival-time discipline ([`QueueDiscipline`]).
pub trait BuildAqm: AqmConfig {
    /// The discipline built.
    type Aqm: QueueDiscipline;
    /// Validate and build.
    fn build(&self, ctx: &BuildContext) -> Result<Self::Aqm>;
}

/// A configuration of a queue that holds its packets ([`Qdisc`]): it decides at dequeue
/// or schedules among several queues.
pub trait BuildQdisc: AqmConfig {
    /// The qdisc built, for packets of type `P`.
    type Qdisc<P: Packet>: Qdisc<P>;
    /// Validate and build.
    fn build<P: Packet>(&self, ctx: &BuildContext) -> Result<Self::Qdisc<P>>;
}

/// The seed: the configuration's, else the caller's, else [`DEFAULT_SEED`].
pub fn seed(s: Option<u64>, ctx: &BuildContext) -> u64 {
    s.or(ctx.seed).unwrap_or(DEFAULT_SEED)
}

/// The link rate (b/s) the configuration gives or the caller supplies, > 0.
pub fn link_rate(q: &Option<Quantity>, ctx: &BuildContext) -> Result<f64> {
    let r = match q {
        Some(q) => q.bps("link_rate_bps")?,
        None => ctx.link_rate_bps.unwrap_or(DEFAULT_LINK_RATE_BPS),
    };
    check::positive("link_rate_bps", r)
}

/// `s`, the transmission time of a small packet for idle-time aging: given, or
/// `8 mean_pkt_size / rate`.
pub fn idle_pkt_time(q: &Option<Quantity>, rate: f64, mean_pkt_size: u32) -> Result<f64> {
    match q {
        Some(q) => check::positive("idle_pkt_time", q.secs("idle_pkt_time")?),
        None => Ok(8.0 * mean_pkt_size as f64 / rate),
    }
}

/// A time parameter: a number of seconds or a string with a unit, >= 0 (or > 0 with
/// `positive`), at most 1e6 s.
pub fn duration(q: &Quantity, param: &str, positive: bool) -> Result<Duration> {
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

/// A time parameter in seconds (a number or a string with a unit) as a whole number
/// of nanoseconds, `> 0` (at least 1 ns) unless `zero_ok`.
pub fn whole_ns(q: &Quantity, param: &str, zero_ok: bool) -> Result<Duration> {
    let s = q.secs(param)?;
    let s = if zero_ok { check::non_negative(param, s)? } else { check::positive(param, s)? };
    let d = Duration::from_secs_f64(s);
    if d.0 == 0 && !zero_ok {
        return Err(AqmError::invalid(param, s, "> 0 s (at least 1 ns)"));
    }
    Ok(d)
}

/// A count parameter within `1..=max`.
pub fn count_in(param: &str, v: u64, max: u64) -> Result<u64> {
    if (1..=max).contains(&v) {
        Ok(v)
    } else {
        Err(AqmError::invalid(param, v, format!("1..={max}")))
    }
}

/// A time quantity written as a number of seconds (the normalised form).
pub fn secs_number(q: &mut Quantity, param: &str) -> Result<()> {
    *q = Quantity::Number(q.secs(param)?);
    Ok(())
}

/// An optional quantity written as a number in the SI unit of `dim` (the normalised form).
pub fn number_of(q: &mut Option<Quantity>, param: &str, dim: Dimension) -> Result<()> {
    if let Some(v) = q {
        *v = Quantity::Number(v.value(param, dim)?);
    }
    Ok(())
}
