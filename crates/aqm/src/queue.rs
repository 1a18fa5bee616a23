//! The outside view of an arrival-time queue discipline ([`QueueDiscipline`]), what its
//! congestion signal measures ([`SignalKind`]), and a FIFO buffer that applies the
//! verdicts ([`Queue`]) for callers that want the packets held for them. The enum that
//! dispatches among the disciplines is [`crate::dispatch`]'s.

use std::collections::VecDeque;

use crate::common::Limit;
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::time::Time;

/// What a discipline's congestion signal ([`QueueDiscipline::signal`],
/// [`crate::Qdisc::signal`]) measures, so that a monitor can report it under its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalKind {
    /// The discipline keeps no congestion signal (Drop Tail, Random Drop): it is 0.
    None,
    /// A time-averaged queue size, in the unit of the discipline's thresholds (packets,
    /// or bytes when the queue is measured in bytes): the RED family, FRED, CHOKe.
    AverageQueue,
    /// A drop or mark probability in [0, 1]: BLUE, PI, SFB, PIE, DualPI2.
    Probability,
    /// A number of drops: CoDel's `count`.
    DropCount,
}

impl SignalKind {
    /// The name a monitor or the Python API shows: `"none"`, `"average_queue"`,
    /// `"probability"` or `"drop_count"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SignalKind::None => "none",
            SignalKind::AverageQueue => "average_queue",
            SignalKind::Probability => "probability",
            SignalKind::DropCount => "drop_count",
        }
    }
}

/// A queue discipline seen from the outside. It holds no packets and reads no clock:
/// the owner of the buffer reports arrivals (with the backlog *before* the arrival)
/// and removals (with the backlog *after* them), passes the time, and applies the verdict.
pub trait QueueDiscipline {
    /// Decide on an arriving packet. `backlog` is what is waiting, not counting the
    /// packet being transmitted.
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict;
    /// A packet left the buffer: `departed` is true when it was sent on, false when
    /// the owner discarded it after an [`Verdict::Evict`].
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, backlog_after: Backlog, departed: bool);
    /// The physical buffer.
    fn limit(&self) -> Limit;
    /// When the discipline next needs [`QueueDiscipline::poll`] (Adaptive RED's interval).
    fn poll_at(&self) -> Option<Time> {
        None
    }
    /// Run periodic work due at `now`.
    fn poll(&mut self, _now: Time) {}
    /// A further queued packet to discard after an eviction when the arrival still
    /// does not fit (byte limits): position in the queue, 0 = head.
    fn victim(&mut self, _backlog: Backlog) -> u32 {
        0
    }
    /// The main congestion signal for monitors (the average queue for the RED family,
    /// the marking probability for BLUE and PI); what it measures is
    /// [`QueueDiscipline::signal_kind`]. 0 for a discipline without one.
    fn signal(&self) -> f64 {
        0.0
    }
    /// What [`QueueDiscipline::signal`] measures.
    fn signal_kind(&self) -> SignalKind {
        SignalKind::None
    }
    /// The discipline's state as named values, for inspection (not the packet path):
    /// `out(name, value)` for each, under the names of its paper (RED's `avg`, `count`
    /// and `max_p`, BLUE's `p_m`, ...). Nothing for a discipline without state.
    fn inspect(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
}

/// Counters of a [`Queue`]: every arrival ends in exactly one of
/// enqueued-unmarked, marked, early drop, forced drop or overflow drop
/// (an eviction counts as an overflow drop of the evicted packet).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    pub arrivals: u64,
    /// Accepted packets, marked ones included.
    pub enqueued: u64,
    pub marks: u64,
    pub early_drops: u64,
    /// Deterministic drops by the AQM (avg above max_th, FRED's per-flow limits).
    pub forced_drops: u64,
    /// Drops because the buffer was full (arrivals or evicted packets).
    pub overflow_drops: u64,
    pub departures: u64,
    pub departed_bytes: u64,
}

impl QueueStats {
    pub fn drops(&self) -> u64 {
        self.early_drops + self.forced_drops + self.overflow_drops
    }
    /// Count one drop of `reason` (FRED's per-flow limit counts as forced).
    pub fn record_drop(&mut self, reason: DropReason) {
        match reason {
            DropReason::Early => self.early_drops += 1,
            DropReason::Forced | DropReason::FlowLimit => self.forced_drops += 1,
            DropReason::Overflow => self.overflow_drops += 1,
        }
    }
}

/// A FIFO buffer driven by a discipline: the convenient way to use the crate when
/// the caller does not manage its own buffer.
#[derive(Clone, Debug)]
pub struct Queue<P, D> {
    disc: D,
    buf: VecDeque<P>,
    bytes: u64,
    stats: QueueStats,
}

impl<P: Packet, D: QueueDiscipline> Queue<P, D> {
    pub fn new(disc: D) -> Self {
        Queue { disc, buf: VecDeque::new(), bytes: 0, stats: QueueStats::default() }
    }

    #[inline]
    pub fn backlog(&self) -> Backlog {
        Backlog { packets: self.buf.len() as u32, bytes: self.bytes }
    }

    /// Offer a packet. Every packet discarded by this call (the arrival, or queued
    /// packets evicted to make room) is handed to `on_drop` with the reason.
    /// Returns the verdict on the arrival.
    pub fn enqueue(
        &mut self,
        now: Time,
        pkt: P,
        mut on_drop: impl FnMut(P, DropReason),
    ) -> Verdict {
        let info = pkt.info();
        self.stats.arrivals += 1;
        let verdict = self.disc.on_arrival(now, &info, self.backlog());
        match verdict {
            Verdict::Enqueue | Verdict::Mark => {
                if verdict == Verdict::Mark {
                    self.stats.marks += 1;
                }
                self.push(pkt);
            }
            Verdict::Drop(reason) => {
                self.stats.record_drop(reason);
                on_drop(pkt, reason);
            }
            Verdict::Evict { victim } => {
                self.evict(now, victim as usize, &mut on_drop);
                // With a byte limit one eviction may not make room: go on evicting.
                while !self.buf.is_empty() && self.overflows_after_evictions(&info) {
                    let v = self.disc.victim(self.backlog()) as usize;
                    self.evict(now, v.min(self.buf.len() - 1), &mut on_drop);
                }
                self.push(pkt);
            }
        }
        verdict
    }

    fn overflows_after_evictions(&self, info: &PacketInfo) -> bool {
        self.disc.limit().overflows(self.backlog(), info)
    }

    #[inline]
    fn push(&mut self, pkt: P) {
        self.stats.enqueued += 1;
        self.bytes += pkt.info().size as u64;
        self.buf.push_back(pkt);
    }

    fn evict(&mut self, now: Time, idx: usize, on_drop: &mut impl FnMut(P, DropReason)) {
        if let Some(p) = self.buf.remove(idx) {
            let info = p.info();
            self.bytes -= info.size as u64;
            self.stats.overflow_drops += 1;
            self.disc.on_removed(now, &info, self.backlog(), false);
            on_drop(p, DropReason::Overflow);
        }
    }

    /// Take the packet at the head for transmission.
    #[inline]
    pub fn dequeue(&mut self, now: Time) -> Option<P> {
        let p = self.buf.pop_front()?;
        let info = p.info();
        self.bytes -= info.size as u64;
        self.stats.departures += 1;
        self.stats.departed_bytes += info.size as u64;
        self.disc.on_removed(now, &info, self.backlog(), true);
        Some(p)
    }

    pub fn len_packets(&self) -> usize {
        self.buf.len()
    }
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    pub fn stats(&self) -> &QueueStats {
        &self.stats
    }
    pub fn discipline(&self) -> &D {
        &self.disc
    }
    pub fn discipline_mut(&mut self) -> &mut D {
        &mut self.disc
    }
    pub fn iter(&self) -> impl Iterator<Item = &P> {
        self.buf.iter()
    }
    /// The newest packet waiting (the last one accepted), to amend in place.
    pub fn back_mut(&mut self) -> Option<&mut P> {
        self.buf.back_mut()
    }
    pub fn poll_at(&self) -> Option<Time> {
        self.disc.poll_at()
    }
    pub fn poll(&mut self, now: Time) {
        self.disc.poll(now)
    }
}
