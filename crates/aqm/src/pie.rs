//! PIE, Proportional Integral controller Enhanced (RFC 8033), over one FIFO: the
//! controller of [`crate::pie_core`] on the queue's delay, an early drop (or mark) of
//! arrivals with its probability, and the buffer's tail drop. See [`crate::pie_core`] for
//! the algorithm and where this implementation reads the RFC one way.

use crate::common::{self, AqmRng, Limit};
use crate::config::build::{duration, secs_number, seed};
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildContext, BuildQdisc};
use crate::error::Result;
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::qdisc::{Dequeued, PacketQueue, Qdisc};
use crate::queue::{QueueStats, SignalKind};
use crate::time::Time;
use crate::units::Quantity;

pub use crate::pie_core::{BurstReset, DelayMode, PieCore, PieParams, auto_scale};

config_struct! {
    /// PIE (RFC 8033): a drop probability moved every `tupdate` from the queueing delay.
    /// Defaults: the RFC's (target 15 ms, tupdate 15 ms, alpha 0.125, beta 1.25,
    /// max_burst 150 ms, DQ_THRESHOLD 16 KB, the departure-rate estimator,
    /// derandomization on). Times are seconds or strings with a unit ("15ms").
    pub struct PieConfig {
        /// QDELAY_REF, the delay target (15 ms), > 0.
        target: Quantity = Quantity::Number(0.015),
        /// T_UPDATE, the period of the probability update (15 ms), > 0.
        tupdate: Quantity = Quantity::Number(0.015),
        /// alpha, 1/s (0.125), > 0.
        alpha: f64 = 0.125,
        /// beta, 1/s (1.25), >= 0.
        beta: f64 = 1.25,
        /// MAX_BURST, the burst allowance (150 ms).
        max_burst: Quantity = Quantity::Number(0.150),
        /// TAIL_DROP, packets (the RFC gives none; Linux's default 1000).
        limit: Option<u64> = Some(1000),
        /// TAIL_DROP in bytes.
        limit_bytes: Option<u64> = None,
        /// Mark ECN-capable packets instead of dropping them while the probability is at
        /// most `mark_ecn_th`.
        ecn: bool = false,
        /// ECN-capable packets are dropped, not marked, above this probability (0.1), (0, 1].
        mark_ecn_th: f64 = 0.1,
        /// "rate_estimator" (Section 4.3) or "timestamp" (the sojourn time of the departing
        /// packet, Linux's default).
        delay_mode: DelayMode = DelayMode::RateEstimator,
        /// DQ_THRESHOLD, bytes a rate measurement spans (16384), 1 ..= 65536.
        dq_threshold: u64 = 16384,
        /// MEAN_PKTSIZE, bytes: no early drop while at most two of them wait (1500).
        mean_pkt_size: u32 = 1500,
        /// Section 5.1's derandomization (accu_prob: no drop below 0.85, always at 8.5).
        derandomize: bool = true,
        /// When the burst allowance comes back: "rfc" (Section 4.4, Linux) or "quiet"
        /// (ns-3 3.37: after 1.5 s of quiet updates, the probability held at 0 meanwhile).
        burst_reset: BurstReset = BurstReset::Rfc,
        /// Seed of the drop decisions' random stream.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for PieConfig {
    /// (A queue that holds its packets.)
    fn may_evict(&self) -> bool {
        true
    }
    fn limit_packets(&self) -> Option<u64> {
        self.limit
    }
    fn normalize(&mut self) -> Result<()> {
        secs_number(&mut self.target, "target")?;
        secs_number(&mut self.tupdate, "tupdate")?;
        secs_number(&mut self.max_burst, "max_burst")
    }
}

impl BuildQdisc for PieConfig {
    type Qdisc<P: Packet> = Pie<P>;
    fn build<P: Packet>(&self, ctx: &BuildContext) -> Result<Pie<P>> {
        let c = self;
        let params = PieParams {
            target: duration(&c.target, "target", true)?,
            tupdate: duration(&c.tupdate, "tupdate", true)?,
            alpha: c.alpha,
            beta: c.beta,
            max_burst: duration(&c.max_burst, "max_burst", false)?,
            ecn: c.ecn,
            mark_ecn_th: c.mark_ecn_th,
            limit: Limit::new(c.limit, c.limit_bytes)?,
            delay_mode: c.delay_mode,
            dq_threshold: c.dq_threshold,
            mean_pkt_size: c.mean_pkt_size,
            derandomize: c.derandomize,
            burst_reset: c.burst_reset,
        };
        Pie::new(params, seed(c.seed, ctx))
    }
}

/// PIE over one FIFO (RFC 8033).
#[derive(Clone, Debug)]
pub struct Pie<P> {
    core: PieCore,
    queue: PacketQueue<P>,
    stats: QueueStats,
    rng: AqmRng,
}

impl<P: Packet> Pie<P> {
    pub fn new(params: PieParams, seed: u64) -> Result<Pie<P>> {
        Ok(Pie {
            core: PieCore::new(params)?,
            queue: PacketQueue::default(),
            stats: QueueStats::default(),
            rng: common::rng_from_seed(seed),
        })
    }
    pub fn core(&self) -> &PieCore {
        &self.core
    }
    /// The controller's state, to set up a test or an experiment.
    pub fn core_mut(&mut self) -> &mut PieCore {
        &mut self.core
    }
    fn catch_up(&mut self, now: Time) {
        if now >= self.core.poll_at() {
            self.core.poll(now, self.queue.backlog().bytes);
        }
    }
}

impl<P: Packet> Qdisc<P> for Pie<P> {
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        self.catch_up(now);
        self.stats.arrivals += 1;
        let info: PacketInfo = pkt.info();
        let backlog = self.queue.backlog();
        let drop =
            |s: &mut Self, pkt: P, reason: DropReason, dropped: &mut dyn FnMut(P, DropReason)| {
                s.core.on_drop();
                s.stats.record_drop(reason);
                dropped(pkt, reason);
                Verdict::Drop(reason)
            };
        if self.core.params.limit.overflows(backlog, &info) {
            return drop(self, pkt, DropReason::Overflow, dropped);
        }
        let mut verdict = Verdict::Enqueue;
        if self.core.drop_early(backlog.bytes, &mut self.rng) {
            let pr = &self.core.params;
            if pr.ecn && info.ecn_capable && self.core.drop_prob <= pr.mark_ecn_th {
                verdict = Verdict::Mark;
                self.stats.marks += 1;
            } else {
                return drop(self, pkt, DropReason::Early, dropped);
            }
        }
        self.stats.enqueued += 1;
        self.queue.hold(now, pkt, verdict == Verdict::Mark);
        verdict
    }

    fn dequeue(
        &mut self,
        now: Time,
        _dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        self.catch_up(now);
        let d = self.queue.pop()?;
        let size = d.pkt.info().size;
        self.stats.departures += 1;
        self.stats.departed_bytes += size as u64;
        let sojourn = now.saturating_since(d.enqueued_at);
        self.core.on_dequeue(now, size, sojourn, self.queue.backlog().bytes);
        Some(d)
    }

    fn backlog(&self) -> Backlog {
        self.queue.backlog()
    }
    fn limit(&self) -> Limit {
        self.core.params.limit
    }
    fn stats(&self) -> &QueueStats {
        &self.stats
    }
    fn poll_at(&self) -> Option<Time> {
        Some(self.core.poll_at())
    }
    fn poll(&mut self, now: Time) {
        self.catch_up(now);
    }
    /// drop_prob.
    fn signal(&self) -> f64 {
        self.core.drop_prob
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::Probability
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.core.inspect(out)
    }
}

#[cfg(test)]
#[path = "tests/pie.rs"]
mod tests;
