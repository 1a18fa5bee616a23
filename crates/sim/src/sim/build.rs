//! Building a simulation from a validated scenario: the link directions and their
//! disciplines, the flows, the traces, the speed mechanisms' plan (made by `plan`)
//! applied to them, and the first events.

use std::path::Path;

use aqm::Time;

use super::Sim;
use super::event::Kind;
use super::flow::Flow;
use super::guard;
use super::inbox::Merge;
use super::link::Dir;
use super::plan::Plan;
use super::queue::Queue;
use crate::engine::EventQueue;
use crate::error::{Result, SimError};
use crate::rng::stream_seed;
use crate::scenario::Scenario;
use crate::trace::{TraceFiles, Traces};

/// Both directions of every link, `2 * link + side`, each with its discipline seeded
/// from the scenario seed and the direction.
fn build_dirs(sc: &Scenario) -> Result<Vec<Dir>> {
    let window = (sc.warmup.0, sc.duration.0);
    let mut dirs = Vec::with_capacity(sc.links.len() * 2);
    for (i, l) in sc.links.iter().enumerate() {
        for (side, (qc, to)) in [(&l.queue_ab, l.b), (&l.queue_ba, l.a)].into_iter().enumerate() {
            let seed = stream_seed(sc.seed, "queue", i as u64, side as u64);
            let path = format!("link[{i}].{}", if side == 0 { "queue_ab" } else { "queue_ba" });
            let holds = sc.dir_holds(2 * i + side).then_some(l.device_queue);
            dirs.push(Dir::new(qc, holds, &path, to, l.rate_bps, l.delay.0, seed, window)?);
        }
    }
    Ok(dirs)
}

/// Every flow, counted at its bottleneck direction (which then keeps per-flow counters).
fn build_flows(sc: &Scenario, routes: &crate::net::Routes, dirs: &mut [Dir]) -> Vec<Flow> {
    let nflows = sc.flows.len();
    let mut flows = Vec::with_capacity(nflows);
    for (id, f) in sc.flows.iter().enumerate() {
        let path = routes.path(f.src, f.dst);
        let bottleneck = sc.flow_bottleneck(&path);
        if dirs[bottleneck].flow_bytes.is_empty() {
            dirs[bottleneck].flow_bytes = vec![0; nflows];
            dirs[bottleneck].flow_arrivals = vec![0; nflows];
        }
        flows.push(Flow::new(id, f, bottleneck));
    }
    flows
}

/// Open the traces the scenario asks for in `trace_dir` and flag what they watch.
fn open_traces(
    sc: &Scenario,
    trace_dir: Option<&Path>,
    dirs: &mut [Dir],
    flows: &mut [Flow],
) -> Result<Option<Box<Traces>>> {
    if !sc.trace.any() {
        return Ok(None);
    }
    let Some(dir) = trace_dir else {
        return Err(SimError::at("trace", "traces asked for but no output directory given"));
    };
    for &d in &sc.trace.packets {
        dirs[d].trace.pkts = true;
    }
    for &d in &sc.trace.pcap {
        dirs[d].trace.pcap = true;
    }
    for &d in &sc.trace.drops {
        dirs[d].trace.signals = true;
    }
    if sc.trace.interval.0 == 0 {
        for &d in &sc.trace.queue {
            dirs[d].trace.q_every_arrival = true;
        }
    }
    for &f in &sc.trace.cwnd {
        flows[f].trace_cwnd = flows[f].tcp.is_some();
    }
    let names: Vec<String> = (0..dirs.len()).map(|d| sc.dir_name(d)).collect();
    let on = TraceFiles {
        queue: !sc.trace.queue.is_empty(),
        packets: !sc.trace.packets.is_empty(),
        drops: !sc.trace.drops.is_empty(),
        cwnd: !sc.trace.cwnd.is_empty(),
        bbr: sc.trace.cwnd.iter().any(|&f| sc.flows[f].tcp.bbr.is_some()),
    };
    Ok(Some(Box::new(Traces::open(dir, on, &sc.trace.pcap, names)?)))
}

/// The events that start the run: each flow's start and stop, the window's opening,
/// the link events and the first queue samples.
fn first_events(sc: &Scenario, flows: &[Flow]) -> EventQueue {
    let mut q = EventQueue::new();
    for (i, f) in flows.iter().enumerate() {
        if f.start <= sc.duration.0 {
            q.push(Time(f.start), Kind::Send.at(i));
        }
        if let Some(s) = f.stop {
            q.push(Time(s), Kind::Stop.at(i));
        }
    }
    if sc.warmup.0 > 0 {
        q.push(sc.warmup, Kind::Warmup.at(0));
    }
    for (i, e) in sc.events.iter().enumerate() {
        q.push(e.at, Kind::Link.at(i));
    }
    if sc.trace.interval.0 > 0 {
        for i in 0..sc.trace.queue.len() {
            q.push(Time(0), Kind::Sample.at(i));
        }
    }
    q
}

impl Sim {
    /// Build the network. `trace_dir` receives the traces the scenario asks for
    /// (an error if it asks for some and none is given).
    pub fn new(sc: Scenario, trace_dir: Option<&Path>) -> Result<Sim> {
        let mut dirs = build_dirs(&sc)?;
        let routes = sc.routes_all_up();
        let mut flows = build_flows(&sc, &routes, &mut dirs);
        let traces = open_traces(&sc, trace_dir, &mut dirs, &mut flows)?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let plan = Plan::of(&sc, &routes, cores);
        for (d, dir) in dirs.iter_mut().enumerate() {
            dir.express = plan.express[d];
            dir.merge = plan.inbox[d].map(|look| Box::new(Merge::new(look, dir.rate_bps)));
            if sc.express_hops {
                dir.lean = dir.lean_limit();
            }
        }
        for (fl, h) in flows.iter_mut().zip(&plan.hosts) {
            (fl.rx_express, fl.tx_express) = (h.rx, h.tx);
        }
        let has_web = flows.iter().any(|f| f.web.is_some());
        let mut sim = Sim {
            now: 0,
            end: sc.duration.0,
            w0: sc.warmup.0,
            w1: sc.duration.0,
            q: {
                let mut q = first_events(&sc, &flows);
                q.checkpoint_in(guard::CHECK_EVERY);
                q
            },
            link_up: vec![true; sc.links.len()],
            dirs,
            routes,
            flows,
            out: Vec::with_capacity(64),
            out_from: 0,
            traces,
            finished: false,
            has_web,
            wall: std::time::Instant::now(),
            busiest: 0,
            horizon: 0,
            in_host: false,
            split: plan.split.map(Box::new),
            outbox: Vec::new(),
            other: None,
            cap: u64::MAX,
            pace: super::pace::Pace::default(),
            guard: guard::Guard::new(sc.memory_budget()),
            sc,
        };
        for d in 0..sim.dirs.len() {
            if matches!(sim.dirs[d].queue, Queue::Held(_)) {
                sim.rearm_poll(d);
            }
        }
        sim.check_dirs();
        Ok(sim)
    }
}
