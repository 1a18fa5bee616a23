//! Drop Tail, the baseline every AQM is compared with (Floyd & Jacobson 1993, Section II).

use crate::common::Limit;
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::Result;
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::QueueDiscipline;
use crate::time::Time;

config_struct! {
    /// Drop Tail (Floyd & Jacobson 1993, Section II): first in, first out with a finite
    /// buffer.
    pub struct DropTailConfig {
        /// Buffer in packets (required unless `limit_bytes`).
        limit: Option<u64> = None,
        /// Buffer in bytes.
        limit_bytes: Option<u64> = None,
        /// On overflow drop the head of the queue instead of the arrival.
        drop_front: bool = false,
    }
}

impl AqmConfig for DropTailConfig {
    fn may_evict(&self) -> bool {
        self.drop_front
    }
    fn limit_packets(&self) -> Option<u64> {
        self.limit
    }
}

impl BuildAqm for DropTailConfig {
    type Aqm = DropTail;
    fn build(&self, _ctx: &BuildContext) -> Result<DropTail> {
        Ok(DropTail::new(Limit::new(self.limit, self.limit_bytes)?, self.drop_front))
    }
}

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
