//! Configurations as data (`serde`): the same structure is read from a scenario's
//! TOML (`queue = { type = "red", ... }`) and from Python keyword arguments, and is
//! validated in one place, [`QueueConfig::build`], with errors naming the parameter.

use serde::{Deserialize, Serialize};

use crate::ared::{self, AdaptiveRed, AredAdaptation};
use crate::common::{Limit, MarkMethod};
use crate::droptail::{DropTail, RandomDrop};
use crate::error::{AqmError, Result, check};
use crate::feng::{FengAdaptation, FengAdaptiveRed};
use crate::fred::{Fred, FredParams};
use crate::queue::AnyAqm;
use crate::red::{CountMode, Red, RedParams};
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

fn d_uniform() -> String {
    "uniform".into()
}
fn d_text() -> String {
    "text".into()
}
fn d_mean_pkt() -> u32 {
    500
}
fn d_max_pkt() -> u32 {
    1500
}
fn d_w_q() -> f64 {
    0.002
}
fn d_max_p_floyd() -> f64 {
    0.02
}
fn d_max_p_ared() -> f64 {
    0.1
}
fn d_min_th() -> f64 {
    5.0
}
fn d_max_th() -> f64 {
    15.0
}
fn d_true() -> bool {
    true
}
fn d_interval() -> Quantity {
    Quantity::Number(0.5)
}
fn d_target_delay() -> Quantity {
    Quantity::Number(0.005)
}
fn d_beta() -> f64 {
    0.9
}
fn d_max_p_min() -> f64 {
    0.01
}
fn d_max_p_max() -> f64 {
    0.5
}
fn d_feng_alpha() -> f64 {
    3.0
}
fn d_feng_beta() -> f64 {
    2.0
}
fn d_min_q() -> f64 {
    2.0
}

/// `type = "droptail"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailConfig {
    /// Buffer in packets.
    #[serde(default)]
    pub limit: Option<u64>,
    /// Buffer in bytes.
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// On overflow drop the head of the queue instead of the arrival.
    #[serde(default)]
    pub drop_front: bool,
}

/// `type = "randomdrop"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomDropConfig {
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    #[serde(default)]
    pub seed: Option<u64>,
}

/// `type = "red"`. Defaults: Floyd & Jacobson's simulations (min_th 5, max_th 15,
/// w_q 0.002, max_p 1/50).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    #[serde(default = "d_min_th")]
    pub min_th: f64,
    #[serde(default = "d_max_th")]
    pub max_th: f64,
    #[serde(default = "d_w_q")]
    pub w_q: f64,
    #[serde(default = "d_max_p_floyd")]
    pub max_p: f64,
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    #[serde(default)]
    pub gentle: bool,
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default)]
    pub queue_in_bytes: bool,
    /// "uniform" (Method 2), "geometric" (Method 1) or "ns2_wait".
    #[serde(default = "d_uniform")]
    pub mark_method: String,
    /// "text" (Section VII) or "figure2" (Fig. 2 literally).
    #[serde(default = "d_text")]
    pub count_mode: String,
    /// Fig. 17's efficient variant.
    #[serde(default)]
    pub efficient: bool,
    #[serde(default)]
    pub drop_front: bool,
    #[serde(default = "d_mean_pkt")]
    pub mean_pkt_size: u32,
    #[serde(default = "d_max_pkt")]
    pub max_pkt_size: u32,
    /// Link rate for `s = 8 mean_pkt_size / link_rate` (b/s or "10Mbps").
    #[serde(default)]
    pub link_rate_bps: Option<Quantity>,
    /// `s` given directly (seconds or "0.4ms"), overriding the link-rate rule.
    #[serde(default)]
    pub idle_pkt_time: Option<Quantity>,
    #[serde(default)]
    pub seed: Option<u64>,
}

/// `type = "ared"`: RED fields plus the adaptation; `min_th`, `max_th`, `w_q` left out
/// (or `None`) are set automatically from the link rate (Section 4.3, 6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AredConfig {
    #[serde(default)]
    pub min_th: Option<f64>,
    #[serde(default)]
    pub max_th: Option<f64>,
    #[serde(default)]
    pub w_q: Option<f64>,
    /// Initial max_p.
    #[serde(default = "d_max_p_ared")]
    pub max_p: f64,
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    #[serde(default = "d_true")]
    pub gentle: bool,
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default)]
    pub queue_in_bytes: bool,
    #[serde(default = "d_uniform")]
    pub mark_method: String,
    #[serde(default = "d_text")]
    pub count_mode: String,
    #[serde(default)]
    pub efficient: bool,
    #[serde(default)]
    pub drop_front: bool,
    #[serde(default = "d_mean_pkt")]
    pub mean_pkt_size: u32,
    #[serde(default = "d_max_pkt")]
    pub max_pkt_size: u32,
    #[serde(default)]
    pub link_rate_bps: Option<Quantity>,
    #[serde(default)]
    pub idle_pkt_time: Option<Quantity>,
    #[serde(default)]
    pub seed: Option<u64>,
    /// Adaptation interval (0.5 s).
    #[serde(default = "d_interval")]
    pub interval: Quantity,
    /// delay_target of the automatic min_th (5 ms).
    #[serde(default = "d_target_delay")]
    pub target_delay: Quantity,
    /// Additive increase; default min(0.01, max_p/4) at each step.
    #[serde(default)]
    pub alpha: Option<f64>,
    #[serde(default = "d_beta")]
    pub beta: f64,
    #[serde(default = "d_max_p_min")]
    pub max_p_min: f64,
    #[serde(default = "d_max_p_max")]
    pub max_p_max: f64,
}

/// `type = "feng_ared"`: RED fields plus Feng et al.'s factors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FengConfig {
    #[serde(default = "d_min_th")]
    pub min_th: f64,
    #[serde(default = "d_max_th")]
    pub max_th: f64,
    #[serde(default = "d_w_q")]
    pub w_q: f64,
    #[serde(default = "d_max_p_floyd")]
    pub max_p: f64,
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    #[serde(default)]
    pub gentle: bool,
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default)]
    pub queue_in_bytes: bool,
    #[serde(default = "d_uniform")]
    pub mark_method: String,
    #[serde(default = "d_text")]
    pub count_mode: String,
    #[serde(default)]
    pub efficient: bool,
    #[serde(default)]
    pub drop_front: bool,
    #[serde(default = "d_mean_pkt")]
    pub mean_pkt_size: u32,
    #[serde(default = "d_max_pkt")]
    pub max_pkt_size: u32,
    #[serde(default)]
    pub link_rate_bps: Option<Quantity>,
    #[serde(default)]
    pub idle_pkt_time: Option<Quantity>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default = "d_feng_alpha")]
    pub feng_alpha: f64,
    #[serde(default = "d_feng_beta")]
    pub feng_beta: f64,
}

/// `type = "fred"`. Defaults from Section 4.5: w_q 0.002, max_p 0.02, min_q 2,
/// min_th = limit / 4, max_th = 2 min_th.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FredConfig {
    #[serde(default)]
    pub min_th: Option<f64>,
    #[serde(default)]
    pub max_th: Option<f64>,
    #[serde(default = "d_w_q")]
    pub w_q: f64,
    #[serde(default = "d_max_p_floyd")]
    pub max_p: f64,
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// minq (2 for small buffers, 4 for large ones, says Section 4.5).
    #[serde(default = "d_min_q")]
    pub min_q: f64,
    #[serde(default)]
    pub many_flows: bool,
    #[serde(default)]
    pub byte_mode: bool,
    #[serde(default = "d_mean_pkt")]
    pub mean_pkt_size: u32,
    #[serde(default = "d_max_pkt")]
    pub max_pkt_size: u32,
    #[serde(default)]
    pub link_rate_bps: Option<Quantity>,
    #[serde(default)]
    pub idle_pkt_time: Option<Quantity>,
    #[serde(default)]
    pub seed: Option<u64>,
}

/// A queue discipline and its parameters, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum QueueConfig {
    #[serde(rename = "droptail")]
    DropTail(DropTailConfig),
    #[serde(rename = "randomdrop")]
    RandomDrop(RandomDropConfig),
    #[serde(rename = "red")]
    Red(RedConfig),
    #[serde(rename = "ared")]
    Ared(AredConfig),
    #[serde(rename = "feng_ared")]
    FengAred(FengConfig),
    #[serde(rename = "fred")]
    Fred(FredConfig),
}

/// The `type` names accepted in configurations.
pub const QUEUE_TYPES: &[&str] = &["droptail", "randomdrop", "red", "ared", "feng_ared", "fred"];

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

fn seed(s: Option<u64>, ctx: &BuildContext) -> u64 {
    s.or(ctx.seed).unwrap_or(DEFAULT_SEED)
}

fn limit_of(limit: Option<u64>, limit_bytes: Option<u64>) -> Result<Limit> {
    Limit::new(limit, limit_bytes)
}

/// The fields RED, ARED and Feng share, gathered once for [`red_params`].
struct RedCommon<'a> {
    min_th: f64,
    max_th: f64,
    w_q: f64,
    max_p: f64,
    limit: Option<u64>,
    limit_bytes: Option<u64>,
    gentle: bool,
    ecn: bool,
    byte_mode: bool,
    queue_in_bytes: bool,
    mark_method: &'a str,
    count_mode: &'a str,
    efficient: bool,
    drop_front: bool,
    mean_pkt_size: u32,
    max_pkt_size: u32,
    idle_pkt_time: f64,
}

/// The [`RedCommon`] of a RED, ARED or Feng configuration `$c` (their shared fields have
/// the same names), with the thresholds and weight given (ARED fills them in).
macro_rules! red_common {
    ($c:expr, $min_th:expr, $max_th:expr, $w_q:expr, $rate:expr) => {
        RedCommon {
            min_th: $min_th,
            max_th: $max_th,
            w_q: $w_q,
            max_p: $c.max_p,
            limit: $c.limit,
            limit_bytes: $c.limit_bytes,
            gentle: $c.gentle,
            ecn: $c.ecn,
            byte_mode: $c.byte_mode,
            queue_in_bytes: $c.queue_in_bytes,
            mark_method: &$c.mark_method,
            count_mode: &$c.count_mode,
            efficient: $c.efficient,
            drop_front: $c.drop_front,
            mean_pkt_size: $c.mean_pkt_size,
            max_pkt_size: $c.max_pkt_size,
            idle_pkt_time: idle_pkt_time(&$c.idle_pkt_time, $rate, $c.mean_pkt_size)?,
        }
    };
}

fn red_params(c: RedCommon<'_>) -> Result<RedParams> {
    let p = RedParams {
        min_th: c.min_th,
        max_th: c.max_th,
        w_q: c.w_q,
        max_p: c.max_p,
        limit: limit_of(c.limit, c.limit_bytes)?,
        gentle: c.gentle,
        ecn: c.ecn,
        byte_mode: c.byte_mode,
        queue_in_bytes: c.queue_in_bytes,
        mark_method: MarkMethod::parse(c.mark_method)?,
        count_mode: CountMode::parse(c.count_mode)?,
        efficient: c.efficient,
        drop_front: c.drop_front,
        idle_pkt_time: c.idle_pkt_time,
        max_pkt_size: c.max_pkt_size,
        mean_pkt_size: c.mean_pkt_size,
    };
    p.validate()?;
    Ok(p)
}

impl QueueConfig {
    /// Whether the discipline may discard a packet already waiting (Random Drop, or
    /// drop-from-front on overflow) instead of, or besides, the arriving one.
    pub fn may_evict(&self) -> bool {
        match self {
            QueueConfig::DropTail(c) => c.drop_front,
            QueueConfig::RandomDrop(_) => true,
            QueueConfig::Red(c) => c.drop_front,
            QueueConfig::Ared(c) => c.drop_front,
            QueueConfig::FengAred(c) => c.drop_front,
            QueueConfig::Fred(_) => false,
        }
    }

    /// Deserialize the parameters of the discipline named `kind` from a map that
    /// holds them without the `type` key. Unlike deserializing the tagged enum, this
    /// keeps the deserializer's position, so a tool such as `serde_path_to_error` can
    /// name the offending field.
    pub fn deserialize_kind<'de, D: serde::Deserializer<'de>>(
        kind: &str,
        de: D,
    ) -> std::result::Result<QueueConfig, D::Error> {
        use serde::de::Error;
        Ok(match kind {
            "droptail" => QueueConfig::DropTail(DropTailConfig::deserialize(de)?),
            "randomdrop" => QueueConfig::RandomDrop(RandomDropConfig::deserialize(de)?),
            "red" => QueueConfig::Red(RedConfig::deserialize(de)?),
            "ared" => QueueConfig::Ared(AredConfig::deserialize(de)?),
            "feng_ared" => QueueConfig::FengAred(FengConfig::deserialize(de)?),
            "fred" => QueueConfig::Fred(FredConfig::deserialize(de)?),
            other => return Err(D::Error::unknown_variant(other, QUEUE_TYPES)),
        })
    }

    /// The `type` name.
    pub fn kind(&self) -> &'static str {
        match self {
            QueueConfig::DropTail(_) => "droptail",
            QueueConfig::RandomDrop(_) => "randomdrop",
            QueueConfig::Red(_) => "red",
            QueueConfig::Ared(_) => "ared",
            QueueConfig::FengAred(_) => "feng_ared",
            QueueConfig::Fred(_) => "fred",
        }
    }

    /// The same configuration with every quantity a number in SI units (seconds,
    /// b/s), as the normalised scenario shows it; an error names a string that does
    /// not parse.
    pub fn normalized(&self) -> Result<QueueConfig> {
        fn num(q: &mut Option<Quantity>, param: &str, dim: Dimension) -> Result<()> {
            if let Some(v) = q {
                *v = Quantity::Number(v.value(param, dim)?);
            }
            Ok(())
        }
        let mut c = self.clone();
        let (rate, idle) = match &mut c {
            QueueConfig::DropTail(_) | QueueConfig::RandomDrop(_) => return Ok(c),
            QueueConfig::Red(c) => (&mut c.link_rate_bps, &mut c.idle_pkt_time),
            QueueConfig::Ared(a) => {
                a.interval = Quantity::Number(a.interval.secs("interval")?);
                a.target_delay = Quantity::Number(a.target_delay.secs("target_delay")?);
                (&mut a.link_rate_bps, &mut a.idle_pkt_time)
            }
            QueueConfig::FengAred(c) => (&mut c.link_rate_bps, &mut c.idle_pkt_time),
            QueueConfig::Fred(c) => (&mut c.link_rate_bps, &mut c.idle_pkt_time),
        };
        num(rate, "link_rate_bps", Dimension::Rate)?;
        num(idle, "idle_pkt_time", Dimension::Time)?;
        Ok(c)
    }

    /// Packet limit given in the configuration, if any.
    pub fn limit_packets(&self) -> Option<u64> {
        match self {
            QueueConfig::DropTail(c) => c.limit,
            QueueConfig::RandomDrop(c) => c.limit,
            QueueConfig::Red(c) => c.limit,
            QueueConfig::Ared(c) => c.limit,
            QueueConfig::FengAred(c) => c.limit,
            QueueConfig::Fred(c) => c.limit,
        }
    }

    /// Validate and build the discipline. Errors name the parameter (without a path;
    /// callers add theirs with [`AqmError::at`]).
    pub fn build(&self, ctx: &BuildContext) -> Result<AnyAqm> {
        Ok(match self {
            QueueConfig::DropTail(c) => {
                AnyAqm::DropTail(DropTail::new(limit_of(c.limit, c.limit_bytes)?, c.drop_front))
            }
            QueueConfig::RandomDrop(c) => AnyAqm::RandomDrop(RandomDrop::new(
                limit_of(c.limit, c.limit_bytes)?,
                seed(c.seed, ctx),
            )),
            QueueConfig::Red(c) => {
                let rate = link_rate(&c.link_rate_bps, ctx)?;
                check::positive_int("mean_pkt_size", c.mean_pkt_size as u64)?;
                let params = red_params(red_common!(c, c.min_th, c.max_th, c.w_q, rate))?;
                AnyAqm::Red(Red::new(params, seed(c.seed, ctx))?)
            }
            QueueConfig::Ared(c) => {
                let rate = link_rate(&c.link_rate_bps, ctx)?;
                check::positive_int("mean_pkt_size", c.mean_pkt_size as u64)?;
                let target_delay =
                    check::positive("target_delay", c.target_delay.secs("target_delay")?)?;
                let unit = if c.queue_in_bytes { c.mean_pkt_size as f64 } else { 1.0 };
                let min_th = match c.min_th {
                    Some(v) => v,
                    None => ared::auto_min_th(rate, c.mean_pkt_size, target_delay) * unit,
                };
                let max_th = c.max_th.unwrap_or_else(|| ared::auto_max_th(min_th));
                let w_q = c.w_q.unwrap_or_else(|| ared::auto_w_q(rate, c.mean_pkt_size));
                let interval = check::positive("interval", c.interval.secs("interval")?)?;
                let params = red_params(red_common!(c, min_th, max_th, w_q, rate))?;
                let adaptation = AredAdaptation {
                    interval: Duration::from_secs_f64(interval),
                    alpha: c.alpha,
                    beta: c.beta,
                    max_p_min: c.max_p_min,
                    max_p_max: c.max_p_max,
                };
                AnyAqm::AdaptiveRed(AdaptiveRed::new(params, adaptation, seed(c.seed, ctx))?)
            }
            QueueConfig::FengAred(c) => {
                let rate = link_rate(&c.link_rate_bps, ctx)?;
                check::positive_int("mean_pkt_size", c.mean_pkt_size as u64)?;
                let params = red_params(red_common!(c, c.min_th, c.max_th, c.w_q, rate))?;
                let adaptation = FengAdaptation { alpha: c.feng_alpha, beta: c.feng_beta };
                AnyAqm::FengAdaptiveRed(FengAdaptiveRed::new(
                    params,
                    adaptation,
                    seed(c.seed, ctx),
                )?)
            }
            QueueConfig::Fred(c) => {
                let rate = link_rate(&c.link_rate_bps, ctx)?;
                check::positive_int("mean_pkt_size", c.mean_pkt_size as u64)?;
                let limit = limit_of(c.limit, c.limit_bytes)?;
                // Section 4.5: min_th = MIN(buffer size / 4, RTT); the RTT term needs
                // the path, so the default takes the buffer term.
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
                AnyAqm::Fred(Fred::new(params, seed(c.seed, ctx))?)
            }
        })
    }
}

impl AqmError {
    /// Wrap a deserialization message (unknown field, wrong type) as a configuration error.
    pub fn from_serde(msg: impl std::fmt::Display) -> AqmError {
        AqmError::Config(msg.to_string())
    }
}
