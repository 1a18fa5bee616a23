//! Statistics shared by the simulator's monitors and the gateway: the measurement
//! window, the time average over it, the waiting times of departing packets, runs of
//! consecutive drops, and [`LinkSummary`], the summary of one link direction (an entry
//! of a summary's `links`).
//!
//! Times are nanoseconds, the value inside a [`crate::Time`] (the simulator's monitors
//! keep their times as plain integers). Nothing here reads a clock.
//!
//! ## The window
//! A run is measured over a [`Window`] `[start, end]`: `start` is the warm-up, `end`
//! the end of the measurement (the simulator's duration). An event at `t` counts when
//! `start <= t <= end`, both ends included; a quantity held over time counts for its
//! part inside `[start, end]`, and time averages divide by the window's length
//! `end - start`. The simulator's window is `[warmup, duration]`; the gateway, which may
//! stop before its duration, measures over `[warmup, min(duration, stop)]`.

use serde::Serialize;

/// The measurement window `[start, end]`, ns (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// First instant inside the window (the warm-up), ns.
    pub start: u64,
    /// Last instant inside the window, ns; not before `start`.
    pub end: u64,
}

impl Window {
    /// The window `[start, end]`; an `end` before `start` is taken as `start` (empty).
    pub fn new(start: u64, end: u64) -> Window {
        Window { start, end: end.max(start) }
    }
    /// Whether an event at `t` counts.
    #[inline]
    pub fn contains(self, t: u64) -> bool {
        t >= self.start && t <= self.end
    }
    /// Whether the span `[a, b]` lies wholly inside the window.
    #[inline]
    pub fn holds(self, a: u64, b: u64) -> bool {
        a >= self.start && b <= self.end
    }
    /// The length of `[a, b]` inside the window, ns (0 when they do not meet).
    #[inline]
    pub fn overlap(self, a: u64, b: u64) -> u64 {
        b.min(self.end).saturating_sub(a.max(self.start))
    }
    /// The window's length, ns.
    #[inline]
    pub fn span(self) -> u64 {
        self.end - self.start
    }
    /// The window's length, s.
    pub fn secs(self) -> f64 {
        self.span() as f64 * 1e-9
    }
}

/// The time average over a window of a value held piecewise constant: a value set at
/// `t` holds until the next change, and only its part inside the window counts.
///
/// ```text
/// integral = sum_i value_i * |[t_i, t_(i+1)] ∩ [start, end]|      (value x ns)
/// mean     = integral / (end - start)
/// ```
/// Changes come in time order; one reported before the last change's time adds
/// nothing to the integral and does not move that time back.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeAverage {
    /// The integral over the window up to `since`, value x ns.
    integral: f64,
    /// When the value last changed, ns.
    since: u64,
    /// The value held since then.
    value: f64,
}

impl TimeAverage {
    /// The value changes to `v` at `t`: the value held since the last change joins the
    /// integral for its part inside `w`.
    #[inline]
    pub fn change(&mut self, w: Window, t: u64, v: f64) {
        let d = w.overlap(self.since, t);
        if d > 0 {
            self.integral += self.value * d as f64;
        }
        if t > self.since {
            self.since = t;
        }
        self.value = v;
    }
    /// The value changes to `v` at the time of the last [`TimeAverage::change`] (whose
    /// integral is then already up to date).
    #[inline]
    pub fn set(&mut self, v: f64) {
        self.value = v;
    }
    /// Bring the integral up to `t`, the value unchanged (closing the window at `t`).
    pub fn hold_until(&mut self, w: Window, t: u64) {
        let v = self.value;
        self.change(w, t, v);
    }
    /// The value held now.
    pub fn value(&self) -> f64 {
        self.value
    }
    /// The integral over the window so far, value x ns.
    pub fn integral(&self) -> f64 {
        self.integral
    }
    /// The mean over `w` (0 for an empty window): the integral over its length.
    pub fn mean(&self, w: Window) -> f64 {
        self.integral / w.span().max(1) as f64
    }
}

/// Log-linear histogram of nanosecond values: 16 sub-bins per power of two (about 4%
/// resolution) from 1 us to ~2^40 ns; zeros (a packet that did not wait) are counted
/// apart so that idle queues touch no bins.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    bins: Vec<u32>,
    zeros: u64,
    n: u64,
}

const MBITS: u32 = 4;
const MB: u64 = 1 << MBITS;
/// Values below 2^LO_EXP ns share the first bins linearly.
const LO_EXP: u32 = 10;
const NBINS: usize = ((40 - LO_EXP) as usize + 1) * MB as usize;

impl Histogram {
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
    /// The middle of bin `i`, ns.
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
    /// Count the value `v`, ns.
    #[inline(always)]
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
    /// The q-quantile (0..1), ns, or 0 when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        self.quantile_with_zeros(q, 0)
    }
    /// The q-quantile with `extra` more zeros counted.
    pub fn quantile_with_zeros(&self, q: f64, extra: u64) -> f64 {
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

/// The waiting times of departing packets, from arrival to the start of transmission:
/// their count, sum and sum of squares, and their [`Histogram`]. The readers take a
/// number of `zeros`, packets that did not wait and were not added one by one.
#[derive(Clone, Debug, Default)]
pub struct DelayStats {
    /// Sum of the waiting times, ns.
    sum: u128,
    n: u64,
    /// Sum of the squared waiting times, s^2.
    sq: f64,
    hist: Histogram,
}

impl DelayStats {
    /// A packet waited `d` ns.
    #[inline]
    pub fn add(&mut self, d: u64) {
        self.n += 1;
        self.hist.add(d);
        if d > 0 {
            self.sum += d as u128;
            let x = d as f64 * 1e-9;
            self.sq += x * x;
        }
    }
    /// Mean and (sample) variance of the waiting time, s and s^2; (0, 0) without packets.
    pub fn mean_var(&self, zeros: u64) -> (f64, f64) {
        let count = self.n + zeros;
        if count == 0 {
            return (0.0, 0.0);
        }
        let n = count as f64;
        let mean = self.sum as f64 * 1e-9 / n;
        let var = if count > 1 { ((self.sq - n * mean * mean) / (n - 1.0)).max(0.0) } else { 0.0 };
        (mean, var)
    }
    /// The q-quantile of the waiting time, ns (histogram resolution).
    pub fn quantile(&self, q: f64, zeros: u64) -> f64 {
        self.hist.quantile_with_zeros(q, zeros)
    }
}

/// Runs of consecutive dropped arrivals (Bonald, May & Bolot's consecutive drops): a
/// run grows with each drop and ends at the next accepted arrival (or at the close).
#[derive(Clone, Debug, Default)]
pub struct DropRuns {
    /// Drops in the run going on (read at every accepted packet: first).
    run: u32,
    /// The longest run.
    pub max: u32,
    /// Runs ended.
    pub runs: u64,
    /// Drops in the runs ended.
    sum: u64,
    /// `hist[k]`: runs of length k+1 (the last bin also counts longer runs); boxed so
    /// that the fields a packet touches stay small.
    pub hist: Box<[u64; 16]>,
}

impl DropRuns {
    /// An arrival was dropped.
    #[inline]
    pub fn dropped(&mut self) {
        self.run += 1;
    }
    /// An arrival was accepted (or the window closes): the run going on ends.
    #[inline]
    pub fn end(&mut self) {
        if self.run > 0 {
            self.close();
        }
    }
    #[cold]
    fn close(&mut self) {
        let r = self.run;
        self.run = 0;
        self.runs += 1;
        self.sum += r as u64;
        self.max = self.max.max(r);
        self.hist[(r as usize - 1).min(15)] += 1;
    }
    /// The mean length of the runs ended (0 without one).
    pub fn mean(&self) -> f64 {
        if self.runs == 0 { 0.0 } else { self.sum as f64 / self.runs as f64 }
    }
}

/// One link direction in a summary (the simulator's `summary.json` `links` entries and
/// the gateway's statistics). Counts cover the measurement window (module
/// documentation); the keys are a contract, only ever added to.
///
/// - `utilization`: time the line spends transmitting inside the window / its length.
/// - `arrivals`: packets offered to the queue; `departures`: packets that left the queue
///   to be transmitted; `drops` = `early_drops` + `forced_drops` (forced includes
///   buffer overflow, counted again in `overflow_drops`, and FRED's per-flow limits);
///   `marks`: ECN marks; `link_down_drops`: packets lost when the link went down.
///   Counted by the time of the event.
/// - `mean_queue`: time average of the number of packets *waiting* (not the one being
///   transmitted, as ns-2 and Linux count it).
/// - `mean_avg`: time average of the AQM's average (RED's avg; 0 for Drop Tail), in the
///   discipline's unit (packets, or bytes with `queue_in_bytes`).
/// - `mean_delay`, `delay_var`, `delay_p50/p90/p99`: waiting time of each departing
///   packet, from its arrival to the start of its transmission (s); percentiles from
///   [`Histogram`].
/// - `drop_runs`, `mean_drop_run`, `max_drop_run`, `drop_run_hist`: [`DropRuns`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkSummary {
    /// Direction index (2 * link + 0 for a->b, 1 for b->a).
    pub index: usize,
    pub from: String,
    pub to: String,
    /// The discipline's name (`QueueConfig`'s `type`).
    pub queue_type: String,
    pub rate_bps: f64,
    /// Propagation delay, s.
    pub delay: f64,
    pub utilization: f64,
    /// Bytes leaving the queue over the window, b/s.
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
    /// The longest queue seen inside the window (packets waiting after an arrival).
    pub max_queue: u32,
    pub mean_avg: f64,
    pub mean_delay: f64,
    pub delay_var: f64,
    pub delay_p50: f64,
    pub delay_p90: f64,
    pub delay_p95: f64,
    pub delay_p99: f64,
    pub drop_runs: u64,
    pub mean_drop_run: f64,
    pub max_drop_run: u32,
    pub drop_run_hist: Vec<u64>,
    /// Packets waiting at the end of the run.
    pub queued_at_end: u64,
    /// An external AQM's own statistics ([`crate::external::ExternalAqm::stats`]), by
    /// name; absent for the built-ins.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub aqm_stats: std::collections::BTreeMap<String, f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_within_resolution() {
        let mut h = Histogram::default();
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

    #[test]
    fn time_average_counts_only_the_window() {
        // 2 over [0, 10], 4 over [10, 30], 1 after: window [5, 25] holds 2*5 + 4*15.
        let w = Window::new(5, 25);
        let mut a = TimeAverage::default();
        a.change(w, 0, 2.0);
        a.change(w, 10, 4.0);
        a.change(w, 30, 1.0);
        assert_eq!(a.integral(), 70.0);
        assert_eq!(a.mean(w), 3.5);
        // A late report adds nothing and keeps the time.
        a.change(w, 20, 9.0);
        a.hold_until(w, 40);
        assert_eq!(a.integral(), 70.0);
    }

    #[test]
    fn window_ends_are_inside() {
        let w = Window::new(10, 20);
        assert!(w.contains(10) && w.contains(20) && !w.contains(21) && !w.contains(9));
        assert_eq!((w.overlap(0, 15), w.overlap(15, 40), w.overlap(30, 40)), (5, 5, 0));
        assert_eq!(Window::new(10, 5).span(), 0, "an end before the start is empty");
    }

    #[test]
    fn delay_stats_count_extra_zeros() {
        let mut d = DelayStats::default();
        d.add(2_000_000_000);
        d.add(0);
        assert_eq!(d.mean_var(0), (1.0, 2.0));
        assert_eq!(d.mean_var(2).0, 0.5);
        assert_eq!(d.quantile(0.5, 2), 0.0);
    }

    #[test]
    fn drop_runs_end_at_an_acceptance() {
        let mut r = DropRuns::default();
        for _ in 0..3 {
            r.dropped();
        }
        r.end();
        r.dropped();
        r.end();
        r.end();
        assert_eq!((r.runs, r.max, r.mean()), (2, 3, 2.0));
        assert_eq!((r.hist[0], r.hist[2]), (1, 1));
    }
}
