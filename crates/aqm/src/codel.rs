//! CoDel, Controlled Delay (Nichols, Jacobson, McGregor, Iyengar; RFC 8289).
//!
//! CoDel decides at dequeue, on the time the packet at the head has waited (its
//! sojourn time, Section 4.1). When that time has stayed at or above `target` for a
//! whole `interval` (Sections 4.3-4.4), CoDel enters its dropping state and drops the
//! head packet; while it stays there it drops again at times spaced by the control law
//! `interval / sqrt(count)` (Section 4.5); it leaves as soon as a dequeued packet's
//! sojourn time falls below `target` (or the queue holds no more than one MTU).
//!
//! [`CodelCore`] is that state machine on one queue ([`PacketQueue`]); it owns no
//! packets, so FQ-CoDel runs one per flow ([`crate::fq_codel`]). [`Codel`] is the
//! single-queue discipline: a packet-limited FIFO managed by one core.
//!
//! [`CodelCore::dequeue`] follows the pseudo-code of Section 5 (`dequeue`,
//! `dodequeue`, `control_law`) line by line. Where the RFC leaves room, the choices
//! (listed in `docs/algorithms.md`) are:
//!
//! - **Time.** Integer nanoseconds. `control_law(t, count) = t + interval / sqrt(count)`
//!   is computed in `f64` and truncated to the nanosecond (Linux computes 1/sqrt(count)
//!   by a fixed-point Newton step; the RFC writes the exact formula).
//! - **`first_above_time = 0` as "unset".** Kept as an `Option`, since 0 is a valid
//!   time here.
//! - **`now - drop_next < 16 * interval`** on re-entering the dropping state: the
//!   difference saturates at 0 when `drop_next` is still ahead of `now`, which counts
//!   as "recent" (Linux's signed comparison does the same; the RFC's unsigned
//!   subtraction would wrap to a huge value). The case needs a re-entry less than one
//!   interval after the last scheduled drop, which the `interval` wait before
//!   re-entering all but excludes.
//! - **ECN.** With `ecn`, an ECN-capable packet that the state machine would drop is
//!   marked and sent instead, and the dequeue ends there (the RFC's `drop(r.p)`
//!   becomes "mark r.p"; Linux does the same). `count` and `drop_next` advance as for
//!   a drop.
//! - **`ce_threshold`** (Linux, not in the RFC): an ECN-capable packet leaving with a
//!   sojourn time above it is marked, whatever the state machine did.
//! - **`maxpacket`** is the RFC's `maxpacket` (the interface MTU, bytes): the sojourn
//!   test is ignored while the queue left behind holds at most this many bytes.
//! - **Drop reason.** CoDel's drops are deterministic AQM drops, not caused by a full
//!   buffer: [`DropReason::Forced`].

use crate::common::Limit;
use crate::config::build::{count_in, secs_number, whole_ns};
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildContext, BuildQdisc};
use crate::error::{AqmError, Result, check};
use crate::packet::{Backlog, DropReason, Packet, Verdict};
use crate::qdisc::{Dequeued, Held, PacketQueue, Qdisc};
use crate::queue::{QueueStats, SignalKind};
use crate::time::{Duration, Time};
use crate::units::Quantity;

config_struct! {
    /// The CoDel keys CoDel and FQ-CoDel share (RFC 8289 Section 4; Linux's
    /// `ce_threshold`). Times are seconds or strings with a unit ("5ms").
    pub struct CodelFields {
        /// TARGET, the acceptable standing queue delay (5 ms), > 0.
        target: Quantity = Quantity::Number(0.005),
        /// INTERVAL, the window the minimum sojourn time must stay above target before
        /// dropping starts, and the control law's base (100 ms), > 0.
        interval: Quantity = Quantity::Number(0.1),
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool = false,
        /// Mark ECN-capable packets whose sojourn time exceeds this (Linux's; off when
        /// absent), >= 0.
        ce_threshold: Option<Quantity> = None,
        /// maxpacket, bytes: no drop while at most this many bytes are left queued (the
        /// MTU, 1500), >= 1.
        maxpacket: u32 = 1500,
    }
}

impl CodelFields {
    /// CoDel's parameters from these fields, validated.
    pub fn params(&self) -> Result<CodelParams> {
        let p = CodelParams {
            target: whole_ns(&self.target, "target", false)?,
            interval: whole_ns(&self.interval, "interval", false)?,
            ecn: self.ecn,
            ce_threshold: match &self.ce_threshold {
                Some(q) => Some(whole_ns(q, "ce_threshold", true)?),
                None => None,
            },
            maxpacket: self.maxpacket,
        };
        p.validate()?;
        Ok(p)
    }

    /// Every time a number of seconds (the normalised form).
    pub fn normalize(&mut self) -> Result<()> {
        secs_number(&mut self.target, "target")?;
        secs_number(&mut self.interval, "interval")?;
        if let Some(q) = &mut self.ce_threshold {
            secs_number(q, "ce_threshold")?;
        }
        Ok(())
    }
}

config_struct! {
    /// CoDel, Controlled Delay (RFC 8289): decides at dequeue on the time the head packet
    /// waited. A packet limit (Linux's 1000) and the CoDel keys.
    pub struct CodelConfig {
        /// Buffer, packets (arrivals beyond it are overflow drops), 1 .. 2^32 - 1.
        limit: u64 = 1000,
        ..codel: CodelFields = CodelFields::default(),
    }
}

impl AqmConfig for CodelConfig {
    /// CoDel drops queued packets at dequeue.
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

impl BuildQdisc for CodelConfig {
    type Qdisc<P: Packet> = Codel<P>;
    fn build<P: Packet>(&self, _ctx: &BuildContext) -> Result<Codel<P>> {
        let limit = count_in("limit", self.limit, u32::MAX as u64)?;
        Codel::new(self.codel.params()?, limit)
    }
}

/// Validated, immutable CoDel parameters (RFC 8289 Section 4; Linux's `ce_threshold`).
#[derive(Clone, Debug, PartialEq)]
pub struct CodelParams {
    /// TARGET, the acceptable standing queue delay (Section 4.4; 5 ms), ns.
    pub target: Duration,
    /// INTERVAL, the window over which the minimum sojourn time must stay above
    /// `target` before dropping starts, and the control law's base (Section 4.3; 100 ms), ns.
    pub interval: Duration,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Mark ECN-capable packets whose sojourn time exceeds this (Linux), ns; `None` = off.
    pub ce_threshold: Option<Duration>,
    /// maxpacket (Section 5, `dodequeue`): no drop while the queue left behind holds at
    /// most this many bytes (the interface MTU), bytes.
    pub maxpacket: u32,
}

impl Default for CodelParams {
    /// RFC 8289's values: target 5 ms, interval 100 ms, no ECN, maxpacket 1500 bytes.
    fn default() -> Self {
        CodelParams {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
            ecn: false,
            ce_threshold: None,
            maxpacket: 1500,
        }
    }
}

impl CodelParams {
    /// Check every parameter; the error names the first one that is wrong.
    pub fn validate(&self) -> Result<()> {
        if self.target.0 == 0 {
            return Err(AqmError::invalid("target", "0", "> 0 s (at least 1 ns)"));
        }
        if self.interval.0 == 0 {
            return Err(AqmError::invalid("interval", "0", "> 0 s (at least 1 ns)"));
        }
        check::positive_int("maxpacket", self.maxpacket as u64)?;
        Ok(())
    }

    /// Section 4.5 and `control_law` of Section 5: the next drop `interval / sqrt(count)`
    /// after `t`.
    #[inline]
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        let gap = self.interval.0 as f64 / (count.max(1) as f64).sqrt();
        t + Duration(gap as u64)
    }
}

/// The CoDel state of one queue (Section 5, "per-queue state"). Parameters are passed
/// to each call, so a scheduler keeps them once for all its flows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodelCore {
    /// first_above_time: when the sojourn time will have been above target for an
    /// interval; `None` while it is below (the RFC's 0).
    pub first_above_time: Option<Time>,
    /// drop_next: when the next drop is due in the dropping state.
    pub drop_next: Time,
    /// count: packets dropped (or marked) since entering the dropping state.
    pub count: u32,
    /// lastcount: `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// dropping: in the dropping state.
    pub dropping: bool,
}

/// What `dodequeue` returns: the head packet (if any) and whether it may be dropped.
struct DoDequeue<P> {
    p: Option<Held<P>>,
    ok_to_drop: bool,
}

impl CodelCore {
    pub fn new() -> Self {
        CodelCore::default()
    }

    /// The state as named values: `count`, `lastcount`, `dropping` (1 or 0).
    pub fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("count", f64::from(self.count));
        out("lastcount", f64::from(self.lastcount));
        out("dropping", if self.dropping { 1.0 } else { 0.0 });
    }

    /// Section 5, `dodequeue`: take the head packet and say whether the sojourn time
    /// has been at or above `target` for at least `interval`.
    #[inline]
    fn dodequeue<P: Packet>(
        &mut self,
        params: &CodelParams,
        now: Time,
        queue: &mut PacketQueue<P>,
    ) -> DoDequeue<P> {
        let Some(h) = queue.pop_front() else {
            // The queue is empty: reset first_above_time.
            self.first_above_time = None;
            return DoDequeue { p: None, ok_to_drop: false };
        };
        let sojourn = now - h.enqueued_at;
        let mut ok_to_drop = false;
        if sojourn < params.target || queue.bytes() <= params.maxpacket as u64 {
            // Went below: stay below for at least an interval.
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                // Just went above: it is ok to drop if still above an interval from now.
                None => self.first_above_time = Some(now + params.interval),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        DoDequeue { p: Some(h), ok_to_drop }
    }

    /// "drop(r.p)" of Section 5, or a mark with ECN: `true` when the packet was marked
    /// (and must be sent), `false` when it was dropped.
    #[inline]
    fn drop_or_mark<P: Packet>(
        params: &CodelParams,
        h: &mut Held<P>,
        stats: &mut QueueStats,
    ) -> bool {
        if params.ecn && h.pkt.info().ecn_capable {
            if !h.marked {
                stats.marks += 1;
            }
            h.marked = true;
            true
        } else {
            false
        }
    }

    /// Section 5, `dequeue`: the next packet of `queue` to send at `now`, after the
    /// drops the state machine calls for (each goes to `dropped`, counted in `stats`;
    /// marks are counted there too). `None` when the queue is or becomes empty.
    pub fn dequeue<P: Packet>(
        &mut self,
        params: &CodelParams,
        now: Time,
        queue: &mut PacketQueue<P>,
        stats: &mut QueueStats,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        let mut r = self.dodequeue(params, now, queue);
        if self.dropping {
            if !r.ok_to_drop {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
            }
            // Time for the next drop: drop the packet and dequeue the next; a large
            // backlog may call for several drops at once, hence the loop.
            while self.dropping && now >= self.drop_next {
                let Some(mut h) = r.p.take() else { break };
                self.count = self.count.saturating_add(1);
                if Self::drop_or_mark(params, &mut h, stats) {
                    self.drop_next = params.control_law(self.drop_next, self.count);
                    r.p = Some(h);
                    break;
                }
                stats.record_drop(DropReason::Forced);
                dropped(h.pkt, DropReason::Forced);
                r = self.dodequeue(params, now, queue);
                if !r.ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = params.control_law(self.drop_next, self.count);
                }
            }
        } else if r.ok_to_drop {
            // Above target for an interval: drop and enter the dropping state.
            if let Some(mut h) = r.p.take() {
                if Self::drop_or_mark(params, &mut h, stats) {
                    r.p = Some(h);
                } else {
                    stats.record_drop(DropReason::Forced);
                    dropped(h.pkt, DropReason::Forced);
                    r = self.dodequeue(params, now, queue);
                }
            }
            self.dropping = true;
            // If the sojourn time went above target soon after it last went below,
            // start from the drop rate that controlled the queue last time (the
            // count carry-over, Linux's version as the RFC gives it).
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && now - self.drop_next < Duration(16 * params.interval.0) {
                self.count = delta;
            }
            self.drop_next = params.control_law(now, self.count);
            self.lastcount = self.count;
        }
        let mut h = r.p?;
        if let Some(ce) = params.ce_threshold
            && now - h.enqueued_at > ce
            && h.pkt.info().ecn_capable
            && !h.marked
        {
            h.marked = true;
            stats.marks += 1;
        }
        Some(Dequeued { pkt: h.pkt, marked: h.marked, enqueued_at: h.enqueued_at })
    }
}

/// CoDel over one packet-limited FIFO (Linux `sch_codel`): arrivals beyond `limit`
/// packets are dropped (overflow); everything else is decided at dequeue.
#[derive(Clone, Debug)]
pub struct Codel<P> {
    params: CodelParams,
    limit: Limit,
    queue: PacketQueue<P>,
    core: CodelCore,
    stats: QueueStats,
}

impl<P: Packet> Codel<P> {
    /// CoDel with a buffer of `limit` packets (Linux's default 1000).
    pub fn new(params: CodelParams, limit: u64) -> Result<Self> {
        params.validate()?;
        let limit = Limit::new(Some(limit), None)?;
        Ok(Codel {
            params,
            limit,
            queue: PacketQueue::default(),
            core: CodelCore::new(),
            stats: QueueStats::default(),
        })
    }
    pub fn params(&self) -> &CodelParams {
        &self.params
    }
    /// The state machine.
    pub fn core(&self) -> &CodelCore {
        &self.core
    }
    /// The packets waiting, head first.
    pub fn iter(&self) -> impl Iterator<Item = &P> {
        self.queue.iter().map(|h| &h.pkt)
    }
}

impl<P: Packet> Qdisc<P> for Codel<P> {
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        self.stats.arrivals += 1;
        if self.limit.overflows(self.queue.backlog(), &pkt.info()) {
            self.stats.record_drop(DropReason::Overflow);
            dropped(pkt, DropReason::Overflow);
            return Verdict::Drop(DropReason::Overflow);
        }
        // Section 5, `enqueue`: timestamp the packet and queue it.
        self.queue.push(Held { pkt, marked: false, enqueued_at: now });
        self.stats.enqueued += 1;
        Verdict::Enqueue
    }
    fn dequeue(
        &mut self,
        now: Time,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        let d = self.core.dequeue(&self.params, now, &mut self.queue, &mut self.stats, dropped)?;
        self.stats.departures += 1;
        self.stats.departed_bytes += d.pkt.info().size as u64;
        Some(d)
    }
    fn backlog(&self) -> Backlog {
        self.queue.backlog()
    }
    fn limit(&self) -> Limit {
        self.limit
    }
    fn stats(&self) -> &QueueStats {
        &self.stats
    }
    /// CoDel's drop count.
    fn signal(&self) -> f64 {
        self.core.count as f64
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::DropCount
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.core.inspect(out)
    }
}
