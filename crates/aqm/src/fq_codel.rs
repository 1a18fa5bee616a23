//! FQ-CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet; RFC 8290): the
//! flow-queue scheduler of [`crate::fq`] with CoDel ([`CodelCore`]) managing each flow
//! queue (Section 5.1, "each queue is managed by the CoDel algorithm"), all flows with
//! the same CoDel parameters.
//!
//! CoDel's `maxpacket` test looks at the flow's own queue (ns-3 does the same; Linux
//! compares the whole scheduler's backlog with the MTU). RFC 8290's defaults
//! (Section 5.2) are those of [`FqParams::default`] and [`CodelParams::default`], with
//! ECN on (Linux and ns-3 turn it on for FQ-CoDel).

use crate::codel::{CodelCore, CodelFields, CodelParams};
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
    /// FQ-CoDel (RFC 8290): flows hashed into `flows` queues served by deficit round
    /// robin, new flows first, each queue managed by CoDel. RFC 8290 Section 5.2's
    /// defaults, Linux's where the RFC has none.
    pub struct FqCodelConfig {
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
        ..codel: CodelFields = fq_codel_defaults(),
        /// Seed of the flow hash's salt.
        seed: Option<u64> = None,
    }
}

/// FQ-CoDel's CoDel defaults: CoDel's, with ECN on (RFC 8290, Linux, ns-3).
fn fq_codel_defaults() -> CodelFields {
    CodelFields { ecn: true, ..CodelFields::default() }
}

impl FqCodelConfig {
    /// The scheduler's parameters, validated.
    fn fq_params(&self, ctx: &BuildContext) -> Result<FqParams> {
        let max = u32::MAX as u64;
        let p = FqParams {
            flows: count_in("flows", self.flows, crate::fq::MAX_FLOWS as u64)? as u32,
            quantum: count_in("quantum", self.quantum, max)? as u32,
            limit: count_in("limit", self.limit, max)? as u32,
            memory_limit: check::positive_int("memory_limit", self.memory_limit)?,
            drop_batch_size: count_in("drop_batch_size", self.drop_batch_size, max)? as u32,
            overflow: Overflow::FattestFlow,
            seed: seed(self.seed, ctx),
        };
        p.validate()?;
        Ok(p)
    }
}

impl AqmConfig for FqCodelConfig {
    /// Drops from the fattest flow and CoDel's drops at dequeue.
    fn may_evict(&self) -> bool {
        true
    }
    fn limit_packets(&self) -> Option<u64> {
        Some(self.limit)
    }
    fn normalize(&mut self) -> Result<()> {
        self.codel.normalize()
    }
}

impl BuildQdisc for FqCodelConfig {
    type Qdisc<P: Packet> = FqCodel<P>;
    fn build<P: Packet>(&self, ctx: &BuildContext) -> Result<FqCodel<P>> {
        fq_codel(self.fq_params(ctx)?, self.codel.params()?)
    }
}

impl FlowAqm for CodelCore {
    type Params = CodelParams;

    fn new(_params: &CodelParams, _index: u32) -> Self {
        CodelCore::new()
    }
    #[inline]
    fn dequeue<P: Packet>(
        &mut self,
        params: &CodelParams,
        now: Time,
        queue: &mut PacketQueue<P>,
        stats: &mut QueueStats,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        CodelCore::dequeue(self, params, now, queue, stats, dropped)
    }
    /// CoDel's drop count.
    fn signal(&self) -> f64 {
        self.count as f64
    }
    fn signal_kind() -> SignalKind {
        SignalKind::DropCount
    }
}

/// FQ-CoDel: the flow-queue scheduler with CoDel per flow.
pub type FqCodel<P> = Fq<P, CodelCore>;

/// FQ-CoDel from its scheduler and CoDel parameters, both validated.
pub fn fq_codel<P: Packet>(fq: FqParams, codel: CodelParams) -> Result<FqCodel<P>> {
    codel.validate()?;
    Fq::new(fq, codel)
}
