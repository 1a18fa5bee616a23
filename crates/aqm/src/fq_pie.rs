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

use crate::common::{self, AqmRng};
use crate::error::Result;
use crate::fq::{FlowAqm, Fq, FqParams, Overflow};
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::pie::{DelayMode, PieCore, PieParams};
use crate::qdisc::{Dequeued, PacketQueue};
use crate::queue::{QueueStats, SignalKind};
use crate::time::{Duration, Time};

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
