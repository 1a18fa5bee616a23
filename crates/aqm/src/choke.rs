//! CHOKe, "CHOose and Keep for responsive flows, CHOose and Kill for unresponsive
//! flows" (Pan, Prabhakar & Psounis, INFOCOM 2000, Section II).
//!
//! RED's average and thresholds, plus a random match: once the average is above
//! `min_th`, each arrival is compared with a packet drawn uniformly from the queue (the
//! "drop candidate"); if both belong to the same flow both are dropped, otherwise the
//! arrival goes through RED's decision (dropped with probability p_a between the
//! thresholds, always above `max_th`). A flow that holds a fraction f of the queue sees
//! its arrivals matched with probability f, so the flows that hog the buffer lose most.
//!
//! The match needs the queued packets, so CHOKe is a qdisc over one FIFO. RED's part is
//! [`RedCore`] unchanged (the average, `count`, gentle mode, ECN marks for RED's early
//! decisions, the physical limit); a matched pair is always dropped (never marked),
//! and a match leaves RED's `count` as it was, as in the paper's flow chart.
//!
//! With `candidates = m > 1` (the paper's extension for many flows, Section IV) m
//! candidates are drawn with replacement; every one of the arrival's flow is dropped
//! with the arrival. The candidates are drawn from their own seeded stream, so RED's
//! decisions use the same random numbers as a RED queue would.

use rand::Rng;

use crate::common::{self, AqmRng, Limit};
use crate::config::build::seed;
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildContext, BuildQdisc};
use crate::error::{AqmError, Result};
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::qdisc::{Dequeued, PacketQueue, Qdisc};
use crate::queue::{QueueStats, SignalKind};
use crate::red::{RedCore, RedFields, RedParams};
use crate::time::Time;

config_struct! {
    /// CHOKe (Pan, Prabhakar & Psounis 2000, Section II): RED, plus a random match:
    /// above min_th each arrival is compared with packets drawn from the queue and both
    /// are dropped if they belong to the same flow. RED's keys and defaults.
    pub struct ChokeConfig {
        /// Minimum threshold of the average.
        min_th: f64 = 5.0,
        /// Maximum threshold of the average.
        max_th: f64 = 15.0,
        /// Weight of the average, (0, 1].
        w_q: f64 = 0.002,
        ..red: RedFields = RedFields::default(),
        /// m, drop candidates drawn per arrival (1; the paper's extension uses more), 1 ..= 64.
        candidates: u32 = 1,
    }
}

impl AqmConfig for ChokeConfig {
    /// (A queue that holds its packets; the matched victims.)
    fn may_evict(&self) -> bool {
        true
    }
    fn limit_packets(&self) -> Option<u64> {
        self.red.limit
    }
    fn normalize(&mut self) -> Result<()> {
        self.red.normalize()
    }
}

impl BuildQdisc for ChokeConfig {
    type Qdisc<P: Packet> = Choke<P>;
    fn build<P: Packet>(&self, ctx: &BuildContext) -> Result<Choke<P>> {
        let rate = self.red.rate(ctx)?;
        let params = self.red.params(self.min_th, self.max_th, self.w_q, rate)?;
        Choke::new(params, self.candidates, seed(self.red.seed, ctx))
    }
}

/// What CHOKe draws its candidates with: a stream apart from RED's, from the same seed.
const CANDIDATE_STREAM: u64 = 0x9e37_79b9_7f4a_7c15;

/// CHOKe over one FIFO.
#[derive(Clone, Debug)]
pub struct Choke<P> {
    core: RedCore,
    /// m, drop candidates per arrival (>= 1).
    candidates: u32,
    queue: PacketQueue<P>,
    stats: QueueStats,
    rng: AqmRng,
    /// Arrivals dropped by a match (the matched queued packets come on top).
    pub matched: u64,
}

impl<P: Packet> Choke<P> {
    pub fn new(params: RedParams, candidates: u32, seed: u64) -> Result<Choke<P>> {
        if !(1..=64).contains(&candidates) {
            return Err(AqmError::invalid("candidates", candidates, "1 ..= 64"));
        }
        Ok(Choke {
            core: RedCore::new(params, seed)?,
            candidates,
            queue: PacketQueue::default(),
            stats: QueueStats::default(),
            rng: common::rng_from_seed(seed ^ CANDIDATE_STREAM),
            matched: 0,
        })
    }
    pub fn core(&self) -> &RedCore {
        &self.core
    }

    /// Draw the candidates: positions of queued packets of `flow` (distinct, highest
    /// first so that removing them in order keeps the others' positions).
    fn matches(&mut self, flow: u32) -> Vec<usize> {
        let n = self.queue.len();
        let mut hits = Vec::new();
        if n == 0 {
            return hits;
        }
        for _ in 0..self.candidates {
            let k = self.rng.random_range(0..n);
            if self.queue.get(k).is_some_and(|h| h.pkt.info().flow == flow) && !hits.contains(&k) {
                hits.push(k);
            }
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        hits
    }

    fn discard(
        &mut self,
        now: Time,
        idx: usize,
        reason: DropReason,
        dropped: &mut dyn FnMut(P, DropReason),
    ) {
        if let Some(h) = self.queue.remove(idx) {
            self.stats.record_drop(reason);
            self.core.on_removed(now, &h.pkt.info(), false, self.queue.backlog());
            dropped(h.pkt, reason);
        }
    }
}

impl<P: Packet> Qdisc<P> for Choke<P> {
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        self.stats.arrivals += 1;
        let info: PacketInfo = pkt.info();
        let backlog = self.queue.backlog();
        self.core.update_avg(now, backlog);
        if self.core.avg >= self.core.params.min_th {
            let hits = self.matches(info.flow);
            if !hits.is_empty() {
                self.matched += 1;
                for idx in hits {
                    self.discard(now, idx, DropReason::Early, dropped);
                }
                self.stats.record_drop(DropReason::Early);
                dropped(pkt, DropReason::Early);
                return Verdict::Drop(DropReason::Early);
            }
        }
        let verdict = self.core.decide(&info, backlog);
        match verdict {
            Verdict::Drop(reason) => {
                self.stats.record_drop(reason);
                dropped(pkt, reason);
                return verdict;
            }
            Verdict::Evict { .. } => {
                // drop_front: discard head packets until the arrival fits.
                while !self.queue.is_empty()
                    && self.core.params.limit.overflows(self.queue.backlog(), &info)
                {
                    self.discard(now, 0, DropReason::Overflow, dropped);
                }
            }
            Verdict::Mark => self.stats.marks += 1,
            Verdict::Enqueue => {}
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
        let d = self.queue.pop()?;
        self.stats.departures += 1;
        self.stats.departed_bytes += d.pkt.info().size as u64;
        self.core.on_removed(now, &d.pkt.info(), true, self.queue.backlog());
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
    /// RED's average.
    fn signal(&self) -> f64 {
        self.core.avg
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::AverageQueue
    }
    /// RED's `avg`, `count` and `max_p`, and `matched` (arrivals dropped by a match).
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.core.inspect(out);
        out("matched", self.matched as f64);
    }
}

#[cfg(test)]
#[path = "tests/choke.rs"]
mod tests;
