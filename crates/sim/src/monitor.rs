//! Monitors: counters and time averages over the measurement window [warmup, duration],
//! and the summary they produce.
//!
//! Definitions (per link direction):
//! - `utilization`: time the line spends transmitting inside the window / window length.
//! - `arrivals`: packets offered to the queue; `departures`: packets that left the queue
//!   to be transmitted; `drops` = `early_drops` + `forced_drops` (forced includes
//!   buffer overflow, counted again in `overflow_drops`, and FRED's per-flow limits);
//!   `marks`: ECN marks; `link_down_drops`: packets lost when the link went down.
//!   Counted by the time of the event.
//! - `mean_queue`: time average of the number of packets *waiting* (not the one being
//!   transmitted, as ns-2 and Linux count it).
//! - `mean_avg`: time average of the AQM's average (RED's avg; 0 for Drop Tail), in the
//!   discipline's unit (packets, or bytes with `queue_in_bytes`).
//! - `mean_delay`, `delay_var`, `delay_p50/p90/p99`: waiting time of each departing
//!   packet, from its arrival to the start of its transmission (s); percentiles from a
//!   log-linear histogram (about 3% resolution).
//! - `drop_runs`, `mean_drop_run`, `max_drop_run`: runs of consecutive dropped
//!   arrivals (Bonald, May & Bolot's consecutive drops); `drop_run_hist[k]` counts runs
//!   of length k+1 (the last bin also counts longer runs).

use serde::Serialize;

use crate::packet::Pkt;

/// Log-linear histogram of nanosecond values: 16 sub-bins per power of two (about 4%
/// resolution) from 1 us to ~2^40 ns; zeros (a packet that did not wait) are counted
/// apart so that idle queues touch no bins.
#[derive(Clone, Debug, Default)]
pub struct Hist {
    bins: Vec<u32>,
    zeros: u64,
    n: u64,
}

const MBITS: u32 = 4;
const MB: u64 = 1 << MBITS;
/// Values below 2^LO_EXP ns share the first bins linearly.
const LO_EXP: u32 = 10;
const NBINS: usize = ((40 - LO_EXP) as usize + 1) * MB as usize;

impl Hist {
    #[inline]
    fn index(v: u64) -> usize {
        if v < (1 << LO_EXP) {
            (v >> (LO_EXP - MBITS)) as usize
        } else {
            let e = (63 - v.leading_zeros()).min(40);
            let m = (v >> (e - MBITS)) & (MB - 1);
            (((e - LO_EXP + 1) as u64) * MB + m) as usize
        }
    }
    fn value(i: usize) -> f64 {
        let i = i as u64;
        if i < MB {
            ((i << (LO_EXP - MBITS)) as f64) + ((1u64 << (LO_EXP - MBITS)) as f64) / 2.0
        } else {
            let e = i / MB - 1 + LO_EXP as u64;
            let m = i % MB;
            let lo = ((MB + m) << (e - MBITS as u64)) as f64;
            lo + ((1u64 << (e - MBITS as u64)) as f64) / 2.0
        }
    }
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.n += 1;
        if v == 0 {
            self.zeros += 1;
            return;
        }
        if self.bins.is_empty() {
            self.bins = vec![0; NBINS];
        }
        let b = &mut self.bins[Self::index(v)];
        *b = b.saturating_add(1);
    }
    /// The q-quantile (0..1), or 0 when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        self.quantile_with_zeros(q, 0)
    }
    /// The q-quantile with `extra` more zeros counted.
    fn quantile_with_zeros(&self, q: f64, extra: u64) -> f64 {
        let n = self.n + extra;
        if n == 0 {
            return 0.0;
        }
        let target = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut c = self.zeros + extra;
        if c >= target {
            return 0.0;
        }
        for (i, &b) in self.bins.iter().enumerate() {
            c += b as u64;
            if c >= target {
                return Self::value(i);
            }
        }
        0.0
    }
}

/// Per link direction.
#[derive(Clone, Debug, Default)]
#[repr(C)] // what every packet touches first, together (cache lines)
pub struct DirMon {
    /// Sum of waiting times inside the window, ns.
    q_area: u128,
    delay_sum: u128,
    pub w0: u64,
    pub w1: u64,
    /// Packets inside the window that took the lean path (`pass`): each one counts
    /// as an arrival, a departure and a delay of zero besides the fields below, added
    /// when read (`arrivals()`, `departures()`, ...).
    lean: u64,
    arrivals: u64,
    departures: u64,
    pub departed_bytes: u64,
    pub busy_ns: u64,
    /// Whole-run departures (for the benchmark).
    total_departures: u64,
    delay_n: u64,
    delay_sq: f64,
    max_queue: u32,
    run: u32,
    delay_hist: Hist,
    avg_area: f64,
    avg_last: u64,
    avg_val: f64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
    pub marks: u64,
    pub link_down_drops: u64,
    pub runs: u64,
    run_sum: u64,
    pub max_run: u32,
    pub run_hist: [u64; 16],
}

impl DirMon {
    pub fn new(w0: u64, w1: u64) -> DirMon {
        DirMon { w0, w1, avg_last: w0, ..Default::default() }
    }
    #[inline]
    pub fn in_window(&self, t: u64) -> bool {
        t >= self.w0 && t <= self.w1
    }
    /// A packet waited over [enq, until): its part inside the window adds to the
    /// queue's time integral (Little's law: the time-average number waiting is the sum
    /// of the waiting times inside the window over the window's length).
    #[inline]
    pub fn waited(&mut self, enq: u64, until: u64) {
        let a = enq.max(self.w0);
        let b = until.min(self.w1);
        if b > a {
            self.q_area += (b - a) as u128;
        }
    }
    /// `len` packets wait at `t` (after an arrival): tracks the maximum.
    #[inline]
    pub fn queue_seen(&mut self, t: u64, len: u32) {
        if len > self.max_queue && self.in_window(t) {
            self.max_queue = len;
        }
    }
    /// The AQM's average changes to `v` at `t`.
    #[inline]
    pub fn avg_change(&mut self, t: u64, v: f64) {
        let a = self.avg_last.max(self.w0);
        let b = t.min(self.w1);
        if b > a {
            self.avg_area += self.avg_val * (b - a) as f64;
        }
        if t > self.avg_last {
            self.avg_last = t;
        }
        self.avg_val = v;
    }
    #[inline]
    pub fn arrival(&mut self, t: u64) {
        if self.in_window(t) {
            self.arrivals += 1;
        }
    }
    #[inline]
    pub fn accepted(&mut self, t: u64) {
        if self.run > 0 {
            self.end_run();
        }
        let _ = t;
    }
    fn end_run(&mut self) {
        let r = self.run;
        self.run = 0;
        self.runs += 1;
        self.run_sum += r as u64;
        self.max_run = self.max_run.max(r);
        self.run_hist[(r as usize - 1).min(15)] += 1;
    }
    #[inline]
    pub fn dropped(&mut self, t: u64, early: bool, overflow: bool) {
        if self.in_window(t) {
            if early {
                self.early_drops += 1;
            } else {
                self.forced_drops += 1;
            }
            if overflow {
                self.overflow_drops += 1;
            }
            self.run += 1;
        }
    }
    /// A packet arrived at `t` to an empty buffer and an idle line, was accepted and is
    /// transmitted over [t, end): `arrival`, `accepted`, `queue_seen` (one waiting) and
    /// `depart` together.
    #[inline(always)]
    pub fn pass(&mut self, t: u64, end: u64, size: u32) {
        if self.run > 0 {
            self.end_run();
        }
        if t >= self.w0 && end <= self.w1 {
            self.lean += 1;
            self.departed_bytes += size as u64;
            self.busy_ns += end - t;
            return;
        }
        self.arrival(t);
        self.queue_seen(t, 1);
        self.depart(t, t, end, size);
    }
    /// A packet left the queue: it waited from `enq` and is transmitted over [start, end).
    #[inline(always)]
    pub fn depart(&mut self, enq: u64, start: u64, end: u64, size: u32) {
        self.total_departures += 1;
        if enq >= self.w0 && end <= self.w1 {
            // All of it inside the window (the common case): no clipping.
            let d = start - enq;
            self.q_area += d as u128;
            self.departures += 1;
            self.departed_bytes += size as u64;
            self.busy_ns += end - start;
            self.delay_n += 1;
            self.delay_hist.add(d);
            if d > 0 {
                self.delay_sum += d as u128;
                let x = d as f64 * 1e-9;
                self.delay_sq += x * x;
            }
            return;
        }
        self.waited(enq, start);
        if self.in_window(start) {
            self.departures += 1;
            self.departed_bytes += size as u64;
            let d = start - enq;
            self.delay_hist.add(d);
            self.delay_n += 1;
            if d > 0 {
                self.delay_sum += d as u128;
                let x = d as f64 * 1e-9;
                self.delay_sq += x * x;
            }
        }
        let a = start.max(self.w0);
        let b = end.min(self.w1);
        if b > a {
            self.busy_ns += b - a;
        }
    }
    pub fn window_secs(&self) -> f64 {
        (self.w1 - self.w0) as f64 * 1e-9
    }
    pub fn mean_queue(&self) -> f64 {
        self.q_area as f64 / (self.w1 - self.w0).max(1) as f64
    }
    pub fn mean_avg(&self) -> f64 {
        self.avg_area / (self.w1 - self.w0).max(1) as f64
    }
    /// Arrivals inside the window.
    pub fn arrivals(&self) -> u64 {
        self.arrivals + self.lean
    }
    /// Departures inside the window.
    pub fn departures(&self) -> u64 {
        self.departures + self.lean
    }
    /// Departures of the whole run.
    pub fn total_departures(&self) -> u64 {
        self.total_departures + self.lean
    }
    /// The longest queue seen inside the window (packets waiting after an arrival).
    pub fn max_queue(&self) -> u32 {
        if self.lean > 0 { self.max_queue.max(1) } else { self.max_queue }
    }
    /// The q-quantile of the queueing delay inside the window, ns.
    pub fn delay_quantile(&self, q: f64) -> f64 {
        self.delay_hist.quantile_with_zeros(q, self.lean)
    }
    pub fn delay_stats(&self) -> (f64, f64) {
        let delay_n = self.delay_n + self.lean;
        if delay_n == 0 {
            return (0.0, 0.0);
        }
        let n = delay_n as f64;
        let mean = self.delay_sum as f64 * 1e-9 / n;
        let var = if delay_n > 1 {
            ((self.delay_sq - n * mean * mean) / (n - 1.0)).max(0.0)
        } else {
            0.0
        };
        (mean, var)
    }
    /// Close the window at `t` (the end of the run); the caller has reported the
    /// packets still waiting with [`DirMon::waited`].
    pub fn finish(&mut self, t: u64) {
        let v = self.avg_val;
        self.avg_change(t, v);
        if self.run > 0 {
            self.end_run();
        }
    }
    pub fn mean_run(&self) -> f64 {
        if self.runs == 0 { 0.0 } else { self.run_sum as f64 / self.runs as f64 }
    }
}

/// Per flow.
#[derive(Clone, Debug, Default)]
pub struct FlowMon {
    /// Data packets lost anywhere in the window (queues, links down, no route; fault injection not included).
    pub drops: u64,
    pub ack_drops: u64,
    pub marks: u64,
    /// Data bytes delivered in order for the first time (TCP) or received (open loop).
    pub delivered_bytes: u64,
    pub delivered: u64,
    pub cwnd_area: f64,
    /// The sender's counters at the start of the window (subtracted in the summary).
    pub at_warmup: Option<crate::tcp::TcpStats>,
    cwnd_last: u64,
    cwnd_val: f64,
}

impl FlowMon {
    #[inline]
    pub fn cwnd_change(&mut self, w0: u64, w1: u64, t: u64, v: f64) {
        let a = self.cwnd_last.max(w0);
        let b = t.min(w1);
        if b > a {
            self.cwnd_area += self.cwnd_val * (b - a) as f64;
        }
        if t > self.cwnd_last {
            self.cwnd_last = t;
        }
        self.cwnd_val = v;
    }
    /// The window changes to `v` at the instant of the last `cwnd_change` (whose time
    /// integral is then already up to date).
    #[inline]
    pub fn cwnd_set(&mut self, v: f64) {
        self.cwnd_val = v;
    }
    /// A packet of this flow was lost at `t`; counted if `t` is in [w0, w1].
    #[inline]
    pub fn drop_of(&mut self, p: &Pkt, t: u64, w0: u64, w1: u64) {
        if t < w0 || t > w1 {
            return;
        }
        if p.is_ack() { self.ack_drops += 1 } else { self.drops += 1 }
    }
}

/// One link direction in the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSummary {
    /// Direction index (2 * link + 0 for a->b, 1 for b->a).
    pub index: usize,
    pub from: String,
    pub to: String,
    pub queue_type: String,
    pub rate_bps: f64,
    pub delay: f64,
    pub utilization: f64,
    pub throughput_bps: f64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
    pub marks: u64,
    pub link_down_drops: u64,
    pub mean_queue: f64,
    pub max_queue: u32,
    pub mean_avg: f64,
    pub mean_delay: f64,
    pub delay_var: f64,
    pub delay_p50: f64,
    pub delay_p90: f64,
    pub delay_p99: f64,
    pub drop_runs: u64,
    pub mean_drop_run: f64,
    pub max_drop_run: u32,
    pub drop_run_hist: Vec<u64>,
    /// Packets waiting at the end of the run.
    pub queued_at_end: u64,
}

/// One flow in the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSummary {
    pub id: usize,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub variant: Option<String>,
    pub src: String,
    pub dst: String,
    pub start: f64,
    /// Data delivered (in order, first time) over the window, b/s.
    pub goodput_bps: f64,
    /// Data bytes of this flow leaving the bottleneck queue over the window, b/s.
    pub throughput_bps: f64,
    pub bottleneck: String,
    /// Data packets of this flow arriving at the bottleneck queue in the window.
    pub arrivals: u64,
    pub drops: u64,
    pub marks: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub retransmits: u64,
    pub sent: u64,
    pub delivered: u64,
    /// Time-average congestion window over the window (packets; 0 for open-loop flows).
    pub mean_cwnd: f64,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt: f64,
    pub rto: f64,
    /// Finite transfers: when the last packet was acknowledged (s).
    pub completion_time: Option<f64>,
    /// Web mice: transfers completed on this connection in the window, their mean
    /// completion time (s), and (on a group's first connection) arrivals rejected
    /// because every connection was busy.
    pub transfers: u64,
    pub mean_fct: Option<f64>,
    pub rejected: u64,
}

/// The result of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub name: String,
    pub duration: f64,
    pub warmup: f64,
    pub seed: u64,
    /// Per link direction, keyed "a->b".
    pub links: std::collections::BTreeMap<String, LinkSummary>,
    pub flows: Vec<FlowSummary>,
    /// Events processed.
    pub events: u64,
    pub wall_seconds: f64,
    /// Packets that left the busiest link direction's queue over the whole run.
    pub bottleneck_packets: u64,
    pub bottleneck: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_within_resolution() {
        let mut h = Hist::default();
        for v in 1..=100_000u64 {
            h.add(v * 1000);
        }
        for q in [0.5, 0.9, 0.99] {
            let exact = q * 1e8;
            assert!((h.quantile(q) - exact).abs() / exact < 0.05, "{q}: {}", h.quantile(q));
        }
        h.add(0);
        assert!(h.quantile(0.0) == 0.0);
    }
}
