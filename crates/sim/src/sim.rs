//! The simulator: link directions with their output queues, flows, and the event loop.
//!
//! ## One event per hop
//! A FIFO line's departure schedule is known when a packet is accepted: it starts
//! transmitting at `max(now, busy_until)` and arrives at the far end `tx + delay`
//! later. So a link direction keeps its packets in one FIFO of slots
//! `(enqueued, start, end, packet)` — waiting, in transmission, or propagating — and
//! the event queue holds a single entry per link direction: the time its head packet
//! reaches the far end. The AQM is told of a packet leaving the buffer (at its `start`)
//! lazily, before the next arrival at that queue or a sample, in time order, so it sees
//! exactly the sequence of arrivals and removals a per-packet dequeue event would give.
//! An eviction (drop-from-front, Random Drop) re-times the waiting packets behind it.
//!
//! ## Express hops
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
//! another host's turn. A dumbbell then needs about one event per data packet and one
//! per ACK: the arrivals at the two shared router queues.
//!
//! Nothing is handed on early past the time `run_until` runs to, nor ahead of a packet
//! of the same direction still waiting for its delivery event, so the state at every
//! stop of `run_until` is exactly that of the hop-by-hop run (`express_hops = false`);
//! only the order in which the engine computes it differs.

use std::collections::VecDeque;
use std::path::Path;

use aqm::config::BuildContext;
use aqm::{AnyAqm, Backlog, DropReason, QueueDiscipline, Time, Verdict};
use rand::Rng;

use crate::engine::{EventQueue, Target};
use crate::error::{Result, SimError};
use crate::monitor::{DirMon, FlowMon, FlowSummary, LinkSummary, Summary};
use crate::net::Routes;
use crate::packet::{Pkt, flags};
use crate::rng::{SimRng, stream_rng, stream_seed};
use crate::scenario::{FlowKind, Scenario};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::trace::Traces;

mod parts;
use parts::{Handover, Plan, plan_parts};

const K_DELIVER: u8 = 0;
const K_SEND: u8 = 1;
const K_RTO: u8 = 2;
const K_DELACK: u8 = 3;
const K_LINK: u8 = 4;
const K_SAMPLE: u8 = 5;
const K_APP: u8 = 6;
const K_STOP: u8 = 7;
const K_WARMUP: u8 = 8;
const K_MERGE: u8 = 9;

/// Where a packet is handed on at once (see "Express hops").
#[derive(Clone, Copy)]
enum Early {
    /// The next link direction, fed by this one alone.
    Dir(usize),
    /// The destination host.
    Host,
    /// The inbox of the next direction, a merging one (see "Merging directions").
    Inbox(usize),
}

/// A direction fed by several directions whose packets it takes in batches ahead of
/// the clock (see "Merging directions").
#[derive(Clone)]
struct Merge {
    /// The shortest propagation delay of the feeding directions: nothing can arrive
    /// sooner than this after the clock.
    look: u64,
    /// Batch events fall on multiples of `2^span` ns, the largest power of two not
    /// above `look`: a batch at such a time takes all of its span, and more.
    span: u32,
    /// Buckets are `2^fine` ns wide, half a span, so that each holds a few packets
    /// (sorted by insertion) and a batch visits few empty ones.
    fine: u32,
    /// Packets handed over and not yet offered, in buckets of arrival time
    /// `[k 2^fine, (k + 1) 2^fine)` from `k = base` on, each unsorted until its batch:
    /// a key `(arrival time - k 2^fine) << 24 | feeding direction` (ties go in
    /// direction order, as simultaneous deliveries do; a direction delivers one packet
    /// at a time) and the packet.
    buckets: VecDeque<Vec<(u64, Pkt)>>,
    base: u64,
    /// Emptied buckets, kept for their allocations.
    spare: Vec<Vec<(u64, Pkt)>>,
    /// Arrivals before this time have been offered.
    frontier: u64,
    /// Time of the pending batch event.
    at: Option<u64>,
}

impl Merge {
    fn new(look: u64) -> Merge {
        let span = 63 - look.leading_zeros();
        Merge {
            look,
            span,
            fine: span.saturating_sub(1),
            buckets: VecDeque::new(),
            base: 0,
            spare: Vec::new(),
            frontier: 0,
            at: None,
        }
    }
    /// The batch time for an arrival at `t`: the start of its span, which is less than
    /// a lookahead before it.
    #[inline(always)]
    fn batch_time(&self, t: u64) -> u64 {
        t >> self.span << self.span
    }
}

/// Sort a bucket of an inbox by key: insertion for the few packets a bucket holds.
fn sort_bucket(v: &mut [(u64, Pkt)]) {
    if v.len() > 24 {
        v.sort_unstable_by_key(|e| e.0);
        return;
    }
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].0 > x.0 {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    enq: u64,
    start: u64,
    end: u64,
    pkt: Pkt,
}

/// Laid out by hand, the fields every packet touches first (two cache lines).
#[derive(Clone)]
#[repr(C)]
struct Dir {
    q: VecDeque<Slot>,
    busy_until: u64,
    /// The largest packet that takes the lean path of `enqueue` (an idle line and an
    /// empty buffer of a plain Drop Tail, nothing per flow, nothing traced); 0 = none
    /// (while the link is down as well).
    lean: u64,
    delay: u64,
    /// Transmission time of the last packet size seen (see `tx_ns`).
    last_tx: u64,
    rate_bps: u64,
    bytes_waiting: u64,
    /// Slots at the front that have left the buffer (in transmission or propagating).
    n_started: usize,
    /// Slots in `q` that need a delivery event (not expressed to the next hop).
    n_plain: usize,
    /// Time of this direction's pending delivery event.
    scheduled: Option<u64>,
    /// The one upstream direction whose packets this direction receives at once
    /// (see "Express hops").
    express_from: Option<u32>,
    last_size: u32,
    to: u16,
    up: bool,
    /// Packets this direction takes to their destination host may be handed to the
    /// host at once (see "Express hops"; the flow decides as well).
    host_express: bool,
    /// Some packet of this direction may be handed on early (to a host at its far end
    /// or to a direction fed by it alone): its FIFO may hold expressed slots.
    expresses: bool,
    /// The discipline keeps an average (RED family, FRED).
    has_avg: bool,
    /// Takes its arrivals through an inbox (see "Merging directions").
    merged: bool,
    /// A merging direction run by the other thread (see "Two threads"): packets for
    /// it go to the outbox.
    remote: bool,
    /// A plain Drop Tail's buffer: its decision needs nothing else.
    tail_limit: Option<aqm::Limit>,
    trace_pkts: bool,
    trace_q_every_arrival: bool,
    pcap: bool,
    /// Per-flow data bytes departing / packets arriving (only for flows whose bottleneck this is).
    flow_bytes: Vec<u64>,
    flow_arrivals: Vec<u64>,
    merge: Option<Box<Merge>>,
    mon: DirMon,
    aqm: AnyAqm,
}

impl Dir {
    /// The value of `lean` for this direction with its link up.
    fn lean_limit(&self) -> u64 {
        match self.tail_limit {
            Some(l)
                if l.packets != Some(0)
                    && self.flow_bytes.is_empty()
                    && self.flow_arrivals.is_empty()
                    && !(self.trace_pkts || self.trace_q_every_arrival || self.pcap) =>
            {
                l.bytes.unwrap_or(u64::MAX)
            }
            _ => 0,
        }
    }
    /// Transmission time of `size` bytes, ns (rounded; at least 1). `size` < 2^16 and
    /// the rate is clamped to [1, 2^63 / 2] b/s, so the product fits in 64 bits.
    #[inline]
    fn tx_ns(&mut self, size: u32) -> u64 {
        // Most packets of a direction have the size of the one before (data or ACKs):
        // the last size's time is kept, which spares a 64-bit division.
        if size != self.last_size {
            let r = self.rate_bps;
            self.last_size = size;
            self.last_tx = ((size as u64 * 8_000_000_000 + r / 2) / r).max(1);
        }
        self.last_tx
    }
    #[inline]
    fn waiting(&self) -> u32 {
        (self.q.len() - self.n_started) as u32
    }
    /// Packets waiting at `t` (arrived by `t`, not yet started), for `t` no earlier than
    /// the last delivery.
    fn waiting_at(&self, t: u64) -> u32 {
        self.q.iter().filter(|s| s.enq <= t && s.start > t).count() as u32
    }
    #[inline]
    fn backlog(&self) -> Backlog {
        Backlog { packets: self.waiting(), bytes: self.bytes_waiting }
    }
}

/// Find the link directions that can take packets at once from their only upstream
/// direction, and the hosts that can take a flow's packets at once (see "Express
/// hops"). The feeders of a direction are read off every flow's path (data, and ACKs
/// for TCP); a host counts as a feeder of the first hop of each path it starts, once
/// per flow and role.
fn mark_express(sc: &Scenario, routes: &Routes, dirs: &mut [Dir], flows: &mut [Flow]) {
    // Feeders per direction: upstream directions (d) and local origins (2 * flow + role,
    // role 0 = sender, 1 = receiver), kept apart.
    #[derive(Clone, Copy, PartialEq)]
    enum Feeder {
        Dir(u32),
        Host(u32),
    }
    // Per direction: no feeder seen, exactly one, or several.
    #[derive(Clone, Copy, PartialEq)]
    enum Seen {
        None,
        One(Feeder),
        Many,
    }
    let mut feeders: Vec<Seen> = vec![Seen::None; dirs.len()];
    // Every upstream direction of each direction, and whether a host feeds it.
    let mut upstream: Vec<Vec<u32>> = vec![Vec::new(); dirs.len()];
    let mut host_fed = vec![false; dirs.len()];
    let mut note = |d: usize, f: Feeder| {
        match f {
            Feeder::Dir(u) => upstream[d].push(u),
            Feeder::Host(_) => host_fed[d] = true,
        }
        feeders[d] = match feeders[d] {
            Seen::None => Seen::One(f),
            Seen::One(g) if g == f => Seen::One(g),
            _ => Seen::Many,
        };
    };
    let mut paths = Vec::with_capacity(flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        let data = routes.path(f.src, f.dst);
        let acks = if f.kind.is_tcp() { routes.path(f.dst, f.src) } else { Vec::new() };
        for (role, p) in [&data, &acks].into_iter().enumerate() {
            if let Some(&first) = p.first() {
                note(first, Feeder::Host((2 * i + role) as u32));
            }
            for w in p.windows(2) {
                note(w[1], Feeder::Dir(w[0] as u32));
            }
        }
        paths.push((data, acks));
    }
    let traced: Vec<usize> =
        sc.trace.queue.iter().chain(&sc.trace.packets).chain(&sc.trace.pcap).copied().collect();
    let evicts = |d: usize| {
        let l = &sc.links[d / 2];
        if d % 2 == 0 { l.queue_ab.may_evict() } else { l.queue_ba.may_evict() }
    };
    for d in 0..dirs.len() {
        if traced.contains(&d) {
            continue;
        }
        dirs[d].host_express = !evicts(d);
        if let Seen::One(Feeder::Dir(u)) = feeders[d]
            && !evicts(u as usize)
        {
            dirs[d].express_from = Some(u);
        }
    }
    // Merging directions: fed by several directions only, none of which may re-time a
    // packet it accepted, with a positive lookahead; nothing traced.
    for u in upstream.iter_mut() {
        u.sort_unstable();
        u.dedup();
    }
    for d in 0..dirs.len() {
        if feeders[d] != Seen::Many || host_fed[d] || traced.contains(&d) || evicts(d) {
            continue;
        }
        if upstream[d].iter().any(|&u| evicts(u as usize)) {
            continue;
        }
        let look = upstream[d].iter().map(|&u| dirs[u as usize].delay).min().unwrap_or(0);
        if !(2..1 << 40).contains(&look) {
            continue; // (an offset in the span must fit 40 bits of a key)
        }
        dirs[d].merged = true;
        dirs[d].merge = Some(Box::new(Merge::new(look)));
        for &u in &upstream[d] {
            dirs[u as usize].expresses = true;
        }
    }
    let mut ends = vec![false; sc.nodes.len()];
    for f in &sc.flows {
        ends[f.dst] = true;
        ends[f.src] = true;
    }
    for d in 0..dirs.len() {
        if dirs[d].host_express && ends[dirs[d].to as usize] {
            dirs[d].expresses = true;
        }
        if let Some(u) = dirs[d].express_from {
            dirs[u as usize].expresses = true;
        }
    }
    // A host runs a flow's side ahead of the clock only if nothing else happens to that
    // side before the packet's arrival (no timer, no application event), and if the
    // direction it sends into takes packets from it alone, so that this direction still
    // sees its arrivals in time order.
    let alone = |d: Option<&usize>, origin: usize| {
        d.is_some_and(|&d| {
            feeders[d] == Seen::One(Feeder::Host(origin as u32)) && !traced.contains(&d)
        })
    };
    for (i, (f, (data, acks))) in sc.flows.iter().zip(&paths).enumerate() {
        let fl = &mut flows[i];
        if fl.trace_cwnd || fl.tcp_params.is_some() {
            continue; // traced windows stay in time order; web mice switch connections
        }
        match f.kind {
            FlowKind::Tcp | FlowKind::Telnet { .. } => {
                fl.rx_express = !f.tcp.delayed_ack && alone(acks.first(), 2 * i + 1);
                fl.tx_express = matches!(f.kind, FlowKind::Tcp)
                    && fl.prep_delay == 0.0
                    && fl.stop.is_none()
                    && alone(data.first(), 2 * i);
            }
            FlowKind::Web { .. } => {}
            _ => fl.rx_express = true,
        }
    }
}

/// Whether the host at the end of `pkt`'s path can take it at `at` (see "Express
/// hops"): a receiver without timers always; a sender only if its retransmission
/// timer is not due by then, and if the packet does not cross the start of the
/// window (the sender's counters are read at that instant).
#[inline]
fn host_takes(fl: &Flow, pkt: &Pkt, at: u64, clock: u64, w0: u64) -> bool {
    if !pkt.is_ack() {
        return fl.rx_express;
    }
    fl.tx_express
        && !(w0 > 0 && clock <= w0 && at > w0)
        && fl.tcp.as_ref().is_some_and(|t| t.0.rtx_deadline.is_none_or(|d| d.0 > at))
}

/// Pop the waiting packets whose transmission has started by `now`, telling the AQM;
/// `clock` is the simulated time (`now` may be later for a direction running ahead).
#[inline(always)]
fn advance(
    dir: &mut Dir,
    d: usize,
    now: u64,
    clock: u64,
    tr: &mut Option<Box<Traces>>,
    flows: &[Flow],
) {
    // Most calls find nothing to do: check that before paying for a call.
    if dir.q.get(dir.n_started).is_some_and(|s| s.start <= now) {
        advance_slow(dir, d, now, clock, tr, flows);
    }
}

#[inline(never)]
fn advance_slow(
    dir: &mut Dir,
    d: usize,
    now: u64,
    clock: u64,
    tr: &mut Option<Box<Traces>>,
    flows: &[Flow],
) {
    if dir.n_plain == 0 && dir.expresses {
        // (with plain slots pending, the delivery of the head forgets them instead)
        drop_expressed(dir, clock);
    }
    while dir.n_started < dir.q.len() {
        let s = dir.q[dir.n_started];
        if s.start > now {
            break;
        }
        // An expressed slot at the front is forgotten at once (see `drop_expressed`).
        if dir.n_started == 0 && s.pkt.flags & flags::EXPRESS != 0 && s.start <= clock {
            dir.q.pop_front();
        } else {
            dir.n_started += 1;
        }
        dir.bytes_waiting -= s.pkt.size as u64;
        departed(dir, d, &s, tr, flows);
    }
}

/// The packet of slot `s` left the buffer of direction `d` (already taken out of the
/// waiting count): tell the AQM, the monitors and the traces.
#[inline(always)]
fn departed(dir: &mut Dir, d: usize, s: &Slot, tr: &mut Option<Box<Traces>>, flows: &[Flow]) {
    if dir.has_avg {
        // (Drop Tail and Random Drop keep no state of their own to update.)
        let bl = dir.backlog();
        dir.aqm.on_removed(Time(s.start), &s.pkt.info(), bl, true);
    }
    dir.mon.depart(s.enq, s.start, s.end, s.pkt.size);
    if !dir.flow_bytes.is_empty() && !s.pkt.is_ack() && dir.mon.in_window(s.start) {
        dir.flow_bytes[s.pkt.flow as usize] += s.pkt.size as u64;
    }
    if let Some(t) = tr.as_mut() {
        trace_departure(t, dir, d, &s.pkt, s.start, flows);
    }
}

#[cold]
fn trace_departure(t: &mut Traces, dir: &Dir, d: usize, pkt: &Pkt, start: u64, flows: &[Flow]) {
    if dir.trace_pkts {
        t.packet(start, d, 'd', pkt);
    }
    if dir.pcap {
        let f = &flows[pkt.flow as usize];
        t.pcap(start, d, pkt, f.src, f.dst, f.tcp.is_some(), f.packet_size);
    }
}

/// Forget the slots at the front that were expressed (no delivery event waits for
/// them) and had left the buffer by `clock`, the simulated time. A direction running
/// ahead of the clock keeps the later ones, so that the queue it has at the clock can
/// still be counted (`waiting_at`).
#[inline]
fn drop_expressed(dir: &mut Dir, clock: u64) {
    while dir.n_started > 0
        && dir.q.front().is_some_and(|s| s.pkt.flags & flags::EXPRESS != 0 && s.start <= clock)
    {
        dir.q.pop_front();
        dir.n_started -= 1;
    }
}

#[derive(Clone)]
enum Source {
    None,
    Cbr {
        interval: f64,
    },
    Poisson {
        mean: f64,
    },
    Batch {
        mean: f64,
        batch: u32,
    },
    Pareto {
        interval: f64,
        on_mean: f64,
        off_mean: f64,
        shape: f64,
        on_until: u64,
    },
    Telnet {
        mean: f64,
    },
    /// A web-mice connection; the group's first connection also generates arrivals.
    Web {
        generator: bool,
        first: usize,
        slots: u32,
        rate: f64,
        mean: f64,
        shape: f64,
    },
}

#[derive(Clone)]
struct Flow {
    src: u16,
    dst: u16,
    packet_size: u32,
    /// Draw each open-loop packet's size from an exponential of mean `packet_size`.
    exponential_sizes: bool,
    ecn: bool,
    prep_delay: f64,
    start: u64,
    stop: Option<u64>,
    stopped: bool,
    tcp: Option<Box<(TcpSender, TcpReceiver)>>,
    source: Source,
    next_seq: u32,
    /// Open-loop packets emitted in the window.
    sent: u64,
    rng: SimRng,
    mon: FlowMon,
    bottleneck: usize,
    send_at: Option<u64>,
    rto_at: Option<u64>,
    delack_at: Option<u64>,
    trace_cwnd: bool,
    /// The destination host may take this flow's data at once (see "Express hops").
    rx_express: bool,
    /// The source host may take this flow's ACKs at once, timers allowing.
    tx_express: bool,
    timeout_times: Vec<u64>,
    /// Web mice: connection epoch, transfer in progress, its start, completed
    /// transfers and the sum of their completion times in the window, rejected arrivals.
    epoch: u8,
    busy: bool,
    transfer_start: u64,
    transfers: u64,
    fct_sum: f64,
    rejected: u64,
    gen_armed: bool,
    /// Counters of earlier transfers' senders (web mice).
    stats_acc: crate::tcp::TcpStats,
    tcp_params: Option<crate::tcp::TcpParams>,
}

/// A running simulation.
pub struct Sim {
    sc: Scenario,
    now: u64,
    end: u64,
    w0: u64,
    w1: u64,
    q: EventQueue,
    dirs: Vec<Dir>,
    routes: Routes,
    link_up: Vec<bool>,
    flows: Vec<Flow>,
    out: Vec<Pkt>,
    /// `out[..out_from]` belongs to flushes in progress (a host acting within another
    /// flush appends behind them and sends only its own packets).
    out_from: usize,
    traces: Option<Box<Traces>>,
    finished: bool,
    /// Some flow is web mice (packets carry a connection epoch).
    has_web: bool,
    wall: std::time::Instant,
    busiest: usize,
    /// The time the current `run_until` runs to: no host acts beyond it.
    horizon: u64,
    /// A host is acting ahead of the clock (see "Express hops").
    in_host: bool,
    /// How the network splits for two threads (`threads = 2`), if it does.
    plan: Option<Box<Plan>>,
    /// Packets for merging directions of the other thread, handed over at the end of
    /// the window (see "Two threads").
    outbox: Vec<Handover>,
    /// The part run by the other thread, kept between progress steps
    /// (`run_until_ahead`); `settle` takes it back.
    other: Option<Box<Sim>>,
    /// Inboxes offer nothing at or past this time: the end of the window while two
    /// threads run, else none.
    cap: u64,
}

fn pareto(rng: &mut SimRng, mean: f64, shape: f64) -> f64 {
    let scale = mean * (shape - 1.0) / shape;
    let u: f64 = 1.0 - rng.random::<f64>();
    scale / u.powf(1.0 / shape)
}

fn expo(rng: &mut SimRng, mean: f64) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    -mean * u.ln()
}

#[inline]
fn ns(s: f64) -> u64 {
    Time::from_secs_f64(s).0
}

fn add_stats(a: crate::tcp::TcpStats, b: crate::tcp::TcpStats) -> crate::tcp::TcpStats {
    crate::tcp::TcpStats {
        sent: a.sent + b.sent,
        retransmits: a.retransmits + b.retransmits,
        timeouts: a.timeouts + b.timeouts,
        fast_retransmits: a.fast_retransmits + b.fast_retransmits,
        ecn_reductions: a.ecn_reductions + b.ecn_reductions,
        injected_losses: a.injected_losses + b.injected_losses,
    }
}

impl Flow {
    /// The sender's counters, earlier transfers included.
    fn tcp_stats(&self) -> crate::tcp::TcpStats {
        add_stats(self.stats_acc, self.tcp.as_ref().map(|t| t.0.stats).unwrap_or_default())
    }
}

impl Sim {
    /// Build the network. `trace_dir` receives the traces the scenario asks for
    /// (an error if it asks for some and none is given).
    pub fn new(sc: Scenario, trace_dir: Option<&Path>) -> Result<Sim> {
        let end = sc.duration.0;
        let (w0, w1) = (sc.warmup.0, sc.duration.0);
        let mut dirs = Vec::with_capacity(sc.links.len() * 2);
        for (i, l) in sc.links.iter().enumerate() {
            for (side, (qc, to)) in [(&l.queue_ab, l.b), (&l.queue_ba, l.a)].into_iter().enumerate()
            {
                let seed = stream_seed(sc.seed, "queue", i as u64, side as u64);
                let path = format!("link[{i}].{}", if side == 0 { "queue_ab" } else { "queue_ba" });
                let aqm = qc
                    .build(&BuildContext { link_rate_bps: Some(l.rate_bps), seed: Some(seed) })
                    .map_err(|e| SimError::Scenario(e.at(&path).to_string()))?;
                let has_avg = !matches!(aqm, AnyAqm::DropTail(_) | AnyAqm::RandomDrop(_));
                let tail_limit = match &aqm {
                    AnyAqm::DropTail(t) if !t.drop_front => Some(t.limit),
                    _ => None,
                };
                dirs.push(Dir {
                    to: to as u16,
                    rate_bps: l.rate_bps.round().clamp(1.0, 1e15) as u64,
                    delay: l.delay.0,
                    last_size: u32::MAX,
                    last_tx: 0,
                    aqm,
                    q: VecDeque::new(),
                    n_started: 0,
                    bytes_waiting: 0,
                    busy_until: 0,
                    scheduled: None,
                    n_plain: 0,
                    express_from: None,
                    host_express: false,
                    expresses: false,
                    merged: false,
                    remote: false,
                    merge: None,
                    up: true,
                    mon: DirMon::new(w0, w1),
                    flow_bytes: Vec::new(),
                    flow_arrivals: Vec::new(),
                    has_avg,
                    tail_limit,
                    lean: 0,
                    trace_pkts: false,
                    trace_q_every_arrival: false,
                    pcap: false,
                });
            }
        }
        let link_up = vec![true; sc.links.len()];
        let routes = sc.routes_all_up();
        let nflows = sc.flows.len();
        let mut flows = Vec::with_capacity(nflows);
        for (id, f) in sc.flows.iter().enumerate() {
            let path = routes.path(f.src, f.dst);
            let bottleneck = sc.flow_bottleneck(&path);
            if dirs[bottleneck].flow_bytes.is_empty() {
                dirs[bottleneck].flow_bytes = vec![0; nflows];
                dirs[bottleneck].flow_arrivals = vec![0; nflows];
            }
            let tcp = if f.kind.is_tcp() {
                let mut p = f.tcp.clone();
                p.packet_size = f.packet_size;
                p.ecn = f.ecn;
                let mut s = TcpSender::new(p.clone(), id as u32, f.dst as u16);
                if let FlowKind::Telnet { .. } | FlowKind::Web { .. } = f.kind {
                    s.app_limit = 0;
                }
                let r = TcpReceiver::new(&p, id as u32, f.src as u16);
                Some(Box::new((s, r)))
            } else {
                None
            };
            let source = match f.kind {
                FlowKind::Tcp => Source::None,
                FlowKind::Telnet { interval } => Source::Telnet { mean: interval },
                FlowKind::Cbr { interval } => Source::Cbr { interval },
                FlowKind::Poisson { interval } => Source::Poisson { mean: interval },
                FlowKind::BatchPoisson { interval, batch } => {
                    Source::Batch { mean: interval, batch }
                }
                FlowKind::ParetoOnOff { interval, on_time, off_time, shape } => Source::Pareto {
                    interval,
                    on_mean: on_time,
                    off_mean: off_time,
                    shape,
                    on_until: 0,
                },
                FlowKind::Web { arrival_rate, mean_packets, shape, first, slots } => Source::Web {
                    generator: first == id,
                    first,
                    slots,
                    rate: arrival_rate,
                    mean: mean_packets,
                    shape,
                },
            };
            flows.push(Flow {
                src: f.src as u16,
                dst: f.dst as u16,
                packet_size: f.packet_size,
                exponential_sizes: f.exponential_sizes,
                ecn: f.ecn,
                prep_delay: f.prep_delay,
                start: f.start.0,
                stop: f.stop.map(|t| t.0),
                stopped: false,
                tcp,
                source,
                next_seq: 0,
                sent: 0,
                rng: stream_rng(f.seed),
                mon: FlowMon::default(),
                bottleneck,
                send_at: None,
                rto_at: None,
                delack_at: None,
                trace_cwnd: false,
                rx_express: false,
                tx_express: false,
                timeout_times: Vec::new(),
                epoch: 0,
                busy: false,
                transfer_start: 0,
                transfers: 0,
                fct_sum: 0.0,
                rejected: 0,
                gen_armed: false,
                stats_acc: Default::default(),
                tcp_params: if let FlowKind::Web { .. } = f.kind {
                    let mut p = f.tcp.clone();
                    p.packet_size = f.packet_size;
                    p.ecn = f.ecn;
                    Some(p)
                } else {
                    None
                },
            });
        }
        let names: Vec<String> = (0..dirs.len()).map(|d| sc.dir_name(d)).collect();
        let traces = if sc.trace.any() {
            let Some(dir) = trace_dir else {
                return Err(SimError::at(
                    "trace",
                    "traces asked for but no output directory given",
                ));
            };
            for &d in &sc.trace.packets {
                dirs[d].trace_pkts = true;
            }
            for &d in &sc.trace.pcap {
                dirs[d].pcap = true;
            }
            if sc.trace.interval.0 == 0 {
                for &d in &sc.trace.queue {
                    dirs[d].trace_q_every_arrival = true;
                }
            }
            for &f in &sc.trace.cwnd {
                flows[f].trace_cwnd = flows[f].tcp.is_some();
            }
            Some(Box::new(Traces::open(
                dir,
                !sc.trace.queue.is_empty(),
                !sc.trace.packets.is_empty(),
                !sc.trace.cwnd.is_empty(),
                &sc.trace.pcap,
                names,
            )?))
        } else {
            None
        };
        if sc.express_hops && sc.events.is_empty() {
            mark_express(&sc, &routes, &mut dirs, &mut flows);
        }
        if sc.express_hops {
            for dir in dirs.iter_mut() {
                dir.lean = dir.lean_limit();
            }
        }
        let sc_has_web = flows.iter().any(|f| f.tcp_params.is_some());
        // (two threads on one core would only wait for each other)
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let plan = if sc.threads > 1
            && cores > 1
            && traces.is_none()
            && sc.events.is_empty()
            && !sc_has_web
        {
            plan_parts(&sc, &routes, &dirs).map(Box::new)
        } else {
            None
        };
        let mut q = EventQueue::new();
        for (i, f) in flows.iter().enumerate() {
            if f.start <= end {
                q.push(Time(f.start), Target { kind: K_SEND, index: i as u32 });
            }
            if let Some(s) = f.stop {
                q.push(Time(s), Target { kind: K_STOP, index: i as u32 });
            }
        }
        if w0 > 0 {
            q.push(Time(w0), Target { kind: K_WARMUP, index: 0 });
        }
        for (i, e) in sc.events.iter().enumerate() {
            q.push(e.at, Target { kind: K_LINK, index: i as u32 });
        }
        if sc.trace.interval.0 > 0 {
            for i in 0..sc.trace.queue.len() {
                q.push(Time(0), Target { kind: K_SAMPLE, index: i as u32 });
            }
        }
        Ok(Sim {
            sc,
            now: 0,
            end,
            w0,
            w1,
            q,
            dirs,
            routes,
            link_up,
            flows,
            out: Vec::with_capacity(64),
            out_from: 0,
            traces,
            finished: false,
            has_web: sc_has_web,
            wall: std::time::Instant::now(),
            busiest: 0,
            horizon: 0,
            in_host: false,
            plan,
            outbox: Vec::new(),
            other: None,
            cap: u64::MAX,
        })
    }

    pub fn scenario(&self) -> &Scenario {
        &self.sc
    }
    pub fn now(&self) -> Time {
        Time(self.now)
    }
    pub fn events(&self) -> u64 {
        self.q.popped() + self.other.as_ref().map_or(0, |o| o.q.popped())
    }
    pub fn is_finished(&self) -> bool {
        self.finished
    }
    /// The threads a run uses: 2 if the scenario asks for two (`threads = 2`) and the
    /// network splits into two parts (see "Two threads"), else 1.
    pub fn threads(&self) -> usize {
        if self.plan.is_some() { 2 } else { 1 }
    }

    /// Run to the end of the scenario.
    pub fn run(&mut self) -> Result<Summary> {
        self.run_until(Time(self.end))?;
        Ok(self.summary())
    }

    /// Process every event up to `t` (clamped to the duration). At the duration the
    /// monitors are closed and the traces flushed. The state at `t` (queues, windows,
    /// counters) is exactly that of the hop-by-hop run: no packet is handed on early
    /// past `t` (see "Express hops").
    pub fn run_until(&mut self, t: Time) -> Result<()> {
        self.run_to(t, t)
    }

    /// As [`Sim::run_until`], for a caller that only watches the clock (a progress bar)
    /// and reads results at the end: packets may be handed on early up to the end of
    /// the run, so the state at `t` may already hold later arrivals, but every stop
    /// costs nothing and the final summary is the same. With `run_until`, the packets
    /// in flight across each stop take one event per hop. On two threads the parts
    /// stay apart until `settle`, an exact stop or the end of the run.
    pub fn run_until_ahead(&mut self, t: Time) -> Result<()> {
        self.run_to(t, Time(self.end))
    }

    fn run_to(&mut self, t: Time, horizon: Time) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        let t = t.0.min(self.end);
        let horizon = horizon.0.clamp(t, self.end);
        let moved = horizon > self.horizon;
        // (after a `run_until_ahead`, the state may already be past an exact stop)
        self.horizon = horizon;
        if moved {
            // (catching up is for the whole network)
            self.settle();
            for d in 0..self.dirs.len() {
                if self.dirs[d].n_plain > 0 {
                    self.catch_up(d);
                }
            }
        }
        if self.plan.is_some() && t > self.now {
            self.run_parallel(t);
            // Exact stops and the end see the whole network; progress steps keep the
            // parts apart (only the clock is read between them).
            if horizon == t || t >= self.end {
                self.settle();
            }
        } else {
            while let Some((et, target)) = self.q.pop_until(Time(t)) {
                self.now = et.0;
                self.dispatch(target);
            }
        }
        self.now = t;
        if t >= self.end {
            self.finish()?;
        } else if let Some(tr) = self.traces.as_mut()
            && let Some(e) = tr.error.take()
        {
            return Err(e.into());
        }
        Ok(())
    }

    #[inline]
    fn dispatch(&mut self, target: Target) {
        let i = target.index as usize;
        match target.kind {
            K_DELIVER => self.deliver(i),
            K_SEND => self.on_send(i),
            K_RTO => self.on_rto(i),
            K_DELACK => self.on_delack(i),
            K_LINK => self.on_link_event(i),
            K_SAMPLE => self.on_sample(i),
            K_APP => self.on_app(i),
            K_STOP => self.on_stop(i),
            K_MERGE => self.on_merge(i),
            K_WARMUP => {
                for fl in self.flows.iter_mut() {
                    fl.mon.at_warmup = fl.tcp.as_ref().map(|_| fl.tcp_stats());
                }
            }
            _ => unreachable!("unknown event kind"),
        }
    }

    // ---------------------------------------------------------------- packets

    /// The head packet of direction `d` reaches the far end.
    #[inline]
    fn deliver(&mut self, d: usize) {
        let now = self.now;
        let dir = &mut self.dirs[d];
        if dir.scheduled != Some(now) {
            return; // stale (the link went down, or the schedule moved)
        }
        dir.scheduled = None;
        advance(dir, d, now, self.now, &mut self.traces, &self.flows);
        if dir.expresses {
            drop_expressed(dir, now);
        }
        let Some(s) = dir.q.pop_front() else { return };
        debug_assert!(
            dir.n_started > 0 && s.end + dir.delay == now && s.pkt.flags & flags::EXPRESS == 0
        );
        dir.n_started -= 1;
        dir.n_plain -= 1;
        if dir.expresses {
            drop_expressed(dir, now);
        }
        let (node, more) = (dir.to as usize, dir.n_plain > 0);
        if more {
            self.schedule_head(d);
        }
        self.arrive(node, s.pkt);
    }

    #[inline]
    fn arrive(&mut self, node: usize, pkt: Pkt) {
        if pkt.dst as usize == node {
            self.receive(pkt);
        } else {
            self.forward(node, pkt);
        }
    }

    #[inline]
    fn forward(&mut self, node: usize, pkt: Pkt) {
        let now = self.now;
        match self.routes.next(node, pkt.dst as usize) {
            Some(d) => {
                // (a merging direction's feeders hand it everything at acceptance)
                debug_assert!(!self.dirs[d].merged, "a delivery into a merging direction");
                self.enqueue(d, pkt, now)
            }
            None => self.flows[pkt.flow as usize].mon.drop_of(&pkt, now, self.w0, self.w1),
        }
    }

    /// Offer `pkt` to the queue of direction `d` at `now` (the current time, or for an
    /// express hop the packet's arrival time, later than the current time).
    #[inline]
    fn enqueue(&mut self, d: usize, pkt: Pkt, now: u64) {
        let dir = &self.dirs[d];
        if dir.busy_until <= now && pkt.size as u64 <= dir.lean && dir.q.len() == dir.n_started {
            self.pass(d, pkt, now);
        } else {
            self.offer(d, pkt, now);
        }
    }

    /// The lean path of `enqueue`: a plain Drop Tail direction (nothing per flow, nothing
    /// traced) whose line is idle and whose buffer is empty takes the packet, which
    /// starts at once. The same accounting as `offer` and `accept`, without their
    /// general cases.
    #[inline(always)]
    fn pass(&mut self, d: usize, pkt: Pkt, now: u64) {
        let dir = &mut self.dirs[d];
        let end = now + dir.tx_ns(pkt.size);
        dir.busy_until = end;
        let at = end + dir.delay;
        dir.mon.pass(now, end, pkt.size);
        let open = at <= self.horizon && dir.n_plain == 0;
        let early = self.early_target(d, &pkt, at, open);
        match early {
            Some(target) => self.hand_on(target, d, pkt, at),
            None => {
                let dir = &mut self.dirs[d];
                dir.q.push_back(Slot { enq: now, start: now, end, pkt });
                dir.n_started += 1;
                self.add_plain(d, at);
            }
        }
    }

    /// The general path of `enqueue`.
    #[inline(never)]
    fn offer(&mut self, d: usize, mut pkt: Pkt, now: u64) {
        let dir = &mut self.dirs[d];
        if !dir.up {
            dir.mon.link_down_drops += 1;
            self.flows[pkt.flow as usize].mon.drop_of(&pkt, now, self.w0, self.w1);
            return;
        }
        advance(dir, d, now, self.now, &mut self.traces, &self.flows);
        dir.mon.arrival(now);
        if !dir.flow_arrivals.is_empty() && !pkt.is_ack() && dir.mon.in_window(now) {
            dir.flow_arrivals[pkt.flow as usize] += 1;
        }
        let info = pkt.info();
        let verdict = match dir.tail_limit {
            // Drop Tail's decision, without reaching for the discipline
            Some(l) => {
                if l.overflows(dir.backlog(), &info) {
                    Verdict::Drop(DropReason::Overflow)
                } else {
                    Verdict::Enqueue
                }
            }
            None => dir.aqm.on_arrival(Time(now), &info, dir.backlog()),
        };
        if dir.has_avg {
            dir.mon.avg_change(now, dir.aqm.avg());
        }
        match verdict {
            Verdict::Enqueue | Verdict::Mark => {
                if verdict == Verdict::Mark {
                    pkt.flags |= flags::CE;
                    if dir.mon.in_window(now) {
                        dir.mon.marks += 1;
                    }
                    if dir.mon.in_window(now) {
                        self.flows[pkt.flow as usize].mon.marks += 1;
                    }
                }
                self.accept(d, pkt, now);
            }
            Verdict::Drop(reason) => {
                dir.mon.dropped(now, reason.is_early(), reason == DropReason::Overflow);
                if let Some(t) = self.traces.as_mut()
                    && dir.trace_pkts
                {
                    t.packet(now, d, 'x', &pkt);
                }
                self.flows[pkt.flow as usize].mon.drop_of(&pkt, now, self.w0, self.w1);
            }
            Verdict::Evict { victim } => {
                self.evict(d, victim as usize, now);
                // With a byte limit one eviction may not make room.
                loop {
                    let dir = &mut self.dirs[d];
                    if dir.waiting() == 0 || !dir.aqm.limit().overflows(dir.backlog(), &info) {
                        break;
                    }
                    let v =
                        (dir.aqm.victim(dir.backlog()) as usize).min(dir.waiting() as usize - 1);
                    self.evict(d, v, now);
                }
                self.accept(d, pkt, now);
            }
        }
        if let Some(t) = self.traces.as_mut() {
            let dir = &self.dirs[d];
            if dir.trace_q_every_arrival {
                t.queue(now, d, dir.waiting(), dir.aqm.avg());
            }
        }
    }

    #[inline(always)]
    fn accept(&mut self, d: usize, pkt: Pkt, now: u64) {
        let dir = &mut self.dirs[d];
        dir.mon.accepted(now);
        let start = now.max(dir.busy_until);
        let end = start + dir.tx_ns(pkt.size);
        dir.busy_until = end;
        let at = end + dir.delay;
        // Never past the time `run_until` runs to, so that the state there is that of the
        // hop-by-hop run, and never ahead of a packet still waiting for its delivery event
        // (those held back by an earlier horizon are handed on when the next `run_until`
        // moves it: `catch_up`).
        let open = at <= self.horizon && dir.n_plain == 0;
        let early = self.early_target(d, &pkt, at, open);
        let dir = &mut self.dirs[d];
        // Counted as waiting for the instant of its arrival, as the queue seen by a
        // monitor after an enqueue.
        let w = dir.waiting() + 1;
        dir.mon.queue_seen(now, w);
        if early.is_none() {
            self.add_plain(d, at);
        }
        let dir = &mut self.dirs[d];
        if let Some(t) = self.traces.as_mut()
            && dir.trace_pkts
        {
            t.packet(now, d, if pkt.flags & flags::CE != 0 { 'm' } else { 'a' }, &pkt);
        }
        let mut slot = Slot { enq: now, start, end, pkt };
        if start == now {
            // An idle line: the packet leaves the buffer at once (everything before it
            // has started), without the FIFO round trip of `advance`; a packet handed
            // on early needs no slot at all (it never waits, so `waiting_at` never
            // counts it).
            departed(dir, d, &slot, &mut self.traces, &self.flows);
            if early.is_none() {
                dir.q.push_back(slot);
                dir.n_started += 1;
            }
        } else {
            if early.is_some() {
                slot.pkt.flags |= flags::EXPRESS;
            }
            dir.q.push_back(slot);
            dir.bytes_waiting += pkt.size as u64;
        }
        if let Some(target) = early {
            self.hand_on(target, d, pkt, at);
        }
    }

    /// Where a packet that direction `d` accepted, arriving at the far end at `at`, can
    /// be handed on at once: the inbox of the next direction if that one merges (see
    /// "Merging directions": an inbox sorts what it is given and offers nothing past
    /// the horizon, so it is always open); else, only if `open` (the packet arrives by
    /// the horizon and no packet of `d` waits for its delivery event), the next
    /// direction if it is fed by `d` alone and `d` is not itself running ahead (see
    /// "Express hops"), or the destination host if it can take the packet then, except
    /// from within another host's turn (a host's packets must enter its first link in
    /// time order).
    #[inline(always)]
    fn early_target(&self, d: usize, pkt: &Pkt, at: u64, open: bool) -> Option<Early> {
        let dir = &self.dirs[d];
        let node = dir.to as usize;
        if pkt.dst as usize == node {
            let ok = open
                && dir.host_express
                && !self.in_host
                && host_takes(&self.flows[pkt.flow as usize], pkt, at, self.now, self.w0);
            return ok.then_some(Early::Host);
        }
        let e = self.routes.next(node, pkt.dst as usize)?;
        if self.dirs[e].merged {
            return Some(Early::Inbox(e));
        }
        (open && dir.express_from.is_none() && self.dirs[e].express_from == Some(d as u32))
            .then_some(Early::Dir(e))
    }

    /// Hand `pkt`, accepted by direction `d` and arriving at the far end at `at`, on to
    /// `target` at once.
    #[inline(always)]
    fn hand_on(&mut self, target: Early, d: usize, pkt: Pkt, at: u64) {
        match target {
            Early::Dir(e) => self.enqueue(e, pkt, at),
            Early::Host => self.host_turn(pkt, at),
            Early::Inbox(e) => self.inbox_push(e, at, d as u32, pkt),
        }
    }

    /// Direction `d` holds one more slot waiting for its delivery event at `at`.
    #[inline(always)]
    fn add_plain(&mut self, d: usize, at: u64) {
        let dir = &mut self.dirs[d];
        dir.n_plain += 1;
        if dir.n_plain == 1 {
            dir.scheduled = Some(at);
            self.q.push(Time(at), Target { kind: K_DELIVER, index: d as u32 });
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

    /// Hand `pkt`, arriving at the merging direction `b` at `t` from direction `from`,
    /// to its inbox, and make sure a batch event will take it.
    #[inline(never)]
    fn inbox_push(&mut self, b: usize, t: u64, from: u32, pkt: Pkt) {
        if self.dirs[b].remote {
            self.outbox.push(Handover { dir: b as u32, from, t, pkt });
            return;
        }
        let m = self.dirs[b].merge.as_mut().expect("a merging direction has an inbox");
        debug_assert!(t >= m.frontier, "an arrival behind the merging direction's frontier");
        let k = t >> m.fine;
        if m.buckets.is_empty() {
            m.base = k;
        }
        while k < m.base {
            // (a batch dropped the empty buckets after the one it took)
            let v = m.spare.pop().unwrap_or_default();
            m.buckets.push_front(v);
            m.base -= 1;
        }
        while m.base + m.buckets.len() as u64 <= k {
            let v = m.spare.pop().unwrap_or_default();
            m.buckets.push_back(v);
        }
        m.buckets[(k - m.base) as usize].push((((t - (k << m.fine)) << 24) | from as u64, pkt));
        // The batch runs at the start of the arrival's span: nothing can arrive before
        // `t` after that (`t >= clock + look`).
        let at = m.batch_time(t).max(self.now);
        if m.at.is_none_or(|a| a > at) {
            m.at = Some(at);
            self.q.push(Time(at), Target { kind: K_MERGE, index: b as u32 });
        }
    }

    /// The batch event of the merging direction `b`: offer, in order, the arrivals that
    /// nothing can precede any more (before the clock plus the lookahead) and that do
    /// not pass the time `run_until` runs to.
    fn on_merge(&mut self, b: usize) {
        let now = self.now;
        let horizon = self.horizon;
        // (no batch takes arrivals at or past the horizon, nor past the window's end)
        let bound = horizon.saturating_add(1).min(self.cap);
        let m = self.dirs[b].merge.as_mut().expect("a merging direction has an inbox");
        if m.at != Some(now) {
            return; // stale
        }
        m.at = None;
        let limit = (now + m.look).min(bound);
        m.frontier = m.frontier.max(limit);
        loop {
            let m = self.dirs[b].merge.as_mut().expect("a merging direction has an inbox");
            let start = m.base << m.fine;
            if start >= limit {
                break;
            }
            let Some(front) = m.buckets.front_mut() else { break };
            if front.is_empty() {
                let v = m.buckets.pop_front().expect("a front bucket");
                m.spare.push(v);
                m.base += 1;
                continue;
            }
            // The packets are offered from the bucket taken out; arrivals handed over
            // meanwhile are at or past the limit (`t >= clock + look`).
            let mut batch = std::mem::take(front);
            sort_bucket(&mut batch);
            let mut i = 0;
            while i < batch.len() {
                let (key, pkt) = batch[i];
                let t = start + (key >> 24);
                if t >= limit {
                    break;
                }
                i += 1;
                self.enqueue(b, pkt, t);
            }
            let m = self.dirs[b].merge.as_mut().expect("a merging direction has an inbox");
            let front = m.buckets.front_mut().expect("the front bucket is still there");
            if i == batch.len() {
                batch.clear();
                if front.is_empty() {
                    *front = batch;
                } else {
                    m.spare.push(batch);
                }
            } else {
                batch.drain(..i);
                if front.is_empty() {
                    *front = batch;
                } else {
                    // (a batch run late, past its span's start, may have put packets
                    // into this bucket meanwhile)
                    front.extend_from_slice(&batch);
                    batch.clear();
                    m.spare.push(batch);
                }
            }
            if !front.is_empty() {
                break; // the rest is at or past the limit
            }
        }
        // The next batch: at the start of the span of the earliest arrival left, or,
        // for one past the horizon (or the window), not before the next `run_until`
        // moves it (or the next window begins).
        let m = self.dirs[b].merge.as_mut().expect("a merging direction has an inbox");
        let next = m.buckets.iter().position(|v| !v.is_empty()).map(|i| m.base + i as u64);
        if let Some(k) = next {
            let min_t = (k << m.fine)
                + (m.buckets[(k - m.base) as usize]
                    .iter()
                    .map(|e| e.0)
                    .min()
                    .expect("a non-empty bucket")
                    >> 24);
            let at = m.batch_time(min_t);
            let at = if min_t >= bound { at.max(bound) } else { at };
            let at = at.max(now + 1);
            if m.at.is_none_or(|a| a > at) {
                m.at = Some(at);
                self.q.push(Time(at), Target { kind: K_MERGE, index: b as u32 });
            }
        }
    }

    /// Schedule the delivery of the first slot of direction `d` still waiting for one.
    #[inline]
    fn schedule_head(&mut self, d: usize) {
        let dir = &mut self.dirs[d];
        let h = match dir.q.front() {
            Some(h) if h.pkt.flags & flags::EXPRESS == 0 => h,
            _ => dir
                .q
                .iter()
                .find(|s| s.pkt.flags & flags::EXPRESS == 0)
                .expect("n_plain counts the plain slots"),
        };
        let at = h.end + dir.delay;
        dir.scheduled = Some(at);
        self.q.push(Time(at), Target { kind: K_DELIVER, index: d as u32 });
    }

    /// Hand on early the packets of direction `d` still waiting for their delivery event
    /// (in order, while the next one can go: it arrives by the horizon and its next hop
    /// or host takes it at once). Called when `run_until` moves the horizon: packets
    /// that arrive past the previous one wait for their event, and without this every
    /// later packet of a busy direction would wait behind them.
    #[inline(never)]
    fn catch_up(&mut self, d: usize) {
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

    /// Discard the waiting packet at position `victim` (0 = head of the waiting line)
    /// and re-time the packets behind it.
    fn evict(&mut self, d: usize, victim: usize, now: u64) {
        let dir = &mut self.dirs[d];
        let idx = dir.n_started + victim;
        let Some(s) = dir.q.remove(idx) else { return };
        debug_assert!(s.pkt.flags & flags::EXPRESS == 0, "a direction that evicts never expresses");
        dir.n_plain -= 1;
        dir.bytes_waiting -= s.pkt.size as u64;
        let bl = dir.backlog();
        dir.aqm.on_removed(Time(now), &s.pkt.info(), bl, false);
        dir.mon.waited(s.enq, now);
        dir.mon.dropped(now, false, true);
        for i in idx..dir.q.len() {
            let prev_end = if i > 0 { dir.q[i - 1].end } else { now };
            let tx = dir.tx_ns(dir.q[i].pkt.size);
            let slot = &mut dir.q[i];
            slot.start = slot.enq.max(prev_end);
            slot.end = slot.start + tx;
        }
        dir.busy_until = dir.q.back().map_or(now, |s| s.end);
        if let Some(t) = self.traces.as_mut()
            && dir.trace_pkts
        {
            t.packet(now, d, 'x', &s.pkt);
        }
        advance(dir, d, now, self.now, &mut self.traces, &self.flows);
        self.flows[s.pkt.flow as usize].mon.drop_of(&s.pkt, now, self.w0, self.w1);
    }

    /// Send every packet in `self.out` from `node`.
    #[inline(always)]
    fn flush(&mut self, node: usize) {
        let (from, to) = (self.out_from, self.out.len());
        if from == to {
            return;
        }
        self.out_from = to;
        for i in from..to {
            let mut p = self.out[i];
            if self.has_web {
                p.epoch = self.flows[p.flow as usize].epoch;
            }
            self.forward(node, p);
        }
        self.out.truncate(from);
        self.out_from = from;
    }

    /// A packet reached its destination node.
    #[inline]
    fn receive(&mut self, pkt: Pkt) {
        let now = self.now;
        let f = pkt.flow as usize;
        let in_win = now >= self.w0 && now <= self.w1;
        let fl = &mut self.flows[f];
        if self.has_web && pkt.epoch != fl.epoch {
            return; // a straggler of an earlier transfer on this connection
        }
        if let Some(tcp) = fl.tcp.as_mut() {
            if pkt.is_ack() {
                let s = &mut tcp.0;
                let before = s.cwnd;
                fl.mon.cwnd_change(self.w0, self.w1, now, before);
                let max = if fl.prep_delay > 0.0 { 0 } else { u32::MAX };
                s.on_ack(Time(now), &pkt, &mut self.out, max);
                let (cw, ss) = (s.cwnd, s.ssthresh);
                fl.mon.cwnd_set(cw);
                if fl.trace_cwnd
                    && cw != before
                    && let Some(t) = self.traces.as_mut()
                {
                    t.cwnd(now, f, cw, ss);
                }
                if fl.busy && s.done_at.is_some() {
                    fl.busy = false;
                    if in_win {
                        fl.transfers += 1;
                        fl.fct_sum += (now - fl.transfer_start) as f64 * 1e-9;
                    }
                }
                let node = fl.src as usize;
                self.flush(node);
                self.sync::<true, false>(f);
            } else {
                let n = tcp.1.on_data(Time(now), &pkt, &mut self.out);
                if in_win && n > 0 {
                    fl.mon.delivered += n as u64;
                    fl.mon.delivered_bytes += n as u64 * fl.packet_size as u64;
                }
                let node = fl.dst as usize;
                self.flush(node);
                self.sync::<false, true>(f);
            }
        } else if in_win {
            fl.mon.delivered += 1;
            fl.mon.delivered_bytes += pkt.size as u64;
        }
    }

    /// Make sure a timer event is pending at or before each of the flow's deadlines.
    #[inline]
    fn sync_timers(&mut self, f: usize) {
        self.sync::<true, true>(f);
    }

    /// `sync_timers` for the deadlines a side can have moved: the sender's timer and
    /// the preparation delay's send event (`SENDER`), the receiver's delayed ACK
    /// (`RECEIVER`). Each side's events sync only that side, which is also what lets
    /// the two sides of a flow run on different threads (see "Two threads").
    #[inline]
    fn sync<const SENDER: bool, const RECEIVER: bool>(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        let Some(tcp) = fl.tcp.as_ref() else { return };
        if SENDER
            && let Some(d) = tcp.0.rtx_deadline
            && fl.rto_at.is_none_or(|a| a > d.0)
        {
            fl.rto_at = Some(d.0);
            self.q.push(d, Target { kind: K_RTO, index: f as u32 });
        }
        if RECEIVER
            && let Some(d) = tcp.1.delack_deadline
            && fl.delack_at.is_none_or(|a| a > d.0)
        {
            fl.delack_at = Some(d.0);
            self.q.push(d, Target { kind: K_DELACK, index: f as u32 });
        }
        if SENDER
            && fl.prep_delay > 0.0
            && fl.send_at.is_none()
            && tcp.0.started
            && tcp.0.can_send()
        {
            let at = self.now + ns(fl.rng.random::<f64>() * fl.prep_delay);
            fl.send_at = Some(at);
            self.q.push(Time(at), Target { kind: K_SEND, index: f as u32 });
        }
    }

    // ---------------------------------------------------------------- flow events

    fn on_send(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if fl.stopped {
            return;
        }
        if let Source::Web { generator, rate, .. } = fl.source {
            if generator && !fl.gen_armed {
                // The generator's first arrival.
                let at = now + ns(expo(&mut fl.rng, 1.0 / rate));
                fl.gen_armed = true;
                self.q.push(Time(at), Target { kind: K_APP, index: f as u32 });
                return;
            }
            if !fl.busy {
                return;
            }
        }
        if let Some(tcp) = fl.tcp.as_mut() {
            fl.send_at = None;
            let max = if fl.prep_delay > 0.0 { 1 } else { u32::MAX };
            if !tcp.0.started {
                fl.mon.cwnd_change(self.w0, self.w1, now, tcp.0.cwnd);
                if let Source::Telnet { mean } = fl.source {
                    let at = now + ns(expo(&mut fl.rng, mean));
                    self.q.push(Time(at), Target { kind: K_APP, index: f as u32 });
                }
                tcp.0.start(Time(now), &mut self.out, if fl.prep_delay > 0.0 { 0 } else { max });
            } else {
                tcp.0.send_much(Time(now), &mut self.out, max);
            }
            let node = fl.src as usize;
            self.flush(node);
            self.sync::<true, false>(f);
            return;
        }
        // Open-loop sources: emit, then schedule the next emission.
        let mut n = 1u32;
        let next: f64 = match &mut fl.source {
            Source::Cbr { interval } => *interval,
            Source::Poisson { mean } => expo(&mut fl.rng, *mean),
            Source::Batch { mean, batch } => {
                n = *batch;
                expo(&mut fl.rng, *mean)
            }
            Source::Pareto { interval, on_mean, off_mean, shape, on_until } => {
                if now >= *on_until {
                    // A new ON period begins (the first one at the start time).
                    let on = pareto(&mut fl.rng, *on_mean, *shape);
                    *on_until = now + ns(on);
                }
                let nx = now + ns(*interval);
                if nx >= *on_until {
                    let off = pareto(&mut fl.rng, *off_mean, *shape);
                    let t = *on_until + ns(off);
                    (t - now) as f64 * 1e-9
                } else {
                    *interval
                }
            }
            Source::None | Source::Telnet { .. } | Source::Web { .. } => return,
        };
        let mut f_ecn = 0;
        if fl.ecn {
            f_ecn = flags::ECT;
        }
        for _ in 0..n {
            let seq = fl.next_seq;
            fl.next_seq = fl.next_seq.wrapping_add(1);
            if now >= self.w0 {
                fl.sent += 1;
            }
            let size = if fl.exponential_sizes {
                // at least one byte: a zero-length packet would take no time on the link
                expo(&mut fl.rng, fl.packet_size as f64).round().clamp(1.0, u32::MAX as f64) as u32
            } else {
                fl.packet_size
            };
            self.out.push(Pkt { flow: f as u32, seq, size, dst: fl.dst, flags: f_ecn, epoch: 0 });
        }
        let prep = fl.prep_delay;
        let at = now + ns(next) + if prep > 0.0 { ns(fl.rng.random::<f64>() * prep) } else { 0 };
        let node = fl.src as usize;
        if at <= self.end && fl.stop.is_none_or(|s| at < s) {
            self.q.push(Time(at), Target { kind: K_SEND, index: f as u32 });
        }
        self.flush(node);
    }

    fn on_app(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if fl.stopped {
            return;
        }
        if let Source::Web { first, slots, rate, mean, shape, .. } = fl.source {
            let size =
                pareto(&mut fl.rng, mean, shape).round().clamp(1.0, (u32::MAX / 4) as f64) as u64;
            let at = now + ns(expo(&mut fl.rng, 1.0 / rate));
            if fl.stop.is_none_or(|s| at < s) {
                self.q.push(Time(at), Target { kind: K_APP, index: f as u32 });
            }
            self.start_transfer(first, slots as usize, size);
            return;
        }
        let Source::Telnet { mean } = fl.source else { return };
        if let Some(tcp) = fl.tcp.as_mut() {
            tcp.0.app_limit += 1;
            let max = if fl.prep_delay > 0.0 { 0 } else { u32::MAX };
            tcp.0.send_much(Time(now), &mut self.out, max);
        }
        let at = now + ns(expo(&mut fl.rng, mean));
        self.q.push(Time(at), Target { kind: K_APP, index: f as u32 });
        let node = fl.src as usize;
        self.flush(node);
        self.sync::<true, false>(f);
    }

    /// A web transfer of `size` packets arrives: start it on a free connection of the
    /// group `first..first + slots`, or count it rejected.
    fn start_transfer(&mut self, first: usize, slots: usize, size: u64) {
        let now = self.now;
        let Some(s) = (first..first + slots).find(|&i| !self.flows[i].busy) else {
            if now >= self.w0 {
                self.flows[first].rejected += 1;
            }
            return;
        };
        let fl = &mut self.flows[s];
        let mut p = fl.tcp_params.clone().expect("web connection");
        p.packets = size;
        let sender = TcpSender::new(p.clone(), s as u32, fl.dst);
        if let Some(old) = fl.tcp.as_ref() {
            fl.stats_acc = add_stats(fl.stats_acc, old.0.stats);
        }
        let receiver = TcpReceiver::new(&p, s as u32, fl.src);
        fl.tcp = Some(Box::new((sender, receiver)));
        fl.epoch = fl.epoch.wrapping_add(1);
        fl.busy = true;
        fl.transfer_start = now;
        fl.send_at = None;
        let tcp = fl.tcp.as_mut().unwrap();
        fl.mon.cwnd_change(self.w0, self.w1, now, tcp.0.cwnd);
        tcp.0.start(Time(now), &mut self.out, if fl.prep_delay > 0.0 { 0 } else { u32::MAX });
        let node = fl.src as usize;
        self.flush(node);
        self.sync_timers(s);
    }

    fn on_stop(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        fl.stopped = true;
        if let Some(tcp) = fl.tcp.as_mut() {
            // The application stops writing; what is sent is still recovered.
            tcp.0.app_limit = tcp.0.snd_max as u64;
        }
    }

    fn on_rto(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if fl.rto_at != Some(now) {
            return;
        }
        fl.rto_at = None;
        let Some(tcp) = fl.tcp.as_mut() else { return };
        match tcp.0.rtx_deadline {
            Some(d) if d.0 <= now => {
                fl.mon.cwnd_change(self.w0, self.w1, now, tcp.0.cwnd);
                let max = if fl.prep_delay > 0.0 { 0 } else { u32::MAX };
                tcp.0.on_timeout(Time(now), &mut self.out, max);
                // The retransmission goes out at once, prep delay or not.
                if max == 0 {
                    tcp.0.send_much(Time(now), &mut self.out, 1);
                }
                fl.mon.cwnd_change(self.w0, self.w1, now, tcp.0.cwnd);
                if fl.timeout_times.len() < 10_000 {
                    fl.timeout_times.push(now);
                }
                if fl.trace_cwnd
                    && let Some(t) = self.traces.as_mut()
                {
                    t.cwnd(now, f, tcp.0.cwnd, tcp.0.ssthresh);
                }
                let node = fl.src as usize;
                self.flush(node);
            }
            _ => {}
        }
        self.sync::<true, false>(f);
    }

    fn on_delack(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if fl.delack_at != Some(now) {
            return;
        }
        fl.delack_at = None;
        let Some(tcp) = fl.tcp.as_mut() else { return };
        if tcp.1.delack_deadline.is_some_and(|d| d.0 <= now) {
            tcp.1.on_delack(&mut self.out);
            let node = fl.dst as usize;
            self.flush(node);
        }
        self.sync::<false, true>(f);
    }

    // ---------------------------------------------------------------- control

    fn on_link_event(&mut self, i: usize) {
        let now = self.now;
        let ev = self.sc.events[i].clone();
        if ev.up == self.link_up[ev.link] {
            return;
        }
        self.link_up[ev.link] = ev.up;
        for d in [2 * ev.link, 2 * ev.link + 1] {
            let dir = &mut self.dirs[d];
            if ev.up {
                dir.up = true;
                if self.sc.express_hops {
                    dir.lean = dir.lean_limit();
                }
                continue;
            }
            // Down: everything queued, in transmission or propagating is lost.
            advance(dir, d, now, self.now, &mut self.traces, &self.flows);
            dir.up = false;
            dir.lean = 0;
            dir.scheduled = None;
            dir.n_plain = 0;
            let lost: Vec<Slot> = dir.q.drain(..).collect();
            let n_started = dir.n_started;
            dir.n_started = 0;
            for (k, s) in lost.iter().enumerate() {
                if k >= n_started {
                    dir.bytes_waiting -= s.pkt.size as u64;
                    let bl =
                        Backlog { packets: (lost.len() - k - 1) as u32, bytes: dir.bytes_waiting };
                    dir.aqm.on_removed(Time(now), &s.pkt.info(), bl, false);
                    dir.mon.waited(s.enq, now);
                }
                dir.mon.link_down_drops += 1;
            }
            dir.busy_until = now;
            for s in &lost {
                self.flows[s.pkt.flow as usize].mon.drop_of(&s.pkt, now, self.w0, self.w1);
            }
        }
        self.routes = self.sc.routes(&self.link_up);
    }

    fn on_sample(&mut self, i: usize) {
        let now = self.now;
        let d = self.sc.trace.queue[i];
        let dir = &mut self.dirs[d];
        advance(dir, d, now, self.now, &mut self.traces, &self.flows);
        let (w, avg) = (dir.waiting(), dir.aqm.avg());
        if let Some(t) = self.traces.as_mut() {
            t.queue(now, d, w, avg);
        }
        let next = now + self.sc.trace.interval.0;
        if next <= self.end {
            self.q.push(Time(next), Target { kind: K_SAMPLE, index: i as u32 });
        }
    }

    fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        let end = self.end;
        for d in 0..self.dirs.len() {
            let dir = &mut self.dirs[d];
            advance(dir, d, end, end, &mut self.traces, &self.flows);
            for k in dir.n_started..dir.q.len() {
                let enq = dir.q[k].enq;
                dir.mon.waited(enq, end);
            }
            dir.mon.finish(end);
        }
        for fl in self.flows.iter_mut() {
            if let Some(tcp) = fl.tcp.as_ref() {
                let c = tcp.0.cwnd;
                fl.mon.cwnd_change(self.w0, self.w1, end, c);
            }
        }
        self.busiest = (0..self.dirs.len())
            .max_by_key(|&d| (self.dirs[d].mon.total_departures(), std::cmp::Reverse(d)))
            .unwrap_or(0);
        self.finished = true;
        if let Some(t) = self.traces.as_mut() {
            t.finish()?;
        }
        Ok(())
    }

    // ---------------------------------------------------------------- results

    /// Packets waiting in the queue of direction `d` now (not counting the one in transmission).
    pub fn queue_len(&self, d: usize) -> u32 {
        self.dirs[d].waiting_at(self.now)
    }
    /// Packets of direction `d` in the buffer, on the line or propagating.
    pub fn in_flight(&self, d: usize) -> usize {
        self.dirs[d].q.len()
    }
    /// Congestion window of flow `f` (packets), if it is a TCP flow.
    pub fn cwnd(&self, f: usize) -> Option<f64> {
        self.flows[f].tcp.as_ref().map(|t| t.0.cwnd)
    }
    /// The TCP sender of flow `f`.
    pub fn tcp_sender(&self, f: usize) -> Option<&TcpSender> {
        self.flows[f].tcp.as_ref().map(|t| &t.0)
    }
    /// Times of flow `f`'s retransmission timeouts (the first 10 000).
    pub fn timeout_times(&self, f: usize) -> Vec<Time> {
        self.flows[f].timeout_times.iter().map(|&t| Time(t)).collect()
    }
    /// Queue statistics of the discipline of direction `d` as seen by the monitors, whole run.
    pub fn dir_monitor(&self, d: usize) -> &DirMon {
        &self.dirs[d].mon
    }

    /// The summary (complete once the run has reached its duration; after progress
    /// steps on two threads, `settle` first).
    pub fn summary(&self) -> Summary {
        let win = (self.w1 - self.w0) as f64 * 1e-9;
        let sc = &self.sc;
        let mut links = std::collections::BTreeMap::new();
        for (d, dir) in self.dirs.iter().enumerate() {
            let m = &dir.mon;
            let l = &sc.links[d / 2];
            let (from, to) = if d % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) };
            let (mean_delay, delay_var) = m.delay_stats();
            let name = sc.dir_name(d);
            links.insert(
                name,
                LinkSummary {
                    index: d,
                    from: sc.nodes[from].clone(),
                    to: sc.nodes[to].clone(),
                    queue_type: dir.aqm.kind().to_string(),
                    rate_bps: l.rate_bps,
                    delay: l.delay.as_secs_f64(),
                    utilization: m.busy_ns as f64 * 1e-9 / win,
                    throughput_bps: m.departed_bytes as f64 * 8.0 / win,
                    arrivals: m.arrivals(),
                    departures: m.departures(),
                    drops: m.early_drops + m.forced_drops,
                    early_drops: m.early_drops,
                    forced_drops: m.forced_drops,
                    overflow_drops: m.overflow_drops,
                    marks: m.marks,
                    link_down_drops: m.link_down_drops,
                    mean_queue: m.mean_queue(),
                    max_queue: m.max_queue(),
                    mean_avg: m.mean_avg(),
                    mean_delay,
                    delay_var,
                    delay_p50: m.delay_quantile(0.5) * 1e-9,
                    delay_p90: m.delay_quantile(0.9) * 1e-9,
                    delay_p99: m.delay_quantile(0.99) * 1e-9,
                    drop_runs: m.runs,
                    mean_drop_run: m.mean_run(),
                    max_drop_run: m.max_run,
                    drop_run_hist: m.run_hist.to_vec(),
                    queued_at_end: dir.waiting_at(self.now) as u64,
                },
            );
        }
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(id, fl)| {
                let def = &sc.flows[id];
                let b = &self.dirs[fl.bottleneck];
                let tcp = fl.tcp.as_ref().map(|t| &t.0);
                let mut st = fl.tcp_stats();
                if let Some(w) = fl.mon.at_warmup {
                    st.sent -= w.sent;
                    st.retransmits -= w.retransmits;
                    st.timeouts -= w.timeouts;
                    st.fast_retransmits -= w.fast_retransmits;
                    st.ecn_reductions -= w.ecn_reductions;
                }
                FlowSummary {
                    id,
                    name: def.name.clone(),
                    kind: def.kind.name().to_string(),
                    variant: tcp.map(|s| s.p.variant.name().to_string()),
                    src: sc.nodes[def.src].clone(),
                    dst: sc.nodes[def.dst].clone(),
                    start: def.start.as_secs_f64(),
                    goodput_bps: fl.mon.delivered_bytes as f64 * 8.0 / win,
                    throughput_bps: b.flow_bytes.get(id).copied().unwrap_or(0) as f64 * 8.0 / win,
                    bottleneck: sc.dir_name(fl.bottleneck),
                    arrivals: b.flow_arrivals.get(id).copied().unwrap_or(0),
                    drops: fl.mon.drops,
                    marks: fl.mon.marks,
                    timeouts: st.timeouts,
                    fast_retransmits: st.fast_retransmits,
                    retransmits: st.retransmits,
                    sent: if tcp.is_some() { st.sent } else { fl.sent },
                    delivered: fl.mon.delivered,
                    mean_cwnd: if tcp.is_some() {
                        fl.mon.cwnd_area / (self.w1 - self.w0) as f64
                    } else {
                        0.0
                    },
                    cwnd: tcp.map_or(0.0, |s| s.cwnd),
                    ssthresh: tcp.map_or(0.0, |s| s.ssthresh.min(1e9)),
                    srtt: tcp.map_or(0.0, |s| s.srtt),
                    rto: tcp.map_or(0.0, |s| s.rto),
                    completion_time: if fl.tcp_params.is_some() {
                        None
                    } else {
                        tcp.and_then(|s| s.done_at).map(|t| t.as_secs_f64())
                    },
                    transfers: fl.transfers,
                    mean_fct: if fl.transfers > 0 {
                        Some(fl.fct_sum / fl.transfers as f64)
                    } else {
                        None
                    },
                    rejected: fl.rejected,
                }
            })
            .collect();
        let busiest = self.busiest;
        Summary {
            name: sc.name.clone(),
            duration: sc.duration.as_secs_f64(),
            warmup: sc.warmup.as_secs_f64(),
            seed: sc.seed,
            links,
            flows,
            events: self.q.popped(),
            wall_seconds: self.wall.elapsed().as_secs_f64(),
            bottleneck_packets: self.dirs.get(busiest).map_or(0, |d| d.mon.total_departures()),
            bottleneck: if self.dirs.is_empty() { String::new() } else { sc.dir_name(busiest) },
        }
    }
}

/// Build and run a scenario in one call.
pub fn run(sc: Scenario, trace_dir: Option<&Path>) -> Result<Summary> {
    Sim::new(sc, trace_dir)?.run()
}
