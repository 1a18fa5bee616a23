//! Each discipline's configuration: its fields as written in a queue table, with the
//! defaults `docs/algorithms.md` lists. Quantities (`link_rate_bps`, `idle_pkt_time`,
//! ARED's `interval` and `target_delay`) are numbers in SI units or strings with a
//! unit ([`Quantity`]), converted when the discipline is built.

use super::table::config_struct;
use crate::common::MarkMethod;
use crate::dualpi2::DualPi2Scheduler;
use crate::pie::{BurstReset, DelayMode};
use crate::red::CountMode;
use crate::units::Quantity;

config_struct! {
    /// `type = "droptail"`.
    pub struct DropTailConfig {
        /// Buffer in packets.
        limit: Option<u64> = None,
        /// Buffer in bytes.
        limit_bytes: Option<u64> = None,
        /// On overflow drop the head of the queue instead of the arrival.
        drop_front: bool = false,
    }
}

config_struct! {
    /// `type = "randomdrop"`.
    pub struct RandomDropConfig {
        limit: Option<u64> = None,
        limit_bytes: Option<u64> = None,
        seed: Option<u64> = None,
    }
}

config_struct! {
    /// The fields RED, Adaptive RED and Feng's Adaptive RED share, after their
    /// thresholds and weight. The defaults are RED's; ARED starts from
    /// [`RedFields::ared`].
    pub struct RedFields {
        /// max_p (for the adaptive variants, its initial value): Floyd & Jacobson's 1/50.
        max_p: f64 = 0.02,
        limit: Option<u64> = None,
        limit_bytes: Option<u64> = None,
        gentle: bool = false,
        ecn: bool = false,
        byte_mode: bool = false,
        queue_in_bytes: bool = false,
        /// "uniform" (Method 2), "geometric" (Method 1) or "ns2_wait".
        mark_method: MarkMethod = MarkMethod::Uniform,
        /// "text" (Section VII) or "figure2" (Fig. 2 literally).
        count_mode: CountMode = CountMode::Text,
        /// Fig. 17's efficient variant.
        efficient: bool = false,
        drop_front: bool = false,
        /// No drop decision while fewer packets wait (ns-2 and ns-3: 2).
        min_backlog: u32 = 0,
        mean_pkt_size: u32 = 500,
        max_pkt_size: u32 = 1500,
        /// Link rate for `s = 8 mean_pkt_size / link_rate` (b/s or "10Mbps").
        link_rate_bps: Option<Quantity> = None,
        /// `s` given directly (seconds or "0.4ms"), overriding the link-rate rule.
        idle_pkt_time: Option<Quantity> = None,
        seed: Option<u64> = None,
    }
}

impl RedFields {
    /// Adaptive RED's defaults (Section 4.3): initial max_p 0.1, gentle on.
    pub fn ared() -> RedFields {
        RedFields { max_p: 0.1, gentle: true, ..RedFields::default() }
    }
}

config_struct! {
    /// `type = "red"`. Defaults: Floyd & Jacobson's simulations (min_th 5, max_th 15,
    /// w_q 0.002, max_p 1/50).
    pub struct RedConfig {
        min_th: f64 = 5.0,
        max_th: f64 = 15.0,
        w_q: f64 = 0.002,
        ..red: RedFields = RedFields::default(),
    }
}

config_struct! {
    /// `type = "ared"`: RED fields plus the adaptation; `min_th`, `max_th`, `w_q` left
    /// out (or `None`) are set automatically from the link rate (Section 4.3, 6).
    pub struct AredConfig {
        min_th: Option<f64> = None,
        max_th: Option<f64> = None,
        w_q: Option<f64> = None,
        ..red: RedFields = RedFields::ared(),
        /// Adaptation interval (0.5 s).
        interval: Quantity = Quantity::Number(0.5),
        /// delay_target of the automatic min_th (5 ms).
        target_delay: Quantity = Quantity::Number(0.005),
        /// Additive increase; default min(0.01, max_p/4) at each step.
        alpha: Option<f64> = None,
        beta: f64 = 0.9,
        max_p_min: f64 = 0.01,
        max_p_max: f64 = 0.5,
    }
}

config_struct! {
    /// `type = "feng_ared"`: RED fields plus Feng et al.'s factors.
    pub struct FengConfig {
        min_th: f64 = 5.0,
        max_th: f64 = 15.0,
        w_q: f64 = 0.002,
        ..red: RedFields = RedFields::default(),
        feng_alpha: f64 = 3.0,
        feng_beta: f64 = 2.0,
    }
}

config_struct! {
    /// `type = "fred"`. Defaults from Section 4.5: w_q 0.002, max_p 0.02, min_q 2,
    /// min_th = limit / 4, max_th = 2 min_th.
    pub struct FredConfig {
        min_th: Option<f64> = None,
        max_th: Option<f64> = None,
        w_q: f64 = 0.002,
        max_p: f64 = 0.02,
        limit: Option<u64> = None,
        limit_bytes: Option<u64> = None,
        /// minq (2 for small buffers, 4 for large ones, says Section 4.5).
        min_q: f64 = 2.0,
        many_flows: bool = false,
        byte_mode: bool = false,
        mean_pkt_size: u32 = 500,
        max_pkt_size: u32 = 1500,
        link_rate_bps: Option<Quantity> = None,
        idle_pkt_time: Option<Quantity> = None,
        seed: Option<u64> = None,
    }
}

config_struct! {
    /// The CoDel fields CoDel and FQ-CoDel share (RFC 8289 Section 4; Linux's
    /// `ce_threshold`). Times are seconds or strings with a unit ("5ms").
    pub struct CodelFields {
        /// TARGET, the acceptable standing queue delay (5 ms).
        target: Quantity = Quantity::Number(0.005),
        /// INTERVAL, the sliding window of the minimum sojourn time (100 ms).
        interval: Quantity = Quantity::Number(0.1),
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool = false,
        /// Mark ECN-capable packets whose sojourn time exceeds this (off when absent).
        ce_threshold: Option<Quantity> = None,
        /// maxpacket: no drop while at most this many bytes are left queued (MTU, 1500).
        maxpacket: u32 = 1500,
    }
}

impl CodelFields {
    /// FQ-CoDel's defaults: CoDel's, with ECN on (RFC 8290, Linux, ns-3).
    pub fn fq_codel() -> CodelFields {
        CodelFields { ecn: true, ..CodelFields::default() }
    }
}

config_struct! {
    /// `type = "codel"` (RFC 8289): a packet limit (Linux's 1000) and the CoDel fields.
    pub struct CodelConfig {
        limit: u64 = 1000,
        ..codel: CodelFields = CodelFields::default(),
    }
}

config_struct! {
    /// `type = "fq_codel"` (RFC 8290 Section 5.2, Linux's defaults where the RFC has none).
    pub struct FqCodelConfig {
        /// Packets held in all (10240).
        limit: u64 = 10240,
        /// Flow queues, hash buckets (1024).
        flows: u64 = 1024,
        /// DRR quantum, bytes (1514).
        quantum: u64 = 1514,
        /// Bytes held in all (32 MB = 33554432).
        memory_limit: u64 = 32 << 20,
        /// Packets dropped at most from the fattest flow per overflow (64).
        drop_batch_size: u64 = 64,
        ..codel: CodelFields = CodelFields::fq_codel(),
        /// Seed of the flow hash's salt.
        seed: Option<u64> = None,
    }
}

config_struct! {
    /// `type = "fq_pie"` (Linux's `sch_fq_pie`): the FQ-CoDel scheduler's fields and
    /// PIE's per flow, Linux's defaults (target 15 ms, tupdate 15 ms, alpha 0.125, beta
    /// 1.25, ECN off, marking up to a 10% probability).
    pub struct FqPieConfig {
        /// Packets held in all (10240); an arrival beyond is dropped.
        limit: u64 = 10240,
        /// Flow queues, hash buckets (1024).
        flows: u64 = 1024,
        /// DRR quantum, bytes (1514).
        quantum: u64 = 1514,
        /// Bytes held in all (32 MB = 33554432); an arrival beyond is dropped.
        memory_limit: u64 = 32 << 20,
        /// QDELAY_REF (seconds or "15ms").
        target: Quantity = Quantity::Number(0.015),
        /// T_UPDATE.
        tupdate: Quantity = Quantity::Number(0.015),
        /// 1/s.
        alpha: f64 = 0.125,
        /// 1/s.
        beta: f64 = 1.25,
        /// MAX_BURST.
        max_burst: Quantity = Quantity::Number(0.150),
        ecn: bool = false,
        /// ECN-capable packets are dropped, not marked, above this probability (Linux's
        /// `ecn_prob`, 10%).
        mark_ecn_th: f64 = 0.1,
        /// No early drop while a flow holds at most two of these (bytes; Linux: the MTU).
        mean_pkt_size: u32 = 1500,
        /// RFC 8033 Section 5.1's derandomization.
        derandomize: bool = true,
        /// Seed of the flow hash's salt and of the flows' random streams.
        seed: Option<u64> = None,
    }
}

config_struct! {
    /// `type = "pie"` (RFC 8033). Defaults: the RFC's (target 15 ms, tupdate 15 ms,
    /// alpha 0.125, beta 1.25, max_burst 150 ms, DQ_THRESHOLD 16 KB, the departure-rate
    /// estimator, derandomization on).
    pub struct PieConfig {
        /// QDELAY_REF (seconds or "15ms").
        target: Quantity = Quantity::Number(0.015),
        /// T_UPDATE.
        tupdate: Quantity = Quantity::Number(0.015),
        /// 1/s.
        alpha: f64 = 0.125,
        /// 1/s.
        beta: f64 = 1.25,
        /// MAX_BURST.
        max_burst: Quantity = Quantity::Number(0.150),
        /// TAIL_DROP, packets (the RFC gives none; Linux's default 1000).
        limit: Option<u64> = Some(1000),
        limit_bytes: Option<u64> = None,
        ecn: bool = false,
        /// ECN-capable packets are dropped, not marked, above this probability.
        mark_ecn_th: f64 = 0.1,
        /// "rate_estimator" (Section 4.3) or "timestamp" (Linux's default).
        delay_mode: DelayMode = DelayMode::RateEstimator,
        /// DQ_THRESHOLD, bytes.
        dq_threshold: u64 = 16384,
        /// MEAN_PKTSIZE, bytes (no early drop while at most two of them wait).
        mean_pkt_size: u32 = 1500,
        /// Section 5.1's derandomization.
        derandomize: bool = true,
        /// When the burst allowance comes back: "rfc" (Section 4.4, Linux) or "quiet"
        /// (ns-3 3.37: after 1.5 s of quiet updates, the probability held at 0 meanwhile).
        burst_reset: BurstReset = BurstReset::Rfc,
        seed: Option<u64> = None,
    }
}

config_struct! {
    /// `type = "blue"` (Feng, Kandlur, Saha & Shin 2002). Defaults: d1 0.02, d2 0.002,
    /// freeze_time 100 ms (one of the paper's configurations).
    pub struct BlueConfig {
        d1: f64 = 0.02,
        d2: f64 = 0.002,
        /// Seconds or "100ms".
        freeze_time: Quantity = Quantity::Number(0.1),
        limit: Option<u64> = None,
        limit_bytes: Option<u64> = None,
        /// L, packets: more than L waiting is a loss event too.
        threshold: Option<u32> = None,
        ecn: bool = false,
        seed: Option<u64> = None,
    }
}

config_struct! {
    /// `type = "sfb"` (Stochastic Fair BLUE, Feng, Kandlur, Saha & Shin 2002). Defaults:
    /// Linux `sch_sfb`'s (8 levels of 16 bins, bin_size 20, max 25, increment 0.001,
    /// decrement 1/6000, penalty 10 packets/s with a burst of 20).
    pub struct SfbConfig {
        levels: u32 = 8,
        bins: u32 = 16,
        /// Packets: a bin holding this many raises its p_m.
        bin_size: u32 = 20,
        /// Packets: an arrival whose bins all hold this many is dropped.
        max: u32 = 25,
        increment: f64 = 0.001,
        decrement: f64 = 1.0 / 6000.0,
        /// Packets per second a flow with p_min = 1 may send.
        penalty_rate: f64 = 10.0,
        penalty_burst: u32 = 20,
        limit: Option<u64> = None,
        limit_bytes: Option<u64> = None,
        ecn: bool = false,
        seed: Option<u64> = None,
    }
}

config_struct! {
    /// `type = "pi"` (Hollot, Misra, Towsley & Gong 2001). Defaults: the paper's
    /// example (a = 1.822e-5, b = 1.816e-5, 160 Hz, q_ref = 200 packets).
    pub struct PiConfig {
        a: f64 = 1.822e-5,
        b: f64 = 1.816e-5,
        /// Hz.
        sample_freq: f64 = 160.0,
        /// Packets.
        q_ref: f64 = 200.0,
        limit: Option<u64> = None,
        limit_bytes: Option<u64> = None,
        ecn: bool = false,
        seed: Option<u64> = None,
    }
}

config_struct! {
    /// `type = "choke"` (Pan, Prabhakar & Psounis 2000): RED's fields (the same
    /// defaults as `red`) plus the number of drop candidates.
    pub struct ChokeConfig {
        min_th: f64 = 5.0,
        max_th: f64 = 15.0,
        w_q: f64 = 0.002,
        ..red: RedFields = RedFields::default(),
        /// m, drop candidates drawn per arrival (1; the paper's extension uses more).
        candidates: u32 = 1,
    }
}

config_struct! {
    /// `type = "dualpi2"` (RFC 9332). Defaults: Appendix A's (and Linux's) target
    /// 15 ms, tupdate 16 ms, alpha 0.16, beta 3.2, k = 2, step 1 ms; Linux's classic
    /// protection of 10% and drop on overload.
    pub struct DualPi2Config {
        /// Classic queue delay target.
        target: Quantity = Quantity::Number(0.015),
        tupdate: Quantity = Quantity::Number(0.016),
        /// 1/s.
        alpha: f64 = 0.16,
        /// 1/s.
        beta: f64 = 3.2,
        /// The coupling factor.
        k: f64 = 2.0,
        /// The native L4S step threshold.
        step_thresh: Quantity = Quantity::Number(0.001),
        /// Classic's share of a saturated line.
        c_protection: f64 = 0.1,
        drop_on_overload: bool = true,
        /// Mark ECN-capable Classic packets instead of dropping them.
        ecn: bool = true,
        /// Packets, both queues (Linux's default 10000).
        limit: Option<u64> = Some(10000),
        limit_bytes: Option<u64> = None,
        /// Bytes: no PI-derived drop or mark while fewer than 2 mtu remain queued
        /// (Linux's guard); 0 turns it off.
        mtu: u64 = 1500,
        /// `"wrr"` (Linux's) or `"tsfifo"` (RFC 9332 Appendix A.1's time-shifted FIFO).
        scheduler: DualPi2Scheduler = DualPi2Scheduler::Wrr,
        /// The time-shifted FIFO's bias towards L.
        tshift: Quantity = Quantity::Number(0.04),
        seed: Option<u64> = None,
    }
}
