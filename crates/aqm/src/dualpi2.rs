//! DualPI2, the dual-queue coupled AQM of L4S (RFC 9332).
//!
//! Two queues share the buffer: packets with ECT(1) (scalable, L4S senders, RFC 9331)
//! go to the L queue, the others to the C (Classic) queue. One PI controller (a PI2
//! "base" controller) moves `p'` every `tupdate` from the Classic queue delay
//! (RFC 9332 Appendix A.1, `dualpi2_update`):
//! ```text
//! curq = the waiting time of the packet at the head of the C queue
//! p'  += alpha (curq - target) + beta (curq - prevq);  p' in [0, 1];  prevq = curq
//! p_C  = p'^2            Classic drop (or ECN mark) probability, Section 2.1
//! p_CL = min(k p', 1)    coupled L4S marking probability, k = 2 (Section 2.1, 2.4)
//! ```
//! At dequeue (Appendix A.1, `dualpi2_dequeue`), an L packet is marked with
//! `p_L = max(p'_L, p_CL)`, `p'_L` the native L4S AQM: a step, 1 when the packet
//! waited at least `step_thresh` (1 ms), else 0. A C packet is dropped with `p_C`, or
//! ECN-marked if it is ECN-capable and the queue is not overloaded.
//!
//! **Overload** (Section 4.2.3): when `p_C > p_Cmax = 1/k^2` (equivalently `k p' > 1`,
//! where L marking saturates) ECN is disabled in the C queue (its marks become drops)
//! and, with `drop_on_overload` (Linux's default), L packets are dropped with `p_C` too.
//!
//! **Classifier** (Section 2.5.1.1, Appendix A.1): the ECN field's low bit, so ECT(1)
//! and CE packets go to L, Not-ECT and ECT(0) to C. A CE packet may come from a Classic
//! sender marked upstream; the RFC accepts that it joins the L queue (`PacketInfo::ce`).
//!
//! **Scheduler** (classic protection, Section 2.5.2 and 4.1), one of two:
//! - `Wrr` (Linux's, the default): weighted round robin in bytes, L first: while both
//!   queues wait, a credit rises by `c_protection` times the size of each L packet
//!   served and falls by `1 - c_protection` times the size of each C packet served; C
//!   is served when the credit is positive, so under saturation C keeps a
//!   `c_protection` share (10%, Linux's default) and L the rest.
//! - `TsFifo` (Appendix A.1's time-shifted FIFO): the head packet that waited longest
//!   is served, L's waiting time counted `tshift` longer: L is served when
//!   `wait_L + tshift >= wait_C`. C then never waits more than about `tshift` beyond
//!   L's delay, whatever the load.
//!
//! **Small-queue guard** (Linux's "fewer than 2 MTU", like RED's min_th): while fewer
//! than `2 mtu` bytes remain queued (both queues, the departing packet not counted), no
//! packet is dropped or marked with the PI-derived probabilities (p_C, p_CL, the
//! overload drop); the native L4S step still marks. `mtu = 0` turns the guard off.
//!
//! # Choices where the RFC leaves room
//! - Defaults are the RFC's Appendix A values, which Linux's `sch_dualpi2` also uses:
//!   target 15 ms, tupdate 16 ms, alpha 0.16 /s, beta 3.2 /s, k = 2, step 1 ms.
//! - Marking and dropping draw from the queue's seeded generator (Linux's way);
//!   Appendix A's deterministic `recur()` is not used.
//! - Limit: one packet (or byte) limit over both queues, drop-tail on arrival.
//! - p' is updated at multiples of `tupdate` from the queue as the last event left it
//!   (the delay of the head packet grows between events; it is computed at the update
//!   instant itself).

use crate::common::{self, AqmRng, Limit};
use crate::config::build::{duration, secs_number, seed};
use crate::config::fields::{config_struct, param_enum};
use crate::config::{AqmConfig, BuildContext, BuildQdisc};
use crate::error::{AqmError, Result, check};
use crate::packet::{Backlog, DropReason, Packet, Verdict};
use crate::qdisc::{Dequeued, PacketQueue, Qdisc};
use crate::queue::{QueueStats, SignalKind};
use crate::time::{Duration, Time};
use crate::units::Quantity;

config_struct! {
    /// DualPI2 (RFC 9332): an L4S queue (ECT(1) and CE packets) and a Classic queue
    /// coupled by one PI controller on the Classic delay; Classic drop/mark probability
    /// p'^2, L4S marking max(step, min(k p', 1)). Defaults: Appendix A's (and Linux's)
    /// target 15 ms, tupdate 16 ms, alpha 0.16, beta 3.2, k = 2, step 1 ms; Linux's
    /// classic protection of 10% and drop on overload.
    pub struct DualPi2Config {
        /// Classic queue delay target (15 ms), > 0.
        target: Quantity = Quantity::Number(0.015),
        /// Period of the p' update (16 ms), > 0.
        tupdate: Quantity = Quantity::Number(0.016),
        /// PI gain alpha, 1/s (0.16), > 0.
        alpha: f64 = 0.16,
        /// PI gain beta, 1/s (3.2), >= 0.
        beta: f64 = 3.2,
        /// The coupling factor k (2), [1, 64].
        k: f64 = 2.0,
        /// The native L4S AQM: mark an L packet that waited at least this (1 ms).
        step_thresh: Quantity = Quantity::Number(0.001),
        /// Classic's share of a saturated line (the WRR weight, 0.1), (0, 1).
        c_protection: f64 = 0.1,
        /// Drop L packets with p_C once p_C > 1/k^2.
        drop_on_overload: bool = true,
        /// Mark ECN-capable Classic packets instead of dropping them.
        ecn: bool = true,
        /// Packets, both queues (Linux's default 10000).
        limit: Option<u64> = Some(10000),
        /// Bytes, both queues.
        limit_bytes: Option<u64> = None,
        /// Bytes: no PI-derived drop or mark while fewer than 2 mtu remain queued
        /// (Linux's guard); 0 turns it off. [0, 65536].
        mtu: u64 = 1500,
        /// "wrr" (byte WRR with `c_protection`, Linux's) or "tsfifo" (RFC 9332 Appendix
        /// A.1's time-shifted FIFO).
        scheduler: DualPi2Scheduler = DualPi2Scheduler::Wrr,
        /// The time-shifted FIFO's bias towards L (40 ms), [0, 10] s.
        tshift: Quantity = Quantity::Number(0.04),
        /// Seed of the marking and dropping draws.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for DualPi2Config {
    /// (A queue that holds its packets; drops at dequeue.)
    fn may_evict(&self) -> bool {
        true
    }
    fn limit_packets(&self) -> Option<u64> {
        self.limit
    }
    fn normalize(&mut self) -> Result<()> {
        secs_number(&mut self.target, "target")?;
        secs_number(&mut self.tupdate, "tupdate")?;
        secs_number(&mut self.step_thresh, "step_thresh")?;
        secs_number(&mut self.tshift, "tshift")
    }
}

impl BuildQdisc for DualPi2Config {
    type Qdisc<P: Packet> = DualPi2<P>;
    fn build<P: Packet>(&self, ctx: &BuildContext) -> Result<DualPi2<P>> {
        let c = self;
        let params = DualPi2Params {
            target: duration(&c.target, "target", true)?,
            tupdate: duration(&c.tupdate, "tupdate", true)?,
            alpha: c.alpha,
            beta: c.beta,
            k: c.k,
            step_thresh: duration(&c.step_thresh, "step_thresh", false)?,
            c_protection: c.c_protection,
            drop_on_overload: c.drop_on_overload,
            ecn: c.ecn,
            limit: Limit::new(c.limit, c.limit_bytes)?,
            mtu: u32::try_from(c.mtu)
                .map_err(|_| AqmError::invalid("mtu", c.mtu, "[0, 65536] bytes"))?,
            scheduler: c.scheduler,
            tshift: duration(&c.tshift, "tshift", false)?,
        };
        DualPi2::new(params, seed(c.seed, ctx))
    }
}

/// Validated DualPI2 parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Params {
    /// Classic queue delay target (15 ms).
    pub target: Duration,
    /// Period of the p' update (16 ms).
    pub tupdate: Duration,
    /// alpha, 1/s (0.16).
    pub alpha: f64,
    /// beta, 1/s (3.2).
    pub beta: f64,
    /// k, the coupling factor (2).
    pub k: f64,
    /// The native L4S AQM's step: mark an L packet that waited this long (1 ms).
    pub step_thresh: Duration,
    /// Share of the line Classic keeps when both queues are backlogged, (0, 1) (0.1).
    pub c_protection: f64,
    /// Drop (not mark) L packets with p_C when overloaded.
    pub drop_on_overload: bool,
    /// ECN-mark ECN-capable Classic (ECT(0)) packets instead of dropping them.
    pub ecn: bool,
    /// The buffer, both queues together.
    pub limit: Limit,
    /// The small-queue guard: no PI-derived drop or mark while fewer than `2 mtu` bytes
    /// remain queued; 0 = no guard (1500).
    pub mtu: u32,
    /// Which scheduler serves the two queues.
    pub scheduler: DualPi2Scheduler,
    /// The time-shifted FIFO's bias towards L (40 ms); unused by `Wrr`.
    pub tshift: Duration,
}

/// DualPI2's scheduler between the L and the C queue. Written `"wrr"` or `"tsfifo"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DualPi2Scheduler {
    /// Weighted round robin in bytes with `c_protection` (Linux `sch_dualpi2`).
    Wrr,
    /// Time-shifted FIFO with `tshift` (RFC 9332 Appendix A.1).
    Tsfifo,
}

param_enum!(DualPi2Scheduler);

impl DualPi2Params {
    pub fn validate(&self) -> Result<()> {
        if self.target.0 == 0 {
            return Err(AqmError::invalid("target", 0, "> 0 s"));
        }
        if self.tupdate.0 == 0 {
            return Err(AqmError::invalid("tupdate", 0, "> 0 s"));
        }
        check::positive("alpha", self.alpha)?;
        check::non_negative("beta", self.beta)?;
        if !(self.k >= 1.0 && self.k <= 64.0) {
            return Err(AqmError::invalid("k", self.k, "[1, 64]"));
        }
        if !(self.c_protection > 0.0 && self.c_protection < 1.0) {
            return Err(AqmError::invalid("c_protection", self.c_protection, "(0, 1)"));
        }
        if self.mtu > 65_536 {
            return Err(AqmError::invalid("mtu", self.mtu, "[0, 65536] bytes"));
        }
        if self.tshift > Duration::from_millis(10_000) {
            return Err(AqmError::invalid("tshift", self.tshift.as_secs_f64(), "[0, 10] s"));
        }
        Ok(())
    }
}

/// DualPI2 (see the module documentation).
#[derive(Clone, Debug)]
pub struct DualPi2<P> {
    pub params: DualPi2Params,
    /// p', the base probability.
    pub p_base: f64,
    /// prevq: the Classic delay at the previous update, seconds.
    pub prevq: f64,
    l: PacketQueue<P>,
    c: PacketQueue<P>,
    /// The WRR credit (bytes, scaled by the weights): C is served when it is positive.
    credit: f64,
    next_update: Time,
    stats: QueueStats,
    rng: AqmRng,
    /// Packets marked at dequeue, L queue and C queue.
    pub l_marks: u64,
    pub c_marks: u64,
}

impl<P: Packet> DualPi2<P> {
    pub fn new(params: DualPi2Params, seed: u64) -> Result<DualPi2<P>> {
        params.validate()?;
        Ok(DualPi2 {
            next_update: Time::ZERO + params.tupdate,
            params,
            p_base: 0.0,
            prevq: 0.0,
            l: PacketQueue::default(),
            c: PacketQueue::default(),
            credit: 0.0,
            stats: QueueStats::default(),
            rng: common::rng_from_seed(seed),
            l_marks: 0,
            c_marks: 0,
        })
    }

    /// p_C = p'^2.
    pub fn p_c(&self) -> f64 {
        self.p_base * self.p_base
    }
    /// p_CL = min(k p', 1).
    pub fn p_cl(&self) -> f64 {
        (self.params.k * self.p_base).min(1.0)
    }
    /// p_C above p_Cmax = 1/k^2.
    pub fn overloaded(&self) -> bool {
        self.p_c() > 1.0 / (self.params.k * self.params.k)
    }
    /// Packets and bytes in the L and the C queue.
    pub fn backlogs(&self) -> (Backlog, Backlog) {
        (self.l.backlog(), self.c.backlog())
    }

    /// One update at `at` (Appendix A.1, `dualpi2_update`).
    fn update(&mut self, at: Time) {
        let pr = &self.params;
        let curq = self.c.front().map_or(0.0, |h| at.saturating_since(h.enqueued_at).as_secs_f64());
        let target = pr.target.as_secs_f64();
        let p = self.p_base + pr.alpha * (curq - target) + pr.beta * (curq - self.prevq);
        self.p_base = p.clamp(0.0, 1.0);
        self.prevq = curq;
    }

    fn catch_up(&mut self, now: Time) {
        while now >= self.next_update {
            let at = self.next_update;
            let before = (self.p_base, self.prevq);
            self.update(at);
            self.next_update += self.params.tupdate;
            // An empty C queue gives curq = 0 at every update: once p' and prevq stop
            // moving they stay put; skip to the last due update.
            if self.c.is_empty() && before == (self.p_base, self.prevq) && now >= self.next_update {
                let step = self.params.tupdate.0;
                let behind = (now.0 - self.next_update.0) / step + 1;
                self.next_update = Time(self.next_update.0.saturating_add(behind * step));
            }
        }
    }

    /// The scheduler: which queue sends next (true = L).
    fn pick_l(&self, now: Time) -> bool {
        let (Some(l), Some(c)) = (self.l.front(), self.c.front()) else {
            return !self.l.is_empty();
        };
        match self.params.scheduler {
            DualPi2Scheduler::Wrr => self.credit <= 0.0,
            DualPi2Scheduler::Tsfifo => {
                // wait_L + tshift >= wait_C, i.e. L's head arrived no more than tshift
                // after C's.
                let wait_l = now.saturating_since(l.enqueued_at) + self.params.tshift;
                wait_l >= now.saturating_since(c.enqueued_at)
            }
        }
    }

    /// The small-queue guard: fewer than 2 MTU left queued.
    fn guarded(&self) -> bool {
        self.backlog().bytes < 2 * u64::from(self.params.mtu)
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && common::uniform01(&mut self.rng) < p
    }

    fn drop_at_dequeue(&mut self, d: Dequeued<P>, dropped: &mut dyn FnMut(P, DropReason)) {
        self.stats.record_drop(DropReason::Early);
        dropped(d.pkt, DropReason::Early);
    }
}

impl<P: Packet> Qdisc<P> for DualPi2<P> {
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        self.catch_up(now);
        self.stats.arrivals += 1;
        let info = pkt.info();
        if self.params.limit.overflows(self.backlog(), &info) {
            self.stats.record_drop(DropReason::Overflow);
            dropped(pkt, DropReason::Overflow);
            return Verdict::Drop(DropReason::Overflow);
        }
        self.stats.enqueued += 1;
        // Appendix A.1 classifier: ECT(1) or CE to L, Not-ECT and ECT(0) to C.
        if info.ect1 || info.ce {
            self.l.hold(now, pkt, false)
        } else {
            self.c.hold(now, pkt, false)
        }
        Verdict::Enqueue
    }

    fn dequeue(
        &mut self,
        now: Time,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        self.catch_up(now);
        loop {
            let from_l = self.pick_l(now);
            let both = !self.l.is_empty() && !self.c.is_empty();
            let mut d = if from_l { self.l.pop()? } else { self.c.pop()? };
            // The WRR credit moves only while both queues compete for the line.
            if both {
                let size = d.pkt.info().size as f64;
                let c_prot = self.params.c_protection;
                self.credit += if from_l { c_prot * size } else { -(1.0 - c_prot) * size };
            }
            let overload = self.overloaded();
            let guarded = self.guarded();
            if from_l {
                if overload && self.params.drop_on_overload && !guarded {
                    let p_c = self.p_c();
                    if self.chance(p_c) {
                        self.drop_at_dequeue(d, dropped);
                        continue;
                    }
                }
                let sojourn = now.saturating_since(d.enqueued_at);
                let native = if sojourn >= self.params.step_thresh { 1.0 } else { 0.0 };
                let p_cl = if guarded { 0.0 } else { self.p_cl() };
                let p_l = f64::max(native, p_cl);
                if self.chance(p_l) {
                    d.marked = true;
                    self.l_marks += 1;
                }
            } else {
                let p_c = if guarded { 0.0 } else { self.p_c() };
                if self.chance(p_c) {
                    if self.params.ecn && d.pkt.info().ecn_capable && !overload {
                        d.marked = true;
                        self.c_marks += 1;
                    } else {
                        self.drop_at_dequeue(d, dropped);
                        continue;
                    }
                }
            }
            if d.marked {
                self.stats.marks += 1;
            }
            self.stats.departures += 1;
            self.stats.departed_bytes += d.pkt.info().size as u64;
            return Some(d);
        }
    }

    fn backlog(&self) -> Backlog {
        let (l, c) = (self.l.backlog(), self.c.backlog());
        Backlog { packets: l.packets + c.packets, bytes: l.bytes + c.bytes }
    }
    fn limit(&self) -> Limit {
        self.params.limit
    }
    fn stats(&self) -> &QueueStats {
        &self.stats
    }
    fn poll_at(&self) -> Option<Time> {
        Some(self.next_update)
    }
    fn poll(&mut self, now: Time) {
        self.catch_up(now);
    }
    /// p', the base probability.
    fn signal(&self) -> f64 {
        self.p_base
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::Probability
    }
    /// `p_base` (p'), `p_c`, `p_cl`, `prevq` (seconds), `l_marks` and `c_marks`.
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p_base", self.p_base);
        out("p_c", self.p_c());
        out("p_cl", self.p_cl());
        out("prevq", self.prevq);
        out("l_marks", self.l_marks as f64);
        out("c_marks", self.c_marks as f64);
    }
}

#[cfg(test)]
#[path = "tests/dualpi2.rs"]
mod tests;
