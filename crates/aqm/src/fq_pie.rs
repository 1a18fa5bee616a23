//! FQ-PIE as Linux's `sch_fq_pie` has it (Ramakrishnan, Bose, Tahiliani, 2020): the
//! flow-queue scheduler of [`crate::fq`] with a PIE controller ([`PieCore`], RFC 8033)
//! on each flow queue.
//!
//! What Linux does, and this module with it:
//! - **Per-flow PIE.** Each flow queue has its own drop probability, burst allowance
//!   and delay estimate; the early-drop test of RFC 8033 Section 4.1 (with Section 5.1's
//!   derandomization) looks at the flow's own backlog.
//! - **Delay from timestamps.** The delay of a flow is the sojourn time of the packet it
//!   last sent (RFC 8033 Section 5.3's alternative; Linux's default for FQ-PIE, whose
//!   `dq_rate_estimator` is off), 0 when that departure left the flow empty.
//! - **One timer.** Every `tupdate` every flow's probability is updated from its delay
//!   (Section 4.2), idle flows included (their probability decays).
//! - **ECN.** With `ecn`, an ECN-capable packet chosen for an early drop is marked
//!   instead while the flow's probability is at most `mark_ecn_th` (Linux's `ecn_prob`,
//!   10%); above it, it is dropped.
//! - **Overflow drops the arrival.** With `limit` packets or `memory_limit` bytes held,
//!   the arriving packet is dropped ([`Overflow::Arrival`]); FQ-CoDel drops from the
//!   fattest flow instead.
//! - **Scheduling.** Deficit round robin over new and old flows exactly as FQ-CoDel
//!   (RFC 8290 Section 4.2).
//!
//! Each flow draws its early drops from its own random stream, seeded from the
//! scheduler's seed and the flow's index, so that flows are independent and a run is
//! repeatable.

use crate::common::{self, AqmRng, Limit};
use crate::config::build::{count_in, duration, secs_number, seed};
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildContext, BuildQdisc};
use crate::error::{Result, check};
use crate::fq::{FlowAqm, Fq, FqParams, Overflow};
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::pie_core::{BurstReset, DelayMode, PieCore, PieParams};
use crate::qdisc::{Dequeued, PacketQueue};
use crate::queue::{QueueStats, SignalKind};
use crate::time::{Duration, Time};
use crate::units::Quantity;

config_struct! {
    /// FQ-PIE (Linux's `sch_fq_pie`; Ramakrishnan, Bose & Tahiliani 2020): FQ-CoDel's
    /// flow queues and deficit round robin, each flow queue managed by PIE (RFC 8033)
    /// with its own drop probability, the delay from timestamps. Linux's defaults
    /// (target 15 ms, tupdate 15 ms, alpha 0.125, beta 1.25, ECN off, marking up to a
    /// 10% probability). Times are seconds or strings with a unit.
    pub struct FqPieConfig {
        /// Packets held in all (10240); an arrival beyond is dropped.
        limit: u64 = 10240,
        /// Flow queues, hash buckets (1024), 1 .. 65536.
        flows: u64 = 1024,
        /// DRR quantum, bytes per round (1514).
        quantum: u64 = 1514,
        /// Bytes held in all (32 MB = 33554432); an arrival beyond is dropped.
        memory_limit: u64 = 32 << 20,
        /// PIE's QDELAY_REF (15 ms), > 0.
        target: Quantity = Quantity::Number(0.015),
        /// PIE's T_UPDATE (15 ms), > 0.
        tupdate: Quantity = Quantity::Number(0.015),
        /// PIE's alpha, 1/s (0.125).
        alpha: f64 = 0.125,
        /// PIE's beta, 1/s (1.25).
        beta: f64 = 1.25,
        /// PIE's MAX_BURST per flow (150 ms).
        max_burst: Quantity = Quantity::Number(0.150),
        /// Mark ECN-capable packets instead of an early drop.
        ecn: bool = false,
        /// ECN-capable packets are dropped, not marked, above this probability of their
        /// flow (Linux's `ecn_prob`, 10%), (0, 1].
        mark_ecn_th: f64 = 0.1,
        /// No early drop while a flow holds at most two of these (bytes; Linux: the MTU).
        mean_pkt_size: u32 = 1500,
        /// RFC 8033 Section 5.1's derandomization.
        derandomize: bool = true,
        /// Seed of the flow hash's salt and of the flows' random streams.
        seed: Option<u64> = None,
    }
}

impl FqPieConfig {
    /// The scheduler's and the flows' PIE parameters, validated.
    fn params(&self, ctx: &BuildContext) -> Result<(FqParams, PieParams)> {
        let max = u32::MAX as u64;
        let limit = count_in("limit", self.limit, max)?;
        let fq = FqParams {
            flows: count_in("flows", self.flows, crate::fq::MAX_FLOWS as u64)? as u32,
            quantum: count_in("quantum", self.quantum, max)? as u32,
            limit: limit as u32,
            memory_limit: check::positive_int("memory_limit", self.memory_limit)?,
            drop_batch_size: 1,
            overflow: Overflow::Arrival,
            seed: seed(self.seed, ctx),
        };
        fq.validate()?;
        let pie = PieParams {
            target: duration(&self.target, "target", true)?,
            tupdate: duration(&self.tupdate, "tupdate", true)?,
            alpha: self.alpha,
            beta: self.beta,
            max_burst: duration(&self.max_burst, "max_burst", false)?,
            ecn: self.ecn,
            mark_ecn_th: self.mark_ecn_th,
            limit: Limit::new(Some(limit), None)?,
            delay_mode: DelayMode::Timestamp,
            dq_threshold: 1 << 14,
            mean_pkt_size: self.mean_pkt_size,
            derandomize: self.derandomize,
            burst_reset: BurstReset::Rfc,
        };
        pie.validate()?;
        Ok((fq, pie))
    }
}

impl AqmConfig for FqPieConfig {
    fn limit_packets(&self) -> Option<u64> {
        Some(self.limit)
    }
    fn normalize(&mut self) -> Result<()> {
        secs_number(&mut self.target, "target")?;
        secs_number(&mut self.tupdate, "tupdate")?;
        secs_number(&mut self.max_burst, "max_burst")
    }
}

impl BuildQdisc for FqPieConfig {
    type Qdisc<P: Packet> = FqPie<P>;
    fn build<P: Packet>(&self, ctx: &BuildContext) -> Result<FqPie<P>> {
        let (fq, pie) = self.params(ctx)?;
        fq_pie(fq, pie)
    }
}

/// The parameters every flow's PIE shares.
#[derive(Clone, Debug, PartialEq)]
pub struct FqPieAqm {
    /// PIE's parameters (`limit` and `delay_mode` are not used: the scheduler holds the
    /// buffer, and the delay comes from timestamps).
    pub pie: PieParams,
    /// Seed of the flows' random streams.
    pub seed: u64,
}

/// PIE on one flow queue.
#[derive(Clone, Debug)]
pub struct PieFlow {
    pub core: PieCore,
    rng: AqmRng,
}

impl FlowAqm for PieFlow {
    type Params = FqPieAqm;

    fn new(params: &FqPieAqm, index: u32) -> Self {
        // SplitMix64's increment keeps the flows' seeds apart
        let seed = params.seed ^ (index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        PieFlow {
            core: PieCore::from_validated(params.pie.clone()),
            rng: common::rng_from_seed(seed),
        }
    }

    /// RFC 8033 Section 4.1 on the flow's backlog; a chosen ECN-capable packet is
    /// marked while the probability is at most `mark_ecn_th`.
    fn on_enqueue(
        &mut self,
        params: &FqPieAqm,
        _now: Time,
        pkt: &PacketInfo,
        queue: Backlog,
    ) -> Verdict {
        if !self.core.drop_early(queue.bytes, &mut self.rng) {
            return Verdict::Enqueue;
        }
        let pie = &params.pie;
        if pie.ecn && pkt.ecn_capable && self.core.drop_prob <= pie.mark_ecn_th {
            Verdict::Mark
        } else {
            self.core.on_drop();
            Verdict::Drop(DropReason::Early)
        }
    }

    fn dequeue<P: Packet>(
        &mut self,
        _params: &FqPieAqm,
        now: Time,
        queue: &mut PacketQueue<P>,
        _stats: &mut QueueStats,
        _dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        // the scheduler counts the departure
        let h = queue.pop_front()?;
        let size = h.pkt.info().size;
        let sojourn = now.saturating_since(h.enqueued_at);
        self.core.on_dequeue(now, size, sojourn, queue.bytes());
        Some(Dequeued { pkt: h.pkt, marked: h.marked, enqueued_at: h.enqueued_at })
    }

    fn period(params: &FqPieAqm) -> Option<Duration> {
        Some(params.pie.tupdate)
    }

    /// Section 4.2's update from the flow's current delay.
    fn poll(&mut self, _params: &FqPieAqm, _now: Time, queue: Backlog) {
        self.core.update_from_delay(self.core.current_qdelay(queue.bytes));
    }

    /// The flow's drop probability.
    fn signal(&self) -> f64 {
        self.core.drop_prob
    }
    fn signal_kind() -> SignalKind {
        SignalKind::Probability
    }
}

/// FQ-PIE: the flow-queue scheduler with PIE per flow.
pub type FqPie<P> = Fq<P, PieFlow>;

/// FQ-PIE from its scheduler and PIE parameters: the delay from timestamps and the
/// arrival dropped on overflow, whatever `pie.delay_mode` and `fq.overflow` say.
pub fn fq_pie<P: Packet>(fq: FqParams, mut pie: PieParams) -> Result<FqPie<P>> {
    pie.delay_mode = DelayMode::Timestamp;
    pie.validate()?;
    let seed = fq.seed;
    Fq::new(FqParams { overflow: Overflow::Arrival, ..fq }, FqPieAqm { pie, seed })
}
