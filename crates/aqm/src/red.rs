//! RED, exactly as Fig. 2 of Floyd & Jacobson (1993), with the options the papers
//! and the peers use: gentle mode, ECN marking, byte mode, queue measured in bytes,
//! the Fig. 17 efficient variant, and drop-from-front on overflow.
//!
//! [`RedCore`] holds what RED, Adaptive RED, Feng's Adaptive RED and CHOKe share: the
//! parameters, the average, `count`, and the marking decision; [`RedFields`] the keys
//! they share. The public types wrap it; only how `max_p` moves differs between them.

use serde::{Deserialize, Serialize};

use crate::common::{self, AqmRng, IdleRule, IdleSince, Limit, MarkMethod};
use crate::config::build::{idle_pkt_time, link_rate, number_of, seed};
use crate::config::fields::{config_struct, param_enum};
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::{Result, check};
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::time::Time;
use crate::units::{Dimension, Quantity};

/// What `count` counts, where Fig. 2 and the text of Section VII disagree.
///
/// Section VII defines `count` as "the number of unmarked packets that have arrived
/// since the last marked packet" and derives inter-mark gaps uniform on
/// `{1, ..., 1/p_b}` with mean `1/(2 p_b) + 1/2`. Fig. 2, read literally, increments
/// `count` *before* computing `p_a` and resets it to 0 after a mark, so the n-th
/// arrival after a mark sees `count = n` and the gaps are uniform on
/// `{1, ..., 1/p_b - 1}` with mean `1/(2 p_b)`. Written `"text"` or `"figure2"` in a
/// configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountMode {
    /// Section VII's definition (default): a mark resets `count` to -1, so the next
    /// arrival is computed with `count = 0` unmarked packets since the mark.
    Text,
    /// Fig. 2 literally: a mark resets `count` to 0.
    Figure2,
}

impl CountMode {
    /// The value `count` takes after a mark or drop.
    #[inline]
    fn after_mark(self) -> i64 {
        match self {
            CountMode::Text => -1,
            CountMode::Figure2 => 0,
        }
    }
}

param_enum!(CountMode);

config_struct! {
    /// The keys RED, Adaptive RED, Feng's Adaptive RED and CHOKe share, after their
    /// thresholds and weight. The defaults are RED's; ARED starts from
    /// [`RedFields::ared`].
    pub struct RedFields {
        /// max_p, the largest p_b between the thresholds, (0, 1] (for the adaptive
        /// variants its initial value): Floyd & Jacobson's 1/50.
        max_p: f64 = 0.02,
        /// Buffer in packets (required unless `limit_bytes`); always enforced.
        limit: Option<u64> = None,
        /// Buffer in bytes.
        limit_bytes: Option<u64> = None,
        /// Gentle mode: p_b from max_p to 1 between max_th and 2 max_th.
        gentle: bool = false,
        /// Mark ECN-capable packets instead of dropping them on early decisions (forced
        /// decisions and a full buffer always drop).
        ecn: bool = false,
        /// Byte mode: p_b scaled by size / max_pkt_size (Section IV).
        byte_mode: bool = false,
        /// Queue, average and thresholds measured in bytes.
        queue_in_bytes: bool = false,
        /// How p_b becomes p_a: "uniform" (Method 2), "geometric" (Method 1) or
        /// "ns2_wait".
        mark_method: MarkMethod = MarkMethod::Uniform,
        /// What `count` counts: "text" (Section VII) or "figure2" (Fig. 2 literally).
        count_mode: CountMode = CountMode::Text,
        /// Fig. 17's efficient variant: one random number per mark.
        efficient: bool = false,
        /// On overflow drop the head of the queue instead of the arrival.
        drop_front: bool = false,
        /// No drop decision while fewer packets wait (Fig. 2: 0; ns-2 and ns-3: 2).
        min_backlog: u32 = 0,
        /// When the idle period starts and how an arrival ends it: "figure2" (the queue
        /// empties; `m = idle / s`) or "ns2" (the link has sent the last packet;
        /// `int(m)` steps and one EWMA step with the empty queue, ns-2's `red.cc`).
        idle_rule: IdleRule = IdleRule::Figure2,
        /// Bytes per packet of the idle-time packet time s (and of automatic
        /// parameters).
        mean_pkt_size: u32 = 500,
        /// The largest packet, bytes (byte mode's divisor).
        max_pkt_size: u32 = 1500,
        /// Link rate for `s = 8 mean_pkt_size / link_rate` (b/s or "10Mbps"; the
        /// simulator's link, else 10 Mb/s).
        link_rate_bps: Option<Quantity> = None,
        /// `s` given directly (seconds or "0.4ms"), overriding the link-rate rule.
        idle_pkt_time: Option<Quantity> = None,
        /// Seed of the marking decisions' random stream.
        seed: Option<u64> = None,
    }
}

impl RedFields {
    /// Adaptive RED's defaults (Section 4.3): initial max_p 0.1, gentle on.
    pub fn ared() -> RedFields {
        RedFields { max_p: 0.1, gentle: true, ..RedFields::default() }
    }

    /// The link rate (b/s) these fields give or the context supplies, after checking
    /// `mean_pkt_size`, which every automatic parameter divides by.
    pub fn rate(&self, ctx: &BuildContext) -> Result<f64> {
        let rate = link_rate(&self.link_rate_bps, ctx)?;
        check::positive_int("mean_pkt_size", self.mean_pkt_size as u64)?;
        Ok(rate)
    }

    /// RED's parameters from these fields and the thresholds and weight, validated.
    pub fn params(&self, min_th: f64, max_th: f64, w_q: f64, rate: f64) -> Result<RedParams> {
        let idle_pkt_time = idle_pkt_time(&self.idle_pkt_time, rate, self.mean_pkt_size)?;
        let p = RedParams {
            min_th,
            max_th,
            w_q,
            max_p: self.max_p,
            limit: Limit::new(self.limit, self.limit_bytes)?,
            gentle: self.gentle,
            ecn: self.ecn,
            byte_mode: self.byte_mode,
            queue_in_bytes: self.queue_in_bytes,
            mark_method: self.mark_method,
            count_mode: self.count_mode,
            efficient: self.efficient,
            drop_front: self.drop_front,
            min_backlog: self.min_backlog,
            idle_rule: self.idle_rule,
            idle_pkt_time,
            max_pkt_size: self.max_pkt_size,
            mean_pkt_size: self.mean_pkt_size,
        };
        p.validate()?;
        Ok(p)
    }

    /// `link_rate_bps` and `idle_pkt_time` as numbers (b/s, seconds).
    pub fn normalize(&mut self) -> Result<()> {
        number_of(&mut self.link_rate_bps, "link_rate_bps", Dimension::Rate)?;
        number_of(&mut self.idle_pkt_time, "idle_pkt_time", Dimension::Time)
    }
}

config_struct! {
    /// RED (Floyd & Jacobson 1993, Fig. 2). Defaults: the paper's simulations (min_th 5,
    /// max_th 15, w_q 0.002, max_p 1/50).
    pub struct RedConfig {
        /// Minimum threshold of the average (packets; bytes with `queue_in_bytes`).
        min_th: f64 = 5.0,
        /// Maximum threshold of the average.
        max_th: f64 = 15.0,
        /// Weight of the average (eq. 1), (0, 1].
        w_q: f64 = 0.002,
        ..red: RedFields = RedFields::default(),
    }
}

impl AqmConfig for RedConfig {
    fn may_evict(&self) -> bool {
        self.red.drop_front
    }
    fn limit_packets(&self) -> Option<u64> {
        self.red.limit
    }
    fn normalize(&mut self) -> Result<()> {
        self.red.normalize()
    }
}

impl BuildAqm for RedConfig {
    type Aqm = Red;
    fn build(&self, ctx: &BuildContext) -> Result<Red> {
        let rate = self.red.rate(ctx)?;
        let params = self.red.params(self.min_th, self.max_th, self.w_q, rate)?;
        Red::new(params, seed(self.red.seed, ctx))
    }
}

/// Validated, immutable RED parameters. Thresholds are in packets, or in bytes when
/// `queue_in_bytes` is set.
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Minimum threshold for the average (packets, or bytes with `queue_in_bytes`).
    pub min_th: f64,
    /// Maximum threshold for the average (same unit as `min_th`).
    pub max_th: f64,
    /// Queue weight of the EWMA, in (0, 1].
    pub w_q: f64,
    /// Initial (for RED: fixed) maximum of p_b, in (0, 1].
    pub max_p: f64,
    /// The physical buffer, always enforced.
    pub limit: Limit,
    /// Gentle mode: p_b rises from max_p to 1 between max_th and 2 max_th.
    pub gentle: bool,
    /// ECN: an early decision on an ECN-capable packet marks it instead of dropping.
    /// Forced decisions (avg above max_th without gentle, above 2 max_th with it, or a
    /// full buffer) always drop, as ns-2 does.
    pub ecn: bool,
    /// Byte mode: `p_b <- p_b * size / max_pkt_size` (Section IV).
    pub byte_mode: bool,
    /// The queue, the average and the thresholds are measured in bytes.
    pub queue_in_bytes: bool,
    /// How p_b becomes p_a.
    pub mark_method: MarkMethod,
    /// Which definition of `count` (see [`CountMode`]).
    pub count_mode: CountMode,
    /// Fig. 17: draw one random number per mark and mark when `count >= R / p_b`.
    pub efficient: bool,
    /// On overflow, drop the packet at the head of the queue instead of the arrival.
    pub drop_front: bool,
    /// No early or forced drop while fewer than this many packets wait (before the
    /// arrival): 0, Floyd & Jacobson's Fig. 2, decides at any queue; ns-2's `red.cc`
    /// (`qlen > 1`) and ns-3 3.37 decide only from 2.
    pub min_backlog: u32,
    /// When the idle period starts and how an arrival to the empty queue ends it (see
    /// [`IdleRule`]).
    pub idle_rule: IdleRule,
    /// `s` of Section XI: transmission time of a typical small packet, seconds.
    pub idle_pkt_time: f64,
    /// The largest packet, bytes (byte mode's MaximumPacketSize).
    pub max_pkt_size: u32,
    /// Bytes per packet used to express packet thresholds in bytes and to derive `s`.
    pub mean_pkt_size: u32,
}

impl RedParams {
    /// Check every parameter; the error names the first one that is wrong.
    pub fn validate(&self) -> Result<()> {
        check::finite("min_th", self.min_th)?;
        check::finite("max_th", self.max_th)?;
        check::thresholds(self.min_th, self.max_th)?;
        check::unit_open_closed("w_q", self.w_q)?;
        check::unit_open_closed("max_p", self.max_p)?;
        check::positive("idle_pkt_time", self.idle_pkt_time)?;
        check::positive_int("max_pkt_size", self.max_pkt_size as u64)?;
        check::positive_int("mean_pkt_size", self.mean_pkt_size as u64)?;
        Ok(())
    }
}

/// Where the average stands relative to the thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    Below,
    Ramp,
    Gentle,
    Forced,
}

/// State and decision logic shared by RED and its adaptive variants.
#[derive(Clone, Debug)]
pub struct RedCore {
    pub params: RedParams,
    /// Average queue size (packets, or bytes with `queue_in_bytes`).
    pub avg: f64,
    /// Packets since the last mark, per [`CountMode`]; -1 when avg is below min_th.
    pub count: i64,
    /// Current max_p (moved by the adaptive variants).
    pub max_p: f64,
    /// The max_p the gentle ramp starts from at max_th when it is not the current one
    /// (ns-2's `red.cc` sets the ramp's `v_c`, `v_d` from the initial max_p, once).
    pub gentle_max_p: Option<f64>,
    /// Start of the current idle period (q_time of Fig. 2).
    idle_since: IdleSince,
    /// When the link finishes sending the last packet that left the queue for it
    /// ([`IdleRule::Ns2`]: the idle period starts no earlier).
    wire_free_at: Time,
    /// Fig. 17's random number R.
    r: f64,
    rng: AqmRng,
    /// `(w_q, ln(1 - w_q))` for idle aging, recomputed if `params.w_q` changes.
    ln_keep: (f64, f64),
}

impl RedCore {
    pub fn new(params: RedParams, seed: u64) -> Result<RedCore> {
        params.validate()?;
        let max_p = params.max_p;
        let ln_keep = (params.w_q, (1.0 - params.w_q).ln());
        Ok(RedCore {
            params,
            avg: 0.0,
            count: -1,
            max_p,
            gentle_max_p: None,
            idle_since: IdleSince(None),
            wire_free_at: Time::ZERO,
            r: 0.0,
            rng: common::rng_from_seed(seed),
            ln_keep,
        })
    }

    #[inline]
    fn queue_size(&self, backlog: Backlog) -> f64 {
        if self.params.queue_in_bytes { backlog.bytes as f64 } else { backlog.packets as f64 }
    }

    /// Fig. 2, "calculate the new average queue size": an EWMA step if the queue is
    /// nonempty, idle-time aging otherwise. After aging, q_time is moved to `now`, so
    /// that a second arrival to a still-empty queue (the first was dropped) does not
    /// age the average again for the same idle time (the omission Lin & Morris point
    /// out in Section 4.5).
    #[inline(always)]
    pub fn update_avg(&mut self, now: Time, backlog: Backlog) {
        if backlog.packets > 0 {
            self.avg = common::ewma(self.avg, self.queue_size(backlog), self.params.w_q);
        } else if self.params.idle_rule == IdleRule::Ns2 {
            self.update_avg_ns2(now);
        } else if let Some(t0) = self.idle_since.0 {
            let idle = now.saturating_since(t0).as_secs_f64();
            if self.avg != 0.0 && idle > 0.0 {
                // (1 - w_q)^m as exp(m ln(1 - w_q)), the logarithm kept (common::idle_decay's formula)
                if self.ln_keep.0 != self.params.w_q {
                    self.ln_keep = (self.params.w_q, (1.0 - self.params.w_q).ln());
                }
                self.avg *= (idle / self.params.idle_pkt_time * self.ln_keep.1).exp();
            }
            self.idle_since = IdleSince(Some(now));
        }
    }

    /// [`IdleRule::Ns2`] at an arrival to the empty queue: `red.cc`'s `estimator(0, m + 1,
    /// ...)`, `m = int(ptc * (now - idletime_))` if the link has gone idle (then the
    /// idle period is over: `idle_ = 0`), else `m = 0`.
    #[cold]
    fn update_avg_ns2(&mut self, now: Time) {
        if let Some(t0) = self.idle_since.0.filter(|&t0| now >= t0) {
            let m = (now.saturating_since(t0).as_secs_f64() / self.params.idle_pkt_time).floor();
            if self.avg != 0.0 && m > 0.0 {
                self.avg *= (1.0 - self.params.w_q).powf(m);
            }
            self.idle_since = IdleSince(None);
        }
        self.avg = common::ewma(self.avg, 0.0, self.params.w_q);
    }

    #[inline]
    fn region(&self) -> Region {
        let p = &self.params;
        if self.avg < p.min_th {
            Region::Below
        } else if self.avg < p.max_th {
            Region::Ramp
        } else if p.gentle && self.avg < 2.0 * p.max_th {
            Region::Gentle
        } else {
            Region::Forced
        }
    }

    /// p_b at the current average for a packet of `size` bytes (0 below min_th, 1 in
    /// the forced region).
    pub fn p_b(&self, size: u32) -> f64 {
        let p = &self.params;
        let pb = match self.region() {
            Region::Below => return 0.0,
            Region::Forced => return 1.0,
            Region::Ramp => common::ramp(self.avg, p.min_th, p.max_th, self.max_p),
            Region::Gentle => {
                common::gentle_ramp(self.avg, p.max_th, self.gentle_max_p.unwrap_or(self.max_p))
            }
        };
        let pb = if p.byte_mode { pb * size as f64 / p.max_pkt_size as f64 } else { pb };
        pb.clamp(0.0, 1.0)
    }

    /// The RED decision for an arrival, after the average has been updated: the
    /// body of Fig. 2 (or Fig. 17 with `efficient`), then the physical limit.
    pub fn decide(&mut self, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        let verdict = match self.region() {
            Region::Below => {
                self.count = -1;
                Verdict::Enqueue
            }
            _ if backlog.packets < self.params.min_backlog => {
                // (ns-2: as if below min_th; count restarts)
                self.count = -1;
                Verdict::Enqueue
            }
            Region::Forced => {
                self.count =
                    if self.params.efficient { -1 } else { self.params.count_mode.after_mark() };
                Verdict::Drop(DropReason::Forced)
            }
            Region::Ramp | Region::Gentle => {
                self.count += 1;
                let pb = self.p_b(pkt.size);
                let marked = if self.params.efficient { self.fig17(pb) } else { self.fig2(pb) };
                if marked {
                    if self.params.ecn && pkt.ecn_capable {
                        Verdict::Mark
                    } else {
                        Verdict::Drop(DropReason::Early)
                    }
                } else {
                    Verdict::Enqueue
                }
            }
        };
        match verdict {
            Verdict::Enqueue | Verdict::Mark if self.params.limit.overflows(backlog, pkt) => {
                // A full buffer is a congestion signal too: count restarts (ns-2 does the same).
                self.count = self.params.count_mode.after_mark();
                if self.params.drop_front && backlog.packets > 0 {
                    Verdict::Evict { victim: 0 }
                } else {
                    Verdict::Drop(DropReason::Overflow)
                }
            }
            v => v,
        }
    }

    /// Fig. 2: mark with probability p_a.
    #[inline]
    fn fig2(&mut self, pb: f64) -> bool {
        let pa = self.params.mark_method.p_a(pb, self.count);
        let marked = pa > 0.0 && common::uniform01(&mut self.rng) < pa;
        if marked {
            self.count = self.params.count_mode.after_mark();
        }
        marked
    }

    /// Fig. 17: one random number R per mark; mark the arrival once `count >= R / p_b`.
    #[inline]
    fn fig17(&mut self, pb: f64) -> bool {
        let mut marked = false;
        if self.count > 0 && pb > 0.0 && self.count as f64 >= self.r / pb {
            marked = true;
            self.count = 0;
        }
        if self.count == 0 {
            self.r = common::uniform01(&mut self.rng);
        }
        marked
    }

    /// Fig. 2, "when queue becomes empty: q_time <- time". `pkt` left the queue at
    /// `now`, for the link if `departed`. With [`IdleRule::Ns2`] the idle period starts
    /// when the link has sent the last departed packet: its size in `s` per
    /// `mean_pkt_size` bytes after it left (at the link rate when `s` comes from it).
    #[inline]
    pub fn on_removed(&mut self, now: Time, pkt: &PacketInfo, departed: bool, backlog_after: Backlog) {
        if self.params.idle_rule == IdleRule::Ns2 {
            if departed {
                let wire = self.params.idle_pkt_time * pkt.size as f64 / self.params.mean_pkt_size as f64;
                self.wire_free_at = now + crate::time::Duration::from_secs_f64(wire);
            }
            if backlog_after.packets == 0 {
                self.idle_since = IdleSince(Some(now.max(self.wire_free_at)));
            }
        } else if backlog_after.packets == 0 {
            self.idle_since = IdleSince(Some(now));
        }
    }

    /// The state as named values: `avg`, `count`, `max_p`.
    pub fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("avg", self.avg);
        out("count", self.count as f64);
        out("max_p", self.max_p);
    }
}

/// Random Early Detection (Floyd & Jacobson 1993, Fig. 2).
#[derive(Clone, Debug)]
pub struct Red {
    pub core: RedCore,
}

impl Red {
    pub fn new(params: RedParams, seed: u64) -> Result<Red> {
        Ok(Red { core: RedCore::new(params, seed)? })
    }

    // (always: the simulator's decision inlines it; see `AnyAqm::on_arrival`)
    #[inline(always)]
    pub fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        self.core.update_avg(now, backlog);
        self.core.decide(pkt, backlog)
    }

    pub fn on_removed(&mut self, now: Time, pkt: &PacketInfo, departed: bool, backlog_after: Backlog) {
        self.core.on_removed(now, pkt, departed, backlog_after);
    }
}

impl QueueDiscipline for Red {
    #[inline]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        Red::on_arrival(self, now, pkt, backlog)
    }
    #[inline]
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, backlog_after: Backlog, departed: bool) {
        Red::on_removed(self, now, pkt, departed, backlog_after)
    }
    fn limit(&self) -> Limit {
        self.core.params.limit
    }
    /// avg.
    fn signal(&self) -> f64 {
        self.core.avg
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::AverageQueue
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.core.inspect(out)
    }
}
