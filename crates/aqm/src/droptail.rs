//! The baselines: Drop Tail and Random Drop (Floyd & Jacobson Section II; Hashem).

use crate::common::{self, AqmRng, Limit};
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::QueueDiscipline;
use crate::time::Time;
use rand::Rng;

/// First-in first-out with a finite buffer: an arrival to a full buffer is dropped,
/// or, with `drop_front`, the packet at the head of the queue is dropped instead.
#[derive(Clone, Debug)]
pub struct DropTail {
    pub limit: Limit,
    pub drop_front: bool,
}

impl DropTail {
    pub fn new(limit: Limit, drop_front: bool) -> DropTail {
        DropTail { limit, drop_front }
    }

    pub fn on_arrival(&mut self, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        if !self.limit.overflows(backlog, pkt) {
            Verdict::Enqueue
        } else if self.drop_front && backlog.packets > 0 {
            Verdict::Evict { victim: 0 }
        } else {
            Verdict::Drop(DropReason::Overflow)
        }
    }
}

/// Random Drop: when a packet arrives to a full buffer, one packet chosen uniformly
/// among the queued packets and the arrival is dropped (ns-2's `drop_rand_` does the same).
#[derive(Clone, Debug)]
pub struct RandomDrop {
    pub limit: Limit,
    rng: AqmRng,
}

impl RandomDrop {
    pub fn new(limit: Limit, seed: u64) -> RandomDrop {
        RandomDrop { limit, rng: common::rng_from_seed(seed) }
    }

    pub fn on_arrival(&mut self, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        if !self.limit.overflows(backlog, pkt) {
            return Verdict::Enqueue;
        }
        let k = self.rng.random_range(0..=backlog.packets);
        if k == backlog.packets {
            Verdict::Drop(DropReason::Overflow)
        } else {
            Verdict::Evict { victim: k }
        }
    }

    /// A further victim among `backlog.packets` queued packets (byte limits may need several).
    pub fn victim(&mut self, backlog: Backlog) -> u32 {
        self.rng.random_range(0..backlog.packets.max(1))
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn on_arrival(&mut self, _now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        DropTail::on_arrival(self, pkt, backlog)
    }
    fn limit(&self) -> Limit {
        self.limit
    }
    #[inline]
    fn on_removed(
        &mut self,
        _now: Time,
        _pkt: &PacketInfo,
        _backlog_after: Backlog,
        _departed: bool,
    ) {
    }
}

impl QueueDiscipline for RandomDrop {
    #[inline]
    fn on_arrival(&mut self, _now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        RandomDrop::on_arrival(self, pkt, backlog)
    }
    fn limit(&self) -> Limit {
        self.limit
    }
    #[inline]
    fn on_removed(
        &mut self,
        _now: Time,
        _pkt: &PacketInfo,
        _backlog_after: Backlog,
        _departed: bool,
    ) {
    }
    fn victim(&mut self, backlog: Backlog) -> u32 {
        RandomDrop::victim(self, backlog)
    }
}
