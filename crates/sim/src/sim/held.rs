//! Directions whose queue holds its packets: an `aqm::AnyQdisc` decides at enqueue,
//! at dequeue or both (CoDel, PIE, the fair-queueing schedulers), so a packet's
//! departure is not known when it is accepted.
//!
//! Such a direction (its configuration `holds_packets()`, a link with a device queue,
//! or every direction with `qdisc_path = true`) keeps its waiting packets in the qdisc
//! and only the packets on the line or propagating in its FIFO of slots. An arrival is
//! offered with `enqueue` ([`Sim::offer_held`]); when the line is free the qdisc is
//! asked for the next packet with `dequeue` ([`Sim::serve`]), which starts its
//! transmission: a slot `(enqueued, start = now, end, packet)` joins the FIFO, whose
//! delivery event works as on the plain path, and a `Serve` event at `end` asks again.
//! The line's freeing comes before anything else at the same instant: an arrival, a
//! sample or the end of the run first serves a line that freed by then (as `advance`
//! does on the FIFO path), so a `Fifo` over an arrival-time discipline sees exactly the
//! arrivals and removals of the FIFO path, and gives its results bit for bit (tested
//! with `qdisc_path`). A qdisc's periodic work runs at a `Poll` event at `poll_at()`.
//! With a device queue (the link's `device_queue = n`), the qdisc is asked whenever the
//! device has room: while the line is busy it holds the next `n` packets, and a freeing
//! line takes the oldest of them.
//!
//! Drops at either end count as the direction's drops with their reasons (a packet
//! dropped after it was enqueued also counts its wait). A packet marked at enqueue is
//! counted then, as on the FIFO path; one marked at dequeue when it leaves; it carries
//! CE from its departure on, and an ECN-incapable packet is never marked. The
//! monitors' average is the qdisc's `signal()` sampled after each arrival, as the FIFO
//! path samples RED's average (a change at a dequeue or a periodic step shows from
//! the next arrival on).
//!
//! The speed mechanisms do not apply: no packet is handed on early into, out of or
//! through such a direction, it never takes the lean path or merges, and a network
//! with one runs on one thread (see `plan`).

use aqm::{Dequeued, DropReason, Qdisc, Time, Verdict};

use super::Sim;
use super::event::Kind;
use super::link::{Slot, departed, trace_drop};
use super::queue::{Held, QPkt, Queue};
use crate::packet::{Pkt, flags};

/// The qdisc of a direction that holds its packets.
#[inline(always)]
fn held(queue: &mut Queue) -> &mut Held {
    match queue {
        Queue::Held(h) => h,
        Queue::Fifo(_) => unreachable!("a direction that holds its packets"),
    }
}

impl Sim {
    /// The qdisc of direction `d` (up) decides on `pkt`, arriving at `now`.
    pub(super) fn offer_held(&mut self, d: usize, pkt: Pkt, now: u64) {
        self.serve(d, now);
        let w0 = self.w0;
        let dir = &mut self.dirs[d];
        dir.mon.arrival(now);
        if !dir.flow_arrivals.is_empty() && !pkt.is_ack() && dir.mon.in_window(now) {
            dir.flow_arrivals[pkt.flow as usize] += 1;
        }
        let h = held(&mut dir.queue);
        let serial = h.next_serial;
        h.next_serial += 1;
        let mut drops = std::mem::take(&mut h.drops);
        let qp = QPkt { pkt, enq: now, serial };
        let verdict = h.q.enqueue(Time(now), qp, &mut |p, r| drops.push((p, r)));
        dir.mon.avg_change(now, h.q.signal());
        for &(p, r) in &drops {
            if p.serial != serial {
                let dir = &mut self.dirs[d];
                held(&mut dir.queue).release(p.enq, w0);
                dir.mon.waited(p.enq, now);
            }
            self.held_dropped(d, p.pkt, r, now);
        }
        drops.clear();
        let dir = &mut self.dirs[d];
        let h = held(&mut dir.queue);
        h.drops = drops;
        if !matches!(verdict, Verdict::Drop(_)) {
            h.hold(now, w0);
            let mut seen = pkt;
            if verdict == Verdict::Mark && pkt.flags & flags::ECT != 0 {
                h.marked.push_back(serial);
                seen.flags |= flags::CE;
                if dir.mon.in_window(now) {
                    dir.mon.marks += 1;
                    self.flows[pkt.flow as usize].mon.marks += 1;
                }
                if let Some(t) = self.traces.as_mut()
                    && dir.trace.signals
                {
                    t.signal(now, d, 'm', &seen);
                }
            }
            dir.mon.accepted();
            dir.mon.queue_seen(now, h.waiting());
            if let Some(t) = self.traces.as_mut()
                && dir.trace.pkts
            {
                t.packet(now, d, if seen.flags & flags::CE != 0 { 'm' } else { 'a' }, &seen);
            }
        }
        self.serve(d, now);
        if let Some(t) = self.traces.as_mut() {
            let dir = &self.dirs[d];
            if dir.trace.q_every_arrival {
                t.queue(now, d, dir.queued_at(now), dir.signal());
            }
        }
        self.rearm_poll(d);
    }

    /// Packet `pkt` of direction `d` is dropped at `now` for `reason` (the arrival, or
    /// a packet held: the caller has counted its wait).
    fn held_dropped(&mut self, d: usize, pkt: Pkt, reason: DropReason, now: u64) {
        let dir = &mut self.dirs[d];
        dir.mon.dropped(now, reason.is_early(), reason == DropReason::Overflow);
        if let Some(t) = self.traces.as_mut()
            && dir.trace.drops()
        {
            trace_drop(t, dir.trace, now, d, &pkt);
        }
        self.flows[pkt.flow as usize].mon.drop_of(&pkt, now, self.w0, self.w1);
    }

    /// If the line of direction `d` is free at `now` (and up), it takes the next packet
    /// of the device queue, or else the qdisc's next, if any; then, and while the line
    /// is busy, the qdisc fills the device queue.
    pub(super) fn serve(&mut self, d: usize, now: u64) {
        let dir = &mut self.dirs[d];
        let Queue::Held(h) = &mut dir.queue else { return };
        if dir.busy_until > now || !dir.up {
            if h.device > 0 && dir.up {
                self.fill_device(d, now);
            }
            return;
        }
        if h.device > 0 {
            return self.serve_device(d, now);
        }
        if h.q.backlog().packets == 0 {
            return;
        }
        if let Some(out) = self.dequeue_held(d, now) {
            self.transmit(d, out, now);
        }
    }

    /// `serve` with a device queue, the line free: it takes the device queue's oldest
    /// packet, or else the qdisc's next; then the qdisc fills the device queue.
    #[cold]
    fn serve_device(&mut self, d: usize, now: u64) {
        let h = held(&mut self.dirs[d].queue);
        let out = match h.dev.pop_front() {
            Some(out) => Some(out),
            None if h.q.backlog().packets == 0 => None,
            None => self.dequeue_held(d, now),
        };
        if let Some(out) = out {
            self.transmit(d, out, now);
        }
        self.fill_device(d, now);
    }

    /// While the device queue of direction `d` has room, its qdisc gives it packets.
    fn fill_device(&mut self, d: usize, now: u64) {
        loop {
            let h = held(&mut self.dirs[d].queue);
            if h.dev.len() >= h.device || h.q.backlog().packets == 0 {
                return;
            }
            let Some(out) = self.dequeue_held(d, now) else { return };
            held(&mut self.dirs[d].queue).dev.push_back(out);
        }
    }

    /// The qdisc of direction `d` gives its next packet at `now`, if any (the packets
    /// it drops on the way are counted).
    #[inline(always)]
    fn dequeue_held(&mut self, d: usize, now: u64) -> Option<Dequeued<QPkt>> {
        let h = held(&mut self.dirs[d].queue);
        let mut drops = std::mem::take(&mut h.drops);
        let out = h.q.dequeue(Time(now), &mut |p, r| drops.push((p, r)));
        for &(p, r) in &drops {
            let dir = &mut self.dirs[d];
            held(&mut dir.queue).release(p.enq, self.w0);
            dir.mon.waited(p.enq, now);
            self.held_dropped(d, p.pkt, r, now);
        }
        drops.clear();
        let dir = &mut self.dirs[d];
        held(&mut dir.queue).drops = drops;
        out
    }

    /// Direction `d` starts sending the packet its qdisc gave at `now`.
    #[inline(always)]
    fn transmit(&mut self, d: usize, out: Dequeued<QPkt>, now: u64) {
        let dir = &mut self.dirs[d];
        let h = held(&mut dir.queue);
        let QPkt { mut pkt, enq, serial } = out.pkt;
        h.release(enq, self.w0);
        if out.marked && pkt.flags & flags::ECT != 0 {
            let counted = h.counted_mark(serial);
            pkt.flags |= flags::CE;
            if !counted && dir.mon.in_window(now) {
                dir.mon.marks += 1;
                self.flows[pkt.flow as usize].mon.marks += 1;
            }
            if !counted
                && let Some(t) = self.traces.as_mut()
                && dir.trace.signals
            {
                t.signal(now, d, 'm', &pkt);
            }
        }
        let end = now + dir.tx_ns(pkt.size);
        dir.busy_until = end;
        let slot = Slot { enq, start: now, end, pkt };
        departed(dir, d, &slot, &mut self.traces, &self.flows);
        dir.q.push_back(slot);
        dir.n_started += 1;
        let at = end + dir.delay;
        self.add_plain(d, at);
        self.schedule(end, Kind::Serve, d);
    }

    /// The line of direction `d` frees (a `Serve` event).
    pub(super) fn on_serve(&mut self, d: usize) {
        self.serve(d, self.now);
        self.rearm_poll(d);
    }

    /// The periodic work of direction `d`'s qdisc is due (a `Poll` event).
    pub(super) fn on_poll(&mut self, d: usize) {
        let now = self.now;
        let Queue::Held(h) = &mut self.dirs[d].queue else { return };
        if h.poll_at != Some(now) {
            return; // stale: the qdisc moved its time
        }
        h.poll_at = None;
        self.serve(d, now);
        held(&mut self.dirs[d].queue).q.poll(Time(now));
        self.serve(d, now);
        self.rearm_poll(d);
    }

    /// Schedule a `Poll` event for direction `d` when its qdisc next needs one.
    pub(super) fn rearm_poll(&mut self, d: usize) {
        let now = self.now;
        let Queue::Held(h) = &mut self.dirs[d].queue else { return };
        let want = h.q.poll_at().map(|t| t.0.max(now));
        if want == h.poll_at {
            return;
        }
        h.poll_at = want;
        if let Some(t) = want {
            self.schedule(t, Kind::Poll, d);
        }
    }

    /// Direction `d` goes down at `now`: the packets its qdisc holds are lost.
    pub(super) fn held_link_down(&mut self, d: usize, now: u64) {
        let dir = &mut self.dirs[d];
        let Queue::Held(h) = &mut dir.queue else { return };
        let mut lost: Vec<QPkt> = h.dev.drain(..).map(|o| o.pkt).collect();
        while h.q.backlog().packets > 0 {
            match h.q.dequeue(Time(now), &mut |p, _| lost.push(p)) {
                Some(out) => lost.push(out.pkt),
                None => break,
            }
        }
        h.marked.clear();
        h.n = 0;
        h.since_sum = 0;
        for p in &lost {
            dir.mon.waited(p.enq, now);
            dir.mon.link_down_drops += 1;
        }
        for p in &lost {
            self.flows[p.pkt.flow as usize].mon.drop_of(&p.pkt, now, self.w0, self.w1);
        }
    }

    /// The packets direction `d`'s qdisc still holds at `end`, the end of the run,
    /// waited until then.
    pub(super) fn held_finish(&mut self, d: usize, end: u64) {
        let dir = &mut self.dirs[d];
        let Queue::Held(h) = &dir.queue else { return };
        let w = dir.mon.window;
        let e = end.min(w.end);
        if h.n > 0 && e > w.start {
            // each term e - max(enq, w0) >= 0: every packet held arrived by `end`
            let area = h.n as u128 * e as u128 - h.since_sum;
            dir.mon.waited_total(area);
        }
    }
}
