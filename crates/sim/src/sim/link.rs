//! A link direction: its line, its output queue and the packets on their way.
//!
//! ## One event per hop
//! A FIFO line's departure schedule is known when a packet is accepted: it starts
//! transmitting at `max(now, busy_until)` and arrives at the far end `tx + delay`
//! later. So a direction keeps its packets in one FIFO of [`Slot`]s
//! `(enqueued, start, end, packet)` (waiting, in transmission, or propagating) and the
//! event queue holds a single entry per direction: the time its head packet reaches
//! the far end. The AQM is told of a packet leaving the buffer (at its `start`)
//! lazily, by [`advance`], before the next arrival at that queue or a sample, in time
//! order, so it sees exactly the sequence of arrivals and removals a per-packet
//! dequeue event would give.

use std::collections::VecDeque;

use aqm::config::BuildContext;
use aqm::{AnyAqm, Backlog, Qdisc, QueueConfig, QueueDiscipline, Time};

use super::flow::Flow;
use super::inbox::Merge;
use super::plan::Express;
use super::queue::Queue;
use crate::error::{Result, SimError};
use crate::monitor::DirMon;
use crate::packet::{Pkt, flags};
use crate::trace::{PcapFlow, Traces};

/// A packet in a direction's FIFO: it arrived at `enq`, starts transmitting at
/// `start` and leaves the line at `end` (ns).
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub(super) enq: u64,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) pkt: Pkt,
}

/// What is traced of a direction.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DirTrace {
    /// Per-packet events.
    pub(super) pkts: bool,
    /// The queue after every arrival (a queue trace without a sampling interval).
    pub(super) q_every_arrival: bool,
    /// Departing packets to a pcap file.
    pub(super) pcap: bool,
    /// Congestion signals (drops and marks) to the drop trace.
    pub(super) signals: bool,
}

impl DirTrace {
    fn any(self) -> bool {
        self.pkts || self.q_every_arrival || self.pcap || self.signals
    }
    /// Drops or marks are written somewhere (the packet trace or the drop trace).
    #[inline]
    pub(super) fn drops(self) -> bool {
        self.pkts || self.signals
    }
}

/// Direction `d` dropped `pkt` at `now` (traced per `tr`): the packet trace and the
/// drop trace, as the direction asks.
#[cold]
pub(super) fn trace_drop(t: &mut Traces, tr: DirTrace, now: u64, d: usize, pkt: &Pkt) {
    if tr.pkts {
        t.packet(now, d, 'x', pkt);
    }
    if tr.signals {
        t.signal(now, d, 'x', pkt);
    }
}

/// One direction of a link. Laid out by hand: the fields every packet touches first
/// (two cache lines).
#[derive(Clone)]
#[repr(C)]
pub(super) struct Dir {
    pub(super) q: VecDeque<Slot>,
    pub(super) busy_until: u64,
    /// The largest packet that takes the lean path (see `lean`); 0 = none (also while
    /// the link is down).
    pub(super) lean: u64,
    /// Propagation delay, ns.
    pub(super) delay: u64,
    /// Transmission time of the last packet size seen (see `tx_ns`).
    pub(super) last_tx: u64,
    pub(super) rate_bps: u64,
    pub(super) bytes_waiting: u64,
    /// Slots at the front that have left the buffer (in transmission or propagating).
    pub(super) n_started: usize,
    /// Slots in `q` that need a delivery event (not expressed to the next hop).
    pub(super) n_plain: usize,
    /// Time of this direction's pending delivery event.
    pub(super) scheduled: Option<u64>,
    /// Where its packets may be handed on early (see `plan`).
    pub(super) express: Express,
    pub(super) last_size: u32,
    /// The node at the far end.
    pub(super) to: u16,
    pub(super) up: bool,
    /// Cached: up, and the queue is the FIFO of slots: `offer` decides at once (else
    /// the link is down or a qdisc holds the packets, see `held`).
    pub(super) fifo_up: bool,
    /// Cached: the queue is the FIFO and its discipline keeps an average (RED family,
    /// FRED), which departures update.
    pub(super) has_avg: bool,
    /// Cached: the queue is the FIFO under a plain Drop Tail (not drop-from-front),
    /// whose decision needs nothing but this buffer.
    pub(super) tail_limit: Option<aqm::Limit>,
    pub(super) trace: DirTrace,
    /// Per-flow data bytes departing / packets arriving (only for flows whose
    /// bottleneck this is).
    pub(super) flow_bytes: Vec<u64>,
    pub(super) flow_arrivals: Vec<u64>,
    pub(super) merge: Option<Box<Merge>>,
    pub(super) mon: DirMon,
    /// The FIFO's discipline, or a qdisc that holds the waiting packets (`q` then keeps
    /// only the packets on the line or propagating).
    pub(super) queue: Queue,
}

impl Dir {
    /// Direction `path` (for errors) towards node `to` over a link of `rate_bps` and
    /// `delay_ns`, with the discipline `qc` seeded with `seed`, holding its packets in
    /// a qdisc above a device queue of `n` packets if `holds` is `Some(n)`; monitored
    /// over [w0, w1].
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        qc: &QueueConfig,
        holds: Option<u32>,
        path: &str,
        to: usize,
        rate_bps: f64,
        delay_ns: u64,
        seed: u64,
        (w0, w1): (u64, u64),
    ) -> Result<Dir> {
        let ctx = BuildContext { link_rate_bps: Some(rate_bps), seed: Some(seed) };
        let queue =
            Queue::new(qc, holds, &ctx).map_err(|e| SimError::Scenario(e.at(path).to_string()))?;
        Ok(Dir {
            q: VecDeque::new(),
            busy_until: 0,
            lean: 0,
            delay: delay_ns,
            last_tx: 0,
            rate_bps: rate_bps.round().clamp(1.0, 1e15) as u64,
            bytes_waiting: 0,
            n_started: 0,
            n_plain: 0,
            scheduled: None,
            express: Express::default(),
            last_size: u32::MAX,
            to: to as u16,
            up: true,
            fifo_up: fifo_up(true, &queue),
            has_avg: has_avg(&queue),
            tail_limit: tail_limit(&queue),
            trace: DirTrace::default(),
            flow_bytes: Vec::new(),
            flow_arrivals: Vec::new(),
            merge: None,
            mon: DirMon::new(w0, w1),
            queue,
        })
    }

    /// The direction's discipline, if it comes from outside the `aqm` crate.
    pub(super) fn external(&self) -> Option<&dyn aqm::external::ExternalAqm> {
        self.queue.external()
    }

    /// The configuration `type` of the direction's queue.
    pub(super) fn kind(&self) -> &'static str {
        self.queue.kind()
    }
    /// Packets waiting at `t` (see `waiting_at`; a qdisc's backlog as it stands).
    pub(super) fn queued_at(&self, t: u64) -> u32 {
        match &self.queue {
            Queue::Fifo(_) => self.waiting_at(t),
            Queue::Held(h) => h.waiting(),
        }
    }
    /// The discipline's congestion signal for the monitors: RED's average, a qdisc's
    /// `signal`.
    pub(super) fn signal(&self) -> f64 {
        match &self.queue {
            Queue::Fifo(aqm) => aqm.average_queue(),
            Queue::Held(h) => h.q.signal(),
        }
    }
    /// The FIFO's discipline, for a direction whose queue is the FIFO (as `fifo_up`,
    /// `has_avg` or `tail_limit` says, or a waiting slot shows).
    #[inline(always)]
    pub(super) fn aqm(&self) -> &AnyAqm {
        match &self.queue {
            Queue::Fifo(aqm) => aqm,
            Queue::Held(_) => unreachable!("the FIFO's discipline of a direction that holds"),
        }
    }
    #[inline(always)]
    pub(super) fn aqm_mut(&mut self) -> &mut AnyAqm {
        match &mut self.queue {
            Queue::Fifo(aqm) => aqm,
            Queue::Held(_) => unreachable!("the FIFO's discipline of a direction that holds"),
        }
    }

    /// The value of `lean` for this direction with its link up: a plain Drop Tail
    /// (see `lean`) takes packets up to its byte limit.
    pub(super) fn lean_limit(&self) -> u64 {
        match self.tail_limit {
            Some(l)
                if l.packets != Some(0)
                    && self.flow_bytes.is_empty()
                    && self.flow_arrivals.is_empty()
                    && !self.trace.any() =>
            {
                l.bytes.unwrap_or(u64::MAX)
            }
            _ => 0,
        }
    }
    /// Transmission time of `size` bytes, ns (rounded; at least 1). `size` < 2^16 and
    /// the rate is clamped to [1, 2^63 / 2] b/s, so the product fits in 64 bits.
    #[inline]
    pub(super) fn tx_ns(&mut self, size: u32) -> u64 {
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
    pub(super) fn waiting(&self) -> u32 {
        (self.q.len() - self.n_started) as u32
    }
    /// Packets waiting at `t` (arrived by `t`, not yet started), for `t` no earlier than
    /// the last delivery.
    pub(super) fn waiting_at(&self, t: u64) -> u32 {
        self.q.iter().filter(|s| s.enq <= t && s.start > t).count() as u32
    }
    #[inline]
    pub(super) fn backlog(&self) -> Backlog {
        Backlog { packets: self.waiting(), bytes: self.bytes_waiting }
    }
}

/// What `fifo_up` caches: the link is `up` and `queue` is the FIFO.
pub(super) fn fifo_up(up: bool, queue: &Queue) -> bool {
    up && matches!(queue, Queue::Fifo(_))
}

/// What `has_avg` caches: `queue` is the FIFO, its discipline one that keeps state
/// beyond the backlog (Drop Tail and Random Drop keep none).
pub(super) fn has_avg(queue: &Queue) -> bool {
    match queue {
        Queue::Fifo(AnyAqm::DropTail(_) | AnyAqm::RandomDrop(_)) | Queue::Held(_) => false,
        // (an external discipline's average, if it keeps one)
        Queue::Fifo(AnyAqm::External(e)) => e.signal_kind() == aqm::SignalKind::AverageQueue,
        Queue::Fifo(_) => true,
    }
}

/// What `tail_limit` caches: the buffer of a FIFO under a plain Drop Tail.
pub(super) fn tail_limit(queue: &Queue) -> Option<aqm::Limit> {
    match queue {
        Queue::Fifo(AnyAqm::DropTail(t)) if !t.drop_front => Some(t.limit),
        _ => None,
    }
}

/// Pop the waiting packets whose transmission has started by `now`, telling the AQM;
/// `clock` is the simulated time (`now` may be later for a direction running ahead).
#[inline(always)]
pub(super) fn advance(
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
    if dir.n_plain == 0 && dir.express.any {
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
pub(super) fn departed(
    dir: &mut Dir,
    d: usize,
    s: &Slot,
    tr: &mut Option<Box<Traces>>,
    flows: &[Flow],
) {
    if dir.has_avg {
        // (Drop Tail and Random Drop keep no state of their own to update.)
        let bl = dir.backlog();
        dir.aqm_mut().on_removed_packet(Time(s.start), &s.pkt, bl, true);
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
    if dir.trace.pkts {
        t.packet(start, d, 'd', pkt);
    }
    if dir.trace.pcap {
        let f = &flows[pkt.flow as usize];
        let flow =
            PcapFlow { src: f.src, dst: f.dst, tcp: f.tcp.is_some(), data_size: f.packet_size };
        t.pcap(start, d, pkt, &flow);
    }
}

/// Forget the slots at the front that were expressed (no delivery event waits for
/// them) and had left the buffer by `clock`, the simulated time. A direction running
/// ahead of the clock keeps the later ones, so that the queue it has at the clock can
/// still be counted (`waiting_at`).
#[inline]
pub(super) fn drop_expressed(dir: &mut Dir, clock: u64) {
    while dir.n_started > 0
        && dir.q.front().is_some_and(|s| s.pkt.flags & flags::EXPRESS != 0 && s.start <= clock)
    {
        dir.q.pop_front();
        dir.n_started -= 1;
    }
}
