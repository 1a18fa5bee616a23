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
//!
//! The file is first read as written (`spec`: serde structures that refuse unknown
//! keys, enums by name), then section by section, in this order: the top level (here),
//! `links`, `events`, `flows` (with `tcp`), `traces`, and last the routes every flow
//! needs. `read` holds the checks of single values; `normal` the plain-data view of
//! the result.

use aqm::{QueueConfig, Time};
use serde::Deserialize;
use toml::Value;

use crate::error::{Result, SimError};
use crate::net::{Edge, Routes};
use crate::tcp::TcpParams;
use read::{de, int_in, pos_secs, secs};
use spec::ScenarioSpec;

mod events;
mod flows;
mod links;
pub mod memory;
mod normal;
mod profiles;
mod read;
mod spec;
mod tcp;
mod traces;

pub use normal::{NormalDirection, NormalEvent, NormalFlow, NormalLink, NormalTrace, Normalized};
pub use profiles::ProfileUse;

/// The queue a link direction gets when the scenario gives none: Drop Tail with a
/// 50-packet buffer (ns-2's default `queue-limit`).
pub const DEFAULT_QUEUE_LIMIT: u64 = 50;

/// The latest time a scenario may name, ns: 2^62 (about 146 years). Every time a
/// scenario gives (the duration, a start, a delay, a timer) is at most this, so the
/// sum of two of them stays below the clock's end (`Time::MAX`) and no event is ever
/// due at a saturated time.
pub const MAX_TIME_NS: u64 = 1 << 62;
/// [`MAX_TIME_NS`] in seconds.
pub const MAX_SECS: f64 = MAX_TIME_NS as f64 / 1e9;

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
    /// Every link direction's queue holds its packets (`qdisc_path`, default false):
    /// the arrival-time disciplines too run as an `aqm::AnyQdisc` (a `Fifo`), by the
    /// path of the disciplines that decide at dequeue (see `sim::held`); for checking
    /// that path against the FIFO path.
    pub qdisc_path: bool,
    /// Threads the run may use (`threads`, 1 or 2, default 1). With 2, a network that
    /// splits into two parts joined only by merging directions runs each part on its
    /// own thread; the results are those of one thread, bit for bit.
    pub threads: usize,
    /// The memory budget given (`max_memory`, bytes), or `None` for the default, half
    /// of the machine's memory ([`Scenario::memory_budget`]).
    pub max_memory: Option<u64>,
    /// The profiles applied and the keys each filled, table by table (the scenario's
    /// first; see `crate::profile`).
    pub profiles: Vec<ProfileUse>,
    /// The routes with every link up, computed by validation (reused by the run when
    /// the nodes and links they were computed from are unchanged).
    cached_routes: Option<Routes>,
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
    /// Where each direction's queue was given (`link[0].queue`, `link[0].queue_ba`),
    /// for messages.
    pub queue_paths: [String; 2],
    /// Routing cost (hop count by default: 1).
    pub cost: u32,
    /// Packets each direction's device holds below its queue (default 0): the queue
    /// hands a packet on as soon as the device has room, not when the line frees.
    pub device_queue: u32,
}

/// A link going down or up, or changing its rate, at a given time.
#[derive(Clone, Debug)]
pub struct LinkEvent {
    pub at: Time,
    pub link: usize,
    pub action: LinkAction,
}

/// What a [`LinkEvent`] does to its link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinkAction {
    Down,
    Up,
    /// Both directions serve at this rate (b/s) from then on; a packet in
    /// transmission finishes at the rate it started with.
    Rate(f64),
}

impl LinkAction {
    pub fn name(self) -> &'static str {
        match self {
            LinkAction::Down => "down",
            LinkAction::Up => "up",
            LinkAction::Rate(_) => "rate",
        }
    }
}

/// What a flow sends.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// A TCP connection: bulk (`packets` = 0) or finite.
    Tcp,
    /// TELNET-like: TCP whose application writes one packet at exponential intervals of mean `interval`.
    Telnet { interval: f64 },
    /// Constant bit rate over UDP: `batch` back-to-back packets every `interval`
    /// seconds.
    Cbr { interval: f64, batch: u32 },
    /// Poisson packet arrivals, mean interval `interval`.
    Poisson { interval: f64 },
    /// Batches of `batch` packets at Poisson instants of mean interval `interval`.
    BatchPoisson { interval: f64, batch: u32 },
    /// Web mice: TCP transfers arriving as a Poisson process (`arrival_rate` per
    /// second) with Pareto sizes (mean `mean_packets`, shape `shape`), or all of
    /// `mean_packets` packets (`fixed`), carried by a pool of `slots` connections
    /// (flows `first..first + slots`); an arrival finding every connection busy is
    /// counted as rejected.
    Web { arrival_rate: f64, mean_packets: f64, shape: f64, fixed: bool, first: usize, slots: u32 },
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
    /// Link directions whose congestion signals (drops and ECN marks) are traced.
    pub drops: Vec<usize>,
    /// Flows whose cwnd is traced at every change.
    pub cwnd: Vec<usize>,
    /// Link directions whose departing packets go to a pcap file.
    pub pcap: Vec<usize>,
}

impl TraceDef {
    pub fn any(&self) -> bool {
        !(self.queue.is_empty()
            && self.packets.is_empty()
            && self.drops.is_empty()
            && self.cwnd.is_empty()
            && self.pcap.is_empty())
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
        if !v.is_table() {
            return Err(SimError::at("scenario", "expected a table"));
        }
        // (a scenario that names no profile is read as it is: no copy)
        let filled;
        let (v, profiles) = if profiles::named(v) {
            let mut copy = v.clone();
            let uses = profiles::apply(&mut copy)?;
            filled = copy;
            (&filled, uses)
        } else {
            (v, profiles::none())
        };
        let spec: ScenarioSpec = de(v, "")?;
        let (duration, warmup) = run_window(&spec)?;
        let seed = match spec.seed {
            Some(s) => int_in(s, "seed", 0, i64::MAX)? as u64,
            None => 1,
        };
        let net = links::Network::read(&spec.link)?;
        let events = events::read(&spec.event, &net)?;
        let flows = flows::read(&spec.flow, &net, seed)?;
        let max_memory = match &spec.max_memory {
            Some(q) => Some(read::whole_bytes(q, "max_memory")?),
            None => None,
        };
        if let Some((size, who)) = smallest_packet(&flows) {
            links::check_rates(&net.links, size, &who)?;
            events::check_rates(&events, size, &who)?;
            let budget = max_memory.unwrap_or_else(memory::default_budget);
            // (each line at the fastest rate it will have)
            let fastest = events::fastest(&net.links, &events);
            memory::check(&net.nodes, &fastest, &flows, size, budget, max_memory.is_some())?;
        }
        let trace = traces::read(&spec.trace, &net, &flows)?;
        let bottleneck = match &spec.bottleneck {
            Some(name) => Some(net.dir(name, "bottleneck")?),
            None => None,
        };
        let threads = match spec.threads {
            Some(n @ 1..=2) => n as usize,
            Some(n) => return Err(SimError::at("threads", format!("must be 1 or 2, got {n}"))),
            None => 1,
        };
        let mut sc = Scenario {
            cached_routes: None,
            express_hops: spec.express_hops.unwrap_or(true),
            qdisc_path: spec.qdisc_path.unwrap_or(false),
            threads,
            max_memory,
            profiles,
            name: spec.name,
            duration: Time::from_secs_f64(duration),
            warmup: Time::from_secs_f64(warmup),
            seed,
            nodes: net.nodes,
            links: net.links,
            flows,
            events,
            trace,
            bottleneck,
        };
        let routes = sc.routes(&vec![true; sc.links.len()]);
        sc.check_routes(&routes)?;
        sc.cached_routes = Some(routes);
        Ok(sc)
    }

    /// Every flow needs a route both ways (one way for open-loop flows) with all links up.
    fn check_routes(&self, routes: &Routes) -> Result<()> {
        for (id, f) in self.flows.iter().enumerate() {
            let (src, dst) = (&self.nodes[f.src], &self.nodes[f.dst]);
            let path = format!("flow[{}]", f.spec);
            if routes.next(f.src, f.dst).is_none() {
                let msg = format!(
                    "no route from {src} to {dst} (flow {id}); allowed: nodes joined by [[link]]s"
                );
                return Err(SimError::at(&path, msg));
            }
            if f.kind.is_tcp() && routes.next(f.dst, f.src).is_none() {
                let msg = format!("no route back from {dst} to {src} for the ACKs");
                return Err(SimError::at(&path, msg));
            }
        }
        Ok(())
    }

    /// The links as routing sees them.
    pub fn edges(&self) -> Vec<Edge> {
        self.links.iter().map(|l| Edge { a: l.a, b: l.b, cost: l.cost }).collect()
    }

    /// The routes with the links `up[l]` up.
    pub fn routes(&self, up: &[bool]) -> Routes {
        Routes::compute(self.nodes.len(), &self.edges(), up)
    }

    /// The routes with every link up (computed at validation if the nodes and links
    /// have not been changed since).
    pub fn routes_all_up(&self) -> Routes {
        match &self.cached_routes {
            Some(r) if r.nodes() == self.nodes.len() && r.edges() == self.edges() => r.clone(),
            _ => self.routes(&vec![true; self.links.len()]),
        }
    }

    /// The memory budget of the run, bytes: `max_memory`, or half of the machine's
    /// physical memory.
    pub fn memory_budget(&self) -> u64 {
        self.max_memory.unwrap_or_else(memory::default_budget)
    }

    /// Name of link direction `d` ("a->b").
    pub fn dir_name(&self, d: usize) -> String {
        dir_name(&self.nodes, &self.links, d)
    }

    /// The queue configuration of link direction `d`.
    pub fn dir_queue(&self, d: usize) -> &aqm::QueueConfig {
        let l = &self.links[d / 2];
        if d.is_multiple_of(2) { &l.queue_ab } else { &l.queue_ba }
    }

    /// Whether link direction `d` keeps its packets in an `aqm::AnyQdisc`: its
    /// discipline holds them (decides at dequeue, or schedules), its link has a
    /// device queue, or `qdisc_path` asks it of every direction.
    pub fn dir_holds(&self, d: usize) -> bool {
        self.qdisc_path || self.links[d / 2].device_queue > 0 || self.dir_queue(d).holds_packets()
    }
}

/// The smallest packet any flow sends (a data packet, or a TCP flow's ACK) and the
/// field that sets it (`flow[0].ack_size`). Exponential sizes are drawn down to one
/// byte; their mean counts here (a direction gives any packet at least 1 ns).
fn smallest_packet(flows: &[FlowDef]) -> Option<(u32, String)> {
    let mut best: Option<(u32, String)> = None;
    let mut see = |size: u32, who: String| {
        if best.as_ref().is_none_or(|(s, _)| size < *s) {
            best = Some((size, who));
        }
    };
    for f in flows {
        see(f.packet_size, format!("flow[{}].packet_size", f.spec));
        if f.kind.is_tcp() {
            see(f.tcp.ack_size, format!("flow[{}].ack_size", f.spec));
        }
    }
    best
}

/// The run's end and the start of its measurement window, seconds.
fn run_window(spec: &ScenarioSpec) -> Result<(f64, f64)> {
    let Some(duration) = &spec.duration else {
        return Err(SimError::at("duration", "missing; give the length of the run, e.g. \"100s\""));
    };
    let duration = pos_secs(duration, "duration")?;
    let warmup = match &spec.warmup {
        Some(q) => secs(q, "warmup")?,
        None => 0.0,
    };
    if warmup >= duration {
        return Err(SimError::invalid("warmup", warmup, format!("< duration ({duration} s)")));
    }
    Ok((duration, warmup))
}

/// Name of link direction `d` ("a->b") of `links` between `nodes`.
fn dir_name(nodes: &[String], links: &[LinkDef], d: usize) -> String {
    let l = &links[d / 2];
    let (x, y) = if d.is_multiple_of(2) { (l.a, l.b) } else { (l.b, l.a) };
    format!("{}->{}", nodes[x], nodes[y])
}
