//! Monitors: counters and time averages over the measurement window [warmup, duration],
//! and the summary they produce.
//!
//! The window, the time average, the waiting-time statistics and the shape of a link
//! direction's summary ([`LinkSummary`], with the definition of every field) are
//! `aqm::stats`, shared with the gateway. What is the simulator's own: `mean_queue`
//! comes from the waiting times (Little's law) rather than from sampling the queue, and
//! a packet that takes the lean path is counted once, when the counters are read.

pub use aqm::stats::LinkSummary;
use aqm::stats::{DelayStats, DropRuns, TimeAverage, Window};
use serde::Serialize;

use crate::packet::Pkt;

/// Per link direction.
#[derive(Clone, Debug, Default)]
#[repr(C)] // what every packet touches first, together (cache lines)
pub struct DirMon {
    /// Sum of waiting times inside the window, ns.
    q_area: u128,
    pub window: Window,
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
    delay: DelayStats,
    max_queue: u32,
    /// Runs of consecutive drops inside the window.
    pub drop_runs: DropRuns,
    /// The AQM's average.
    avg: TimeAverage,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub overflow_drops: u64,
    pub marks: u64,
    pub link_down_drops: u64,
}

impl DirMon {
    pub fn new(w0: u64, w1: u64) -> DirMon {
        DirMon { window: Window::new(w0, w1), ..Default::default() }
    }
    #[inline]
    pub fn in_window(&self, t: u64) -> bool {
        self.window.contains(t)
    }
    /// A packet waited over [enq, until): its part inside the window adds to the
    /// queue's time integral (Little's law: the time-average number waiting is the sum
    /// of the waiting times inside the window over the window's length).
    #[inline]
    pub fn waited(&mut self, enq: u64, until: u64) {
        // (a packet waiting wholly before the window adds nothing: skipping the u128
        // addition then saves 0.8% of a run's instructions)
        let d = self.window.overlap(enq, until);
        if d > 0 {
            self.q_area += d as u128;
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
        self.avg.change(self.window, t, v);
    }
    /// Packets still waiting at the end add `area` ns of waiting inside the window
    /// (the sum of what [`DirMon::waited`] would add for each).
    pub fn waited_total(&mut self, area: u128) {
        self.q_area += area;
    }
    #[inline]
    pub fn arrival(&mut self, t: u64) {
        if self.in_window(t) {
            self.arrivals += 1;
        }
    }
    /// An arrival was accepted: a run of drops ends.
    #[inline]
    pub fn accepted(&mut self) {
        self.drop_runs.end();
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
            self.drop_runs.dropped();
        }
    }
    /// A packet arrived at `t` to an empty buffer and an idle line, was accepted and is
    /// transmitted over [t, end): `arrival`, `accepted`, `queue_seen` (one waiting) and
    /// `depart` together.
    #[inline(always)]
    pub fn pass(&mut self, t: u64, end: u64, size: u32) {
        self.drop_runs.end();
        if self.window.holds(t, end) {
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
        if self.window.holds(enq, end) {
            // All of it inside the window (the common case): no clipping.
            let d = start - enq;
            self.q_area += d as u128;
            self.departures += 1;
            self.departed_bytes += size as u64;
            self.busy_ns += end - start;
            self.delay.add(d);
            return;
        }
        self.waited(enq, start);
        if self.in_window(start) {
            self.departures += 1;
            self.departed_bytes += size as u64;
            self.delay.add(start - enq);
        }
        let b = self.window.overlap(start, end);
        if b > 0 {
            self.busy_ns += b;
        }
    }
    pub fn window_secs(&self) -> f64 {
        self.window.secs()
    }
    pub fn mean_queue(&self) -> f64 {
        self.q_area as f64 / self.window.span().max(1) as f64
    }
    pub fn mean_avg(&self) -> f64 {
        self.avg.mean(self.window)
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
        self.delay.quantile(q, self.lean)
    }
    /// Mean and variance of the queueing delay inside the window, s and s^2.
    pub fn delay_stats(&self) -> (f64, f64) {
        self.delay.mean_var(self.lean)
    }
    /// Close the window at `t` (the end of the run); the caller has reported the
    /// packets still waiting with [`DirMon::waited`].
    pub fn finish(&mut self, t: u64) {
        self.avg.hold_until(self.window, t);
        self.drop_runs.end();
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
    /// The congestion window (packets) over the measurement window.
    pub cwnd: TimeAverage,
    /// The sender's counters at the start of the window (subtracted in the summary).
    pub at_warmup: Option<crate::tcp::TcpStats>,
    /// When the first data packet (of the current transfer, for web mice) reached the
    /// receiver (ns).
    pub first_data: Option<u64>,
}

impl FlowMon {
    /// The window changes to `v` at `t`; the measurement window is [w0, w1].
    #[inline]
    pub fn cwnd_change(&mut self, w0: u64, w1: u64, t: u64, v: f64) {
        self.cwnd.change(Window { start: w0, end: w1 }, t, v);
    }
    /// The window changes to `v` at the instant of the last `cwnd_change` (whose time
    /// integral is then already up to date).
    #[inline]
    pub fn cwnd_set(&mut self, v: f64) {
        self.cwnd.set(v);
    }
    /// The time-average congestion window over [w0, w1], packets.
    pub fn mean_cwnd(&self, w0: u64, w1: u64) -> f64 {
        self.cwnd.integral() / (w1 - w0) as f64
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
    /// TCP and TELNET flows: the time from the flow's start to the arrival of its
    /// first data packet at the receiver (s); None if none arrived (and for web mice
    /// and open-loop flows).
    pub startup_time: Option<f64>,
    /// Web mice: the mean over the transfers completed in the window of the time from
    /// a transfer's arrival to that of its first data packet at the receiver (s).
    pub mean_startup: Option<f64>,
    /// Web mice, on a pool's first connection: the 95th percentile of the completion
    /// times of the pool's transfers completed in the window (s; linear
    /// interpolation between order statistics); None on the other connections.
    pub fct_p95: Option<f64>,
    /// Paced TCP flows: the pacing rate at the end, b/s (absent for the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pacing_rate_bps: Option<f64>,
    /// BBR flows: the state at the end (absent for the others).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub bbr: Option<BbrSummary>,
}

/// A BBR flow's state at the end of the run (the summary's `bbr_` columns).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BbrSummary {
    /// startup, drain, probe_bw or probe_rtt.
    pub bbr_mode: String,
    /// The bottleneck bandwidth estimate, b/s of packets on the wire.
    pub bbr_btl_bw_bps: f64,
    /// The round-trip propagation time estimate, s (0 before a sample).
    pub bbr_rt_prop: f64,
    pub bbr_pacing_gain: f64,
    pub bbr_cwnd_gain: f64,
    /// Packet-timed rounds over the run.
    pub bbr_rounds: u64,
}
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
    /// The profiles the scenario applied, table by table, with the keys each filled.
    pub profiles: Vec<crate::scenario::ProfileUse>,
    /// Packets that left the busiest link direction's queue over the whole run.
    pub bottleneck_packets: u64,
    pub bottleneck: String,
}
