//! Random Drop, the baseline of Floyd & Jacobson 1993 (Section II, after Hashem).

use rand::Rng;

use crate::common::{self, AqmRng, Limit};
use crate::config::build::seed;
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::Result;
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::QueueDiscipline;
use crate::time::Time;

config_struct! {
    /// Random Drop (Floyd & Jacobson 1993, Section II; Hashem 1989): on overflow one
    /// packet, chosen uniformly among the queued ones and the arrival, is dropped.
    pub struct RandomDropConfig {
        /// Buffer in packets (required unless `limit_bytes`).
        limit: Option<u64> = None,
        /// Buffer in bytes.
        limit_bytes: Option<u64> = None,
        /// Seed of the choice of victims.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for RandomDropConfig {
    fn may_evict(&self) -> bool {
        true
    }
    fn limit_packets(&self) -> Option<u64> {
        self.limit
    }
}

impl BuildAqm for RandomDropConfig {
    type Aqm = RandomDrop;
    fn build(&self, ctx: &BuildContext) -> Result<RandomDrop> {
        Ok(RandomDrop::new(Limit::new(self.limit, self.limit_bytes)?, seed(self.seed, ctx)))
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
