//! FQ-CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet; RFC 8290): the
//! flow-queue scheduler of [`crate::fq`] with CoDel ([`CodelCore`]) managing each flow
//! queue (Section 5.1, "each queue is managed by the CoDel algorithm"), all flows with
//! the same CoDel parameters.
//!
//! CoDel's `maxpacket` test looks at the flow's own queue (ns-3 does the same; Linux
//! compares the whole scheduler's backlog with the MTU). RFC 8290's defaults
//! (Section 5.2) are those of [`FqParams::default`] and [`CodelParams::default`], with
//! ECN on (Linux and ns-3 turn it on for FQ-CoDel).

use crate::codel::{CodelCore, CodelParams};
use crate::error::Result;
use crate::fq::{FlowAqm, Fq, FqParams};
use crate::packet::{DropReason, Packet};
use crate::qdisc::{Dequeued, PacketQueue};
use crate::queue::{QueueStats, SignalKind};
use crate::time::Time;

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
