//! The outside view of a queue discipline ([`QueueDiscipline`]), the enum that
//! dispatches to every algorithm ([`AnyAqm`]), and a FIFO buffer that applies the
//! verdicts ([`Queue`]) for callers that want the packets held for them.

use std::collections::VecDeque;

use crate::ared::AdaptiveRed;
use crate::blue::Blue;
use crate::common::Limit;
use crate::droptail::{DropTail, RandomDrop};
use crate::feng::FengAdaptiveRed;
use crate::fred::Fred;
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::pi::Pi;
use crate::red::Red;
use crate::sfb::Sfb;
use crate::time::Time;

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
    /// The average queue size (0 for disciplines without one).
    fn avg(&self) -> f64 {
        0.0
    }
    /// RED's `count` (0 for disciplines without one).
    fn count(&self) -> i64 {
        0
    }
    /// The current max_p (0 for disciplines without one).
    fn max_p(&self) -> f64 {
        0.0
    }
    /// The main congestion signal for monitors ([`crate::Qdisc::signal`]): the average
    /// queue for the RED family, the marking probability for BLUE and PI.
    fn signal(&self) -> f64 {
        self.avg()
    }
}

macro_rules! red_like {
    ($t:ty) => {
        impl QueueDiscipline for $t {
            #[inline]
            fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
                <$t>::on_arrival(self, now, pkt, backlog)
            }
            #[inline]
            fn on_removed(
                &mut self,
                now: Time,
                pkt: &PacketInfo,
                backlog_after: Backlog,
                _departed: bool,
            ) {
                <$t>::on_removed(self, now, pkt, backlog_after)
            }
            fn limit(&self) -> Limit {
                self.core.params.limit
            }
            fn avg(&self) -> f64 {
                self.core.avg
            }
            fn count(&self) -> i64 {
                self.core.count
            }
            fn max_p(&self) -> f64 {
                self.core.max_p
            }
        }
    };
}
red_like!(Red);
red_like!(FengAdaptiveRed);

impl QueueDiscipline for AdaptiveRed {
    #[inline]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        AdaptiveRed::on_arrival(self, now, pkt, backlog)
    }
    #[inline]
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, backlog_after: Backlog, _departed: bool) {
        AdaptiveRed::on_removed(self, now, pkt, backlog_after)
    }
    fn limit(&self) -> Limit {
        self.core.params.limit
    }
    fn poll_at(&self) -> Option<Time> {
        Some(AdaptiveRed::poll_at(self))
    }
    fn poll(&mut self, now: Time) {
        AdaptiveRed::poll(self, now)
    }
    fn avg(&self) -> f64 {
        self.core.avg
    }
    fn count(&self) -> i64 {
        self.core.count
    }
    fn max_p(&self) -> f64 {
        self.core.max_p
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

impl QueueDiscipline for Fred {
    #[inline]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        Fred::on_arrival(self, now, pkt, backlog)
    }
    #[inline]
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, backlog_after: Backlog, departed: bool) {
        Fred::on_removed(self, now, pkt, backlog_after, departed)
    }
    fn limit(&self) -> Limit {
        Fred::limit(self)
    }
    fn avg(&self) -> f64 {
        Fred::avg(self)
    }
    fn count(&self) -> i64 {
        Fred::count(self)
    }
    fn max_p(&self) -> f64 {
        Fred::max_p(self)
    }
}

// BLUE and PI are kept out of line so that the RED family's inlined dispatch (the
// simulator's hot path) compiles as before they were added.
impl QueueDiscipline for Blue {
    #[inline(never)]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        Blue::on_arrival(self, now, pkt, backlog)
    }
    #[inline(never)]
    fn on_removed(&mut self, now: Time, _pkt: &PacketInfo, backlog_after: Backlog, departed: bool) {
        Blue::on_removed(self, now, backlog_after, departed)
    }
    fn limit(&self) -> Limit {
        self.params.limit
    }
    /// p_m.
    fn signal(&self) -> f64 {
        self.p_m
    }
}

impl QueueDiscipline for Pi {
    #[inline(never)]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        Pi::on_arrival(self, now, pkt, backlog)
    }
    #[inline(never)]
    fn on_removed(
        &mut self,
        now: Time,
        _pkt: &PacketInfo,
        backlog_after: Backlog,
        _departed: bool,
    ) {
        Pi::on_removed(self, now, backlog_after)
    }
    fn limit(&self) -> Limit {
        self.params.limit
    }
    fn poll_at(&self) -> Option<Time> {
        Some(Pi::poll_at(self))
    }
    fn poll(&mut self, now: Time) {
        Pi::poll(self, now)
    }
    /// p.
    fn signal(&self) -> f64 {
        self.p
    }
}

impl QueueDiscipline for Sfb {
    #[inline(never)]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        Sfb::on_arrival(self, now, pkt, backlog)
    }
    #[inline(never)]
    fn on_removed(&mut self, _now: Time, pkt: &PacketInfo, _after: Backlog, _departed: bool) {
        Sfb::on_removed(self, pkt)
    }
    fn limit(&self) -> Limit {
        self.params.limit
    }
    /// The largest p_m of the bins.
    fn signal(&self) -> f64 {
        self.max_p_m()
    }
}

/// Every discipline of the crate, dispatched by `match` (no boxing on the packet path).
#[derive(Clone, Debug)]
pub enum AnyAqm {
    DropTail(DropTail),
    RandomDrop(RandomDrop),
    Red(Red),
    AdaptiveRed(AdaptiveRed),
    FengAdaptiveRed(FengAdaptiveRed),
    Fred(Fred),
    Blue(Blue),
    Pi(Pi),
    Sfb(Sfb),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyAqm::DropTail($q) => $e,
            AnyAqm::RandomDrop($q) => $e,
            AnyAqm::Red($q) => $e,
            AnyAqm::AdaptiveRed($q) => $e,
            AnyAqm::FengAdaptiveRed($q) => $e,
            AnyAqm::Fred($q) => $e,
            AnyAqm::Blue($q) => $e,
            AnyAqm::Pi($q) => $e,
            AnyAqm::Sfb($q) => $e,
        }
    };
}

impl AnyAqm {
    /// The configuration `type` name of this discipline.
    pub fn kind(&self) -> &'static str {
        match self {
            AnyAqm::DropTail(_) => "droptail",
            AnyAqm::RandomDrop(_) => "randomdrop",
            AnyAqm::Red(_) => "red",
            AnyAqm::AdaptiveRed(_) => "ared",
            AnyAqm::FengAdaptiveRed(_) => "feng_ared",
            AnyAqm::Fred(_) => "fred",
            AnyAqm::Blue(_) => "blue",
            AnyAqm::Pi(_) => "pi",
            AnyAqm::Sfb(_) => "sfb",
        }
    }
}

impl QueueDiscipline for AnyAqm {
    // (always: with a second caller, the qdisc `Fifo`, the compiler stops inlining it
    // into the simulator's decision, which costs 1.5% of a RED run's instructions)
    #[inline(always)]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        dispatch!(self, q => QueueDiscipline::on_arrival(q, now, pkt, backlog))
    }
    #[inline]
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, backlog_after: Backlog, departed: bool) {
        dispatch!(self, q => QueueDiscipline::on_removed(q, now, pkt, backlog_after, departed))
    }
    fn poll_at(&self) -> Option<Time> {
        dispatch!(self, q => QueueDiscipline::poll_at(q))
    }
    fn poll(&mut self, now: Time) {
        dispatch!(self, q => QueueDiscipline::poll(q, now))
    }
    fn victim(&mut self, backlog: Backlog) -> u32 {
        dispatch!(self, q => QueueDiscipline::victim(q, backlog))
    }
    fn limit(&self) -> Limit {
        dispatch!(self, q => QueueDiscipline::limit(q))
    }
    fn avg(&self) -> f64 {
        dispatch!(self, q => QueueDiscipline::avg(q))
    }
    fn count(&self) -> i64 {
        dispatch!(self, q => QueueDiscipline::count(q))
    }
    fn max_p(&self) -> f64 {
        dispatch!(self, q => QueueDiscipline::max_p(q))
    }
    fn signal(&self) -> f64 {
        dispatch!(self, q => QueueDiscipline::signal(q))
    }
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
pub struct Queue<P, D = AnyAqm> {
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
