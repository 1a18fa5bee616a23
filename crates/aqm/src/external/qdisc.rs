//! An external AQM that decides at dequeue, in a queue that holds its packets.

use super::{DequeueVerdict, ExternalAqm};
use crate::common::Limit;
use crate::packet::{Backlog, DropReason, Packet, Verdict};
use crate::qdisc::{Dequeued, PacketQueue, Qdisc};
use crate::queue::{QueueStats, SignalKind};
use crate::time::Time;

/// One FIFO of packets and an external AQM asked at each arrival and, each time the
/// line is free, about the packet at the head: a variant of [`crate::AnyQdisc`].
#[derive(Debug)]
pub struct ExternalQdisc<P> {
    aqm: Box<dyn ExternalAqm>,
    queue: PacketQueue<P>,
    stats: QueueStats,
}

impl<P: Packet> ExternalQdisc<P> {
    pub fn new(aqm: Box<dyn ExternalAqm>) -> ExternalQdisc<P> {
        ExternalQdisc { aqm, queue: PacketQueue::default(), stats: QueueStats::default() }
    }
    /// The AQM.
    pub fn aqm(&self) -> &dyn ExternalAqm {
        self.aqm.as_ref()
    }
}

impl<P: Clone> Clone for ExternalQdisc<P> {
    fn clone(&self) -> Self {
        ExternalQdisc { aqm: self.aqm.share(), queue: self.queue.clone(), stats: self.stats }
    }
}

impl<P: Packet> Qdisc<P> for ExternalQdisc<P> {
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        let info = pkt.info();
        self.stats.arrivals += 1;
        let verdict = self.aqm.on_arrival(now, &info, self.queue.backlog());
        match verdict {
            Verdict::Enqueue | Verdict::Mark => {
                let marked = verdict == Verdict::Mark;
                self.stats.marks += u64::from(marked);
                self.stats.enqueued += 1;
                self.queue.hold(now, pkt, marked);
            }
            Verdict::Drop(reason) => {
                self.stats.record_drop(reason);
                dropped(pkt, reason);
            }
            Verdict::Evict { victim } => {
                if let Some(h) = self.queue.remove(victim as usize) {
                    self.stats.overflow_drops += 1;
                    self.aqm.on_removed(now, &h.pkt.info(), self.queue.backlog(), false);
                    dropped(h.pkt, DropReason::Overflow);
                }
                self.stats.enqueued += 1;
                self.queue.hold(now, pkt, false);
            }
        }
        verdict
    }

    fn dequeue(
        &mut self,
        now: Time,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        loop {
            let backlog = self.queue.backlog();
            let h = self.queue.pop_front()?;
            let info = h.pkt.info();
            let after = self.queue.backlog();
            match self.aqm.on_dequeue(now, &info, h.enqueued_at, backlog) {
                DequeueVerdict::Drop => {
                    self.stats.early_drops += 1;
                    self.aqm.on_removed(now, &info, after, false);
                    dropped(h.pkt, DropReason::Early);
                }
                v => {
                    let marked = h.marked || v == DequeueVerdict::Mark;
                    self.stats.marks += u64::from(v == DequeueVerdict::Mark && !h.marked);
                    self.stats.departures += 1;
                    self.stats.departed_bytes += u64::from(info.size);
                    self.aqm.on_removed(now, &info, after, true);
                    return Some(Dequeued { pkt: h.pkt, marked, enqueued_at: h.enqueued_at });
                }
            }
        }
    }
    fn backlog(&self) -> Backlog {
        self.queue.backlog()
    }
    fn limit(&self) -> Limit {
        self.aqm.limit()
    }
    fn stats(&self) -> &QueueStats {
        &self.stats
    }
    fn poll_at(&self) -> Option<Time> {
        self.aqm.poll_at()
    }
    fn poll(&mut self, now: Time) {
        self.aqm.poll(now)
    }
    fn signal(&self) -> f64 {
        self.aqm.signal()
    }
    fn signal_kind(&self) -> SignalKind {
        self.aqm.signal_kind()
    }
}
