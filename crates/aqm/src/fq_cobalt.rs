//! FQ-COBALT: the flow-queue scheduler of [`crate::fq`] with COBALT ([`CobaltCore`])
//! managing each flow queue, as CAKE manages each of its flows (`sch_cake.c`; ns-3's
//! `FqCobaltQueueDisc`), all flows with the same parameters.
//!
//! - **Overflow.** With `limit` packets or `memory_limit` bytes held, a batch is dropped
//!   from the head of the fattest flow ([`Overflow::FattestFlow`], as CAKE's
//!   `cake_drop`), and that flow's COBALT takes it as BLUE's queue-full event.
//! - **Empty flows.** A flow the scheduler finds empty at dequeue has its queue-empty
//!   event (BLUE steps down). CAKE keeps such a flow on a list of decaying flows until
//!   its state is at rest; the RFC 8290 scheduler here lets it go, and its state decays
//!   when it is next served empty.
//! - **Randomness.** Each flow draws BLUE's drops from its own stream, seeded from the
//!   scheduler's seed and the flow's index, so that flows are independent and a run is
//!   repeatable.

use crate::cobalt::{CobaltCore, CobaltFields, CobaltParams};
use crate::common::{self, AqmRng};
use crate::config::build::{count_in, seed};
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildContext, BuildQdisc};
use crate::error::{Result, check};
use crate::fq::{FlowAqm, Fq, FqParams, Overflow};
use crate::packet::{DropReason, Packet};
use crate::qdisc::{Dequeued, PacketQueue};
use crate::queue::{QueueStats, SignalKind};
use crate::time::Time;

config_struct! {
    /// FQ-COBALT (CAKE's flow queueing without its shaper and tins; ns-3's
    /// FqCobaltQueueDisc): flows hashed into `flows` queues served by deficit round
    /// robin, new flows first, each queue managed by COBALT. FQ-CoDel's scheduler
    /// defaults.
    pub struct FqCobaltConfig {
        /// Packets held in all (10240), 1 .. 2^32 - 1.
        limit: u64 = 10240,
        /// Flow queues, hash buckets (1024), 1 .. 65536.
        flows: u64 = 1024,
        /// DRR quantum, bytes per round (1514).
        quantum: u64 = 1514,
        /// Bytes held in all (32 MB = 33554432).
        memory_limit: u64 = 32 << 20,
        /// Packets dropped at most from the head of the fattest flow per overflow,
        /// stopping once half its bytes are gone (64).
        drop_batch_size: u64 = 64,
        ..cobalt: CobaltFields = CobaltFields::default(),
        /// Seed of the flow hash's salt and of the flows' random streams.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for FqCobaltConfig {
    /// Drops from the fattest flow and COBALT's drops at dequeue.
    fn may_evict(&self) -> bool {
        true
    }
    fn limit_packets(&self) -> Option<u64> {
        Some(self.limit)
    }
    fn normalize(&mut self) -> Result<()> {
        self.cobalt.normalize()
    }
}

impl BuildQdisc for FqCobaltConfig {
    type Qdisc<P: Packet> = FqCobalt<P>;
    fn build<P: Packet>(&self, ctx: &BuildContext) -> Result<FqCobalt<P>> {
        let max = u32::MAX as u64;
        let fq = FqParams {
            flows: count_in("flows", self.flows, crate::fq::MAX_FLOWS as u64)? as u32,
            quantum: count_in("quantum", self.quantum, max)? as u32,
            limit: count_in("limit", self.limit, max)? as u32,
            memory_limit: check::positive_int("memory_limit", self.memory_limit)?,
            drop_batch_size: count_in("drop_batch_size", self.drop_batch_size, max)? as u32,
            overflow: Overflow::FattestFlow,
            seed: seed(self.seed, ctx),
        };
        let cobalt = self.cobalt.params()?;
        Fq::new(fq.clone(), FqCobaltAqm { cobalt, seed: fq.seed })
    }
}

/// The parameters every flow's COBALT shares.
#[derive(Clone, Debug, PartialEq)]
pub struct FqCobaltAqm {
    pub cobalt: CobaltParams,
    /// Seed of the flows' random streams.
    pub seed: u64,
}

/// COBALT on one flow queue.
#[derive(Clone, Debug)]
pub struct CobaltFlow {
    pub core: CobaltCore,
    rng: AqmRng,
}

impl FlowAqm for CobaltFlow {
    type Params = FqCobaltAqm;

    fn new(params: &FqCobaltAqm, index: u32) -> Self {
        // SplitMix64's increment keeps the flows' seeds apart
        let seed = params.seed ^ (index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        CobaltFlow { core: CobaltCore::new(), rng: common::rng_from_seed(seed) }
    }
    fn dequeue<P: Packet>(
        &mut self,
        params: &FqCobaltAqm,
        now: Time,
        queue: &mut PacketQueue<P>,
        stats: &mut QueueStats,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        self.core.dequeue(&params.cobalt, now, queue, stats, &mut self.rng, dropped)
    }
    /// BLUE's queue-full event.
    fn on_overflow(&mut self, params: &FqCobaltAqm, now: Time) {
        self.core.queue_full(&params.cobalt, now);
    }
    /// The flow's BLUE drop probability.
    fn signal(&self) -> f64 {
        self.core.p_drop
    }
    fn signal_kind() -> SignalKind {
        SignalKind::Probability
    }
}

/// FQ-COBALT: the flow-queue scheduler with COBALT per flow.
pub type FqCobalt<P> = Fq<P, CobaltFlow>;

#[cfg(test)]
#[path = "tests/fq_cobalt.rs"]
mod tests;
