//! SFB, Stochastic Fair BLUE (Feng, Kandlur, Saha & Shin, "The BLUE active queue
//! management algorithms", IEEE/ACM ToN 2002, Section V; Linux `sch_sfb`).
//!
//! BLUE's marking probability, kept per "bin" of flows instead of once: `levels`
//! independent hash functions each map a flow to one of `bins` bins, and every bin
//! counts the packets of its flows that wait in the buffer (a virtual queue) and keeps
//! its own BLUE probability `p_m`. On each arrival, for each of the flow's bins:
//! ```text
//! if qlen == 0:           p_m -= decrement     (the bin went idle)
//! elif qlen >= bin_size:  p_m += increment     (the bin overflows its share)
//! p_min = min over the flow's bins of p_m
//! ```
//! A responsive flow shares at least one bin (over the levels) with responsive flows
//! only, so its `p_min` stays low; a non-responsive flow fills all of its bins, drives
//! every one to 1, and is recognised by `p_min = 1`: it is then **rate-limited** to
//! `penalty_rate` packets per second (burst `penalty_burst`), not dropped outright.
//! Otherwise the packet is marked (ECN) or dropped with probability `p_min`.
//!
//! # Choices where the paper leaves room (Linux's `sch_sfb`, whose defaults these are)
//! - **Bin overflow.** A bin counts as overflowing from `bin_size` packets (20), and an
//!   arrival whose bins all hold at least `max` packets (25) is dropped; the paper's
//!   pseudocode uses one bin size for both.
//! - **No freeze time**: each bin's `p_m` moves at every arrival to it, by
//!   `increment` (0.001) and `decrement` (1/6000), Linux's values.
//! - **Heavy marking drops.** With `p_min > 1/2` (a flow unresponsive to marks, or
//!   heavy congestion) a packet drawn below `2 (p_min - 1/2)` is dropped even if it is
//!   ECN-capable (Linux's rule); the rest drawn below `p_min` are marked or dropped.
//! - **The penalty box** is a token bucket that keeps fractions of a token, so a
//!   flow with p_min = 1 gets `penalty_rate` packets per second whatever its sending
//!   rate. (Linux refills only when the bucket is empty, in whole tokens, and restarts
//!   its clock at every refill: a flow arriving more often than once per
//!   1/`penalty_rate` never earns a token and is cut off entirely.)
//! - **One hash per run.** The paper moves its hash functions (Section V.C) so that a
//!   responsive flow does not stay punished with a non-responsive one; Linux rehashes
//!   every 10 minutes. Here the salt is drawn once from the seed: runs shorter than
//!   that interval see the same thing.
//! - **Hashes.** Level `i` of flow `f` takes `mix(mix(f xor salt) + i * golden)` scaled
//!   to `bins` (SplitMix64's finaliser), independent across levels for practical
//!   purposes; Linux splits one 32-bit hash into eight 4-bit ones.

use crate::common::{self, AqmRng, Limit};
use crate::config::build::seed;
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::{AqmError, Result, check};
use crate::fq::mix64;
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::time::Time;

config_struct! {
    /// SFB, Stochastic Fair BLUE (Feng, Kandlur, Saha & Shin 2002, Section V; Linux
    /// `sch_sfb`): each flow hashes to a bin per level; a bin keeps a BLUE probability,
    /// and a packet is marked or dropped with the least of its bins'; a flow whose bins
    /// are all at 1 is rate-limited. Defaults: Linux's (8 levels of 16 bins, bin_size 20,
    /// max 25, increment 0.001, decrement 1/6000, penalty 10 packets/s with a burst of 20).
    pub struct SfbConfig {
        /// L, independent hash levels, [1, 16].
        levels: u32 = 8,
        /// N, bins per level, [2, 65536].
        bins: u32 = 16,
        /// Packets: a bin holding this many raises its p_m on an arrival, >= 1.
        bin_size: u32 = 20,
        /// Packets: an arrival whose bins all hold this many is dropped, >= 1.
        max: u32 = 25,
        /// p_m's step up, (0, 1].
        increment: f64 = 0.001,
        /// p_m's step down, (0, 1].
        decrement: f64 = 1.0 / 6000.0,
        /// Packets per second a flow with p_min = 1 may still send, >= 0.
        penalty_rate: f64 = 10.0,
        /// Burst of that rate limiter, packets.
        penalty_burst: u32 = 20,
        /// Buffer in packets (required unless `limit_bytes`).
        limit: Option<u64> = None,
        /// Buffer in bytes.
        limit_bytes: Option<u64> = None,
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool = false,
        /// Seed of the hash salt and of the draws.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for SfbConfig {
    fn limit_packets(&self) -> Option<u64> {
        self.limit
    }
}

impl BuildAqm for SfbConfig {
    type Aqm = Sfb;
    fn build(&self, ctx: &BuildContext) -> Result<Sfb> {
        let c = self;
        let params = SfbParams {
            levels: c.levels,
            bins: c.bins,
            bin_size: c.bin_size,
            max: c.max,
            increment: c.increment,
            decrement: c.decrement,
            penalty_rate: c.penalty_rate,
            penalty_burst: c.penalty_burst,
            limit: Limit::new(c.limit, c.limit_bytes)?,
            ecn: c.ecn,
        };
        Sfb::new(params, seed(c.seed, ctx))
    }
}

/// Validated SFB parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct SfbParams {
    /// L, the number of hash levels, [1, 16] (8).
    pub levels: u32,
    /// N, bins per level, [2, 65536] (16).
    pub bins: u32,
    /// A bin holding at least this many packets raises its p_m on an arrival (20).
    pub bin_size: u32,
    /// An arrival whose bins all hold at least this many packets is dropped (25).
    pub max: u32,
    /// p_m's step up, (0, 1] (0.001).
    pub increment: f64,
    /// p_m's step down, (0, 1] (1/6000).
    pub decrement: f64,
    /// Packets per second a flow with p_min = 1 may still send, >= 0; 0 drops them all (10).
    pub penalty_rate: f64,
    /// Tokens of that rate limiter (20).
    pub penalty_burst: u32,
    /// The physical buffer.
    pub limit: Limit,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl SfbParams {
    pub fn validate(&self) -> Result<()> {
        if !(1..=16).contains(&self.levels) {
            return Err(AqmError::invalid("levels", self.levels, "[1, 16]"));
        }
        if !(2..=65_536).contains(&self.bins) {
            return Err(AqmError::invalid("bins", self.bins, "[2, 65536]"));
        }
        if self.bin_size == 0 {
            return Err(AqmError::invalid("bin_size", 0, ">= 1 packet"));
        }
        if self.max == 0 {
            return Err(AqmError::invalid("max", 0, ">= 1 packet"));
        }
        check::unit_open_closed("increment", self.increment)?;
        check::unit_open_closed("decrement", self.decrement)?;
        check::non_negative("penalty_rate", self.penalty_rate)?;
        Ok(())
    }
}

/// Drops of each kind, besides the queue's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SfbDrops {
    /// All of the flow's bins held `max` packets.
    pub bucket: u64,
    /// A flow with p_min = 1 beyond its penalty rate.
    pub penalty: u64,
}

/// SFB (see the module documentation).
#[derive(Clone, Debug)]
pub struct Sfb {
    pub params: SfbParams,
    /// p_m of each bin, level-major (`level * bins + bin`).
    p_m: Vec<f64>,
    /// Packets waiting of each bin.
    qlen: Vec<u32>,
    salt: u64,
    rng: AqmRng,
    /// The penalty rate limiter: tokens left and when they were last counted.
    tokens: f64,
    token_time: Time,
    pub drops: SfbDrops,
}

/// 2^64 / golden ratio: spreads the levels' hash inputs.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

impl Sfb {
    pub fn new(params: SfbParams, seed: u64) -> Result<Sfb> {
        params.validate()?;
        let mut rng = common::rng_from_seed(seed);
        let salt = {
            use rand::Rng;
            rng.random::<u64>()
        };
        let n = (params.levels * params.bins) as usize;
        Ok(Sfb {
            tokens: f64::from(params.penalty_burst),
            params,
            p_m: vec![0.0; n],
            qlen: vec![0; n],
            salt,
            rng,
            token_time: Time::ZERO,
            drops: SfbDrops::default(),
        })
    }

    /// The index (into the level-major arrays) of flow `flow`'s bin at `level`.
    pub fn bin(&self, flow: u32, level: u32) -> usize {
        self.level_bin(mix64(u64::from(flow) ^ self.salt), level)
    }

    /// The bin at `level` of the flow whose salted hash is `h`.
    #[inline]
    fn level_bin(&self, h: u64, level: u32) -> usize {
        let h = mix64(h.wrapping_add(u64::from(level).wrapping_mul(GOLDEN)));
        let b = ((u128::from(h) * u128::from(self.params.bins)) >> 64) as usize;
        (level * self.params.bins) as usize + b
    }

    /// The flow's bins, one per level.
    fn bins_of(&self, flow: u32) -> impl Iterator<Item = usize> + '_ {
        let h = mix64(u64::from(flow) ^ self.salt);
        (0..self.params.levels).map(move |l| self.level_bin(h, l))
    }

    /// p_m of the bin at `idx` (see [`Sfb::bin`]).
    pub fn p_m(&self, idx: usize) -> f64 {
        self.p_m[idx]
    }
    /// Packets of the bin at `idx` waiting.
    pub fn qlen(&self, idx: usize) -> u32 {
        self.qlen[idx]
    }
    /// p_min of a flow: the least p_m of its bins.
    pub fn p_min(&self, flow: u32) -> f64 {
        self.bins_of(flow).map(|i| self.p_m[i]).fold(1.0, f64::min)
    }
    /// The largest p_m of all bins.
    pub fn max_p_m(&self) -> f64 {
        self.p_m.iter().copied().fold(0.0, f64::max)
    }
    /// Set the p_m of the bin at `idx`, to set up a test or an experiment.
    pub fn set_p_m(&mut self, idx: usize, p: f64) {
        self.p_m[idx] = p.clamp(0.0, 1.0);
    }

    /// The penalty box, a token bucket of `penalty_rate` tokens per second holding at
    /// most `penalty_burst`: whether a packet of a flow with p_min = 1 may pass at `now`.
    fn penalty_pass(&mut self, now: Time) -> bool {
        let earned = now.saturating_since(self.token_time).as_secs_f64() * self.params.penalty_rate;
        self.tokens = (self.tokens + earned).min(f64::from(self.params.penalty_burst));
        self.token_time = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    pub fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        if self.params.limit.overflows(backlog, pkt) {
            return Verdict::Drop(DropReason::Overflow);
        }
        // The flow's bins, hashed once for the update and the count below (levels <= 16).
        let mut slots = [0usize; 16];
        let bins = &mut slots[..self.params.levels as usize];
        for (slot, i) in bins.iter_mut().zip(self.bins_of(pkt.flow)) {
            *slot = i;
        }
        let (mut p_min, mut min_qlen) = (1.0f64, u32::MAX);
        for &i in bins.iter() {
            let q = self.qlen[i];
            if q == 0 {
                self.p_m[i] = (self.p_m[i] - self.params.decrement).max(0.0);
            } else if q >= self.params.bin_size {
                self.p_m[i] = (self.p_m[i] + self.params.increment).min(1.0);
            }
            p_min = p_min.min(self.p_m[i]);
            min_qlen = min_qlen.min(q);
        }
        if min_qlen >= self.params.max {
            self.drops.bucket += 1;
            return Verdict::Drop(DropReason::FlowLimit);
        }
        let verdict = if p_min >= 1.0 {
            if !self.penalty_pass(now) {
                self.drops.penalty += 1;
                return Verdict::Drop(DropReason::FlowLimit);
            }
            Verdict::Enqueue
        } else {
            let r = common::uniform01(&mut self.rng);
            if r >= p_min {
                Verdict::Enqueue
            } else if (p_min > 0.5 && r < 2.0 * (p_min - 0.5))
                || !(self.params.ecn && pkt.ecn_capable)
            {
                return Verdict::Drop(DropReason::Early);
            } else {
                Verdict::Mark
            }
        };
        for &i in bins.iter() {
            self.qlen[i] = self.qlen[i].saturating_add(1);
        }
        verdict
    }

    pub fn on_removed(&mut self, pkt: &PacketInfo) {
        let h = mix64(u64::from(pkt.flow) ^ self.salt);
        for l in 0..self.params.levels {
            let i = self.level_bin(h, l);
            self.qlen[i] = self.qlen[i].saturating_sub(1);
        }
    }
}

// (out of line: see BLUE's impl)
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
    fn signal_kind(&self) -> SignalKind {
        SignalKind::Probability
    }
    /// `max_p_m` (the largest p_m of the bins), and the drops of the penalty box and of
    /// full bins (`penalty_drops`, `bucket_drops`).
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("max_p_m", self.max_p_m());
        out("bucket_drops", self.drops.bucket as f64);
        out("penalty_drops", self.drops.penalty as f64);
    }
}

#[cfg(test)]
#[path = "tests/sfb.rs"]
mod tests;
