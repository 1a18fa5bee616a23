//! Scenario files: the TOML structure (and the same structure from Python) read into
//! a validated [`Scenario`]. Every error names the path of the offending field
//! (`link[2].queue_ab.min_th`, `flow[3].src`) and says what is allowed.
//!
//! ```toml
//! duration = "100s"          # numbers are SI units; strings may carry units
//! warmup = "50s"
//! seed = 1
//! [[link]]
//! a = "r1"
//! b = "r2"
//! rate = "15Mbps"
//! delay = "20ms"
//! queue = { type = "droptail", limit = 200 }   # both directions unless queue_ab / queue_ba
//! [[flow]]
//! type = "tcp"
//! src = "s1"
//! dst = "k1"
//! ```

use std::collections::BTreeMap;

use aqm::config::{BuildContext, DropTailConfig};
use aqm::{QueueConfig, Time, units::Quantity};
use rand::Rng;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use toml::Value;

use crate::error::{Result, SimError};
use crate::rng::{stream_rng, stream_seed};
use crate::tcp::{NewRenoFlavor, NewRenoTimer, TcpParams, Variant};

mod normal;
pub use normal::{NormalDirection, NormalEvent, NormalFlow, NormalLink, NormalTrace, Normalized};

/// The queue a link direction gets when the scenario gives none: Drop Tail with a
/// 50-packet buffer (ns-2's default `queue-limit`).
pub const DEFAULT_QUEUE_LIMIT: u64 = 50;

/// The kinds of flow and their extra fields.
pub const FLOW_TYPES: &[&str] =
    &["tcp", "cbr", "poisson", "batch_poisson", "pareto_onoff", "telnet", "web"];

const COMMON_FLOW_KEYS: &[&str] =
    &["type", "name", "src", "dst", "start", "stop", "packet_size", "count", "ecn", "prep_delay"];
const TCP_KEYS: &[&str] = &[
    "variant",
    "max_window",
    "packets",
    "delayed_ack",
    "delack_interval",
    "init_cwnd",
    "ssthresh",
    "min_rto",
    "max_rto",
    "initial_rto",
    "tick",
    "max_backoff",
    "dupack_threshold",
    "ack_size",
    "newreno",
    "newreno_timer",
    "tiny_window",
    "drop",
];
const TOP_KEYS: &[&str] = &[
    "duration",
    "warmup",
    "seed",
    "link",
    "flow",
    "event",
    "trace",
    "bottleneck",
    "express_hops",
    "threads",
    "name",
    "description",
    "notes",
];

/// A validated scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    /// End of the run.
    pub duration: Time,
    /// Start of the measurement window [warmup, duration].
    pub warmup: Time,
    pub seed: u64,
    /// Node names; a node's id is its index.
    pub nodes: Vec<String>,
    pub links: Vec<LinkDef>,
    /// Flows after expanding `count` (flow id = index).
    pub flows: Vec<FlowDef>,
    pub events: Vec<LinkEvent>,
    pub trace: TraceDef,
    /// Link direction (`2 * link + (0 for a->b, 1 for b->a)`) named by `bottleneck`.
    pub bottleneck: Option<usize>,
    /// Hand packets to a single-feeder next hop at once (`express_hops`, default true;
    /// false forces one event per hop and turns off the lean path and the merging
    /// directions, for checking).
    pub express_hops: bool,
    /// Threads the run may use (`threads`, 1 or 2, default 1). With 2, a network that
    /// splits into two parts joined only by merging directions runs each part on its
    /// own thread; the results are those of one thread, bit for bit.
    pub threads: usize,
    /// The routes with every link up, computed by validation, with the nodes and links
    /// they were computed from (reused by the run when those are unchanged).
    routes: Option<(Vec<String>, Vec<(usize, usize, u32)>, crate::net::Routes)>,
}

/// A full-duplex link.
#[derive(Clone, Debug)]
pub struct LinkDef {
    pub a: usize,
    pub b: usize,
    /// b/s
    pub rate_bps: f64,
    /// Propagation delay.
    pub delay: Time,
    pub queue_ab: QueueConfig,
    pub queue_ba: QueueConfig,
    /// Routing cost (hop count by default: 1).
    pub cost: u32,
}

/// A link going down or up at a given time.
#[derive(Clone, Debug)]
pub struct LinkEvent {
    pub at: Time,
    pub link: usize,
    pub up: bool,
}

/// What a flow sends.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// A TCP connection: bulk (`packets` = 0) or finite.
    Tcp,
    /// TELNET-like: TCP whose application writes one packet at exponential intervals of mean `interval`.
    Telnet { interval: f64 },
    /// Constant bit rate over UDP: one packet every `interval` seconds.
    Cbr { interval: f64 },
    /// Poisson packet arrivals, mean interval `interval`.
    Poisson { interval: f64 },
    /// Batches of `batch` packets at Poisson instants of mean interval `interval`.
    BatchPoisson { interval: f64, batch: u32 },
    /// Web mice: TCP transfers arriving as a Poisson process (`arrival_rate` per
    /// second) with Pareto sizes (mean `mean_packets`, shape `shape`), carried by a
    /// pool of `slots` connections (flows `first..first + slots`); an arrival finding
    /// every connection busy is counted as rejected.
    Web { arrival_rate: f64, mean_packets: f64, shape: f64, first: usize, slots: u32 },
    /// Pareto ON/OFF: during ON periods (mean `on_time`), one packet every `interval`;
    /// OFF periods of mean `off_time`; both Pareto with shape `shape`.
    ParetoOnOff { interval: f64, on_time: f64, off_time: f64, shape: f64 },
}

impl FlowKind {
    pub fn name(&self) -> &'static str {
        match self {
            FlowKind::Tcp => "tcp",
            FlowKind::Telnet { .. } => "telnet",
            FlowKind::Cbr { .. } => "cbr",
            FlowKind::Poisson { .. } => "poisson",
            FlowKind::BatchPoisson { .. } => "batch_poisson",
            FlowKind::ParetoOnOff { .. } => "pareto_onoff",
            FlowKind::Web { .. } => "web",
        }
    }
    pub fn is_tcp(&self) -> bool {
        matches!(self, FlowKind::Tcp | FlowKind::Telnet { .. } | FlowKind::Web { .. })
    }
}

/// One flow (after `count` expansion).
#[derive(Clone, Debug)]
pub struct FlowDef {
    pub name: String,
    /// Index of the `[[flow]]` entry it came from.
    pub spec: usize,
    pub kind: FlowKind,
    pub src: usize,
    pub dst: usize,
    pub start: Time,
    pub stop: Option<Time>,
    /// Bytes on the wire of a data packet (the mean with exponential sizes).
    pub packet_size: u32,
    /// Open-loop flows: packet sizes exponential with mean `packet_size` (so that a
    /// link serves them in exponential time, as in Bonald, May & Bolot's M/M/1/K
    /// models) instead of all equal.
    pub exponential_sizes: bool,
    pub ecn: bool,
    /// Packet preparation delay: each packet leaves the source U[0, prep_delay] s after it could.
    pub prep_delay: f64,
    pub tcp: TcpParams,
    /// Seed of this flow's random stream.
    pub seed: u64,
}

/// Traces asked for (written under the directory given to the run).
#[derive(Clone, Debug, Default)]
pub struct TraceDef {
    /// Link directions whose queue and RED avg are traced.
    pub queue: Vec<usize>,
    /// Sampling interval of the queue trace; 0 = at every arrival.
    pub interval: Time,
    /// Link directions whose per-packet events (arrival, departure, drop, mark) are traced.
    pub packets: Vec<usize>,
    /// Flows whose cwnd is traced at every change.
    pub cwnd: Vec<usize>,
    /// Link directions whose departing packets go to a pcap file.
    pub pcap: Vec<usize>,
}

impl TraceDef {
    pub fn any(&self) -> bool {
        !(self.queue.is_empty()
            && self.packets.is_empty()
            && self.cwnd.is_empty()
            && self.pcap.is_empty())
    }
}

// ---------------------------------------------------------------------------------
// Raw structures as written.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkSpec {
    a: String,
    b: String,
    rate: Quantity,
    delay: Quantity,
    #[serde(default)]
    queue: Option<Value>,
    #[serde(default)]
    queue_ab: Option<Value>,
    #[serde(default)]
    queue_ba: Option<Value>,
    #[serde(default)]
    cost: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventSpec {
    at: Quantity,
    a: String,
    b: String,
    action: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum StartSpec {
    At(Quantity),
    Uniform { uniform: [Quantity; 2] },
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FlowSpec {
    #[serde(rename = "type")]
    _type: String,
    name: Option<String>,
    src: String,
    dst: String,
    start: Option<StartSpec>,
    stop: Option<Quantity>,
    packet_size: Option<Quantity>,
    count: Option<i64>,
    ecn: Option<bool>,
    prep_delay: Option<Quantity>,
    // TCP
    variant: Option<String>,
    max_window: Option<i64>,
    packets: Option<i64>,
    delayed_ack: Option<bool>,
    delack_interval: Option<Quantity>,
    init_cwnd: Option<f64>,
    ssthresh: Option<f64>,
    min_rto: Option<Quantity>,
    max_rto: Option<Quantity>,
    initial_rto: Option<Quantity>,
    tick: Option<Quantity>,
    max_backoff: Option<i64>,
    dupack_threshold: Option<i64>,
    ack_size: Option<Quantity>,
    newreno: Option<String>,
    newreno_timer: Option<String>,
    tiny_window: Option<bool>,
    drop: Option<Vec<i64>>,
    // web
    arrival_rate: Option<f64>,
    mean_packets: Option<f64>,
    max_transfers: Option<i64>,
    // open loop
    rate: Option<Quantity>,
    interval: Option<Quantity>,
    batch: Option<i64>,
    on_time: Option<Quantity>,
    off_time: Option<Quantity>,
    shape: Option<f64>,
    size_distribution: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FlowSel {
    All(bool),
    List(Vec<i64>),
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct TraceSpec {
    #[serde(default)]
    queue: Vec<String>,
    #[serde(default)]
    interval: Option<Quantity>,
    #[serde(default)]
    packets: Vec<String>,
    #[serde(default)]
    cwnd: Option<FlowSel>,
    #[serde(default)]
    pcap: Vec<String>,
}

// ---------------------------------------------------------------------------------

fn join(path: &str, inner: &str) -> String {
    if inner.is_empty() || inner == "." {
        path.to_string()
    } else if path.is_empty() {
        inner.to_string()
    } else if inner.starts_with('[') {
        format!("{path}{inner}")
    } else {
        format!("{path}.{inner}")
    }
}

/// Deserialize `v` as `T`, errors prefixed by `path` plus the path inside `v`.
fn de<T: DeserializeOwned>(v: &Value, path: &str) -> Result<T> {
    let mut track = serde_path_to_error::Track::new();
    let r = T::deserialize(serde_path_to_error::Deserializer::new(v.clone(), &mut track));
    r.map_err(|e| path_error(path, track, e))
}

/// A deserialization error at `path` + the tracked inner path; an unknown key is
/// named in the path itself (`link[0].foo: unknown field ...`).
fn path_error(
    path: &str,
    track: serde_path_to_error::Track,
    e: impl std::fmt::Display,
) -> SimError {
    let mut p = join(path, &track.path().to_string());
    let msg = e.to_string();
    if let Some(rest) = msg.strip_prefix("unknown field `")
        && let Some(k) = rest.split('`').next()
        && !p.ends_with(&format!(".{k}"))
    {
        p = join(&p, k);
    }
    SimError::at(&p, msg)
}

fn secs(q: &Quantity, path: &str) -> Result<f64> {
    let v = q.secs(path).map_err(|e| SimError::Scenario(e.to_string()))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(SimError::invalid(path, v, "a time >= 0 (seconds, or a string such as \"20ms\")"))
    }
}
fn pos_secs(q: &Quantity, path: &str) -> Result<f64> {
    let v = secs(q, path)?;
    if v > 0.0 { Ok(v) } else { Err(SimError::invalid(path, v, "a time > 0")) }
}
fn rate(q: &Quantity, path: &str) -> Result<f64> {
    let v = q.bps(path).map_err(|e| SimError::Scenario(e.to_string()))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(SimError::invalid(path, v, "a rate > 0 (b/s, or a string such as \"15Mbps\")"))
    }
}
fn bytes(q: &Quantity, path: &str) -> Result<u32> {
    let v = q.bytes(path).map_err(|e| SimError::Scenario(e.to_string()))?;
    if (1.0..=65535.0).contains(&v) && v.fract() == 0.0 {
        Ok(v as u32)
    } else {
        Err(SimError::invalid(path, v, "a whole number of bytes in [1, 65535]"))
    }
}
fn int_in(v: i64, path: &str, lo: i64, hi: i64) -> Result<i64> {
    if v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(SimError::invalid(path, v, format!("an integer in [{lo}, {hi}]")))
    }
}

/// Parse a queue table `{ type = "red", ... }` (the type is required).
pub fn parse_queue(v: &Value, path: &str) -> Result<QueueConfig> {
    aqm::config::parse_queue(v.clone(), path).map_err(|e| SimError::Scenario(e.to_string()))
}

/// Check a queue configuration by building it as the run will.
fn check_queue(q: &QueueConfig, rate_bps: f64, path: &str) -> Result<()> {
    if matches!(q, QueueConfig::Fred(_)) {
        // FRED is built at run time like the others; here only its parameters are checked.
    }
    let r = std::panic::catch_unwind(|| {
        q.build(&BuildContext { link_rate_bps: Some(rate_bps), seed: Some(1) })
    });
    match r {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(SimError::Scenario(e.at(path).to_string())),
        Err(_) => Err(SimError::at(
            path,
            format!("the {} discipline is not available in this build", q.kind()),
        )),
    }
}

impl Scenario {
    /// Read a scenario from TOML text.
    pub fn from_toml_str(text: &str) -> Result<Scenario> {
        let v: toml::Table =
            toml::from_str(text).map_err(|e| SimError::Scenario(format!("TOML syntax: {e}")))?;
        Scenario::from_value(&Value::Table(v))
    }

    /// Read a scenario from any serde data source with the TOML structure (the Python
    /// bindings pass a dict through `pythonize`). Numbers, strings, booleans, lists and
    /// tables only.
    pub fn from_deserializer<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Scenario> {
        let v = Value::deserialize(d).map_err(|e| {
            SimError::Scenario(format!(
                "scenario: {e} (allowed: numbers, strings, booleans, lists and tables)"
            ))
        })?;
        Scenario::from_value(&v)
    }

    /// Read a scenario from a TOML file.
    pub fn from_file(path: &std::path::Path) -> Result<Scenario> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SimError::Scenario(format!("{}: {e}", path.display())))?;
        Scenario::from_toml_str(&text)
    }

    /// Read a scenario from a tree of values (TOML, or a Python dict converted).
    pub fn from_value(v: &Value) -> Result<Scenario> {
        let Some(top) = v.as_table() else {
            return Err(SimError::at("scenario", "expected a table"));
        };
        for k in top.keys() {
            if !TOP_KEYS.contains(&k.as_str()) {
                return Err(SimError::at(
                    k,
                    format!("unknown field; allowed {}", TOP_KEYS.join(", ")),
                ));
            }
        }
        let name = match top.get("name") {
            Some(v) => de::<String>(v, "name")?,
            None => String::new(),
        };
        let duration = match top.get("duration") {
            Some(v) => pos_secs(&de::<Quantity>(v, "duration")?, "duration")?,
            None => {
                return Err(SimError::at(
                    "duration",
                    "missing; give the length of the run, e.g. \"100s\"",
                ));
            }
        };
        let warmup = match top.get("warmup") {
            Some(v) => secs(&de::<Quantity>(v, "warmup")?, "warmup")?,
            None => 0.0,
        };
        if warmup >= duration {
            return Err(SimError::invalid("warmup", warmup, format!("< duration ({duration} s)")));
        }
        let seed = match top.get("seed") {
            Some(v) => {
                let s = de::<i64>(v, "seed")?;
                int_in(s, "seed", 0, i64::MAX)? as u64
            }
            None => 1,
        };
        for k in ["description", "notes"] {
            if let Some(v) = top.get(k) {
                de::<String>(v, k)?;
            }
        }

        // Links (and the nodes they name, in order of appearance).
        let mut nodes: Vec<String> = Vec::new();
        let mut node_ix: BTreeMap<String, usize> = BTreeMap::new();
        let mut node = |n: &str, path: &str| -> Result<usize> {
            if n.is_empty() {
                return Err(SimError::invalid(path, "\"\"", "a non-empty node name"));
            }
            if let Some(&i) = node_ix.get(n) {
                return Ok(i);
            }
            nodes.push(n.to_string());
            node_ix.insert(n.to_string(), nodes.len() - 1);
            Ok(nodes.len() - 1)
        };
        let link_vals: Vec<Value> = match top.get("link") {
            Some(v) => de(v, "link")?,
            None => Vec::new(),
        };
        if link_vals.is_empty() {
            return Err(SimError::at("link", "missing; a scenario needs at least one [[link]]"));
        }
        let mut links = Vec::new();
        let mut pairs = BTreeMap::new();
        for (i, lv) in link_vals.iter().enumerate() {
            let p = format!("link[{i}]");
            let l: LinkSpec = de(lv, &p)?;
            let a = node(&l.a, &format!("{p}.a"))?;
            let b = node(&l.b, &format!("{p}.b"))?;
            if a == b {
                return Err(SimError::invalid(
                    &format!("{p}.b"),
                    format!("{:?}", l.b),
                    format!("a node other than a ({:?})", l.a),
                ));
            }
            let key = (a.min(b), a.max(b));
            if let Some(j) = pairs.insert(key, i) {
                return Err(SimError::at(
                    &p,
                    format!("joins {} and {} like link[{j}]; one link per pair of nodes", l.a, l.b),
                ));
            }
            let rate_bps = rate(&l.rate, &format!("{p}.rate"))?;
            let delay = secs(&l.delay, &format!("{p}.delay"))?;
            let default_q = match &l.queue {
                Some(q) => parse_queue(q, &format!("{p}.queue"))?,
                None => QueueConfig::DropTail(DropTailConfig {
                    limit: Some(DEFAULT_QUEUE_LIMIT),
                    ..Default::default()
                }),
            };
            let queue_ab = match &l.queue_ab {
                Some(q) => parse_queue(q, &format!("{p}.queue_ab"))?,
                None => default_q.clone(),
            };
            let queue_ba = match &l.queue_ba {
                Some(q) => parse_queue(q, &format!("{p}.queue_ba"))?,
                None => default_q.clone(),
            };
            let qpath = |side: &str, given: bool| {
                if given { format!("{p}.{side}") } else { format!("{p}.queue") }
            };
            check_queue(&queue_ab, rate_bps, &qpath("queue_ab", l.queue_ab.is_some()))?;
            check_queue(&queue_ba, rate_bps, &qpath("queue_ba", l.queue_ba.is_some()))?;
            let cost = int_in(l.cost.unwrap_or(1), &format!("{p}.cost"), 1, 1 << 20)? as u32;
            links.push(LinkDef {
                a,
                b,
                rate_bps,
                delay: Time::from_secs_f64(delay),
                queue_ab,
                queue_ba,
                cost,
            });
        }
        if nodes.len() > u16::MAX as usize {
            return Err(SimError::at(
                "link",
                format!("{} nodes; at most {}", nodes.len(), u16::MAX),
            ));
        }
        if links.len() >= (u16::MAX / 2) as usize {
            return Err(SimError::at(
                "link",
                format!("{} links; at most {}", links.len(), u16::MAX / 2 - 1),
            ));
        }
        let node_list = nodes.join(", ");
        let find_node = |n: &str, path: &str| -> Result<usize> {
            node_ix.get(n).copied().ok_or_else(|| {
                SimError::invalid(
                    path,
                    format!("{n:?}"),
                    format!("a node named in a [[link]]: {node_list}"),
                )
            })
        };
        let dir_names: Vec<String> = links
            .iter()
            .flat_map(|l| {
                [
                    format!("{}->{}", nodes[l.a], nodes[l.b]),
                    format!("{}->{}", nodes[l.b], nodes[l.a]),
                ]
            })
            .collect();
        let find_dir = |n: &str, path: &str| -> Result<usize> {
            dir_names.iter().position(|d| d == n).ok_or_else(|| {
                SimError::invalid(
                    path,
                    format!("{n:?}"),
                    "a link direction written \"a->b\" for a [[link]] between nodes a and b",
                )
            })
        };

        // Link events.
        let mut events = Vec::new();
        if let Some(v) = top.get("event") {
            let evs: Vec<Value> = de(v, "event")?;
            for (i, ev) in evs.iter().enumerate() {
                let p = format!("event[{i}]");
                let e: EventSpec = de(ev, &p)?;
                let a = find_node(&e.a, &format!("{p}.a"))?;
                let b = find_node(&e.b, &format!("{p}.b"))?;
                let link = links
                    .iter()
                    .position(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
                    .ok_or_else(|| {
                        SimError::at(&p, format!("no [[link]] joins {} and {}", e.a, e.b))
                    })?;
                let up = match e.action.as_str() {
                    "down" => false,
                    "up" => true,
                    other => {
                        return Err(SimError::invalid(
                            &format!("{p}.action"),
                            format!("{other:?}"),
                            "\"down\" or \"up\"",
                        ));
                    }
                };
                let at = secs(&e.at, &format!("{p}.at"))?;
                events.push(LinkEvent { at: Time::from_secs_f64(at), link, up });
            }
        }

        // Flows.
        let flow_vals: Vec<Value> = match top.get("flow") {
            Some(v) => de(v, "flow")?,
            None => Vec::new(),
        };
        let mut flows = Vec::new();
        for (i, fv) in flow_vals.iter().enumerate() {
            let p = format!("flow[{i}]");
            let Some(table) = fv.as_table() else {
                return Err(SimError::at(&p, "expected a table"));
            };
            let ty = match table.get("type") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => {
                    return Err(SimError::invalid(
                        &format!("{p}.type"),
                        other,
                        format!("one of {}", FLOW_TYPES.join(", ")),
                    ));
                }
                None => "tcp".to_string(),
            };
            let extra: &[&str] = match ty.as_str() {
                "tcp" => TCP_KEYS,
                "telnet" => [TCP_KEYS, &["interval"][..]].concat().leak(),
                "web" => {
                    [TCP_KEYS, &["arrival_rate", "mean_packets", "shape", "max_transfers"][..]]
                        .concat()
                        .leak()
                }
                "cbr" => &["rate", "interval", "size_distribution"],
                "poisson" => &["rate", "interval", "size_distribution"],
                "batch_poisson" => &["rate", "interval", "batch", "size_distribution"],
                "pareto_onoff" => {
                    &["rate", "interval", "on_time", "off_time", "shape", "size_distribution"]
                }
                other => {
                    return Err(SimError::invalid(
                        &format!("{p}.type"),
                        format!("{other:?}"),
                        format!("one of {}", FLOW_TYPES.join(", ")),
                    ));
                }
            };
            for k in table.keys() {
                if !COMMON_FLOW_KEYS.contains(&k.as_str()) && !extra.contains(&k.as_str()) {
                    return Err(SimError::at(
                        &format!("{p}.{k}"),
                        format!(
                            "unknown field for a {ty} flow; allowed {}, {}",
                            COMMON_FLOW_KEYS.join(", "),
                            extra.join(", ")
                        ),
                    ));
                }
            }
            let mut t2 = table.clone();
            t2.insert("type".into(), Value::String(ty.clone()));
            let f: FlowSpec = de(&Value::Table(t2), &p)?;
            let fp = |k: &str| format!("{p}.{k}");
            let src = find_node(&f.src, &fp("src"))?;
            let dst = find_node(&f.dst, &fp("dst"))?;
            if src == dst {
                return Err(SimError::invalid(
                    &fp("dst"),
                    format!("{:?}", f.dst),
                    "a node other than src",
                ));
            }
            let count = int_in(f.count.unwrap_or(1), &fp("count"), 1, 1 << 19)? as usize;
            let packet_size = match &f.packet_size {
                Some(q) => bytes(q, &fp("packet_size"))?,
                None => 1000,
            };
            let stop = match &f.stop {
                Some(q) => Some(Time::from_secs_f64(secs(q, &fp("stop"))?)),
                None => None,
            };
            let prep_delay = match &f.prep_delay {
                Some(q) => secs(q, &fp("prep_delay"))?,
                None => 0.0,
            };
            let tcp = tcp_params(&f, &p, packet_size)?;
            let exponential_sizes = match f.size_distribution.as_deref() {
                None | Some("fixed") => false,
                Some("exponential") => true,
                Some(other) => {
                    return Err(SimError::invalid(
                        &fp("size_distribution"),
                        format!("{other:?}"),
                        "\"fixed\" or \"exponential\"",
                    ));
                }
            };
            // Open-loop rate / interval.
            let interval_of = |default_rate: Option<f64>| -> Result<f64> {
                match (&f.rate, &f.interval) {
                    (Some(_), Some(_)) => {
                        Err(SimError::at(&fp("interval"), "give rate or interval, not both"))
                    }
                    (Some(r), None) => Ok(8.0 * packet_size as f64 / rate(r, &fp("rate"))?),
                    (None, Some(iv)) => pos_secs(iv, &fp("interval")),
                    (None, None) => match default_rate {
                        Some(r) => Ok(8.0 * packet_size as f64 / r),
                        None => Err(SimError::at(
                            &fp("rate"),
                            "missing; give the mean rate (e.g. \"1Mbps\") or the packet interval",
                        )),
                    },
                }
            };
            let kind = match ty.as_str() {
                "tcp" => FlowKind::Tcp,
                "telnet" => FlowKind::Telnet {
                    interval: match &f.interval {
                        Some(q) => pos_secs(q, &fp("interval"))?,
                        None => 1.0,
                    },
                },
                "cbr" => FlowKind::Cbr { interval: interval_of(None)? },
                "poisson" => FlowKind::Poisson { interval: interval_of(None)? },
                "batch_poisson" => {
                    let batch = int_in(f.batch.unwrap_or(1), &fp("batch"), 1, 1 << 20)? as u32;
                    // `rate` is the mean rate: batches arrive `batch` times less often.
                    FlowKind::BatchPoisson { interval: interval_of(None)? * batch as f64, batch }
                }
                "pareto_onoff" => {
                    let shape = f.shape.unwrap_or(1.5);
                    if !(shape > 1.0 && shape.is_finite()) {
                        return Err(SimError::invalid(&fp("shape"), shape, "> 1 (a finite mean)"));
                    }
                    FlowKind::ParetoOnOff {
                        interval: interval_of(None)?,
                        on_time: match &f.on_time {
                            Some(q) => pos_secs(q, &fp("on_time"))?,
                            None => 0.5,
                        },
                        off_time: match &f.off_time {
                            Some(q) => pos_secs(q, &fp("off_time"))?,
                            None => 0.5,
                        },
                        shape,
                    }
                }
                "web" => {
                    let arrival_rate = f.arrival_rate.unwrap_or(1.0);
                    if !(arrival_rate > 0.0 && arrival_rate.is_finite()) {
                        return Err(SimError::invalid(
                            &fp("arrival_rate"),
                            arrival_rate,
                            "> 0 transfers per second",
                        ));
                    }
                    let mean_packets = f.mean_packets.unwrap_or(12.0);
                    if !(mean_packets >= 1.0 && mean_packets.is_finite()) {
                        return Err(SimError::invalid(
                            &fp("mean_packets"),
                            mean_packets,
                            ">= 1 packet",
                        ));
                    }
                    let shape = f.shape.unwrap_or(1.2);
                    if !(shape > 1.0 && shape.is_finite()) {
                        return Err(SimError::invalid(&fp("shape"), shape, "> 1 (a finite mean)"));
                    }
                    if f.packets.is_some() {
                        return Err(SimError::at(
                            &fp("packets"),
                            "not allowed for web flows (sizes are drawn from mean_packets)",
                        ));
                    }
                    let slots =
                        int_in(f.max_transfers.unwrap_or(100), &fp("max_transfers"), 1, 100_000)?
                            as u32;
                    FlowKind::Web { arrival_rate, mean_packets, shape, first: 0, slots }
                }
                _ => unreachable!(),
            };
            let slots = match kind {
                FlowKind::Web { slots, .. } => slots as usize,
                _ => 1,
            };
            for k in 0..count * slots {
                let (copy, slot) = (k / slots, k % slots);
                let kind = match kind.clone() {
                    FlowKind::Web { arrival_rate, mean_packets, shape, slots: n, .. } => {
                        FlowKind::Web {
                            arrival_rate,
                            mean_packets,
                            shape,
                            first: flows.len() - slot,
                            slots: n,
                        }
                    }
                    other => other,
                };
                let id = flows.len();
                let seed = if slots > 1 {
                    stream_seed(seed, "web", i as u64, ((copy as u64) << 32) | slot as u64)
                } else {
                    stream_seed(seed, "flow", i as u64, k as u64)
                };
                let mut rng = stream_rng(seed ^ 0x5354_4152_5400_0000);
                let start = match &f.start {
                    None => 0.0,
                    Some(StartSpec::At(q)) => secs(q, &fp("start"))?,
                    Some(StartSpec::Uniform { uniform: [lo, hi] }) => {
                        let lo = secs(lo, &fp("start.uniform[0]"))?;
                        let hi = secs(hi, &fp("start.uniform[1]"))?;
                        if hi < lo {
                            return Err(SimError::invalid(
                                &fp("start.uniform[1]"),
                                hi,
                                format!(">= uniform[0] ({lo})"),
                            ));
                        }
                        lo + (hi - lo) * rng.random::<f64>()
                    }
                };
                let name = match (&f.name, count, slots) {
                    (Some(n), 1, 1) => n.clone(),
                    (Some(n), _, 1) => format!("{n}#{k}"),
                    (Some(n), _, _) => format!("{n}#{copy}.{slot}"),
                    (None, _, 1) => format!("{ty}{id}"),
                    (None, _, _) => format!("{ty}{}.{slot}", id - slot),
                };
                flows.push(FlowDef {
                    name,
                    spec: i,
                    kind: kind.clone(),
                    src,
                    dst,
                    start: Time::from_secs_f64(start),
                    stop,
                    packet_size,
                    exponential_sizes,
                    ecn: f.ecn.unwrap_or(false),
                    prep_delay,
                    tcp: tcp.clone(),
                    seed,
                });
            }
        }
        if flows.len() > Target_MAX {
            return Err(SimError::at(
                "flow",
                format!("{} flows; at most {}", flows.len(), Target_MAX),
            ));
        }

        // Traces.
        let mut trace = TraceDef::default();
        if let Some(v) = top.get("trace") {
            let t: TraceSpec = de(v, "trace")?;
            for (i, n) in t.queue.iter().enumerate() {
                trace.queue.push(find_dir(n, &format!("trace.queue[{i}]"))?);
            }
            for (i, n) in t.packets.iter().enumerate() {
                trace.packets.push(find_dir(n, &format!("trace.packets[{i}]"))?);
            }
            for (i, n) in t.pcap.iter().enumerate() {
                trace.pcap.push(find_dir(n, &format!("trace.pcap[{i}]"))?);
            }
            trace.interval = match &t.interval {
                Some(q) => Time::from_secs_f64(secs(q, "trace.interval")?),
                None => Time::from_secs_f64(0.01),
            };
            trace.cwnd = match t.cwnd {
                None | Some(FlowSel::All(false)) => Vec::new(),
                Some(FlowSel::All(true)) => {
                    (0..flows.len()).filter(|&f| flows[f].kind.is_tcp()).collect()
                }
                Some(FlowSel::List(l)) => {
                    let mut out = Vec::new();
                    for (i, f) in l.iter().enumerate() {
                        out.push(
                            int_in(*f, &format!("trace.cwnd[{i}]"), 0, flows.len() as i64 - 1)?
                                as usize,
                        );
                    }
                    out
                }
            };
        }
        let bottleneck = match top.get("bottleneck") {
            Some(v) => Some(find_dir(&de::<String>(v, "bottleneck")?, "bottleneck")?),
            None => None,
        };

        let express_hops = match top.get("express_hops") {
            Some(v) => de::<bool>(v, "express_hops")?,
            None => true,
        };

        let threads = match top.get("threads") {
            Some(v) => {
                let n = de::<i64>(v, "threads")?;
                if !(1..=2).contains(&n) {
                    return Err(SimError::at("threads", format!("must be 1 or 2, got {n}")));
                }
                n as usize
            }
            None => 1,
        };

        let mut sc = Scenario {
            routes: None,
            express_hops,
            threads,
            name,
            duration: Time::from_secs_f64(duration),
            warmup: Time::from_secs_f64(warmup),
            seed,
            nodes,
            links,
            flows,
            events,
            trace,
            bottleneck,
        };
        // Every flow needs a route both ways with all links up.
        let routes = crate::net::Routes::compute(&sc.nodes, &sc.links, &vec![true; sc.links.len()]);
        sc.routes = Some((sc.nodes.clone(), link_keys(&sc.links), routes.clone()));
        let routes = &sc.routes.as_ref().unwrap().2;
        for (id, f) in sc.flows.iter().enumerate() {
            let spec = f.spec;
            if routes.next(f.src, f.dst).is_none() {
                return Err(SimError::at(
                    &format!("flow[{spec}]"),
                    format!(
                        "no route from {} to {} (flow {id}); allowed: nodes joined by [[link]]s",
                        sc.nodes[f.src], sc.nodes[f.dst]
                    ),
                ));
            }
            if f.kind.is_tcp() && routes.next(f.dst, f.src).is_none() {
                return Err(SimError::at(
                    &format!("flow[{spec}]"),
                    format!(
                        "no route back from {} to {} for the ACKs",
                        sc.nodes[f.dst], sc.nodes[f.src]
                    ),
                ));
            }
        }
        Ok(sc)
    }

    /// The routes with every link up (computed at validation if the nodes and links
    /// have not been changed since).
    pub fn routes_all_up(&self) -> crate::net::Routes {
        match &self.routes {
            Some((n, l, r)) if *n == self.nodes && *l == link_keys(&self.links) => r.clone(),
            _ => {
                crate::net::Routes::compute(&self.nodes, &self.links, &vec![true; self.links.len()])
            }
        }
    }

    /// Name of link direction `d` ("a->b").
    pub fn dir_name(&self, d: usize) -> String {
        let l = &self.links[d / 2];
        let (x, y) = if d.is_multiple_of(2) { (l.a, l.b) } else { (l.b, l.a) };
        format!("{}->{}", self.nodes[x], self.nodes[y])
    }
}

/// What routing depends on: each link's ends and cost.
fn link_keys(links: &[LinkDef]) -> Vec<(usize, usize, u32)> {
    links.iter().map(|l| (l.a, l.b, l.cost)).collect()
}

#[allow(non_upper_case_globals)]
const Target_MAX: usize = crate::engine::Target::MAX_INDEX as usize;

fn tcp_params(f: &FlowSpec, p: &str, packet_size: u32) -> Result<TcpParams> {
    let fp = |k: &str| format!("{p}.{k}");
    let d = TcpParams::default();
    let variant = match f.variant.as_deref() {
        None => d.variant,
        Some("tahoe") => Variant::Tahoe,
        Some("reno") => Variant::Reno,
        Some("newreno") => Variant::NewReno,
        Some(o) => {
            return Err(SimError::invalid(
                &fp("variant"),
                format!("{o:?}"),
                "one of \"tahoe\", \"reno\", \"newreno\"",
            ));
        }
    };
    let newreno = match f.newreno.as_deref() {
        None => d.newreno,
        Some("rfc6582") => NewRenoFlavor::Rfc6582,
        Some("lin_morris") => NewRenoFlavor::LinMorris,
        Some(o) => {
            return Err(SimError::invalid(
                &fp("newreno"),
                format!("{o:?}"),
                "\"rfc6582\" or \"lin_morris\"",
            ));
        }
    };
    let newreno_timer = match f.newreno_timer.as_deref() {
        None => d.newreno_timer,
        Some("impatient") => NewRenoTimer::Impatient,
        Some("steady") => NewRenoTimer::SlowButSteady,
        Some(o) => {
            return Err(SimError::invalid(
                &fp("newreno_timer"),
                format!("{o:?}"),
                "\"impatient\" or \"steady\"",
            ));
        }
    };
    let max_window =
        int_in(f.max_window.unwrap_or(d.max_window as i64), &fp("max_window"), 1, 1 << 30)? as u32;
    let init_cwnd = f.init_cwnd.unwrap_or(d.init_cwnd);
    if !(init_cwnd >= 1.0 && init_cwnd.is_finite()) {
        return Err(SimError::invalid(&fp("init_cwnd"), init_cwnd, ">= 1 packet"));
    }
    let ssthresh = f.ssthresh.unwrap_or(d.ssthresh);
    if !(ssthresh >= 2.0) {
        return Err(SimError::invalid(&fp("ssthresh"), ssthresh, ">= 2 packets"));
    }
    let q = |o: &Option<Quantity>, k: &str, dv: f64| -> Result<f64> {
        match o {
            Some(q) => pos_secs(q, &fp(k)),
            None => Ok(dv),
        }
    };
    let tp = TcpParams {
        variant,
        newreno,
        newreno_timer,
        max_window,
        init_cwnd,
        ssthresh,
        packets: int_in(f.packets.unwrap_or(0), &fp("packets"), 0, u32::MAX as i64 / 2)? as u64,
        packet_size,
        ack_size: match &f.ack_size {
            Some(q) => bytes(q, &fp("ack_size"))?,
            None => d.ack_size,
        },
        delayed_ack: f.delayed_ack.unwrap_or(d.delayed_ack),
        delack_interval: q(&f.delack_interval, "delack_interval", d.delack_interval)?,
        min_rto: q(&f.min_rto, "min_rto", d.min_rto)?,
        max_rto: q(&f.max_rto, "max_rto", d.max_rto)?,
        initial_rto: q(&f.initial_rto, "initial_rto", d.initial_rto)?,
        tick: q(&f.tick, "tick", d.tick)?,
        max_backoff: int_in(
            f.max_backoff.unwrap_or(d.max_backoff as i64),
            &fp("max_backoff"),
            1,
            1 << 20,
        )? as u32,
        dupack_threshold: int_in(
            f.dupack_threshold.unwrap_or(d.dupack_threshold as i64),
            &fp("dupack_threshold"),
            1,
            1000,
        )? as u32,
        ecn: f.ecn.unwrap_or(false),
        tiny_window: f.tiny_window.unwrap_or(false),
        drop: match &f.drop {
            Some(l) => {
                let mut v = Vec::new();
                for (i, s) in l.iter().enumerate() {
                    v.push(int_in(*s, &format!("{p}.drop[{i}]"), 0, u32::MAX as i64 / 2)? as u32);
                }
                v.sort_unstable();
                v
            }
            None => Vec::new(),
        },
    };
    if tp.min_rto > tp.max_rto {
        return Err(SimError::invalid(
            &fp("min_rto"),
            tp.min_rto,
            format!("<= max_rto ({})", tp.max_rto),
        ));
    }
    Ok(tp)
}
