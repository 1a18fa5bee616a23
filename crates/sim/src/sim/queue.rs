//! A direction's queue, of one of two kinds: the FIFO of slots with its arrival-time
//! discipline, whose departures are known at acceptance and told lazily (`link`), or
//! a qdisc that holds its waiting packets and is asked for the next one when the line
//! frees (`held`). A direction is one or the other for its whole run.

use std::collections::VecDeque;

use aqm::config::BuildContext;
use aqm::{AnyAqm, AnyQdisc, Dequeued, DropReason, PacketInfo, Qdisc, QueueConfig};

use crate::packet::Pkt;

/// The queue of a link direction. The FIFO's discipline is kept inline (not boxed):
/// every packet of a FIFO direction reaches it, and a direction has one queue.
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
pub(super) enum Queue {
    /// The packets wait in the direction's FIFO of slots; the discipline decides at
    /// arrival and learns of departures lazily.
    Fifo(AnyAqm),
    /// The qdisc holds the waiting packets (above a device queue); the FIFO of slots
    /// keeps only those on the line or propagating.
    Held(Box<Held>),
}

impl Queue {
    /// The queue `qc` builds in `ctx`: a qdisc above a device queue of `n` packets if
    /// `holds` is `Some(n)`, else the FIFO's discipline.
    pub(super) fn new(
        qc: &QueueConfig,
        holds: Option<u32>,
        ctx: &BuildContext,
    ) -> aqm::Result<Queue> {
        Ok(match holds {
            Some(device) => Queue::Held(Box::new(Held::new(qc.build_qdisc(ctx)?, device))),
            None => Queue::Fifo(qc.build(ctx)?),
        })
    }

    /// The configuration `type` of the queue.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Queue::Fifo(aqm) => aqm.kind(),
            Queue::Held(h) => h.q.kind(),
        }
    }

    /// The discipline, if it comes from outside the `aqm` crate.
    pub(super) fn external(&self) -> Option<&dyn aqm::external::ExternalAqm> {
        match self {
            Queue::Fifo(aqm) => aqm.external(),
            Queue::Held(h) => h.q.external(),
        }
    }
}

/// A packet in a qdisc: the simulated packet, when it arrived (ns) and its arrival's
/// number in the direction.
#[derive(Clone, Copy, Debug)]
pub(super) struct QPkt {
    pub(super) pkt: Pkt,
    pub(super) enq: u64,
    pub(super) serial: u64,
}

impl aqm::Packet for QPkt {
    #[inline]
    fn info(&self) -> PacketInfo {
        self.pkt.info()
    }
}

/// The qdisc of a direction and what the simulator keeps beside it.
#[derive(Clone)]
pub(super) struct Held {
    pub(super) q: AnyQdisc<QPkt>,
    pub(super) next_serial: u64,
    /// Serials of packets marked at enqueue (counted then) still held, ascending.
    pub(super) marked: VecDeque<u64>,
    /// The time of the pending `Poll` event, if any.
    pub(super) poll_at: Option<u64>,
    /// Packets held, and the sum over them of their arrival time clamped to the start
    /// of the window (ns): what the waiting of those left at the end adds up to.
    pub(super) n: u64,
    pub(super) since_sum: u128,
    /// Scratch for the packets a call drops.
    pub(super) drops: Vec<(QPkt, DropReason)>,
    /// The device queue below the qdisc (the link's `device_queue`, at most `device`
    /// packets): what the qdisc gave while the line was busy, in order.
    pub(super) dev: VecDeque<Dequeued<QPkt>>,
    pub(super) device: usize,
}

impl Held {
    pub(super) fn new(q: AnyQdisc<QPkt>, device: u32) -> Held {
        Held {
            q,
            next_serial: 0,
            marked: VecDeque::new(),
            poll_at: None,
            n: 0,
            since_sum: 0,
            drops: Vec::new(),
            dev: VecDeque::new(),
            device: device as usize,
        }
    }
    /// The packets waiting: in the qdisc and in the device queue.
    pub(super) fn waiting(&self) -> u32 {
        self.q.backlog().packets + self.dev.len() as u32
    }
    pub(super) fn hold(&mut self, enq: u64, w0: u64) {
        self.n += 1;
        self.since_sum += enq.max(w0) as u128;
    }
    pub(super) fn release(&mut self, enq: u64, w0: u64) {
        self.n -= 1;
        self.since_sum -= enq.max(w0) as u128;
    }
    /// Whether the packet `serial`, leaving marked, was counted when it was marked at
    /// enqueue.
    pub(super) fn counted_mark(&mut self, serial: u64) -> bool {
        while self.marked.front().is_some_and(|&s| s < serial) {
            self.marked.pop_front();
        }
        if self.marked.front() == Some(&serial) {
            self.marked.pop_front();
            true
        } else {
            false
        }
    }
}
