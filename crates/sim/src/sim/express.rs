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
//! Which directions and hosts qualify is decided when the network is built (`plan`);
//! this module hands the packets on. docs/simulator.md ("Express hops", "Express
//! hosts") has the measured effect.

use super::Sim;
use super::flow::Flow;
use crate::packet::{Pkt, flags};

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

/// What `early_target` reads of a packet: its destination, its flow, and whether it
/// is an ACK. Taken apart from the packet so that the hot path does not borrow the
/// packet itself: a borrowed packet was copied (field by field) for each call that
/// hands it on, an unborrowed one is passed as it lies (S1 300 s: 4 % of the
/// instructions).
#[derive(Clone, Copy)]
pub(super) struct Dest {
    pub dst: u16,
    pub ack: bool,
    pub flow: u32,
}

impl Dest {
    #[inline(always)]
    pub(super) fn of(pkt: &Pkt) -> Dest {
        Dest { dst: pkt.dst, ack: pkt.flags & flags::ACK != 0, flow: pkt.flow }
    }
}

/// Whether the host at the end of a packet's path (`ack`: an ACK) can take it at
/// `at`: a receiver without timers always; a sender only if its retransmission timer
/// is not due by then, and if the packet does not cross the start of the window (the
/// sender's counters are read at that instant).
#[inline]
fn host_takes(fl: &Flow, ack: bool, at: u64, clock: u64, w0: u64) -> bool {
    if !ack {
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
    pub(super) fn early_target(&self, d: usize, pkt: Dest, at: u64, open: bool) -> Option<Early> {
        let dir = &self.dirs[d];
        let node = dir.to as usize;
        if pkt.dst as usize == node {
            let ok = open
                && dir.express.to_host
                && !self.in_host
                && host_takes(&self.flows[pkt.flow as usize], pkt.ack, at, self.now, self.w0);
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
            let Some(target) = self.early_target(d, Dest::of(&s.pkt), at, true) else { break };
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
