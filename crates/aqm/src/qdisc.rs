//! Queues that hold their packets: the general form of a queue discipline.
//!
//! [`QueueDiscipline`](crate::QueueDiscipline) decides only on arrival and leaves the
//! one FIFO buffer to its owner, which is what the RED family needs and what lets the
//! simulator compute departures without asking the discipline again. Modern AQMs do
//! not fit that shape: CoDel decides at dequeue from the time a packet waited, PIE's
//! timestamp mode measures the same, and FQ-CoDel, FQ-PIE and DualPI2 schedule among
//! several queues. A [`Qdisc`] is the shape that fits them all, as in Linux: it holds
//! its packets, is offered each arrival ([`Qdisc::enqueue`]) and asked for the next
//! packet to send when the line is free ([`Qdisc::dequeue`]). Either call may discard
//! packets (the arrival, packets already queued, packets found too old at dequeue);
//! each discarded packet is handed back through the `dropped` callback with its reason.
//!
//! Marks: a packet marked (ECN CE) at enqueue or dequeue comes out of
//! [`Qdisc::dequeue`] with [`Dequeued::marked`] set; the owner sets the bit on its
//! packet. A qdisc never reads a clock: every call takes `now`, and a qdisc with
//! periodic work (PIE's `tupdate`, PI's sampling) says when through [`Qdisc::poll_at`].
//!
//! Every arrival-time discipline is also a qdisc: [`Fifo`] holds the packets of a
//! [`QueueDiscipline`](crate::QueueDiscipline) in one FIFO and applies its verdicts,
//! so a caller written against [`Qdisc`] (the gateway, the Python API, the simulator's
//! scheduled links) serves every type. [`AnyQdisc`](crate::AnyQdisc) dispatches among them by `match`.

use std::collections::VecDeque;

use crate::common::Limit;
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::queue::{Queue, QueueDiscipline, QueueStats, SignalKind};
use crate::time::Time;

/// A packet leaving a [`Qdisc`] for the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dequeued<P> {
    pub pkt: P,
    /// Set congestion-experienced on it (ECN) before sending.
    pub marked: bool,
    /// When it was enqueued (its sojourn time is `now - enqueued_at`).
    pub enqueued_at: Time,
}

/// A queue that holds its packets and decides at enqueue, at dequeue or both.
///
/// Counting: every arrival ends in exactly one of the [`QueueStats`] outcomes at
/// enqueue (enqueued, early, forced or overflow drop); a packet enqueued and later
/// discarded (at dequeue, or to make room) also counts as a drop of its reason, so
/// `enqueued = departures + drops after enqueue + backlog` holds at any time.
pub trait Qdisc<P: Packet> {
    /// Offer a packet arriving at `now`. Every packet this call discards (the arrival,
    /// or queued packets dropped to make room) goes to `dropped` with its reason.
    /// Returns the verdict on the arrival ([`Verdict::Evict`] when queued packets made
    /// room for it).
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict;
    /// The next packet to send at `now`, or `None` when nothing is left to send.
    /// Packets discarded on the way (CoDel's drops) go to `dropped`.
    fn dequeue(&mut self, now: Time, dropped: &mut dyn FnMut(P, DropReason))
    -> Option<Dequeued<P>>;
    /// Packets and bytes held.
    fn backlog(&self) -> Backlog;
    /// The physical buffer (for FQ schedulers, the whole of it).
    fn limit(&self) -> Limit;
    /// Counters since construction.
    fn stats(&self) -> &QueueStats;
    /// When the qdisc next needs [`Qdisc::poll`], if ever.
    fn poll_at(&self) -> Option<Time> {
        None
    }
    /// Run periodic work due at `now`.
    fn poll(&mut self, _now: Time) {}
    /// The discipline's main congestion signal for monitors: RED's average queue, PIE's
    /// and PI's drop probability, CoDel's drop count; 0 when it has none. What it
    /// measures is [`Qdisc::signal_kind`].
    fn signal(&self) -> f64 {
        0.0
    }
    /// What [`Qdisc::signal`] measures.
    fn signal_kind(&self) -> SignalKind {
        SignalKind::None
    }
    /// The state as named values, for inspection (not the packet path); see
    /// [`QueueDiscipline::inspect`].
    fn inspect(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
}

/// A packet waiting in a [`Fifo`], with what the qdisc must remember of it.
#[derive(Clone, Copy, Debug)]
pub struct Held<P> {
    pub pkt: P,
    pub marked: bool,
    pub enqueued_at: Time,
}

impl<P: Packet> Packet for Held<P> {
    #[inline]
    fn info(&self) -> PacketInfo {
        self.pkt.info()
    }
}

/// One FIFO of [`Held`] packets with its byte count: the buffer of every packet-holding
/// qdisc of this crate (CoDel alone or per flow of [`crate::fq::Fq`], PIE, CHOKe,
/// DualPI2's two queues).
#[derive(Clone, Debug)]
pub struct PacketQueue<P> {
    buf: VecDeque<Held<P>>,
    /// Bytes waiting (the sum of the packets' sizes).
    bytes: u64,
}

impl<P> Default for PacketQueue<P> {
    fn default() -> Self {
        PacketQueue { buf: VecDeque::new(), bytes: 0 }
    }
}

impl<P: Packet> PacketQueue<P> {
    /// Append a packet at the tail.
    #[inline]
    pub fn push(&mut self, h: Held<P>) {
        self.bytes += h.pkt.info().size as u64;
        self.buf.push_back(h);
    }
    /// Take the packet at the head.
    #[inline]
    pub fn pop_front(&mut self) -> Option<Held<P>> {
        let h = self.buf.pop_front()?;
        self.bytes -= h.pkt.info().size as u64;
        Some(h)
    }
    /// The packet at the head.
    pub fn front(&self) -> Option<&Held<P>> {
        self.buf.front()
    }
    /// Packets and bytes waiting.
    #[inline]
    pub fn backlog(&self) -> Backlog {
        Backlog { packets: self.buf.len() as u32, bytes: self.bytes }
    }
    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    /// The packets waiting, head first.
    pub fn iter(&self) -> impl Iterator<Item = &Held<P>> {
        self.buf.iter()
    }
    /// Append a packet arriving at `now`, marked at enqueue or not.
    #[inline]
    pub fn hold(&mut self, now: Time, pkt: P, marked: bool) {
        self.push(Held { pkt, marked, enqueued_at: now });
    }
    /// Take the packet at the head, as it leaves for the line.
    #[inline]
    pub fn pop(&mut self) -> Option<Dequeued<P>> {
        let h = self.pop_front()?;
        Some(Dequeued { pkt: h.pkt, marked: h.marked, enqueued_at: h.enqueued_at })
    }
    /// The packet at position `idx` (0 = head).
    pub fn get(&self, idx: usize) -> Option<&Held<P>> {
        self.buf.get(idx)
    }
    /// Remove the packet at position `idx` (0 = head).
    pub fn remove(&mut self, idx: usize) -> Option<Held<P>> {
        let h = self.buf.remove(idx)?;
        self.bytes -= h.pkt.info().size as u64;
        Some(h)
    }
}

/// An arrival-time discipline over one FIFO buffer, as a [`Qdisc`].
#[derive(Clone, Debug)]
pub struct Fifo<P, D> {
    queue: Queue<Held<P>, D>,
}

impl<P: Packet, D: QueueDiscipline> Fifo<P, D> {
    pub fn new(disc: D) -> Self {
        Fifo { queue: Queue::new(disc) }
    }
    pub fn discipline(&self) -> &D {
        self.queue.discipline()
    }
    pub fn discipline_mut(&mut self) -> &mut D {
        self.queue.discipline_mut()
    }
    /// The packets waiting, head first.
    pub fn iter(&self) -> impl Iterator<Item = &P> {
        self.queue.iter().map(|h| &h.pkt)
    }
}

impl<P: Packet, D: QueueDiscipline> Qdisc<P> for Fifo<P, D> {
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        let held = Held { pkt, marked: false, enqueued_at: now };
        let verdict = self.queue.enqueue(now, held, |h, r| dropped(h.pkt, r));
        if verdict == Verdict::Mark {
            // The arrival is the newest packet of the FIFO.
            if let Some(last) = self.queue.back_mut() {
                last.marked = true;
            }
        }
        verdict
    }
    fn dequeue(
        &mut self,
        now: Time,
        _dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        let h = self.queue.dequeue(now)?;
        Some(Dequeued { pkt: h.pkt, marked: h.marked, enqueued_at: h.enqueued_at })
    }
    fn backlog(&self) -> Backlog {
        self.queue.backlog()
    }
    fn limit(&self) -> Limit {
        self.queue.discipline().limit()
    }
    fn stats(&self) -> &QueueStats {
        self.queue.stats()
    }
    fn poll_at(&self) -> Option<Time> {
        self.queue.poll_at()
    }
    fn poll(&mut self, now: Time) {
        self.queue.poll(now)
    }
    fn signal(&self) -> f64 {
        self.queue.discipline().signal()
    }
    fn signal_kind(&self) -> SignalKind {
        self.queue.discipline().signal_kind()
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.queue.discipline().inspect(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AnyQdisc;
    use crate::config::{BuildContext, QueueConfig};

    fn red_fifo() -> AnyQdisc<PacketInfo> {
        let mut c = QueueConfig::default_of("red").unwrap();
        if let QueueConfig::Red(r) = &mut c {
            r.red.ecn = true;
            r.min_th = 1.0;
            r.max_th = 30.0;
            r.w_q = 1.0;
            r.red.max_p = 1.0;
            r.red.limit = Some(40);
        }
        c.build_qdisc(&BuildContext::default()).unwrap()
    }

    #[test]
    fn fifo_carries_marks_and_sojourn_to_dequeue() {
        let mut q = red_fifo();
        let mut drops = Vec::new();
        let mut verdicts = Vec::new();
        for i in 0..20u64 {
            let mut p = PacketInfo::new(1000, 0);
            p.ecn_capable = true;
            verdicts.push(q.enqueue(Time(i), p, &mut |p, r| drops.push((p, r))));
        }
        // With w_q = 1 the average is the queue: between min_th and max_th RED marks
        // ECN-capable arrivals with a probability growing to 1; it never drops them.
        let marks: Vec<bool> = verdicts.iter().map(|v| *v == Verdict::Mark).collect();
        assert!(marks.iter().any(|m| *m), "{verdicts:?}");
        assert!(verdicts.iter().all(|v| matches!(v, Verdict::Enqueue | Verdict::Mark)));
        let mut out = Vec::new();
        while let Some(d) = q.dequeue(Time(100), &mut |p, r| drops.push((p, r))) {
            out.push(d);
        }
        assert!(drops.is_empty());
        assert_eq!(out.len(), 20);
        for (i, d) in out.iter().enumerate() {
            assert_eq!(d.marked, marks[i], "packet {i}");
            assert_eq!(Time(100) - d.enqueued_at, crate::Duration(100 - i as u64));
        }
        assert_eq!(q.stats().departures, 20);
        assert_eq!(q.backlog(), Backlog::default());
    }
}
