//! Flow Random Early Drop (Lin & Morris 1997, Section 4.5), with the Section 6
//! "two packet buffer" many-flows extension and byte mode.
//!
//! [`Fred::on_arrival`] and [`Fred::on_removed`] follow the pseudo-code of
//! Section 4.5 ("The Algorithm") line by line; the comments use the paper's names
//! (block A, line B, block C, "calculate average queue length").
//!
//! # Where the paper is ambiguous, and what this implementation does
//!
//! - **Which `q` the averages see.** The crate's convention (and RED's Fig. 2) is that
//!   an arrival sees the queue *before* it, not counting the packet on the wire.
//!   At an arrival, "calculate average queue length" is printed twice: once before
//!   the decision "if queue is empty", and once just before "accept packet P". Both
//!   use `q` = the backlog *before* the arrival: in the pseudo-code the averaging
//!   comes before "accept packet P", which is where the packet joins the queue. So
//!   an arrival to an empty queue only ages the average (the second call finds
//!   `q == 0` again and ages it over `time - q_time = 0`, a no-op, because the first
//!   call has just set `q_time = time`), exactly as RED does. At a departure the
//!   packet has already left ("if (qleni == 0)" right after the averaging can only
//!   hold once `qleni` has been decremented), so `q` is the backlog *after* the
//!   departure, and a departure that empties the queue is an EWMA step towards 0
//!   followed by `q_time = time`.
//! - **`Nactive` in `avgcq` at a departure.** The pseudo-code averages before
//!   "Nactive--", so the `avgcq` computed at the departure of a flow's last packet
//!   still counts that flow. Kept as printed.
//! - **Double sampling (footnote 1).** The paper averages at both arrivals and
//!   departures and "omit\[s\] the detail of avoiding double sampling at the same
//!   instant". The default is the printed algorithm (every event samples). With
//!   [`Fred::set_avoid_double_sampling`] an EWMA step is skipped when the previous
//!   step was taken at the same instant by the other kind of event (arrival vs.
//!   departure) on the same `q`: that is one queue state sampled twice.
//! - **Dropped arrivals.** "FRED does not modify the average if the incoming packet
//!   is dropped unless the instantaneous queue length is zero": the only averaging
//!   on a dropped arrival is the "if queue is empty" call before the decision.
//! - **Per-flow state of a dropped packet.** The pseudo-code creates a flow's table
//!   at arrival ("if flow i = conn(P) has no state table") but deletes it only when
//!   a packet departs. A flow whose only packet is dropped would then keep a table
//!   forever. Here the table is deleted again at the end of the arrival when
//!   `qleni == 0`. Nothing is lost: a flow with nothing buffered cannot have been
//!   given a strike in this arrival (every per-flow drop needs `qleni > 0` once
//!   `min_th > 0`), so its table is exactly the fresh `(0, 0)` the next arrival
//!   would create. Memory stays bounded by the number of buffered packets.
//! - **The physical buffer.** The paper has no separate buffer limit (block C is its
//!   drop tail). Here `limit` is always enforced: a packet FRED would accept is
//!   dropped with [`DropReason::Overflow`] if it does not fit. That drop does not
//!   average (it is a dropped arrival) and restarts `count` at 0, as any other drop
//!   does in the pseudo-code (and as the crate's RED does on overflow).
//! - **Discards by the owner.** `on_removed(.., departed = false)` keeps `qleni` and
//!   `Nactive` right without averaging (the paper averages at departures only). If
//!   it empties the queue, `q_time` is set so that the idle time starts there.
//! - **Line B is implied by block A.** When `avg >= maxth`, block A sets `maxq = 2`
//!   and `avgcq >= 1` (its `MAX`), so `qleni > 2*avgcq` implies `qleni >= maxq`: line
//!   B never drops a packet the first clause would accept (in byte mode as well). It
//!   is kept as printed; it only matters if block A is changed.
//! - **Initial values.** `avg = 0`, `count = -1` (no-drop mode), `maxq = min_th`,
//!   `avgcq = MAX(0, 1) = 1` (packets; MaximumPacketSize bytes in byte mode). Before
//!   the queue has ever been empty there is no `q_time`, and no aging.
//! - **Idle aging.** `m = f(time - q_time)` is `(time - q_time) / s` with
//!   `s = idle_pkt_time`, as in RED ([`common::idle_decay`]).
//! - **Default `min_th`.** `MIN(buffer size / 4, RTT)`: the RTT term needs the path,
//!   so [`FredConfig`] defaults to `buffer / 4` and `max_th = 2 min_th`.
//! - **`min_th > 0`.** `maxq = min_th`, and a flow with `qleni = 0 >= maxq` could
//!   never send; [`Fred::new`] rejects `min_th <= 0` besides the ranges RED checks.
//!
//! # Byte mode (end of Section 6)
//! `min_th`, `max_th`, `min_q`, `maxq`, `qleni`, `avg`, `avgcq` are in bytes; the
//! constants in expressions are multiplied by MaximumPacketSize (`maxq = 2` of
//! block A, `qleni >= 2` of the two-packet mode, `MAX(avgcq, 1)`); and
//! `pb <- pb * PacketSize(P) / MaximumPacketSize`. `count` still counts packets.

use std::collections::HashMap;

use crate::common::{self, AqmRng, Limit, MarkMethod};
use crate::config::build::{idle_pkt_time, link_rate, number_of, seed};
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::{Result, check};
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::time::Time;
use crate::units::{Dimension, Quantity};

config_struct! {
    /// FRED, Flow RED (Lin & Morris 1997, Section 4.5), with Section 6's "two packet
    /// buffer" many-flows extension and byte mode. Defaults from Section 4.5: w_q 0.002,
    /// max_p 0.02, min_q 2, min_th = limit / 4, max_th = 2 min_th.
    pub struct FredConfig {
        /// Minimum threshold (None: the buffer / 4, the buffer term of MIN(buffer/4, RTT)).
        min_th: Option<f64> = None,
        /// Maximum threshold (None: 2 min_th).
        max_th: Option<f64> = None,
        /// Weight of the average, (0, 1].
        w_q: f64 = 0.002,
        /// max_p, (0, 1].
        max_p: f64 = 0.02,
        /// Buffer in packets (required unless `limit_bytes`).
        limit: Option<u64> = None,
        /// Buffer in bytes.
        limit_bytes: Option<u64> = None,
        /// minq: packets every flow may buffer without loss while avg < max_th (2 for
        /// small buffers, 4 for large ones, says Section 4.5).
        min_q: f64 = 2.0,
        /// Section 6's "two packet buffer" many-flows extension.
        many_flows: bool = false,
        /// Everything in bytes, the constants times `max_pkt_size` (end of Section 6).
        byte_mode: bool = false,
        /// Bytes per packet of the idle-time packet time s.
        mean_pkt_size: u32 = 500,
        /// MaximumPacketSize, bytes.
        max_pkt_size: u32 = 1500,
        /// Link rate for s (b/s or "10Mbps"; the simulator's link, else 10 Mb/s).
        link_rate_bps: Option<Quantity> = None,
        /// s given directly (seconds or "0.4ms").
        idle_pkt_time: Option<Quantity> = None,
        /// Seed of the random drops.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for FredConfig {
    fn limit_packets(&self) -> Option<u64> {
        self.limit
    }
    fn normalize(&mut self) -> Result<()> {
        number_of(&mut self.link_rate_bps, "link_rate_bps", Dimension::Rate)?;
        number_of(&mut self.idle_pkt_time, "idle_pkt_time", Dimension::Time)
    }
}

impl BuildAqm for FredConfig {
    type Aqm = Fred;
    fn build(&self, ctx: &BuildContext) -> Result<Fred> {
        let c = self;
        let rate = link_rate(&c.link_rate_bps, ctx)?;
        check::positive_int("mean_pkt_size", c.mean_pkt_size as u64)?;
        let limit = Limit::new(c.limit, c.limit_bytes)?;
        // Section 4.5: min_th = MIN(buffer size / 4, RTT); the RTT term needs the path,
        // so the default takes the buffer term.
        let buffer = match (limit.packets, limit.bytes) {
            (Some(p), _) if !c.byte_mode => p as f64,
            (_, Some(b)) if c.byte_mode => b as f64,
            (Some(p), _) => p as f64 * c.max_pkt_size as f64,
            (None, Some(b)) => b as f64 / c.max_pkt_size as f64,
            (None, None) => unreachable!("Limit::new requires one limit"),
        };
        let min_th = c.min_th.unwrap_or(buffer / 4.0);
        let max_th = c.max_th.unwrap_or(2.0 * min_th);
        check::finite("min_th", min_th)?;
        check::finite("max_th", max_th)?;
        check::thresholds(min_th, max_th)?;
        check::unit_open_closed("w_q", c.w_q)?;
        check::unit_open_closed("max_p", c.max_p)?;
        check::positive("min_q", c.min_q)?;
        check::positive_int("max_pkt_size", c.max_pkt_size as u64)?;
        let params = FredParams {
            min_th,
            max_th,
            w_q: c.w_q,
            max_p: c.max_p,
            limit,
            min_q: c.min_q,
            many_flows: c.many_flows,
            byte_mode: c.byte_mode,
            max_pkt_size: c.max_pkt_size,
            idle_pkt_time: idle_pkt_time(&c.idle_pkt_time, rate, c.mean_pkt_size)?,
        };
        Fred::new(params, seed(c.seed, ctx))
    }
}

/// Validated FRED parameters. In byte mode every queue-length quantity (min_th,
/// max_th, min_q, and the per-flow counts) is in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct FredParams {
    /// Minimum threshold of the average (packets, or bytes in byte mode).
    pub min_th: f64,
    /// Maximum threshold of the average.
    pub max_th: f64,
    /// EWMA weight, (0, 1].
    pub w_q: f64,
    /// Maximum of p_b, (0, 1].
    pub max_p: f64,
    /// The physical buffer, always enforced.
    pub limit: Limit,
    /// minq: packets (bytes) every flow may buffer without loss while avg < max_th.
    pub min_q: f64,
    /// Section 6: the "two packet buffer" many-flows extension.
    pub many_flows: bool,
    /// Byte mode (end of Section 6).
    pub byte_mode: bool,
    /// MaximumPacketSize, bytes (byte mode scales constants and p_b by it).
    pub max_pkt_size: u32,
    /// `s` for idle-time aging, seconds.
    pub idle_pkt_time: f64,
}

impl FredParams {
    /// Check every parameter; the error names the first one that is wrong. The same
    /// checks as `QueueConfig::build` makes, plus `min_th > 0` (see the module docs).
    pub fn validate(&self) -> Result<()> {
        check::finite("min_th", self.min_th)?;
        check::finite("max_th", self.max_th)?;
        check::thresholds(self.min_th, self.max_th)?;
        check::positive("min_th", self.min_th)?;
        check::unit_open_closed("w_q", self.w_q)?;
        check::unit_open_closed("max_p", self.max_p)?;
        check::positive("min_q", self.min_q)?;
        check::positive_int("max_pkt_size", self.max_pkt_size as u64)?;
        check::positive("idle_pkt_time", self.idle_pkt_time)?;
        Ok(())
    }
}

/// Per-flow variables of Section 4.5, kept only while the flow has packets buffered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct FlowState {
    /// qleni: packets (bytes in byte mode) of the flow in the buffer.
    qlen: u64,
    /// strikei: number of times the flow tried to exceed its allowance.
    strike: u32,
}

/// The last EWMA step, for the optional double-sampling guard.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    at: Time,
    q: f64,
    departed: bool,
}

/// FRED (see the module docs).
#[derive(Clone, Debug)]
pub struct Fred {
    params: FredParams,
    /// avg: average queue size (packets, or bytes in byte mode).
    avg: f64,
    /// count: packets since the last drop; -1 in no-drop mode.
    count: i64,
    /// avgcq: average per-flow queue size, `MAX(avg / Nactive, 1)` (same unit as avg).
    avgcq: f64,
    /// maxq: the per-flow limit of the last arrival (min_th, or 2 in block A).
    maxq: f64,
    /// Nactive: flows with packets buffered.
    n_active: usize,
    /// q_time: start of the current idle period (`None` before the queue was ever
    /// idle: no aging).
    q_time: Option<Time>,
    /// Per-flow state table, keyed by conn(P).
    flows: HashMap<u32, FlowState>,
    /// The unit of the constants in expressions: 1 packet, or MaximumPacketSize bytes.
    unit: f64,
    /// Footnote 1: skip a second EWMA step at the same instant on the same queue.
    avoid_double_sampling: bool,
    last_sample: Option<Sample>,
    rng: AqmRng,
}

impl Fred {
    pub fn new(params: FredParams, seed: u64) -> Result<Fred> {
        params.validate()?;
        let unit = if params.byte_mode { params.max_pkt_size as f64 } else { 1.0 };
        Ok(Fred {
            avg: 0.0,
            count: -1,
            avgcq: unit,
            maxq: params.min_th,
            n_active: 0,
            q_time: None,
            flows: HashMap::new(),
            unit,
            avoid_double_sampling: false,
            last_sample: None,
            rng: common::rng_from_seed(seed),
            params,
        })
    }

    /// Turn on (or off) the guard against sampling the same queue twice at one
    /// instant, once at a departure and once at an arrival (footnote 1 of Section
    /// 4.4, which the paper omits). Off by default: the printed algorithm.
    pub fn set_avoid_double_sampling(&mut self, on: bool) {
        self.avoid_double_sampling = on;
        self.last_sample = None;
    }

    /// `q`: the instantaneous queue in the unit of `avg`.
    #[inline]
    fn q_of(&self, backlog: Backlog) -> f64 {
        if self.params.byte_mode { backlog.bytes as f64 } else { backlog.packets as f64 }
    }

    /// How much a packet adds to its flow's qleni: 1 packet, or its size in bytes.
    #[inline]
    fn pkt_units(&self, pkt: &PacketInfo) -> u64 {
        if self.params.byte_mode { pkt.size as u64 } else { 1 }
    }

    /// Section 4.5, "calculate average queue length", exactly as printed:
    /// ```text
    /// if (q || packet departed)
    ///     avg = (1-wq)*avg + wq*q;
    /// else {
    ///     m = f(time - q_time);
    ///     avg = (1-wq)^m * avg;
    ///     q_time = time;            // original RED missed this action
    /// }
    /// if (Nactive) avgcq = avg / Nactive; else avgcq = avg;
    /// avgcq = MAX(avgcq, 1);
    /// if (q == 0 && packet departed) q_time = time;
    /// ```
    fn calculate_average(&mut self, now: Time, backlog: Backlog, departed: bool) {
        let q = self.q_of(backlog);
        let empty = backlog.packets == 0;
        if !empty || departed {
            let sample = Sample { at: now, q, departed };
            // Footnote 1: the same queue state seen at the same instant by a departure
            // and then an arrival (or the reverse) is sampled once.
            let double = self.avoid_double_sampling
                && self
                    .last_sample
                    .is_some_and(|s| s.at == now && s.q == q && s.departed != departed);
            if !double {
                self.avg = common::ewma(self.avg, q, self.params.w_q);
            }
            self.last_sample = Some(sample);
        } else {
            // m = f(time - q_time) = (time - q_time) / s.
            if let Some(t0) = self.q_time {
                let idle = now.saturating_since(t0).as_secs_f64();
                self.avg =
                    common::idle_decay(self.avg, self.params.w_q, idle, self.params.idle_pkt_time);
            }
            self.q_time = Some(now);
        }
        self.avgcq = if self.n_active > 0 { self.avg / self.n_active as f64 } else { self.avg };
        // MAX(avgcq, 1): the constant 1 is one packet (MaximumPacketSize in byte mode).
        self.avgcq = self.avgcq.max(self.unit);
        if empty && departed {
            self.q_time = Some(now);
        }
    }

    /// End of an arrival whose packet is dropped: delete the flow's table if the flow
    /// has nothing buffered (see the module docs: the table would be a fresh (0, 0)).
    #[inline]
    fn drop_packet(&mut self, flow: u32, reason: DropReason) -> Verdict {
        if self.flows.get(&flow).is_some_and(|s| s.qlen == 0) {
            self.flows.remove(&flow);
        }
        Verdict::Drop(reason)
    }

    /// Section 4.5, "for each arriving packet P". `backlog` is the queue before the
    /// arrival.
    pub fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        let p = &self.params;
        let (min_th, max_th, many_flows) = (p.min_th, p.max_th, p.many_flows);
        let unit = self.unit;
        let flow = pkt.flow;

        // if flow i = conn(P) has no state table: qleni = 0; strikei = 0;
        let st = *self.flows.entry(flow).or_default();
        let qlen = st.qlen as f64;

        // if queue is empty: calculate average queue length avg
        if backlog.packets == 0 {
            self.calculate_average(now, backlog, false);
        }
        let avg = self.avg;
        let avgcq = self.avgcq;

        // maxq = minth;
        self.maxq = min_th;
        // block A (deleted by the many-flows extension):
        // if (avg >= maxth) { maxq = 2; }   (2 packets = 2 MaximumPacketSize in byte mode)
        if !many_flows && avg >= max_th {
            self.maxq = 2.0 * unit;
        }

        // identify and manage non-adaptive flows:
        // if (qleni >= maxq ||
        //     (avg >= maxth && qleni > 2*avgcq) ||      <- line B (deleted by the many-flows extension)
        //     (qleni >= avgcq && strikei > 1)) { strikei++; drop packet P; return; }
        let line_b = !many_flows && avg >= max_th && qlen > 2.0 * avgcq;
        if qlen >= self.maxq || line_b || (qlen >= avgcq && st.strike > 1) {
            if let Some(s) = self.flows.get_mut(&flow) {
                s.strike += 1;
            }
            return self.drop_packet(flow, DropReason::FlowLimit);
        }

        if let Some(reason) = self.by_average(pkt, qlen, avg, avgcq) {
            return self.drop_packet(flow, reason);
        }

        // Not in the paper: the physical buffer. A dropped arrival does not average.
        if self.params.limit.overflows(backlog, pkt) {
            self.count = 0;
            return self.drop_packet(flow, DropReason::Overflow);
        }

        // if (qleni == 0) Nactive++;
        if st.qlen == 0 {
            self.n_active += 1;
        }
        // calculate average queue length  (q = the queue before P joins it)
        self.calculate_average(now, backlog, false);
        // accept packet P;  (qleni counts it from now on)
        let add = self.pkt_units(pkt);
        if let Some(s) = self.flows.get_mut(&flow) {
            s.qlen += add;
        }
        Verdict::Enqueue
    }

    /// Section 4.5 after "identify and manage non-adaptive flows": the modes of the
    /// average (random drop, no drop, drop tail; Section 6's two packet mode in place of
    /// drop tail), for an arrival of a flow holding `qlen`. The reason to drop it, if any.
    fn by_average(&mut self, pkt: &PacketInfo, qlen: f64, avg: f64, avgcq: f64) -> Option<DropReason> {
        let p = &self.params;
        let (min_th, max_th) = (p.min_th, p.max_th);
        if min_th <= avg && avg < max_th {
            // operate in random drop mode:
            self.count += 1;
            // only random drop from robust flows:
            if qlen >= p.min_q.max(avgcq) {
                // calculate probability pa:
                //   pb = maxp (avg - minth) / (maxth - minth);
                //   byte mode: pb = pb * PacketSize(P) / MaximumPacketSize;
                //   pa = pb / (1 - count * pb)   (1 once count * pb >= 1)
                let mut pb = common::ramp(avg, min_th, max_th, p.max_p);
                if p.byte_mode {
                    pb = pb * pkt.size as f64 / p.max_pkt_size as f64;
                }
                let pa = MarkMethod::Uniform.p_a(pb.clamp(0.0, 1.0), self.count);
                // with probability pa: drop packet P; count = 0; return;
                if pa > 0.0 && common::uniform01(&mut self.rng) < pa {
                    self.count = 0;
                    return Some(DropReason::Early);
                }
            }
            None
        } else if avg < min_th {
            // no drop mode:
            self.count = -1;
            None
        } else if !p.many_flows {
            // block C, drop-tail mode (avg >= maxth):
            self.count = 0;
            Some(DropReason::Forced)
        } else if qlen >= 2.0 * self.unit {
            // Section 6, block C replaced by two packet mode (avg >= maxth):
            // if (qleni >= 2) { count = 0; drop packet P; return; }
            self.count = 0;
            Some(DropReason::FlowLimit)
        } else {
            // A flow with fewer than two packets (2 MaximumPacketSize bytes) falls through.
            None
        }
    }

    /// Section 4.5, "for each departing packet P" (`departed`), or a packet discarded
    /// by the owner of the buffer (`!departed`: the flow's count is kept right, but
    /// the average is not sampled). `backlog_after` is the queue without P.
    pub fn on_removed(
        &mut self,
        now: Time,
        pkt: &PacketInfo,
        backlog_after: Backlog,
        departed: bool,
    ) {
        let sub = self.pkt_units(pkt);
        let qlen_after = self.flows.get_mut(&pkt.flow).map(|s| {
            s.qlen = s.qlen.saturating_sub(sub);
            s.qlen
        });
        if departed {
            // calculate average queue length  (q = the queue after P left)
            self.calculate_average(now, backlog_after, true);
        } else if backlog_after.packets == 0 {
            // Not averaged, but the queue is idle from now on.
            self.q_time = Some(now);
        }
        // if (qleni == 0) { Nactive--; delete state table for flow i; }
        if qlen_after == Some(0) {
            self.flows.remove(&pkt.flow);
            self.n_active = self.n_active.saturating_sub(1);
        }
    }

    pub fn limit(&self) -> Limit {
        self.params.limit
    }
    /// avg (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }
    pub fn count(&self) -> i64 {
        self.count
    }
    /// FRED's max_p is fixed.
    pub fn max_p(&self) -> f64 {
        self.params.max_p
    }
    pub fn params(&self) -> &FredParams {
        &self.params
    }
    /// qleni of a flow with packets buffered (packets, or bytes in byte mode); `None`
    /// when the flow has no state (nothing buffered).
    pub fn flow_qlen(&self, flow: u32) -> Option<f64> {
        self.flows.get(&flow).map(|s| s.qlen as f64)
    }
    /// strikei of a flow with packets buffered; `None` when the flow has no state.
    pub fn flow_strike(&self, flow: u32) -> Option<u32> {
        self.flows.get(&flow).map(|s| s.strike)
    }
    /// `(qleni, strikei)` of a flow with packets buffered.
    pub fn flow_state(&self, flow: u32) -> Option<(f64, u32)> {
        self.flows.get(&flow).map(|s| (s.qlen as f64, s.strike))
    }
    /// Nactive: flows with packets buffered.
    pub fn n_active(&self) -> usize {
        self.n_active
    }
    /// avgcq as of the last averaging (packets, or bytes in byte mode).
    pub fn avgcq(&self) -> f64 {
        self.avgcq
    }
    /// maxq as set by the last arrival (min_th, or 2 packets in block A).
    pub fn maxq(&self) -> f64 {
        self.maxq
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
    /// avg.
    fn signal(&self) -> f64 {
        self.avg
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::AverageQueue
    }
    /// `avg`, `count`, `max_p`, `avgcq`, `maxq` and `n_active`.
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("avg", self.avg);
        out("count", self.count as f64);
        out("max_p", self.params.max_p);
        out("avgcq", self.avgcq);
        out("maxq", self.maxq);
        out("n_active", self.n_active as f64);
    }
}
