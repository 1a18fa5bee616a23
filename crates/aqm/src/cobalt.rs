//! COBALT, CoDel-BLUE Alternate: the AQM that manages each flow of Linux's CAKE
//! (`net/sched/sch_cake.c`, its `cobalt_*` functions; Palmei, Gupta, Imputato, Morton,
//! Tahiliani, Avallone & Taht, "Design and Evaluation of COBALT Queue Discipline",
//! LANMAN 2019). Two controllers run side by side at dequeue, on the same packet:
//!
//! - **CoDel's schedule** (`cobalt_should_drop`). A packet whose sojourn time exceeds
//!   `target` puts the queue in the dropping state, with the first signal due
//!   `interval` later; while dropping, a packet dequeued at or after the due time is
//!   marked (ECN-capable, with `ecn`) or dropped, `count` grows by one and the next
//!   signal is due `interval / sqrt(count)` after the previous due time (RFC 8289's
//!   control law). A packet at or under `target` leaves the dropping state; then each
//!   due time that passes takes one off `count` and schedules the next from it, so the
//!   rate decays as it rose. While `count` is 0 the due time is kept `interval` ahead
//!   of the last dequeue (CAKE's "activity timeout"); a packet that finds it past while
//!   `count` is positive and nothing was dropped pulls it to now.
//! - **BLUE's probability** `p_drop`. An arrival dropped because the buffer is full
//!   (`cobalt_queue_full`) raises it by `p_inc` and starts the dropping state at once
//!   (`count` at least 1, next signal due now); a dequeue that finds the queue empty
//!   (`cobalt_queue_empty`) lowers it by `p_dec`, leaves the dropping state and lets
//!   one due time pass. Each change waits until more than `target` has passed since the
//!   last one. A dequeued packet is dropped with probability `p_drop`, ECN or not
//!   ("lack of ECN is deliberate": BLUE is there for flows that ignore marks).
//! - **`blue_timeout`**: a packet whose sojourn time exceeds it (400 ms) raises
//!   `p_drop` as an overflow would (ns-3's `CobaltQueueDisc`, `BlueThreshold`), so a
//!   queue that never overflows but stands still is not left to CoDel alone.
//!
//! As in CAKE, the last packet of a queue is never dropped: a packet that would be
//! dropped leaves (marked, if CoDel marked it) when no other packet waits behind it.
//!
//! # Choices where the sources leave room
//! - **Time** is integer nanoseconds; the control law is computed in `f64` and
//!   truncated to the nanosecond (Linux keeps `1/sqrt(count)` in fixed point, exact
//!   below 16 and a Newton step above), as [`crate::codel`] does.
//! - **`p_drop`** is a number in [0, 1] (Linux: a 32-bit fraction); `p_inc` = 1/256
//!   and `p_dec` = 1/4096 are CAKE's. The first change is allowed at any time (Linux's
//!   timer starts at 0 on a clock that has long passed it).
//! - **MTU time.** CAKE also requires a sojourn above four transmission times of an
//!   MTU at its shaper's rate; the single queue has no shaper and leaves it out, as
//!   ns-3 does.
//! - **Drop reasons.** CoDel's drops are [`DropReason::Forced`] (as [`crate::codel`]),
//!   BLUE's random drops [`DropReason::Early`].
//!
//! [`CobaltCore`] is that state on one queue; it owns no packets, so FQ-COBALT runs one
//! per flow ([`crate::fq_cobalt`]). [`Cobalt`] is the single-queue discipline: a
//! packet-limited FIFO whose overflow drops the arrival (ns-3's `CobaltQueueDisc`).

use crate::common::{self, AqmRng, Limit};
use crate::config::build::{count_in, secs_number, seed, whole_ns};
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildContext, BuildQdisc};
use crate::error::{Result, check};
use crate::packet::{Backlog, DropReason, Packet, Verdict};
use crate::qdisc::{Dequeued, Held, PacketQueue, Qdisc};
use crate::queue::{QueueStats, SignalKind};
use crate::time::{Duration, Time};
use crate::units::Quantity;

config_struct! {
    /// The COBALT keys COBALT and FQ-COBALT share (CAKE's `cobalt_params`; ns-3's
    /// `BlueThreshold`). Times are seconds or strings with a unit ("5ms").
    pub struct CobaltFields {
        /// CoDel's target, the acceptable standing queue delay (5 ms), > 0.
        target: Quantity = Quantity::Number(0.005),
        /// CoDel's interval: the first signal's delay and the control law's base
        /// (100 ms), > 0.
        interval: Quantity = Quantity::Number(0.1),
        /// Mark ECN-capable packets instead of CoDel's drops (BLUE's drops stay drops).
        ecn: bool = true,
        /// BLUE's increase of p_drop on an overflow or a sojourn above blue_timeout
        /// (1/256), (0, 1].
        p_inc: f64 = 1.0 / 256.0,
        /// BLUE's decrease of p_drop when a dequeue finds the queue empty (1/4096), (0, 1].
        p_dec: f64 = 1.0 / 4096.0,
        /// A packet waiting longer than this raises p_drop as an overflow does (400 ms), > 0.
        blue_timeout: Quantity = Quantity::Number(0.4),
    }
}

impl CobaltFields {
    /// COBALT's parameters from these fields, validated.
    pub fn params(&self) -> Result<CobaltParams> {
        Ok(CobaltParams {
            target: whole_ns(&self.target, "target", false)?,
            interval: whole_ns(&self.interval, "interval", false)?,
            ecn: self.ecn,
            p_inc: check::unit_open_closed("p_inc", self.p_inc)?,
            p_dec: check::unit_open_closed("p_dec", self.p_dec)?,
            blue_timeout: whole_ns(&self.blue_timeout, "blue_timeout", false)?,
        })
    }

    /// Every time a number of seconds (the normalised form).
    pub fn normalize(&mut self) -> Result<()> {
        secs_number(&mut self.target, "target")?;
        secs_number(&mut self.interval, "interval")?;
        secs_number(&mut self.blue_timeout, "blue_timeout")
    }
}

config_struct! {
    /// COBALT, CoDel and BLUE side by side at dequeue (the AQM of Linux's CAKE,
    /// `sch_cake.c`): CoDel's control law on the sojourn time, BLUE's drop probability
    /// raised on overflow and lowered when the queue empties. One FIFO of `limit`
    /// packets (ns-3's CobaltQueueDisc, 1000).
    pub struct CobaltConfig {
        /// Buffer, packets (arrivals beyond it are overflow drops), 1 .. 2^32 - 1.
        limit: u64 = 1000,
        ..cobalt: CobaltFields = CobaltFields::default(),
        /// Seed of BLUE's random stream.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for CobaltConfig {
    /// COBALT drops queued packets at dequeue.
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

impl BuildQdisc for CobaltConfig {
    type Qdisc<P: Packet> = Cobalt<P>;
    fn build<P: Packet>(&self, ctx: &BuildContext) -> Result<Cobalt<P>> {
        let limit = count_in("limit", self.limit, u32::MAX as u64)?;
        Cobalt::new(self.cobalt.params()?, limit, seed(self.seed, ctx))
    }
}

/// Validated, immutable COBALT parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct CobaltParams {
    /// CoDel's target, ns.
    pub target: Duration,
    /// CoDel's interval, ns.
    pub interval: Duration,
    /// Mark ECN-capable packets instead of CoDel's drops.
    pub ecn: bool,
    /// BLUE's step up, in (0, 1].
    pub p_inc: f64,
    /// BLUE's step down, in (0, 1].
    pub p_dec: f64,
    /// Sojourn time above which BLUE steps up, ns.
    pub blue_timeout: Duration,
}

impl CobaltParams {
    /// RFC 8289's control law: `interval / sqrt(count)` after `t` (`count` 0 counts as
    /// 1, as CAKE's table of `1/sqrt` has it).
    #[inline]
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        let gap = self.interval.0 as f64 / (count.max(1) as f64).sqrt();
        t + Duration(gap as u64)
    }
}

/// `a - b` in signed nanoseconds (CAKE's `ktime_sub`).
#[inline]
fn signed(a: Time, b: Time) -> i64 {
    a.0.wrapping_sub(b.0) as i64
}

/// What COBALT does with a dequeued packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// CoDel marks it (ECN).
    pub mark: bool,
    /// CoDel's or BLUE's drop, with its reason.
    pub drop: Option<DropReason>,
}

/// The COBALT state of one queue (CAKE's `cobalt_vars`). Parameters are passed to each
/// call, so a scheduler keeps them once for all its flows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CobaltCore {
    /// CoDel's count: signals since the dropping state began, less those decayed.
    pub count: u32,
    /// When CoDel's next signal is due (while `count` is 0: the activity timeout).
    pub drop_next: Time,
    /// CoDel's dropping state.
    pub dropping: bool,
    /// BLUE's drop probability, in [0, 1].
    pub p_drop: f64,
    /// When `p_drop` last changed; `None` before the first change.
    pub blue_timer: Option<Time>,
}

impl CobaltCore {
    pub fn new() -> Self {
        CobaltCore::default()
    }

    /// Whether BLUE may change `p_drop` at `now`: more than `target` since the last change.
    #[inline]
    fn blue_may_change(&self, params: &CobaltParams, now: Time) -> bool {
        self.blue_timer.is_none_or(|t| signed(now, t) > params.target.0 as i64)
    }

    /// BLUE's step up (at most once per `target`).
    fn blue_up(&mut self, params: &CobaltParams, now: Time) {
        if self.blue_may_change(params, now) {
            self.p_drop = (self.p_drop + params.p_inc).min(1.0);
            self.blue_timer = Some(now);
        }
    }

    /// `cobalt_queue_full`: an arrival was dropped because the buffer is full. BLUE
    /// steps up, and CoDel's dropping state starts with a signal due now.
    pub fn queue_full(&mut self, params: &CobaltParams, now: Time) {
        self.blue_up(params, now);
        self.dropping = true;
        self.drop_next = now;
        self.count = self.count.max(1);
    }

    /// `cobalt_queue_empty`: a dequeue found the queue empty. BLUE steps down, CoDel
    /// leaves the dropping state, and a due time that has passed decays `count` by one.
    pub fn queue_empty(&mut self, params: &CobaltParams, now: Time) {
        if self.p_drop > 0.0 && self.blue_may_change(params, now) {
            self.p_drop = (self.p_drop - params.p_dec).max(0.0);
            self.blue_timer = Some(now);
        }
        self.dropping = false;
        if self.count > 0 && signed(now, self.drop_next) >= 0 {
            self.count -= 1;
            self.drop_next = params.control_law(self.drop_next, self.count);
        }
    }

    /// `cobalt_should_drop`: the decision on a packet dequeued at `now` after waiting
    /// `sojourn`; `ecn_capable` says whether CoDel may mark it instead of dropping.
    pub fn decide(
        &mut self,
        params: &CobaltParams,
        now: Time,
        sojourn: Duration,
        ecn_capable: bool,
        rng: &mut AqmRng,
    ) -> Decision {
        // `schedule` keeps, in its sign, whether `now` was past the due time, across
        // the updates of `drop_next` below.
        let mut schedule = signed(now, self.drop_next);
        let mut next_due = self.count > 0 && schedule >= 0;
        let mut d = Decision::default();
        if sojourn > params.target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = params.control_law(now, self.count);
            }
            self.count = self.count.max(1);
        } else {
            self.dropping = false;
        }
        if next_due && self.dropping {
            if params.ecn && ecn_capable {
                d.mark = true;
            } else {
                d.drop = Some(DropReason::Forced);
            }
            self.count = self.count.saturating_add(1);
            self.drop_next = params.control_law(self.drop_next, self.count);
            schedule = signed(now, self.drop_next);
        } else {
            // Below target: each due time passed takes one off the count.
            while next_due {
                self.count -= 1;
                self.drop_next = params.control_law(self.drop_next, self.count);
                schedule = signed(now, self.drop_next);
                next_due = self.count > 0 && schedule >= 0;
            }
        }
        if sojourn > params.blue_timeout {
            self.blue_up(params, now);
        }
        if self.p_drop > 0.0 && common::uniform01(rng) < self.p_drop && d.drop.is_none() {
            d.drop = Some(DropReason::Early);
        }
        if self.count == 0 {
            self.drop_next = now + params.interval;
        } else if schedule > 0 && d.drop.is_none() {
            self.drop_next = now;
        }
        d
    }

    /// The next packet of `queue` to send at `now`, after the drops COBALT calls for
    /// (each goes to `dropped`, counted in `stats`; marks are counted there too); the
    /// last packet of the queue is sent whatever the decision. `None` when the queue is
    /// empty (BLUE's queue-empty event).
    pub fn dequeue<P: Packet>(
        &mut self,
        params: &CobaltParams,
        now: Time,
        queue: &mut PacketQueue<P>,
        stats: &mut QueueStats,
        rng: &mut AqmRng,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        loop {
            let Some(mut h) = queue.pop_front() else {
                self.queue_empty(params, now);
                return None;
            };
            let d = self.decide(params, now, now - h.enqueued_at, h.pkt.info().ecn_capable, rng);
            if let Some(reason) = d.drop
                && queue.backlog().packets > 0
            {
                stats.record_drop(reason);
                dropped(h.pkt, reason);
                continue;
            }
            if d.mark && !h.marked {
                h.marked = true;
                stats.marks += 1;
            }
            return Some(Dequeued { pkt: h.pkt, marked: h.marked, enqueued_at: h.enqueued_at });
        }
    }

    /// The state as named values: `count`, `dropping` (1 or 0), `p_drop`.
    pub fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("count", f64::from(self.count));
        out("dropping", if self.dropping { 1.0 } else { 0.0 });
        out("p_drop", self.p_drop);
    }
}

/// COBALT over one packet-limited FIFO: an arrival beyond `limit` packets is dropped
/// (BLUE's queue-full event); everything else is decided at dequeue.
#[derive(Clone, Debug)]
pub struct Cobalt<P> {
    params: CobaltParams,
    limit: Limit,
    queue: PacketQueue<P>,
    core: CobaltCore,
    rng: AqmRng,
    stats: QueueStats,
}

impl<P: Packet> Cobalt<P> {
    /// COBALT with a buffer of `limit` packets, BLUE drawing from a stream seeded `seed`.
    pub fn new(params: CobaltParams, limit: u64, seed: u64) -> Result<Self> {
        Ok(Cobalt {
            params,
            limit: Limit::new(Some(limit), None)?,
            queue: PacketQueue::default(),
            core: CobaltCore::new(),
            rng: common::rng_from_seed(seed),
            stats: QueueStats::default(),
        })
    }
    pub fn params(&self) -> &CobaltParams {
        &self.params
    }
    /// The CoDel and BLUE state.
    pub fn core(&self) -> &CobaltCore {
        &self.core
    }
    /// The state, to set up a test or an experiment.
    pub fn core_mut(&mut self) -> &mut CobaltCore {
        &mut self.core
    }
}

impl<P: Packet> Qdisc<P> for Cobalt<P> {
    #[inline(never)]
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        self.stats.arrivals += 1;
        if self.limit.overflows(self.queue.backlog(), &pkt.info()) {
            self.core.queue_full(&self.params, now);
            self.stats.record_drop(DropReason::Overflow);
            dropped(pkt, DropReason::Overflow);
            return Verdict::Drop(DropReason::Overflow);
        }
        self.queue.push(Held { pkt, marked: false, enqueued_at: now });
        self.stats.enqueued += 1;
        Verdict::Enqueue
    }
    #[inline(never)]
    fn dequeue(
        &mut self,
        now: Time,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        let (p, q, s, r) = (&self.params, &mut self.queue, &mut self.stats, &mut self.rng);
        let d = self.core.dequeue(p, now, q, s, r, dropped)?;
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
    /// BLUE's drop probability.
    fn signal(&self) -> f64 {
        self.core.p_drop
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::Probability
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.core.inspect(out)
    }
}

#[cfg(test)]
#[path = "tests/cobalt.rs"]
mod tests;
