//! Events that act on the network rather than on a packet or a flow: links going down
//! and up (routes recomputed; everything on a link that goes down is lost) or changing
//! their rate, queue samples for the traces, and the opening of the measurement window.

use aqm::{Backlog, QueueDiscipline, Time};

use super::Sim;
use super::event::Kind;
use super::link::{Slot, advance, fifo_up};
use super::queue::Queue;
use crate::packet::flags;
use crate::scenario::LinkAction;

impl Sim {
    /// The scenario's link event `i`: a link goes down or comes back up, or changes
    /// its rate.
    pub(super) fn on_link_event(&mut self, i: usize) {
        let ev = self.sc.events[i].clone();
        let up = match ev.action {
            LinkAction::Rate(bps) => {
                for d in [2 * ev.link, 2 * ev.link + 1] {
                    self.set_rate(d, bps);
                }
                return;
            }
            LinkAction::Up => true,
            LinkAction::Down => false,
        };
        if up == self.link_up[ev.link] {
            return;
        }
        self.link_up[ev.link] = up;
        for d in [2 * ev.link, 2 * ev.link + 1] {
            if up {
                let dir = &mut self.dirs[d];
                dir.up = true;
                dir.fifo_up = fifo_up(true, &dir.queue);
                if self.sc.express_hops {
                    dir.lean = dir.lean_limit();
                }
            } else {
                self.link_down(d);
            }
            self.check_dir(d);
        }
        self.routes = self.sc.routes(&self.link_up);
    }

    /// Direction `d` serves at `bps` from now on. The packet in transmission finishes
    /// at the rate it started with (one starting at this instant too); the packets
    /// waiting behind it are re-timed (their delivery event moves with the head's). A
    /// discipline built with the link's rate (RED's idle-time aging, automatic
    /// parameters) keeps the configured one.
    fn set_rate(&mut self, d: usize, bps: f64) {
        let now = self.now;
        // (a line freeing at this instant starts its next packet first, at the old rate,
        // as a packet whose start was scheduled for this instant does)
        self.serve(d, now);
        let dir = &mut self.dirs[d];
        advance(dir, d, now, now, &mut self.traces, &self.flows);
        dir.rate_bps = bps.round().clamp(1.0, 1e15) as u64;
        dir.last_size = u32::MAX; // (the kept transmission time was at the old rate)
        if dir.n_started == dir.q.len() || matches!(dir.queue, Queue::Held(_)) {
            return; // nothing waits in the FIFO (a qdisc's packets start at the new rate)
        }
        let mut prev_end = if dir.n_started > 0 { dir.q[dir.n_started - 1].end } else { now };
        for i in dir.n_started..dir.q.len() {
            let tx = dir.tx_ns(dir.q[i].pkt.size);
            let slot = &mut dir.q[i];
            slot.start = slot.enq.max(prev_end).max(now);
            slot.end = slot.start + tx;
            prev_end = slot.end;
        }
        dir.busy_until = prev_end;
        let head = dir.q.iter().find(|s| s.pkt.flags & flags::EXPRESS == 0);
        if let Some(at) = head.map(|h| h.end + dir.delay)
            && dir.scheduled != Some(at)
        {
            // (the event pending at the old time finds `scheduled` moved and does nothing)
            dir.scheduled = Some(at);
            self.schedule(at, Kind::Deliver, d);
        }
    }

    /// Direction `d` goes down: everything queued, in transmission or propagating is
    /// lost.
    fn link_down(&mut self, d: usize) {
        let now = self.now;
        let dir = &mut self.dirs[d];
        advance(dir, d, now, self.now, &mut self.traces, &self.flows);
        self.held_link_down(d, now);
        let dir = &mut self.dirs[d];
        dir.up = false;
        dir.fifo_up = fifo_up(false, &dir.queue);
        dir.lean = 0;
        dir.scheduled = None;
        dir.n_plain = 0;
        let lost: Vec<Slot> = dir.q.drain(..).collect();
        let n_started = dir.n_started;
        dir.n_started = 0;
        for (k, s) in lost.iter().enumerate() {
            if k >= n_started {
                dir.bytes_waiting -= s.pkt.size as u64;
                let bl = Backlog { packets: (lost.len() - k - 1) as u32, bytes: dir.bytes_waiting };
                dir.aqm_mut().on_removed(Time(now), &s.pkt.info(), bl, false);
                dir.mon.waited(s.enq, now);
            }
            dir.mon.link_down_drops += 1;
        }
        dir.busy_until = now;
        for s in &lost {
            self.flows[s.pkt.flow as usize].mon.drop_of(&s.pkt, now, self.w0, self.w1);
        }
    }

    /// Sample traced queue `i` (an entry of `trace.queue`) and schedule the next sample.
    pub(super) fn on_sample(&mut self, i: usize) {
        let now = self.now;
        let d = self.sc.trace.queue[i];
        self.serve(d, now);
        let dir = &mut self.dirs[d];
        advance(dir, d, now, self.now, &mut self.traces, &self.flows);
        let (w, avg) = match &dir.queue {
            Queue::Fifo(aqm) => (dir.waiting(), aqm.average_queue()),
            Queue::Held(_) => (dir.queued_at(now), dir.signal()),
        };
        if let Some(t) = self.traces.as_mut() {
            t.queue(now, d, w, avg);
        }
        let next = now + self.sc.trace.interval.0;
        if next <= self.end {
            self.schedule(next, Kind::Sample, i);
        }
    }

    /// The measurement window opens: each sender's counters are snapshot, to be
    /// subtracted in the summary.
    pub(super) fn on_warmup(&mut self) {
        for fl in self.flows.iter_mut() {
            fl.mon.at_warmup = fl.tcp.as_ref().map(|_| fl.tcp_stats());
        }
    }
}
