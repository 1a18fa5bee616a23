//! The validated scenario as plain data: every quantity a number in SI units
//! (seconds, b/s, bytes), flows expanded (`count`, web connections), nodes and link
//! directions named, each flow's route computed. This is what the Python front end
//! reads (`aqmlab.Scenario.normalized()`) instead of parsing the file again: one
//! grammar, one routing, one set of defaults.
//!
//! The shape (a contract; keys are only ever added):
//!
//! ```text
//! name, duration, warmup, seed, express_hops, threads, bottleneck (direction or null),
//! qdisc_path, max_memory (bytes as given, or null for the default)
//! nodes:      [name, ...]                                   (a node's id is its index)
//! links:      [{index, a, b, rate_bps, delay, cost, device_queue, queue_ab, queue_ba}]
//! directions: [{index, name "a->b", link, from, to, rate_bps, delay, queue}]
//! flows:      [{id, name, spec, type, src, dst, start, stop, packet_size,
//!               size_distribution, ecn, prep_delay, seed, path, ack_path, bottleneck,
//!               interval, batch, on_time, off_time, shape, arrival_rate, mean_packets,
//!               first, slots, tcp, transfer_sizes}]
//! events:     [{at, link, a, b, action, rate_bps}]
//! trace:      {queue, interval, packets, cwnd, pcap, drops}
//! ```
//!
//! Times are the simulator's clock values (integer nanoseconds) as seconds, the
//! nearest double to each. A queue is its configuration table with the defaults filled in (`type` first);
//! `path` and `ack_path` list the directions a flow's packets and ACKs cross with
//! every link up; `bottleneck` is the direction whose per-flow counters the summary
//! reports. Fields a flow type does not have are null.

use aqm::{QueueConfig, Time};
use serde::Serialize;

use super::{FlowKind, Scenario};
use crate::error::{Result, SimError};
use crate::tcp::TcpParams;

/// See the module documentation.
#[derive(Clone, Debug, Serialize)]
pub struct Normalized {
    pub name: String,
    pub duration: f64,
    pub warmup: f64,
    pub seed: u64,
    pub express_hops: bool,
    pub threads: usize,
    pub qdisc_path: bool,
    pub bottleneck: Option<String>,
    pub max_memory: Option<u64>,
    pub nodes: Vec<String>,
    pub links: Vec<NormalLink>,
    pub directions: Vec<NormalDirection>,
    pub flows: Vec<NormalFlow>,
    pub events: Vec<NormalEvent>,
    pub trace: NormalTrace,
}

#[derive(Clone, Debug, Serialize)]
pub struct NormalLink {
    pub index: usize,
    pub a: String,
    pub b: String,
    pub rate_bps: f64,
    pub delay: f64,
    pub cost: u32,
    pub device_queue: u32,
    pub queue_ab: QueueConfig,
    pub queue_ba: QueueConfig,
}

#[derive(Clone, Debug, Serialize)]
pub struct NormalDirection {
    pub index: usize,
    pub name: String,
    pub link: usize,
    pub from: String,
    pub to: String,
    pub rate_bps: f64,
    pub delay: f64,
    pub queue: QueueConfig,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct NormalFlow {
    pub id: usize,
    pub name: String,
    pub spec: usize,
    #[serde(rename = "type")]
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub start: f64,
    pub stop: Option<f64>,
    pub packet_size: u32,
    pub size_distribution: &'static str,
    pub ecn: bool,
    pub prep_delay: f64,
    pub seed: u64,
    pub path: Vec<String>,
    pub ack_path: Vec<String>,
    pub bottleneck: String,
    /// Seconds between packets (open loop; for `cbr` and `batch_poisson` between
    /// batches) or between a TELNET source's writes.
    pub interval: Option<f64>,
    pub batch: Option<u32>,
    pub on_time: Option<f64>,
    pub off_time: Option<f64>,
    pub shape: Option<f64>,
    pub arrival_rate: Option<f64>,
    pub mean_packets: Option<f64>,
    /// Web mice: the transfers' sizes, "pareto" or "fixed" (`size_distribution` of a
    /// web entry; the flows' `size_distribution` is that of their packets).
    pub transfer_sizes: Option<&'static str>,
    /// Web mice: the group's first connection and the number of connections.
    pub first: Option<usize>,
    pub slots: Option<u32>,
    pub tcp: Option<TcpParams>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NormalEvent {
    pub at: f64,
    pub link: usize,
    pub a: String,
    pub b: String,
    pub action: &'static str,
    /// The new rate of a `rate` event, b/s (null for down and up).
    pub rate_bps: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NormalTrace {
    pub queue: Vec<String>,
    pub interval: f64,
    pub packets: Vec<String>,
    pub cwnd: Vec<usize>,
    pub pcap: Vec<String>,
    pub drops: Vec<String>,
}

/// A clock value in seconds: the nearest double (`as_secs_f64` multiplies by 1e-9,
/// which can land an ulp away: 120 s would read 120.00000000000001).
fn secs(t: Time) -> f64 {
    t.0 as f64 / 1e9
}

impl Scenario {
    /// The link direction whose per-flow counters the summary reports for a flow taking
    /// `path`: the scenario's `bottleneck` if the path crosses it, else the slowest
    /// direction on the path (the first of equals).
    pub fn flow_bottleneck(&self, path: &[usize]) -> usize {
        match self.bottleneck {
            Some(b) if path.contains(&b) => b,
            _ => {
                let rate = |d: usize| self.links[d / 2].rate_bps.round().clamp(1.0, 1e15) as u64;
                let mut best = path[0];
                for &d in path {
                    if rate(d) < rate(best) {
                        best = d;
                    }
                }
                best
            }
        }
    }

    /// The link events as plain data.
    fn normal_events(&self) -> Vec<NormalEvent> {
        let node = |l: usize, b: bool| {
            let l = &self.links[l];
            self.nodes[if b { l.b } else { l.a }].clone()
        };
        (self.events.iter())
            .map(|e| NormalEvent {
                at: secs(e.at),
                link: e.link,
                a: node(e.link, false),
                b: node(e.link, true),
                action: e.action.name(),
                rate_bps: match e.action {
                    super::LinkAction::Rate(bps) => Some(bps),
                    _ => None,
                },
            })
            .collect()
    }

    /// The links and the link directions, queues normalised.
    fn normal_links(&self) -> Result<(Vec<NormalLink>, Vec<NormalDirection>)> {
        let queue = |q: &QueueConfig, path: String| {
            q.normalized().map_err(|e| SimError::Scenario(e.at(&path).to_string()))
        };
        let mut links = Vec::with_capacity(self.links.len());
        let mut directions = Vec::with_capacity(2 * self.links.len());
        for (i, l) in self.links.iter().enumerate() {
            let (queue_ab, queue_ba) = (
                queue(&l.queue_ab, format!("link[{i}].queue_ab"))?,
                queue(&l.queue_ba, format!("link[{i}].queue_ba"))?,
            );
            for (side, (from, to, q)) in
                [(l.a, l.b, &queue_ab), (l.b, l.a, &queue_ba)].into_iter().enumerate()
            {
                directions.push(NormalDirection {
                    index: 2 * i + side,
                    name: self.dir_name(2 * i + side),
                    link: i,
                    from: self.nodes[from].clone(),
                    to: self.nodes[to].clone(),
                    rate_bps: l.rate_bps,
                    delay: secs(l.delay),
                    queue: q.clone(),
                });
            }
            links.push(NormalLink {
                index: i,
                a: self.nodes[l.a].clone(),
                b: self.nodes[l.b].clone(),
                rate_bps: l.rate_bps,
                delay: secs(l.delay),
                cost: l.cost,
                device_queue: l.device_queue,
                queue_ab,
                queue_ba,
            });
        }
        Ok((links, directions))
    }

    /// The scenario as plain data (see the module documentation).
    pub fn normalized(&self) -> Result<Normalized> {
        let (links, directions) = self.normal_links()?;
        let routes = self.routes_all_up();
        let names = |p: &[usize]| p.iter().map(|&d| self.dir_name(d)).collect::<Vec<_>>();
        let mut flows = Vec::with_capacity(self.flows.len());
        for (id, f) in self.flows.iter().enumerate() {
            let path = routes.path(f.src, f.dst);
            let ack_path = if f.kind.is_tcp() { routes.path(f.dst, f.src) } else { Vec::new() };
            let mut n = NormalFlow {
                id,
                name: f.name.clone(),
                spec: f.spec,
                kind: f.kind.name().to_string(),
                src: self.nodes[f.src].clone(),
                dst: self.nodes[f.dst].clone(),
                start: secs(f.start),
                stop: f.stop.map(secs),
                packet_size: f.packet_size,
                size_distribution: if f.exponential_sizes { "exponential" } else { "fixed" },
                ecn: f.ecn,
                prep_delay: f.prep_delay,
                seed: f.seed,
                bottleneck: self.dir_name(self.flow_bottleneck(&path)),
                path: names(&path),
                ack_path: names(&ack_path),
                tcp: f.kind.is_tcp().then(|| {
                    let mut p = f.tcp.clone();
                    p.packet_size = f.packet_size;
                    p.ecn = f.ecn;
                    p
                }),
                ..Default::default()
            };
            match f.kind {
                FlowKind::Tcp => {}
                FlowKind::Telnet { interval } | FlowKind::Poisson { interval } => {
                    n.interval = Some(interval)
                }
                FlowKind::Cbr { interval, batch } | FlowKind::BatchPoisson { interval, batch } => {
                    (n.interval, n.batch) = (Some(interval), Some(batch));
                }
                FlowKind::ParetoOnOff { interval, on_time, off_time, shape } => {
                    n.interval = Some(interval);
                    (n.on_time, n.off_time, n.shape) = (Some(on_time), Some(off_time), Some(shape));
                }
                FlowKind::Web { arrival_rate, mean_packets, shape, fixed, first, slots } => {
                    (n.arrival_rate, n.mean_packets) = (Some(arrival_rate), Some(mean_packets));
                    n.transfer_sizes = Some(if fixed { "fixed" } else { "pareto" });
                    (n.shape, n.first, n.slots) = (Some(shape), Some(first), Some(slots));
                }
            }
            flows.push(n);
        }
        let events = self.normal_events();
        let dirs = |v: &[usize]| v.iter().map(|&d| self.dir_name(d)).collect::<Vec<_>>();
        Ok(Normalized {
            name: self.name.clone(),
            duration: secs(self.duration),
            warmup: secs(self.warmup),
            seed: self.seed,
            express_hops: self.express_hops,
            threads: self.threads,
            qdisc_path: self.qdisc_path,
            bottleneck: self.bottleneck.map(|d| self.dir_name(d)),
            max_memory: self.max_memory,
            nodes: self.nodes.clone(),
            links,
            directions,
            flows,
            events,
            trace: NormalTrace {
                queue: dirs(&self.trace.queue),
                interval: secs(self.trace.interval),
                packets: dirs(&self.trace.packets),
                cwnd: self.trace.cwnd.clone(),
                pcap: dirs(&self.trace.pcap),
                drops: dirs(&self.trace.drops),
            },
        })
    }
}
