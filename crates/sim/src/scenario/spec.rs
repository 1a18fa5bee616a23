//! The scenario as written: serde structures that refuse unknown keys, with every
//! enumerated field a serde enum. Nothing here is checked beyond its type; the
//! section readers (`links`, `events`, `flows`, `traces`) check ranges and names.
//!
//! A `[[flow]]` table holds the keys of several groups: those of every flow
//! ([`CommonSpec`]), TCP's ([`TcpSpec`]) for the TCP kinds, and its kind's own. Each
//! group is read from the same table, and [`FlowSpec::read`] then refuses any key that
//! none of the flow type's groups reads, naming the key and the flow type; the groups'
//! keys are their field names, asked of the derived `Deserialize` ([`keys_of`]).

use aqm::config::QueueTable;
use aqm::units::Quantity;
use serde::de::value::StringDeserializer;
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};
use toml::{Table, Value};

use super::read::de;
use crate::error::{Result, SimError};
use crate::tcp::{
    AppLimited, BbrParams, CubicGrowth, CubicRenoAlpha, CubicSlowStart, CubicTimeout, EcnCwr,
    FrTimer, LedbatParams, LossSsthresh, NewRenoFlavor, NewRenoTimer, PacingParams, PragueParams,
    RecoverRule, RecoveryWindow, RenoGrowth, RtoBackoff, RtoEstimator, RtoSack, RttSampling,
    TcpParams, Variant,
};

/// The whole file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScenarioSpec {
    pub duration: Option<Quantity>,
    pub warmup: Option<Quantity>,
    pub seed: Option<i64>,
    #[serde(default)]
    pub link: Vec<LinkSpec>,
    /// Read by [`FlowSpec::read`] once its `type` is known.
    #[serde(default)]
    pub flow: Vec<Table>,
    #[serde(default)]
    pub event: Vec<EventSpec>,
    pub trace: Option<TraceSpec>,
    pub bottleneck: Option<String>,
    pub express_hops: Option<bool>,
    pub qdisc_path: Option<bool>,
    pub threads: Option<i64>,
    pub max_memory: Option<Quantity>,
    #[serde(default)]
    pub name: String,
    /// The scenario's profile: read (and taken out) by `profiles::apply`, named here
    /// for the list of allowed keys.
    #[allow(dead_code)]
    pub profile: Option<String>,
    /// Free text for readers, checked to be text and otherwise unused.
    #[allow(dead_code)]
    pub description: Option<String>,
    #[allow(dead_code)]
    pub notes: Option<String>,
}

/// A `[[link]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LinkSpec {
    pub a: String,
    pub b: String,
    pub rate: Quantity,
    pub delay: Quantity,
    /// Both directions' queue, unless `queue_ab` / `queue_ba` says otherwise.
    pub queue: Option<QueueTable>,
    pub queue_ab: Option<QueueTable>,
    pub queue_ba: Option<QueueTable>,
    pub cost: Option<i64>,
    pub device_queue: Option<i64>,
}

/// A `[[event]]`: the link between `a` and `b` goes down or up, or changes its rate.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EventSpec {
    pub at: Quantity,
    pub a: String,
    pub b: String,
    #[serde(deserialize_with = "named")]
    pub action: Action,
    /// The new rate (`action = "rate"` only).
    pub rate: Option<Quantity>,
}

#[derive(Clone, Copy, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum Action {
    Down,
    Up,
    Rate,
}

/// The `[trace]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TraceSpec {
    #[serde(default)]
    pub queue: Vec<String>,
    pub interval: Option<Quantity>,
    #[serde(default)]
    pub packets: Vec<String>,
    #[serde(default)]
    pub drops: Vec<String>,
    pub cwnd: Option<FlowSel>,
    #[serde(default)]
    pub pcap: Vec<String>,
}

/// `cwnd = true` (every TCP flow) or a list of flow ids.
#[derive(Deserialize)]
#[serde(untagged, expecting = "expected true (every TCP flow), false or a list of flow ids")]
pub(super) enum FlowSel {
    All(bool),
    List(Vec<i64>),
}

/// A flow's `type`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub(super) enum FlowType {
    #[default]
    Tcp,
    Cbr,
    Poisson,
    BatchPoisson,
    #[serde(rename = "pareto_onoff")]
    ParetoOnOff,
    Telnet,
    Web,
}

/// The keys of every flow.
#[derive(Deserialize)]
pub(super) struct CommonSpec {
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    pub start: Option<StartSpec>,
    pub stop: Option<Quantity>,
    pub packet_size: Option<Quantity>,
    pub count: Option<i64>,
    #[serde(default)]
    pub ecn: bool,
    pub prep_delay: Option<Quantity>,
}

/// `start = 5` or `start = { uniform = [lo, hi] }`.
#[derive(Deserialize)]
#[serde(
    untagged,
    expecting = "expected a time (seconds, or a string such as \"2s\") or { uniform = [lo, hi] }"
)]
pub(super) enum StartSpec {
    At(Quantity),
    Uniform { uniform: [Quantity; 2] },
}

/// The keys of TCP, TELNET and web flows; absent ones take [`TcpParams::default`].
#[derive(Clone, Deserialize)]
#[serde(default)]
pub(super) struct TcpSpec {
    #[serde(deserialize_with = "variant")]
    pub variant: Variant,
    /// Given or not (not: no limit).
    pub max_window: Option<i64>,
    /// Given or not (web flows may not give it).
    pub packets: Option<i64>,
    pub delayed_ack: bool,
    pub delack_interval: Quantity,
    /// Given or not (`initial_window` is the other way to set it).
    pub init_cwnd: Option<f64>,
    pub initial_window: Option<InitialWindow>,
    pub ssthresh: f64,
    pub min_rto: Quantity,
    pub max_rto: Quantity,
    pub initial_rto: Quantity,
    pub tick: Quantity,
    pub max_backoff: i64,
    #[serde(deserialize_with = "named")]
    pub rto_backoff: RtoBackoff,
    #[serde(deserialize_with = "named")]
    pub fast_retransmit_timer: FrTimer,
    #[serde(deserialize_with = "named")]
    pub recover_rule: RecoverRule,
    #[serde(deserialize_with = "named")]
    pub rtt_sampling: RttSampling,
    #[serde(deserialize_with = "named")]
    pub rto_estimator: RtoEstimator,
    #[serde(deserialize_with = "named")]
    pub ecn_cwr: EcnCwr,
    #[serde(deserialize_with = "named")]
    pub loss_ssthresh: LossSsthresh,
    #[serde(deserialize_with = "named")]
    pub recovery_window: RecoveryWindow,
    #[serde(deserialize_with = "named")]
    pub app_limited: AppLimited,
    #[serde(deserialize_with = "named")]
    pub reno_growth: RenoGrowth,
    #[serde(deserialize_with = "named")]
    pub rto_sack: RtoSack,
    pub hystart: bool,
    pub prr: bool,
    pub rack: bool,
    pub quickack: bool,
    pub dupack_threshold: i64,
    pub ack_size: Quantity,
    #[serde(deserialize_with = "newreno")]
    pub newreno: NewRenoFlavor,
    #[serde(deserialize_with = "newreno_timer")]
    pub newreno_timer: NewRenoTimer,
    pub tiny_window: bool,
    pub sack: bool,
    pub sack_blocks: i64,
    pub limited_transmit: bool,
    pub ect1: bool,
    pub cubic_c: f64,
    pub cubic_beta: f64,
    pub fast_convergence: bool,
    pub cubic_reno_friendly: bool,
    #[serde(deserialize_with = "named")]
    pub cubic_growth: CubicGrowth,
    #[serde(deserialize_with = "named")]
    pub cubic_timeout: CubicTimeout,
    #[serde(deserialize_with = "named")]
    pub cubic_slow_start: CubicSlowStart,
    #[serde(deserialize_with = "named")]
    pub cubic_reno_alpha: CubicRenoAlpha,
    pub dctcp_g: f64,
    pub ledbat_target: Quantity,
    pub ledbat_gain: f64,
    pub ledbat_base_history: i64,
    /// Given or not (not: on for BBR, off otherwise).
    pub pacing: Option<bool>,
    pub pacing_ss_ratio: f64,
    pub pacing_ca_ratio: f64,
    pub bbr_high_gain: f64,
    pub bbr_drain_gain: f64,
    pub bbr_extra_acked: bool,
    pub bbr_min_rtt_strict: bool,
    pub bbr_lt_bw: bool,
    pub bbr_rate_newest_sent: bool,
    pub prague_rtt_target: Quantity,
    pub prague_rtt_transition: i64,
    pub prague_ecn_fallback: bool,
    pub drop: Vec<i64>,
}

/// `initial_window = 10` (packets) or `"rfc3390"` / `"rfc6928"` (the RFCs' byte
/// rules with the flow's MSS).
#[derive(Clone, Deserialize)]
#[serde(untagged, expecting = "expected a number of packets or \"rfc3390\" / \"rfc6928\"")]
pub(super) enum InitialWindow {
    Packets(i64),
    Rule(String),
}

impl Default for TcpSpec {
    fn default() -> Self {
        let d = TcpParams::default();
        let (l, r) = (LedbatParams::default(), &d.rules);
        let (pp, bp, qp) = (PacingParams::default(), BbrParams::default(), PragueParams::default());
        TcpSpec {
            variant: d.variant,
            max_window: None,
            packets: None,
            delayed_ack: d.delayed_ack,
            delack_interval: d.delack_interval.into(),
            init_cwnd: None,
            initial_window: None,
            ssthresh: d.ssthresh,
            min_rto: d.min_rto.into(),
            max_rto: d.max_rto.into(),
            initial_rto: d.initial_rto.into(),
            tick: d.tick.into(),
            max_backoff: d.max_backoff.into(),
            rto_backoff: r.rto_backoff,
            fast_retransmit_timer: r.fast_retransmit_timer,
            recover_rule: r.recover_rule,
            rtt_sampling: r.rtt_sampling,
            rto_estimator: r.rto_estimator,
            ecn_cwr: r.ecn_cwr,
            loss_ssthresh: r.loss_ssthresh,
            recovery_window: r.recovery_window,
            app_limited: r.app_limited,
            reno_growth: r.reno_growth,
            rto_sack: r.rto_sack,
            hystart: r.hystart,
            prr: r.prr,
            rack: r.rack,
            quickack: r.quickack,
            dupack_threshold: d.dupack_threshold.into(),
            ack_size: f64::from(d.ack_size).into(),
            newreno: r.newreno,
            newreno_timer: r.newreno_timer,
            tiny_window: r.tiny_window,
            sack: d.sack,
            sack_blocks: d.sack_blocks.into(),
            limited_transmit: r.limited_transmit,
            ect1: d.ect1,
            cubic_c: d.cubic.c,
            cubic_beta: d.cubic.beta,
            fast_convergence: d.cubic.fast_convergence,
            cubic_reno_friendly: r.cubic.reno_friendly,
            cubic_growth: r.cubic.growth,
            cubic_timeout: r.cubic.timeout,
            cubic_slow_start: r.cubic.slow_start,
            cubic_reno_alpha: r.cubic.reno_alpha,
            dctcp_g: d.dctcp_g,
            ledbat_target: l.target.into(),
            ledbat_gain: l.gain,
            ledbat_base_history: l.base_history.into(),
            pacing: None,
            pacing_ss_ratio: pp.ss_ratio * 100.0,
            pacing_ca_ratio: pp.ca_ratio * 100.0,
            bbr_high_gain: bp.high_gain,
            bbr_drain_gain: bp.drain_gain,
            bbr_extra_acked: bp.extra_acked,
            bbr_min_rtt_strict: bp.strict_min_rtt,
            bbr_lt_bw: bp.lt_bw,
            bbr_rate_newest_sent: bp.rate_newest_sent,
            prague_rtt_target: qp.rtt_target.into(),
            prague_rtt_transition: qp.rtt_transition.into(),
            prague_ecn_fallback: qp.ecn_fallback,
            drop: Vec::new(),
        }
    }
}

/// Read an enum by its name: a string (`invalid type: integer `1`, expected a string`
/// otherwise), then one of the names (`unknown variant `x`, expected one of ...`).
fn by_name<'de, D: Deserializer<'de>, T>(
    d: D,
    read: impl FnOnce(StringDeserializer<de::value::Error>) -> std::result::Result<T, de::value::Error>,
) -> std::result::Result<T, D::Error> {
    read(String::deserialize(d)?.into_deserializer()).map_err(de::Error::custom)
}

/// An enum field read by name (`#[serde(deserialize_with = "named")]`).
fn named<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> std::result::Result<T, D::Error> {
    by_name(d, T::deserialize)
}

fn variant<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Variant, D::Error> {
    by_name(d, VariantName::deserialize)
}

fn newreno<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<NewRenoFlavor, D::Error> {
    by_name(d, NewRenoName::deserialize)
}

fn newreno_timer<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<NewRenoTimer, D::Error> {
    by_name(d, NewRenoTimerName::deserialize)
}

// The TCP enums of `crate::tcp` by name (serde's remote derive checks that the
// variants match).
#[derive(Deserialize)]
#[serde(remote = "Variant", rename_all = "lowercase")]
enum VariantName {
    Tahoe,
    Reno,
    NewReno,
    Cubic,
    Dctcp,
    Ledbat,
    Bbr,
    Prague,
}

#[derive(Deserialize)]
#[serde(remote = "NewRenoFlavor", rename_all = "snake_case")]
enum NewRenoName {
    Rfc6582,
    LinMorris,
}

#[derive(Deserialize)]
#[serde(remote = "NewRenoTimer", rename_all = "snake_case")]
enum NewRenoTimerName {
    Impatient,
    #[serde(rename = "steady")]
    SlowButSteady,
}

/// TELNET: TCP whose application writes at exponential intervals.
#[derive(Deserialize)]
pub(super) struct TelnetSpec {
    pub interval: Option<Quantity>,
}

/// Web mice.
#[derive(Deserialize)]
pub(super) struct WebSpec {
    pub arrival_rate: Option<f64>,
    pub mean_packets: Option<f64>,
    pub shape: Option<f64>,
    pub max_transfers: Option<i64>,
    /// The transfers' sizes: Pareto (the default) or all `mean_packets`.
    #[serde(default, deserialize_with = "named")]
    pub size_distribution: TransferSizes,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum TransferSizes {
    #[default]
    Pareto,
    Fixed,
}

/// The keys of every open-loop flow: its mean rate or packet interval.
#[derive(Deserialize)]
pub(super) struct OpenLoopSpec {
    pub rate: Option<Quantity>,
    pub interval: Option<Quantity>,
    #[serde(default, deserialize_with = "named")]
    pub size_distribution: SizeDistribution,
}

#[derive(Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum SizeDistribution {
    #[default]
    Fixed,
    Exponential,
}

/// CBR and batch Poisson: packets per batch.
#[derive(Deserialize)]
pub(super) struct BatchSpec {
    pub batch: Option<i64>,
}

/// Pareto ON/OFF periods.
#[derive(Deserialize)]
pub(super) struct OnOffSpec {
    pub on_time: Option<Quantity>,
    pub off_time: Option<Quantity>,
    pub shape: Option<f64>,
}

/// A flow's own keys, by `type`.
pub(super) enum KindSpec {
    Tcp(TcpSpec),
    Telnet(TcpSpec, TelnetSpec),
    Web(TcpSpec, WebSpec),
    Cbr(OpenLoopSpec, BatchSpec),
    Poisson(OpenLoopSpec),
    BatchPoisson(OpenLoopSpec, BatchSpec),
    ParetoOnOff(OpenLoopSpec, OnOffSpec),
}

/// A `[[flow]]` table read.
pub(super) struct FlowSpec {
    pub common: CommonSpec,
    pub kind: KindSpec,
}

impl FlowSpec {
    /// Read the `[[flow]]` table `t` at `path` (`flow[3]`).
    pub fn read(t: &Table, path: &str) -> Result<FlowSpec> {
        let ty = match t.get("type") {
            Some(v) => {
                let p = format!("{path}.type");
                let name: String = de(v, &p)?;
                named(name.into_deserializer())
                    .map_err(|e: de::value::Error| SimError::at(&p, e))?
            }
            None => FlowType::Tcp,
        };
        let v = Value::Table(t.clone());
        // (`profile` is read and taken out by `profiles::apply`)
        let mut keys = vec!["type", "profile"];
        let common = group(&v, path, &mut keys)?;
        let k = &mut keys;
        let kind = match ty {
            FlowType::Tcp => KindSpec::Tcp(group(&v, path, k)?),
            FlowType::Telnet => KindSpec::Telnet(group(&v, path, k)?, group(&v, path, k)?),
            FlowType::Web => KindSpec::Web(group(&v, path, k)?, group(&v, path, k)?),
            FlowType::Cbr => KindSpec::Cbr(group(&v, path, k)?, group(&v, path, k)?),
            FlowType::Poisson => KindSpec::Poisson(group(&v, path, k)?),
            FlowType::BatchPoisson => {
                KindSpec::BatchPoisson(group(&v, path, k)?, group(&v, path, k)?)
            }
            FlowType::ParetoOnOff => {
                KindSpec::ParetoOnOff(group(&v, path, k)?, group(&v, path, k)?)
            }
        };
        if let Some(key) = t.keys().find(|key| !keys.contains(&key.as_str())) {
            let name = t.get("type").and_then(Value::as_str).unwrap_or("tcp");
            return Err(SimError::at(
                &format!("{path}.{}", aqm::error::key(key)),
                format!("unknown field for a {name} flow; allowed {}", keys.join(", ")),
            ));
        }
        Ok(FlowSpec { common, kind })
    }
}

/// Read the group of keys `T` from the flow table `v` at `path`, adding its keys to `keys`.
fn group<T: DeserializeOwned>(v: &Value, path: &str, keys: &mut Vec<&'static str>) -> Result<T> {
    keys.extend(keys_of::<T>());
    de(v, path)
}

impl KindSpec {
    /// The TCP keys of a TCP kind.
    pub fn tcp(&self) -> Option<&TcpSpec> {
        match self {
            KindSpec::Tcp(t) | KindSpec::Telnet(t, _) | KindSpec::Web(t, _) => Some(t),
            _ => None,
        }
    }
    /// The open-loop keys of an open-loop kind.
    pub fn open_loop(&self) -> Option<&OpenLoopSpec> {
        match self {
            KindSpec::Cbr(o, _)
            | KindSpec::Poisson(o)
            | KindSpec::BatchPoisson(o, _)
            | KindSpec::ParetoOnOff(o, _) => Some(o),
            _ => None,
        }
    }
}

/// The keys (field names) of a struct deriving `Deserialize`: the derive passes them to
/// `deserialize_struct`, where a probe deserializer catches them.
pub(super) fn keys_of<T: DeserializeOwned>() -> &'static [&'static str] {
    match T::deserialize(KeyProbe) {
        Err(Keys(keys)) => keys,
        Ok(_) => &[],
    }
}

struct KeyProbe;

/// What [`KeyProbe`] returns: the keys it was shown (none for a non-struct).
#[derive(Debug)]
struct Keys(&'static [&'static str]);

impl std::fmt::Display for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "keys {:?}", self.0)
    }
}
impl std::error::Error for Keys {}
impl de::Error for Keys {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Keys(&[])
    }
}

impl<'de> Deserializer<'de> for KeyProbe {
    type Error = Keys;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Keys> {
        Err(Keys(&[]))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> std::result::Result<V::Value, Keys> {
        Err(Keys(fields))
    }
    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}
