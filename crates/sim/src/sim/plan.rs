//! The speed mechanisms' plan, made once when the network is built: which packets may
//! be handed on ahead of their delivery events, and how the network splits for two
//! threads. Every decision is read off the scenario (its links, queues, flows, traces
//! and link events), the routes with every link up and the machine's cores. Nothing
//! here runs during the simulation, and this module uses none of the run-time ones:
//! they read what it decided.
//!
//! What is decided, from what, and what reads it while the simulation runs:
//! - [`Express::from`], an express hop: the one upstream direction whose packets a
//!   direction takes at once. From who feeds each direction ([`Feeds`]: every flow's
//!   data and ACK paths) and which queues may discard or re-time a packet they
//!   accepted ([`evicts`]). Read by `express` (`early_target`).
//! - [`Express::to_host`]: a packet for the host at the far end may be handed to it at
//!   once (the flow deciding too, see [`Hosts`]). From the direction's queue. Read by
//!   `express`.
//! - [`Express::merged`] and the inbox's lookahead ([`Plan::inbox`]): a merging
//!   direction. From its feeders (directions only, several of them), their queues
//!   and their propagation delays. Read by `express` (packets for it go to its inbox),
//!   `inbox` (the batches) and `parts` (the window).
//! - [`Express::any`]: a direction's FIFO may hold slots of packets handed on early.
//!   From the three marks above and the nodes where flows end. Read by `link` (such
//!   slots are forgotten once the clock passes their start).
//! - [`Hosts`]: a flow's receiver or sender may act ahead of the clock. From the
//!   flow's kind, delayed ACKs, preparation delay, stop time and traced window, and
//!   whether its first hop takes packets from that host alone. Read by `express`
//!   (`host_takes`).
//! - [`Split`]: the part of every direction, sender and receiver, and the window's
//!   length. From `threads`, the machine's cores and the flows' paths, cut at the
//!   merging directions. Read by `parts` (the fork, the events each part runs, the
//!   join) and `Sim::threads`.
//!
//! The marks are made only with `express_hops` on and no link events (routes do not
//! change). A traced direction is never handed into and never merges; a direction
//! that holds its packets (see `held`) neither takes nor hands on a packet early; a
//! network with such a direction, a discipline from outside the `aqm` crate (it may
//! not be called from two threads), traces, link events or web mice runs on one thread.
//! `Express::remote` is the one flag set later: `parts` sets it on each part's copy
//! for the merging directions of the other part. Not planned here: the lean path's
//! flag (`Dir::lean`), a cache of a direction's queue and link state, recomputed when
//! its link goes down or up (see `lean`).
//!
//! A packet handed on early must still reach every queue in time order, so that each
//! gives the results of the hop-by-hop run: `express` and `inbox` say why each mark
//! keeps it so, and `parts` why the split does.

use crate::net::Routes;
use crate::scenario::{FlowKind, Scenario};

/// How packets of and for a direction may be handed on ahead of their events (see the
/// list above). All false: the plain hop-by-hop path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Express {
    /// The one upstream direction whose packets this direction receives at once
    /// (an express hop).
    pub(super) from: Option<u32>,
    /// Packets this direction takes to their destination host may be handed to the
    /// host at once (the flow decides as well).
    pub(super) to_host: bool,
    /// Some packet of this direction may be handed on early (to a host at its far end,
    /// to a direction fed by it alone, or to an inbox): its FIFO may hold expressed slots.
    pub(super) any: bool,
    /// Takes its arrivals through an inbox (a merging direction).
    pub(super) merged: bool,
    /// A merging direction run by the other thread: packets for it go to the outbox
    /// (set by `parts` on each part's copy).
    pub(super) remote: bool,
}

/// Whether a flow's hosts may take its packets at once (see `express`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Hosts {
    /// The destination host may take the flow's data at once.
    pub(super) rx: bool,
    /// The source host may take the flow's ACKs at once, its timer allowing.
    pub(super) tx: bool,
}

/// How the network splits for two threads: the part (0 or 1) of every link direction
/// and of every flow's sender and receiver.
#[derive(Debug)]
pub(super) struct Split {
    pub(super) dir_part: Vec<u8>,
    pub(super) tx_part: Vec<u8>,
    pub(super) rx_part: Vec<u8>,
    /// The length of a window, ns: the shortest lookahead of a merging direction fed
    /// from the other part.
    pub(super) window: u64,
}

/// Everything decided at build time.
pub(super) struct Plan {
    /// Per link direction.
    pub(super) express: Vec<Express>,
    /// Per link direction: the lookahead of a merging direction's inbox (the shortest
    /// propagation delay of its feeders, ns), None for the others.
    pub(super) inbox: Vec<Option<u64>>,
    /// Per flow.
    pub(super) hosts: Vec<Hosts>,
    /// The split for two threads, if the scenario asks for them and the network splits.
    pub(super) split: Option<Split>,
}

impl Plan {
    /// The plan for `sc` over `routes` (every link up) on a machine of `cores` cores.
    pub(super) fn of(sc: &Scenario, routes: &Routes, cores: usize) -> Plan {
        let (nd, nf) = (2 * sc.links.len(), sc.flows.len());
        let mut plan = Plan {
            express: vec![Express::default(); nd],
            inbox: vec![None; nd],
            hosts: vec![Hosts::default(); nf],
            split: None,
        };
        if sc.express_hops && sc.events.is_empty() {
            plan.mark(sc, routes);
        }
        // (two threads on one core would only wait for each other)
        let web = sc.flows.iter().any(|f| matches!(f.kind, FlowKind::Web { .. }));
        if sc.threads > 1
            && cores > 1
            && !sc.trace.any()
            && sc.events.is_empty()
            && !web
            && (0..nd).all(|d| {
                !sc.dir_holds(d) && !matches!(sc.dir_queue(d), aqm::QueueConfig::External(_))
            })
        {
            plan.split = split(sc, routes, &plan);
        }
        plan
    }

    /// Find the link directions that can take packets at once from their only upstream
    /// direction, the merging directions, and the hosts that can take a flow's packets
    /// at once. A host counts as a feeder of the first hop of each path it starts, once
    /// per flow and role.
    fn mark(&mut self, sc: &Scenario, routes: &Routes) {
        let feeds = Feeds::of(sc, routes, self.express.len());
        for (d, e) in self.express.iter_mut().enumerate() {
            if feeds.plain.contains(&d) {
                continue;
            }
            e.to_host = !evicts(sc, d);
            if let Seen::One(Feeder::Dir(u)) = feeds.seen[d]
                && !evicts(sc, u as usize)
            {
                e.from = Some(u);
            }
        }
        self.mark_merging(sc, &feeds);
        let mut ends = vec![false; sc.nodes.len()];
        for f in &sc.flows {
            ends[f.dst] = true;
            ends[f.src] = true;
        }
        for d in 0..self.express.len() {
            if self.express[d].to_host && ends[far_end(sc, d)] {
                self.express[d].any = true;
            }
            if let Some(u) = self.express[d].from {
                self.express[u as usize].any = true;
            }
        }
        self.mark_hosts(sc, &feeds);
    }

    /// Make merging directions of those fed by several directions only, none of which
    /// may re-time a packet it accepted, with a positive lookahead; nothing traced.
    fn mark_merging(&mut self, sc: &Scenario, feeds: &Feeds) {
        for d in 0..self.express.len() {
            if !feeds.many(d) || feeds.host_fed[d] || feeds.plain.contains(&d) || evicts(sc, d) {
                continue;
            }
            let up = &feeds.upstream[d];
            if up.iter().any(|&u| evicts(sc, u as usize)) {
                continue;
            }
            let look = up.iter().map(|&u| sc.links[u as usize / 2].delay.0).min().unwrap_or(0);
            if !(2..1 << 40).contains(&look) {
                continue; // (an offset in the span must fit 40 bits of a key)
            }
            self.express[d].merged = true;
            self.inbox[d] = Some(look);
            for &u in up {
                self.express[u as usize].any = true;
            }
        }
    }

    /// A host runs a flow's side ahead of the clock only if nothing else happens to
    /// that side before the packet's arrival (no timer, no application event), and if
    /// the direction it sends into takes packets from it alone, so that this direction
    /// still sees its arrivals in time order.
    fn mark_hosts(&mut self, sc: &Scenario, feeds: &Feeds) {
        for (i, (f, (data, acks))) in sc.flows.iter().zip(&feeds.paths).enumerate() {
            let traced = f.kind.is_tcp() && sc.trace.cwnd.contains(&i);
            if traced {
                continue; // traced windows stay in time order
            }
            let h = &mut self.hosts[i];
            match f.kind {
                FlowKind::Tcp | FlowKind::Telnet { .. } => {
                    h.rx = !f.tcp.delayed_ack && feeds.alone(acks.first(), 2 * i + 1);
                    h.tx = matches!(f.kind, FlowKind::Tcp)
                        && f.prep_delay == 0.0
                        && f.stop.is_none()
                        && feeds.alone(data.first(), 2 * i);
                }
                FlowKind::Web { .. } => {} // (web mice switch connections)
                _ => h.rx = true,
            }
        }
    }
}

/// The node at the far end of link direction `d`.
fn far_end(sc: &Scenario, d: usize) -> usize {
    let l = &sc.links[d / 2];
    if d.is_multiple_of(2) { l.b } else { l.a }
}

/// Whether direction `d`'s discipline may discard a packet it accepted, or decides
/// its departures at dequeue (its packets' arrival times downstream are then not
/// final at acceptance).
fn evicts(sc: &Scenario, d: usize) -> bool {
    sc.dir_queue(d).may_evict() || sc.dir_holds(d)
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
struct Feeds {
    seen: Vec<Seen>,
    /// Every upstream direction of each direction (sorted, once each).
    upstream: Vec<Vec<u32>>,
    /// A host feeds the direction.
    host_fed: Vec<bool>,
    /// Each flow's data and ACK paths.
    paths: Vec<(Vec<usize>, Vec<usize>)>,
    /// Traced directions and those whose queue holds its packets (see `held`): never
    /// expressed into, never merging.
    plain: Vec<usize>,
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
    fn many(&self, d: usize) -> bool {
        self.seen[d] == Seen::Many
    }

    /// Direction `d` exists and takes packets from host `origin` alone.
    fn alone(&self, d: Option<&usize>, origin: usize) -> bool {
        d.is_some_and(|&d| {
            self.seen[d] == Seen::One(Feeder::Host(origin as u32)) && !self.plain.contains(&d)
        })
    }
}

fn find(p: &mut [usize], mut x: usize) -> usize {
    while p[x] != x {
        p[x] = p[p[x]];
        x = p[x];
    }
    x
}

/// Split the network for two threads, if it splits: directions, senders and
/// receivers that a packet can go between without an inbox (`plan`'s merging
/// directions) belong together; the heaviest groups first, each to the lighter part.
fn split(sc: &Scenario, routes: &Routes, plan: &Plan) -> Option<Split> {
    let (nd, nf) = (plan.express.len(), sc.flows.len());
    // Elements: directions, then senders (nd + f), then receivers (nd + nf + f).
    let mut parent: Vec<usize> = (0..nd + 2 * nf).collect();
    let mut weight = vec![0u64; nd + 2 * nf];
    let union = |p: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(p, a), find(p, b));
        if ra != rb {
            p[ra.max(rb)] = ra.min(rb);
        }
    };
    // (merging direction, feeder) pairs: where the cut may go
    let mut cut: Vec<(usize, usize)> = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        let (tx, rx) = (nd + i, nd + nf + i);
        let data = routes.path(f.src, f.dst);
        let acks = if f.kind.is_tcp() { routes.path(f.dst, f.src) } else { Vec::new() };
        weight[tx] += 2;
        weight[rx] += 1;
        let ways: &[(usize, &Vec<usize>, usize)] =
            if f.kind.is_tcp() { &[(tx, &data, rx), (rx, &acks, tx)] } else { &[(tx, &data, rx)] };
        for &(from, p, to) in ways {
            let mut prev = from;
            for &d in p.iter() {
                weight[d] += 1;
                if plan.express[d].merged && prev < nd {
                    cut.push((d, prev));
                } else {
                    union(&mut parent, prev, d);
                }
                prev = d;
            }
            union(&mut parent, prev, to);
        }
    }
    let mut group_weight = vec![0u64; nd + 2 * nf];
    for (x, &w) in weight.iter().enumerate() {
        let r = find(&mut parent, x);
        group_weight[r] += w;
    }
    let mut groups: Vec<usize> =
        (0..nd + 2 * nf).filter(|&x| parent[x] == x && group_weight[x] > 0).collect();
    groups.sort_by_key(|&g| (std::cmp::Reverse(group_weight[g]), g));
    let mut part_of = vec![0u8; nd + 2 * nf];
    let mut load = [0u64; 2];
    for g in groups {
        let p = if load[1] < load[0] { 1 } else { 0 };
        load[p] += group_weight[g];
        part_of[g] = p as u8;
    }
    if load[1] == 0 {
        return None; // one part only
    }
    let part = |x: usize, parent: &mut Vec<usize>| part_of[find(parent, x)];
    let dir_part: Vec<u8> = (0..nd).map(|d| part(d, &mut parent)).collect();
    let tx_part: Vec<u8> = (0..nf).map(|f| part(nd + f, &mut parent)).collect();
    let rx_part: Vec<u8> = (0..nf).map(|f| part(nd + nf + f, &mut parent)).collect();
    let window = cut
        .iter()
        .filter(|&&(d, u)| dir_part[d] != dir_part[u])
        .map(|&(d, _)| plan.inbox[d].expect("a merging direction has a lookahead"))
        .min()
        .unwrap_or(u64::MAX);
    Some(Split { dir_part, tx_part, rx_part, window })
}
