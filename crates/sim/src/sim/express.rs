//! Express hops: handing a packet on at acceptance instead of at its delivery event.
//!
//! When a link direction D can receive packets from one upstream direction U only
//! (every flow's path that enters D comes through U, routes are static because no link
//! goes down, U never discards a packet already accepted, and D is not traced), the
//! time a packet accepted by U reaches D is known at once: U's departure schedule plus
//! its delay. The packet is then offered to D right away, stamped with that arrival
//! time, and U schedules no delivery event for it. D still sees its arrivals in time
//! order (U is a FIFO and the only feeder), so the AQMs, monitors and summaries are
//! those of the hop-by-hop run.
//!
//! The same holds for the host at the end of a path, when nothing else can happen to
//! the flow's side there before the packet arrives: a TCP receiver without delayed ACKs
//! (no timer), an open-loop sink, and a TCP sender whose retransmission timer is not
//! due by the ACK's arrival (no preparation delay, no stop time, not telnet or web
//! mice). The host then acts at once with the clock moved to the arrival time, provided
//! the first link direction it sends into takes packets from it alone (so that
//! direction still sees its arrivals in time order) and it is not already inside
//! another host's turn.
//!
//! Nothing is handed on early past the time `run_until` runs to (the horizon), nor
//! ahead of a packet of the same direction still waiting for its delivery event, so
//! the state at every stop of `run_until` is exactly that of the hop-by-hop run
//! (`express_hops = false`); only the order in which the engine computes it differs.
//! A direction keeps the slots of packets it handed on (flagged `EXPRESS`) until the
//! clock passes their start, so that the queue it has at the clock can be counted.
//! docs/simulator.md ("Express hops", "Express hosts") has the measured effect.

use super::Sim;
use super::flow::Flow;
use super::inbox::mark_merging;
use super::link::Dir;
use crate::net::Routes;
use crate::packet::{Pkt, flags};
use crate::scenario::{FlowKind, Scenario};

/// Where a packet is handed on at once.
#[derive(Clone, Copy)]
pub(super) enum Early {
    /// The next link direction, fed by this one alone.
    Dir(usize),
    /// The destination host.
    Host,
    /// The inbox of the next direction, a merging one (see `inbox`).
    Inbox(usize),
}

/// What feeds a direction: an upstream direction, or a host starting a path (flow
/// `2 * flow + role`, role 0 = sender, 1 = receiver).
#[derive(Clone, Copy, PartialEq)]
enum Feeder {
    Dir(u32),
    Host(u32),
}

/// Per direction: no feeder seen, exactly one, or several.
#[derive(Clone, Copy, PartialEq)]
enum Seen {
    None,
    One(Feeder),
    Many,
}

/// Who feeds each direction, read off every flow's path (data, and ACKs for TCP).
pub(super) struct Feeds {
    seen: Vec<Seen>,
    /// Every upstream direction of each direction (sorted, once each).
    pub(super) upstream: Vec<Vec<u32>>,
    /// A host feeds the direction.
    pub(super) host_fed: Vec<bool>,
    /// Each flow's data and ACK paths.
    paths: Vec<(Vec<usize>, Vec<usize>)>,
    /// Traced directions and those whose queue holds its packets (see `held`): never
    /// expressed into, never merging.
    pub(super) plain: Vec<usize>,
}

impl Feeds {
    fn of(sc: &Scenario, routes: &Routes, n_dirs: usize) -> Feeds {
        let mut feeds = Feeds {
            seen: vec![Seen::None; n_dirs],
            upstream: vec![Vec::new(); n_dirs],
            host_fed: vec![false; n_dirs],
            paths: Vec::with_capacity(sc.flows.len()),
            plain: sc
                .trace
                .queue
                .iter()
                .chain(&sc.trace.packets)
                .chain(&sc.trace.pcap)
                .chain(&sc.trace.drops)
                .copied()
                .chain((0..n_dirs).filter(|&d| sc.dir_holds(d)))
                .collect(),
        };
        for (i, f) in sc.flows.iter().enumerate() {
            let data = routes.path(f.src, f.dst);
            let acks = if f.kind.is_tcp() { routes.path(f.dst, f.src) } else { Vec::new() };
            for (role, p) in [&data, &acks].into_iter().enumerate() {
                if let Some(&first) = p.first() {
                    feeds.note(first, Feeder::Host((2 * i + role) as u32));
                }
                for w in p.windows(2) {
                    feeds.note(w[1], Feeder::Dir(w[0] as u32));
                }
            }
            feeds.paths.push((data, acks));
        }
        for u in feeds.upstream.iter_mut() {
            u.sort_unstable();
            u.dedup();
        }
        feeds
    }

    fn note(&mut self, d: usize, f: Feeder) {
        match f {
            Feeder::Dir(u) => self.upstream[d].push(u),
            Feeder::Host(_) => self.host_fed[d] = true,
        }
        self.seen[d] = match self.seen[d] {
            Seen::None => Seen::One(f),
            Seen::One(g) if g == f => Seen::One(g),
            _ => Seen::Many,
        };
    }

    /// Fed by several directions or hosts.
    pub(super) fn many(&self, d: usize) -> bool {
        self.seen[d] == Seen::Many
    }

    /// Direction `d` exists and takes packets from host `origin` alone.
    fn alone(&self, d: Option<&usize>, origin: usize) -> bool {
        d.is_some_and(|&d| {
            self.seen[d] == Seen::One(Feeder::Host(origin as u32)) && !self.plain.contains(&d)
        })
    }
}

/// Whether direction `d`'s discipline may discard a packet it accepted, or decides
/// its departures at dequeue (its packets' arrival times downstream are then not
/// final at acceptance).
pub(super) fn evicts(sc: &Scenario, d: usize) -> bool {
    sc.dir_queue(d).may_evict() || sc.dir_holds(d)
}

/// Find the link directions that can take packets at once from their only upstream
/// direction, the merging directions, and the hosts that can take a flow's packets at
/// once. A host counts as a feeder of the first hop of each path it starts, once per
/// flow and role.
pub(super) fn mark_express(sc: &Scenario, routes: &Routes, dirs: &mut [Dir], flows: &mut [Flow]) {
    let feeds = Feeds::of(sc, routes, dirs.len());
    for (d, dir) in dirs.iter_mut().enumerate() {
        if feeds.plain.contains(&d) {
            continue;
        }
        dir.express.to_host = !evicts(sc, d);
        if let Seen::One(Feeder::Dir(u)) = feeds.seen[d]
            && !evicts(sc, u as usize)
        {
            dir.express.from = Some(u);
        }
    }
    mark_merging(sc, &feeds, dirs);
    let mut ends = vec![false; sc.nodes.len()];
    for f in &sc.flows {
        ends[f.dst] = true;
        ends[f.src] = true;
    }
    for d in 0..dirs.len() {
        if dirs[d].express.to_host && ends[dirs[d].to as usize] {
            dirs[d].express.any = true;
        }
        if let Some(u) = dirs[d].express.from {
            dirs[u as usize].express.any = true;
        }
    }
    mark_hosts(sc, &feeds, flows);
}

/// A host runs a flow's side ahead of the clock only if nothing else happens to that
/// side before the packet's arrival (no timer, no application event), and if the
/// direction it sends into takes packets from it alone, so that this direction still
/// sees its arrivals in time order.
fn mark_hosts(sc: &Scenario, feeds: &Feeds, flows: &mut [Flow]) {
    for (i, (f, (data, acks))) in sc.flows.iter().zip(&feeds.paths).enumerate() {
        let fl = &mut flows[i];
        if fl.trace_cwnd || fl.web.is_some() {
            continue; // traced windows stay in time order; web mice switch connections
        }
        match f.kind {
            FlowKind::Tcp | FlowKind::Telnet { .. } => {
                fl.rx_express = !f.tcp.delayed_ack && feeds.alone(acks.first(), 2 * i + 1);
                fl.tx_express = matches!(f.kind, FlowKind::Tcp)
                    && fl.prep_delay == 0.0
                    && fl.stop.is_none()
                    && feeds.alone(data.first(), 2 * i);
            }
            FlowKind::Web { .. } => {}
            _ => fl.rx_express = true,
        }
    }
}

/// Whether the host at the end of `pkt`'s path can take it at `at`: a receiver
/// without timers always; a sender only if its retransmission timer is not due by
/// then, and if the packet does not cross the start of the window (the sender's
/// counters are read at that instant).
#[inline]
fn host_takes(fl: &Flow, pkt: &Pkt, at: u64, clock: u64, w0: u64) -> bool {
    if !pkt.is_ack() {
        return fl.rx_express;
    }
    fl.tx_express
        && !(w0 > 0 && clock <= w0 && at > w0)
        && fl.tcp.as_ref().is_some_and(|t| t.0.rtx_deadline.is_none_or(|d| d.0 > at))
}

impl Sim {
    /// Where a packet that direction `d` accepted, arriving at the far end at `at`, can
    /// be handed on at once: the inbox of the next direction if that one merges (an
    /// inbox sorts what it is given and offers nothing past the horizon, so it is
    /// always open); else, only if `open` (the packet arrives by the horizon and no
    /// packet of `d` waits for its delivery event), the next direction if it is fed by
    /// `d` alone and `d` is not itself running ahead, or the destination host if it can
    /// take the packet then, except from within another host's turn (a host's packets
    /// must enter its first link in time order).
    #[inline(always)]
    pub(super) fn early_target(&self, d: usize, pkt: &Pkt, at: u64, open: bool) -> Option<Early> {
        let dir = &self.dirs[d];
        let node = dir.to as usize;
        if pkt.dst as usize == node {
            let ok = open
                && dir.express.to_host
                && !self.in_host
                && host_takes(&self.flows[pkt.flow as usize], pkt, at, self.now, self.w0);
            return ok.then_some(Early::Host);
        }
        let e = self.routes.next(node, pkt.dst as usize)?;
        if self.dirs[e].express.merged {
            return Some(Early::Inbox(e));
        }
        (open && dir.express.from.is_none() && self.dirs[e].express.from == Some(d as u32))
            .then_some(Early::Dir(e))
    }

    /// Hand `pkt`, accepted by direction `d` and arriving at the far end at `at`, on to
    /// `target` at once.
    #[inline(always)]
    pub(super) fn hand_on(&mut self, target: Early, d: usize, pkt: Pkt, at: u64) {
        match target {
            Early::Dir(e) => self.enqueue(e, pkt, at),
            Early::Host => self.host_turn(pkt, at),
            Early::Inbox(e) => self.inbox_push(e, at, d as u32, pkt),
        }
    }

    /// The destination host takes `pkt` at its arrival time `at`: the clock is moved
    /// there for it.
    #[inline(always)]
    fn host_turn(&mut self, pkt: Pkt, at: u64) {
        let clock = self.now;
        self.now = at;
        self.in_host = true;
        self.receive(pkt);
        self.in_host = false;
        self.now = clock;
    }

    /// Hand on early the packets of direction `d` still waiting for their delivery event
    /// (in order, while the next one can go: it arrives by the horizon and its next hop
    /// or host takes it at once). Called when `run_until` moves the horizon: packets
    /// that arrive past the previous one wait for their event, and without this every
    /// later packet of a busy direction would wait behind them.
    #[inline(never)]
    pub(super) fn catch_up(&mut self, d: usize) {
        let mut handed = false;
        while self.dirs[d].n_plain > 0 {
            let dir = &self.dirs[d];
            let idx = dir
                .q
                .iter()
                .position(|s| s.pkt.flags & flags::EXPRESS == 0)
                .expect("n_plain counts the plain slots");
            let s = dir.q[idx];
            let at = s.end + dir.delay;
            if at > self.horizon {
                break;
            }
            let Some(target) = self.early_target(d, &s.pkt, at, true) else { break };
            let dir = &mut self.dirs[d];
            dir.q[idx].pkt.flags |= flags::EXPRESS;
            dir.n_plain -= 1;
            // its delivery event (it was the first plain slot) goes stale
            dir.scheduled = None;
            handed = true;
            self.hand_on(target, d, s.pkt, at);
        }
        if handed && self.dirs[d].n_plain > 0 && self.dirs[d].scheduled.is_none() {
            self.schedule_head(d);
        }
    }
}
