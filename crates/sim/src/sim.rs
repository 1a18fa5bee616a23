//! The simulator: link directions with their output queues, flows, and the event loop.
//!
//! ## The plain path of a packet
//! A host's packets go out through [`Sim::forward`] into the first link direction of
//! their route. [`Sim::enqueue`] offers a packet to a direction's queue at its arrival
//! time: the discipline decides ([`Sim::offer`]); an accepted packet takes its place
//! in the direction's FIFO with its start and end of transmission known at once
//! ([`Sim::accept`]), and the direction's one delivery event ([`Sim::deliver`]) fires
//! when its head packet reaches the far end, where the packet is received by its host
//! ([`Sim::receive`], in `host`) or forwarded to the next direction. One event per hop;
//! the AQM learns of departures lazily (`link`).
//!
//! ## Rooms
//! - `event`: the kinds of event and their order; `build`: the network from a scenario.
//! - `queue`: a direction's queue, of one of two kinds: the FIFO with its
//!   arrival-time discipline (`aqm::AnyAqm`), or a qdisc that holds its packets
//!   (`aqm::AnyQdisc`: CoDel, PIE, the schedulers) above a device queue.
//! - `link`: a direction, its FIFO of slots and the lazy departures.
//! - `held`: a direction whose queue holds its packets, dequeued when its line frees.
//! - `flow`, `host`, `web`: flows and their sources, TCP hosts, web mice.
//! - `control`: link events, queue samples, the measurement window; `summary`: results.
//! - The speed mechanisms, each with its design note, each giving the results of the
//!   plain path bit for bit (`express_hops = false` turns the first three off):
//!   `express` (packets handed on at acceptance to a single-feeder direction or a host),
//!   `lean` (an idle, empty plain Drop Tail takes a packet in one step), `inbox`
//!   (merging directions take their arrivals in batches), `parts` (two threads).
//!   Which directions, hosts and parts each may act on is decided once, when the
//!   network is built, by `plan`: it reads the scenario and its routes and uses none
//!   of them (they depend on it, never the other way).

use std::path::Path;

use aqm::{DropReason, QueueDiscipline, Time, Verdict};

use crate::engine::{EventQueue, Target};
use crate::error::Result;
use crate::monitor::{DirMon, Summary};
use crate::net::Routes;
use crate::packet::{Pkt, flags};
use crate::scenario::Scenario;
use crate::tcp::TcpSender;
use crate::trace::Traces;

mod build;
mod check;
mod control;
mod event;
mod express;
mod flow;
mod guard;
mod held;
mod host;
mod inbox;
mod lean;
mod link;
mod pace;
mod parts;
mod plan;
mod queue;
mod summary;
mod web;

use event::Kind;
use flow::Flow;
use guard::Guard;
use inbox::Handover;
use link::{Dir, Slot, advance, departed, drop_expressed, trace_drop};
use plan::Split;

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
    /// A host is acting ahead of the clock (see `express`).
    in_host: bool,
    /// How the network splits for two threads (`threads = 2`), if it does.
    split: Option<Box<Split>>,
    /// Packets for merging directions of the other thread, handed over at the end of
    /// the window (see `parts`).
    outbox: Vec<Handover>,
    /// The part run by the other thread, kept between progress steps
    /// (`run_until_ahead`); `settle` takes it back.
    other: Option<Box<Sim>>,
    /// Inboxes offer nothing at or past this time: the end of the window while two
    /// threads run, else none.
    cap: u64,
    /// The progress and memory guards (see `guard`).
    guard: Guard,
    /// When two threads go on on one (see `pace`).
    pace: pace::Pace,
}

impl Sim {
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
    /// network splits into two parts (see `parts`), else 1.
    pub fn threads(&self) -> usize {
        if self.split.is_some() { 2 } else { 1 }
    }

    /// Run to the end of the scenario.
    pub fn run(&mut self) -> Result<Summary> {
        self.run_until(Time(self.end))?;
        Ok(self.summary())
    }

    /// Process every event up to `t` (clamped to the duration). At the duration the
    /// monitors are closed and the traces flushed. The state at `t` (queues, windows,
    /// counters) is exactly that of the hop-by-hop run: no packet is handed on early
    /// past `t` (see `express`).
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
        if let Some(e) = &self.guard.failed {
            return Err(e.clone());
        }
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
        loop {
            if self.split.is_some() && t > self.now && self.pace.two_threads(self.now) {
                if self.run_parallel(t)? {
                    // Exact stops and the end see the whole network; progress steps keep
                    // the parts apart (only the clock is read between them).
                    if horizon == t || t >= self.end {
                        self.settle();
                    }
                    break;
                }
                // (two threads were slower than one would be: one, for a while)
                self.settle();
                self.pace.fall_back(self.now);
            }
            // (on one thread while two are slower: in segments, to look at the clock)
            self.settle();
            let stop = match &self.split {
                Some(s) => {
                    t.min(self.now.saturating_add(s.window.saturating_mul(pace::SOLO_SEGMENT)))
                }
                None => t,
            };
            self.run_serial(stop)?;
            if stop >= t {
                break;
            }
            self.now = stop;
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

    /// Every event up to `t` on this thread.
    fn run_serial(&mut self, t: u64) -> Result<()> {
        loop {
            while let Some((et, target)) = self.q.pop_until(Time(t)) {
                self.now = et.0;
                self.dispatch(target);
            }
            if !self.q.checkpoint_due() {
                return Ok(());
            }
            self.checkpoint(&|_| true)?;
        }
    }

    #[inline]
    fn dispatch(&mut self, target: Target) {
        let i = target.index as usize;
        match Kind::of(target) {
            Kind::Deliver => self.deliver(i),
            Kind::Send => self.on_send(i),
            Kind::Rto => self.on_rto(i),
            Kind::Delack => self.on_delack(i),
            Kind::Link => self.on_link_event(i),
            Kind::Sample => self.on_sample(i),
            Kind::App => self.on_app(i),
            Kind::Stop => self.on_stop(i),
            Kind::Merge => self.on_merge(i),
            Kind::Warmup => self.on_warmup(),
            Kind::Serve => self.on_serve(i),
            Kind::Poll => self.on_poll(i),
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
        if dir.express.any {
            drop_expressed(dir, now);
        }
        let Some(s) = dir.q.pop_front() else { return };
        debug_assert!(
            dir.n_started > 0 && s.end + dir.delay == now && s.pkt.flags & flags::EXPRESS == 0
        );
        dir.n_started -= 1;
        dir.n_plain -= 1;
        if dir.express.any {
            drop_expressed(dir, now);
        }
        let (node, more) = (dir.to as usize, dir.n_plain > 0);
        if more {
            self.schedule_head(d);
        }
        if s.pkt.dst as usize == node {
            self.receive(s.pkt);
        } else {
            self.forward(node, s.pkt);
        }
    }

    /// Send `pkt` from `node` into the next direction of its route (dropped if there
    /// is none: a link is down).
    #[inline]
    fn forward(&mut self, node: usize, pkt: Pkt) {
        let now = self.now;
        match self.routes.next(node, pkt.dst as usize) {
            Some(d) => {
                // (a merging direction's feeders hand it everything at acceptance)
                debug_assert!(!self.dirs[d].express.merged, "a delivery into a merging direction");
                self.enqueue(d, pkt, now)
            }
            None => {
                // (a copy is borrowed, never `pkt`: a borrowed packet is copied again
                // for the call that hands it on)
                let lost = pkt;
                self.flows[lost.flow as usize].mon.drop_of(&lost, now, self.w0, self.w1)
            }
        }
    }

    /// Offer `pkt` to the queue of direction `d` at `now` (the current time, or for an
    /// express hop the packet's arrival time, later than the current time).
    #[inline(always)]
    fn enqueue(&mut self, d: usize, pkt: Pkt, now: u64) {
        if self.lean_takes(d, pkt.size, now) {
            self.pass(d, pkt, now);
        } else {
            self.offer(d, pkt, now);
        }
    }

    /// The discipline of direction `d` decides on `pkt`, arriving at `now`.
    #[inline(never)]
    fn offer(&mut self, d: usize, mut pkt: Pkt, now: u64) {
        let dir = &mut self.dirs[d];
        if !dir.fifo_up {
            return self.offer_aside(d, pkt, now);
        }
        advance(dir, d, now, self.now, &mut self.traces, &self.flows);
        dir.mon.arrival(now);
        if !dir.flow_arrivals.is_empty() && !pkt.is_ack() && dir.mon.in_window(now) {
            dir.flow_arrivals[pkt.flow as usize] += 1;
        }
        let info = pkt.info();
        let verdict = match dir.tail_limit {
            // Drop Tail's decision, without reaching for the discipline
            Some(l) if l.overflows(dir.backlog(), &info) => Verdict::Drop(DropReason::Overflow),
            Some(_) => Verdict::Enqueue,
            None => {
                let bl = dir.backlog();
                dir.aqm_mut().on_arrival(Time(now), &info, bl)
            }
        };
        if dir.has_avg {
            dir.mon.avg_change(now, dir.aqm().average_queue());
        }
        match verdict {
            Verdict::Enqueue => self.accept(d, pkt, now),
            Verdict::Mark => {
                pkt.flags |= flags::CE;
                if dir.mon.in_window(now) {
                    dir.mon.marks += 1;
                    self.flows[pkt.flow as usize].mon.marks += 1;
                }
                if let Some(t) = self.traces.as_mut()
                    && dir.trace.signals
                {
                    t.signal(now, d, 'm', &pkt);
                }
                self.accept(d, pkt, now);
            }
            Verdict::Drop(reason) => {
                dir.mon.dropped(now, reason.is_early(), reason == DropReason::Overflow);
                if let Some(t) = self.traces.as_mut()
                    && dir.trace.drops()
                {
                    trace_drop(t, dir.trace, now, d, &pkt);
                }
                self.flows[pkt.flow as usize].mon.drop_of(&pkt, now, self.w0, self.w1);
            }
            Verdict::Evict { victim } => self.evict_for(d, victim as usize, pkt, now),
        }
        if let Some(t) = self.traces.as_mut() {
            let dir = &self.dirs[d];
            if dir.trace.q_every_arrival {
                t.queue(now, d, dir.waiting(), dir.aqm().average_queue());
            }
        }
    }

    /// `pkt` arrives at `now` at direction `d`, whose link is down (it is lost) or whose
    /// queue holds its packets (see `held`). Kept out of `offer`'s code (cold), which
    /// serves the FIFO path at its former cost.
    #[cold]
    #[inline(never)]
    fn offer_aside(&mut self, d: usize, pkt: Pkt, now: u64) {
        let dir = &mut self.dirs[d];
        if !dir.up {
            dir.mon.link_down_drops += 1;
            self.flows[pkt.flow as usize].mon.drop_of(&pkt, now, self.w0, self.w1);
        } else {
            self.offer_held(d, pkt, now);
        }
    }

    /// Direction `d` accepts `pkt` at `now`: it takes its place in the FIFO, with its
    /// transmission scheduled behind the packets before it, and is handed on at once
    /// where a speed mechanism allows (see `express`), else waits for its delivery.
    #[inline(always)]
    fn accept(&mut self, d: usize, pkt: Pkt, now: u64) {
        let dir = &mut self.dirs[d];
        dir.mon.accepted();
        let start = now.max(dir.busy_until);
        let end = start + dir.tx_ns(pkt.size);
        dir.busy_until = end;
        let at = end + dir.delay;
        // Never past the time `run_until` runs to, so that the state there is that of the
        // hop-by-hop run, and never ahead of a packet still waiting for its delivery event
        // (those held back by an earlier horizon are handed on when the next `run_until`
        // moves it: `catch_up`).
        let open = at <= self.horizon && dir.n_plain == 0;
        let early = self.early_target(d, express::Dest::of(&pkt), at, open);
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
            && dir.trace.pkts
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

    /// Direction `d` holds one more slot waiting for its delivery event at `at`.
    #[inline(always)]
    fn add_plain(&mut self, d: usize, at: u64) {
        let dir = &mut self.dirs[d];
        dir.n_plain += 1;
        if dir.n_plain == 1 {
            dir.scheduled = Some(at);
            self.schedule(at, Kind::Deliver, d);
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
        self.schedule(at, Kind::Deliver, d);
    }

    /// The discipline of direction `d` answered `pkt`'s arrival by evicting the waiting
    /// packet at `victim`: evict it (and more while a byte limit still overflows),
    /// then accept `pkt`.
    fn evict_for(&mut self, d: usize, victim: usize, pkt: Pkt, now: u64) {
        let info = pkt.info();
        self.evict(d, victim, now);
        loop {
            let dir = &mut self.dirs[d];
            if dir.waiting() == 0 || !dir.aqm().limit().overflows(dir.backlog(), &info) {
                break;
            }
            let bl = dir.backlog();
            let v = (dir.aqm_mut().victim(bl) as usize).min(dir.waiting() as usize - 1);
            self.evict(d, v, now);
        }
        self.accept(d, pkt, now);
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
        dir.aqm_mut().on_removed(Time(now), &s.pkt.info(), bl, false);
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
            && dir.trace.drops()
        {
            trace_drop(t, dir.trace, now, d, &s.pkt);
        }
        advance(dir, d, now, self.now, &mut self.traces, &self.flows);
        self.flows[s.pkt.flow as usize].mon.drop_of(&s.pkt, now, self.w0, self.w1);
    }

    // ---------------------------------------------------------------- results

    /// Packets waiting in the queue of direction `d` now (not counting the one in
    /// transmission).
    pub fn queue_len(&self, d: usize) -> u32 {
        self.dirs[d].queued_at(self.now)
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
    /// Queue statistics of the discipline of direction `d` as seen by the monitors,
    /// whole run.
    pub fn dir_monitor(&self, d: usize) -> &DirMon {
        &self.dirs[d].mon
    }
}

/// Build and run a scenario in one call.
pub fn run(sc: Scenario, trace_dir: Option<&Path>) -> Result<Summary> {
    Sim::new(sc, trace_dir)?.run()
}
