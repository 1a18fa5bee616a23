//! The lean path: a packet offered to a plain Drop Tail direction (not drop-from-front,
//! no per-flow counters, not traced, link up) whose line is idle and whose buffer is
//! empty is accepted and starts at once, so its whole account (arrival, acceptance,
//! queue seen, departure with no wait) is one step over the direction's first fields
//! and the monitor's counters, without the general path's decision, removal and trace
//! checks. A packet larger than a byte limit still goes the general way (an empty
//! buffer drops it). `Dir::lean` holds the largest packet the path takes (0: none),
//! set when the network is built and when a link goes down or up; `express_hops =
//! false` turns it off. On the dumbbell five of a packet's six queue visits (the
//! access links and the ACKs' reverse bottleneck) take it.

use super::Sim;
use super::express::Dest;
use super::link::Slot;
use crate::packet::Pkt;

impl Sim {
    /// Whether direction `d` takes a packet of `size` bytes at `now` by the lean path.
    #[inline(always)]
    pub(super) fn lean_takes(&self, d: usize, size: u32, now: u64) -> bool {
        let dir = &self.dirs[d];
        dir.busy_until <= now && size as u64 <= dir.lean && dir.q.len() == dir.n_started
    }

    /// The lean path of `enqueue`: the same accounting as `offer` and `accept`, without
    /// their general cases. (Not inlined: `enqueue`'s test is, so that a packet the
    /// lean path does not take goes to `offer` without this frame.)
    #[inline(never)]
    pub(super) fn pass(&mut self, d: usize, pkt: Pkt, now: u64) {
        let dir = &mut self.dirs[d];
        let end = now + dir.tx_ns(pkt.size);
        dir.busy_until = end;
        let at = end + dir.delay;
        dir.mon.pass(now, end, pkt.size);
        let open = at <= self.horizon && dir.n_plain == 0;
        match self.early_target(d, Dest::of(&pkt), at, open) {
            Some(target) => self.hand_on(target, d, pkt, at),
            None => {
                let dir = &mut self.dirs[d];
                dir.q.push_back(Slot { enq: now, start: now, end, pkt });
                dir.n_started += 1;
                self.add_plain(d, at);
            }
        }
    }
}
