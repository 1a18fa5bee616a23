//! One direction of the emulated bottleneck, without sockets or a clock:
//! arrival -> `aqm::AnyQdisc` (any discipline: an arrival-time one over a FIFO, or one
//! that decides at dequeue or schedules; limit always enforced) -> serializer at the
//! line rate -> delay line (propagation delay) -> out. Every call takes `now`, so the
//! whole pipeline is unit-tested with made-up times.
//!
//! ```text
//!  frames ──► AnyQdisc<Frame> ──► line (size*8/rate) ──► delay line (delay) ──► send
//!             enqueue: enqueue /   dequeue when the line   VecDeque ordered by
//!             mark / drop;         frees: starts at max(    release time
//!             dequeue: drop/mark   oldest arrival held,
//!             (CE set on the way   line_free_at)
//!             out)
//! ```
//!
//! The qdisc is asked for a packet when the line is free and a packet that arrived
//! by then is held (`advance`); drops at either end count as drops of the direction
//! with their reasons; a mark sets CE in the real packet's IP header as it leaves (an
//! ECN-incapable packet is counted in `marks_not_ect` and left as it is); the qdisc's
//! periodic work runs when due; `mean_avg` is the time average of its `signal()`.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};

use aqm::stats::{DelayStats, DropRuns, LinkSummary, TimeAverage, Window};
use aqm::{AnyQdisc, Dequeued, DropReason, Packet, PacketInfo, Qdisc, Time, Verdict};
use serde::Serialize;

use crate::frame::{self, FlowKey, IpMeta};

/// A frame held by the gateway.
#[derive(Debug)]
pub struct Frame {
    pub data: Vec<u8>,
    pub meta: IpMeta,
    /// When it arrived at the gateway.
    pub arrival: Time,
    /// Arrival sequence number in its direction.
    pub seq: u64,
}

impl Packet for Frame {
    #[inline]
    fn info(&self) -> PacketInfo {
        PacketInfo {
            size: self.meta.ip_len,
            flow: self.meta.flow,
            ecn_capable: self.meta.ecn != frame::ECN_NOT_ECT,
            ect1: self.meta.ecn == frame::ECN_ECT1,
            ce: self.meta.ecn == frame::ECN_CE,
        }
    }
}

/// At most this many flows get their own counters (memory stays bounded under a
/// flood of random tuples); later flows are summed in `other_flows`.
pub const MAX_TRACKED_FLOWS: usize = 4096;

/// Counters of one flow through this direction (inside the measurement window).
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowStats {
    pub proto: String,
    pub src: String,
    pub dst: String,
    pub flow_id: u32,
    pub arrivals: u64,
    pub drops: u64,
    pub marks: u64,
    pub departures: u64,
    pub departed_bytes: u64,
}

/// The summary of one direction: the simulator's link shape ([`LinkSummary`]) and the
/// gateway's extras beside its keys. Counts cover the measurement window
/// `[warmup, min(duration, now)]` (see [`aqm::stats`]); `utilization` counts the line
/// time of the packets whose transmission starts inside it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DirSummary {
    #[serde(flatten)]
    pub link: LinkSummary,
    /// Marks on packets that were not ECN-capable (should stay 0).
    pub marks_not_ect: u64,
    /// Early drops of ECN-capable packets (0 when the discipline marks with ECN:
    /// below max_th an ECT packet is marked, not dropped).
    pub early_drops_ect: u64,
    /// Packets dropped because the delay line was full (never in normal operation).
    pub delay_line_drops: u64,
    /// IP bytes that left the queue inside the window.
    pub departed_bytes: u64,
    /// The window's length, s.
    pub window_s: f64,
    pub flows: Vec<FlowStats>,
    pub other_flows: FlowStats,
}

/// The direction's counters over the window (the summary's raw material).
#[derive(Default)]
struct Counters {
    arrivals: u64,
    departures: u64,
    early_drops: u64,
    /// Every drop that is not early: the AQM's deterministic ones, FRED's per-flow
    /// limits and buffer overflows.
    forced_drops: u64,
    /// Of `forced_drops`, those because the buffer was full.
    overflow_drops: u64,
    marks: u64,
    marks_not_ect: u64,
    early_drops_ect: u64,
    delay_line_drops: u64,
    departed_bytes: u64,
    max_queue: u32,
    delay: DelayStats,
    drop_runs: DropRuns,
}

/// One direction, its packets held by the qdisc `Q`.
pub struct Pipe<Q = AnyQdisc<Frame>> {
    queue: Q,
    /// The qdisc's configuration `type`.
    kind: &'static str,
    rate_bps: f64,
    delay_ns: u64,
    /// When the line finishes its current transmission.
    line_free_at: Time,
    /// (release time, frame), release times non-decreasing.
    delay_line: VecDeque<(Time, Frame)>,
    delay_cap: usize,
    /// Sequence numbers of packets marked (and counted) at enqueue still held, ascending.
    marked: VecDeque<u64>,
    /// (sequence number, arrival time) of every packet held, ascending: the oldest one
    /// says when the line may start sending. (A FIFO qdisc takes from the front.)
    held: VecDeque<(u64, Time)>,
    next_seq: u64,
    /// [warmup, duration] (duration: the end of time when not given).
    window: Window,
    /// The latest event seen.
    last_t: Time,
    /// Packets waiting, and the discipline's average.
    queue_avg: TimeAverage,
    avg_avg: TimeAverage,
    counts: Counters,
    /// (ahash: the std hasher, SipHash, was 5% of the gateway's CPU under a flood.)
    flows: HashMap<FlowKey, FlowStats, ahash::RandomState>,
    other: FlowStats,
}

fn tx_time_ns(bytes: u32, rate_bps: f64) -> u64 {
    (bytes as f64 * 8.0 / rate_bps * 1e9).round() as u64
}

impl Pipe {
    /// A direction with line rate `rate_bps`, one-way `delay_ns`, the qdisc `disc`
    /// (`QueueConfig::build_qdisc`), and the measurement window [warmup, end].
    pub fn new(
        disc: AnyQdisc<Frame>,
        rate_bps: f64,
        delay_ns: u64,
        warmup: Time,
        end: Time,
    ) -> Pipe {
        let kind = disc.kind();
        Pipe::with_qdisc(disc, kind, rate_bps, delay_ns, warmup, end)
    }

    /// The statistics of an AQM from outside the `aqm` crate (its `stats`), by name;
    /// none for the built-ins.
    pub fn aqm_stats(&self) -> std::collections::BTreeMap<String, f64> {
        self.queue.external().map(|e| e.stats().into_iter().collect()).unwrap_or_default()
    }
}

impl<Q: Qdisc<Frame>> Pipe<Q> {
    /// As [`Pipe::new`], for any qdisc; `kind` names it in the summary.
    pub fn with_qdisc(
        queue: Q,
        kind: &'static str,
        rate_bps: f64,
        delay_ns: u64,
        warmup: Time,
        end: Time,
    ) -> Pipe<Q> {
        // The delay line holds what the line sends in one delay, at 64-byte packets, plus slack.
        let delay_cap = ((rate_bps / 8.0 / 64.0) * (delay_ns as f64 * 1e-9)).ceil() as usize + 1024;
        Pipe {
            queue,
            kind,
            rate_bps,
            delay_ns,
            line_free_at: Time::ZERO,
            delay_line: VecDeque::new(),
            delay_cap,
            marked: VecDeque::new(),
            held: VecDeque::new(),
            next_seq: 0,
            window: Window::new(warmup.as_nanos(), end.as_nanos()),
            last_t: Time::ZERO,
            queue_avg: TimeAverage::default(),
            avg_avg: TimeAverage::default(),
            counts: Counters::default(),
            flows: HashMap::default(),
            other: FlowStats { proto: "other".into(), ..Default::default() },
        }
    }

    #[inline]
    fn in_window(&self, t: Time) -> bool {
        self.window.contains(t.as_nanos())
    }

    /// The queue changed at `now`: the time averages take the new length and signal.
    fn record(&mut self, now: Time) {
        let (w, t) = (self.window, now.as_nanos());
        self.queue_avg.change(w, t, self.queue.backlog().packets as f64);
        self.avg_avg.change(w, t, self.queue.signal());
        self.last_t = self.last_t.max(now);
    }

    fn flow(&mut self, key: &FlowKey) -> &mut FlowStats {
        let tracked = self.flows.len();
        match self.flows.entry(*key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(_) if tracked >= MAX_TRACKED_FLOWS => &mut self.other,
            Entry::Vacant(e) => e.insert(FlowStats {
                proto: key.proto_name(),
                src: key.endpoint(true),
                dst: key.endpoint(false),
                flow_id: key.flow_id(),
                ..Default::default()
            }),
        }
    }

    /// An IP frame arrives. Returns the verdict (drops are counted here; the dropped
    /// frame is freed).
    pub fn arrive(&mut self, now: Time, data: Vec<u8>, meta: IpMeta) -> Verdict {
        let seq = self.next_seq;
        self.next_seq += 1;
        let key = meta.key;
        let ect = meta.ecn != frame::ECN_NOT_ECT;
        let win = self.in_window(now);
        let mut dropped = [0u64; 2]; // [early, other]
        let mut overflow = 0u64;
        let mut early_ect = 0u64;
        let mut evicted: Vec<(u64, FlowKey)> = Vec::new();
        let frame = Frame { data, meta, arrival: now, seq };
        let verdict = self.queue.enqueue(now, frame, &mut |f, reason| {
            match reason {
                DropReason::Early => {
                    dropped[0] += 1;
                    if f.meta.ecn != frame::ECN_NOT_ECT {
                        early_ect += 1;
                    }
                }
                DropReason::Overflow => {
                    dropped[1] += 1;
                    overflow += 1
                }
                _ => dropped[1] += 1,
            }
            if f.seq != seq {
                evicted.push((f.seq, f.meta.key));
            }
        });
        self.record(now);
        for (s, _) in &evicted {
            self.forget(*s);
        }
        let marked = verdict == Verdict::Mark;
        if marked && ect {
            self.marked.push_back(seq);
        }
        let arrival_dropped = matches!(verdict, Verdict::Drop(_));
        if !arrival_dropped {
            self.held.push_back((seq, now));
            self.counts.drop_runs.end();
        }
        if !win {
            return verdict;
        }
        let len = self.queue.backlog().packets;
        let c = &mut self.counts;
        c.arrivals += 1;
        c.max_queue = c.max_queue.max(len);
        c.early_drops += dropped[0];
        c.forced_drops += dropped[1];
        c.overflow_drops += overflow;
        c.early_drops_ect += early_ect;
        for _ in 0..dropped[0] + dropped[1] {
            c.drop_runs.dropped();
        }
        if marked {
            if ect { c.marks += 1 } else { c.marks_not_ect += 1 }
        }
        let f = self.flow(&key);
        f.arrivals += 1;
        f.drops += arrival_dropped as u64;
        f.marks += marked as u64;
        for (_, k) in evicted {
            self.flow(&k).drops += 1;
        }
        verdict
    }

    /// Start every transmission due by `now`: while the line is free at some time
    /// `start` (the oldest packet held had arrived and the last transmission had
    /// ended; not in the future), the qdisc gives its next packet; the line is then
    /// busy for size*8/rate, and the packet is released after the delay. The
    /// qdisc's periodic work runs first if it is due.
    pub fn advance(&mut self, now: Time) {
        if self.queue.poll_at().is_some_and(|t| t <= now) {
            self.queue.poll(now);
        }
        let mut drops: Vec<(Frame, DropReason)> = Vec::new();
        while let Some(&(_, oldest)) = self.held.front() {
            let start = oldest.max(self.line_free_at);
            if start > now {
                break;
            }
            let out = self.queue.dequeue(now, &mut |f, r| drops.push((f, r)));
            self.record(now);
            for (f, reason) in drops.drain(..) {
                self.forget(f.seq);
                self.dropped_at_dequeue(&f, reason, now);
            }
            let Some(out) = out else { break };
            self.forget(out.pkt.seq);
            let start = start.max(out.pkt.arrival);
            self.transmit(out, start);
        }
    }

    /// Packet `seq` is no longer held.
    #[inline]
    fn forget(&mut self, seq: u64) {
        if self.held.front().is_some_and(|&(s, _)| s == seq) {
            self.held.pop_front();
        } else if let Ok(i) = self.held.binary_search_by_key(&seq, |&(s, _)| s) {
            self.held.remove(i);
        }
    }

    /// A packet held was discarded by the qdisc's dequeue at `now`.
    fn dropped_at_dequeue(&mut self, f: &Frame, reason: DropReason, now: Time) {
        if !self.in_window(now) {
            return;
        }
        let c = &mut self.counts;
        match reason {
            DropReason::Early => {
                c.early_drops += 1;
                if f.meta.ecn != frame::ECN_NOT_ECT {
                    c.early_drops_ect += 1;
                }
            }
            DropReason::Overflow => {
                c.forced_drops += 1;
                c.overflow_drops += 1;
            }
            _ => c.forced_drops += 1,
        }
        c.drop_runs.dropped();
        self.flow(&f.meta.key).drops += 1;
    }

    /// The line starts sending the packet the qdisc gave, at `start`.
    fn transmit(&mut self, out: Dequeued<Frame>, start: Time) {
        let mut f = out.pkt;
        while self.marked.front().is_some_and(|&s| s < f.seq) {
            self.marked.pop_front();
        }
        // (a mark at enqueue was counted then)
        let counted = self.marked.front() == Some(&f.seq);
        if counted {
            self.marked.pop_front();
        }
        if out.marked {
            let ect = f.meta.ecn != frame::ECN_NOT_ECT;
            if ect {
                let meta = f.meta;
                frame::set_ce(&mut f.data, &meta);
            }
            if !counted && self.in_window(start) {
                let c = &mut self.counts;
                if ect {
                    c.marks += 1
                } else {
                    c.marks_not_ect += 1
                }
                self.flow(&f.meta.key).marks += 1;
            }
        }
        let finish = start + aqm::Duration(tx_time_ns(f.meta.ip_len, self.rate_bps));
        self.line_free_at = finish;
        if self.in_window(start) {
            let (key, bytes) = (f.meta.key, f.meta.ip_len as u64);
            let c = &mut self.counts;
            c.departures += 1;
            c.departed_bytes += bytes;
            c.delay.add((start - f.arrival).as_nanos());
            let fl = self.flow(&key);
            fl.departures += 1;
            fl.departed_bytes += bytes;
        }
        if self.delay_line.len() >= self.delay_cap {
            self.counts.delay_line_drops += 1;
            return;
        }
        self.delay_line.push_back((finish + aqm::Duration(self.delay_ns), f));
    }

    /// The next frame whose release time has come.
    #[inline]
    pub fn pop_due(&mut self, now: Time) -> Option<Frame> {
        self.pop_due_at(now).map(|(_, f)| f)
    }

    /// The next frame whose release time has come, with that time.
    #[inline]
    pub fn pop_due_at(&mut self, now: Time) -> Option<(Time, Frame)> {
        if self.delay_line.front().is_some_and(|(t, _)| *t <= now) {
            self.delay_line.pop_front()
        } else {
            None
        }
    }

    /// When this direction next needs attention (a transmission start, a release,
    /// the AQM's periodic step); `None` when idle.
    pub fn next_wakeup(&self) -> Option<Time> {
        let head = self.held.front().map(|&(_, t)| t.max(self.line_free_at));
        let release = self.delay_line.front().map(|(t, _)| *t);
        let poll = self.queue.poll_at();
        [head, release, poll].into_iter().flatten().min()
    }

    /// The time of the last event this direction has seen (arrivals must not go
    /// back before it).
    pub fn last_event(&self) -> Time {
        self.last_t
    }

    pub fn queue_len(&self) -> usize {
        self.queue.backlog().packets as usize
    }
    pub fn in_flight(&self) -> usize {
        self.delay_line.len()
    }

    /// The summary as of `now`, over the window `[warmup, min(duration, now)]`.
    /// `index`, `from` and `to` are left to the caller, who knows the interfaces.
    pub fn summary(&mut self, now: Time) -> DirSummary {
        let t = now.max(self.last_t).as_nanos();
        self.queue_avg.hold_until(self.window, t);
        self.avg_avg.hold_until(self.window, t);
        let w = Window::new(self.window.start, self.window.end.min(t));
        let secs = w.secs();
        let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let c = &self.counts;
        let mut runs = c.drop_runs.clone();
        runs.end();
        let (mean_delay, delay_var) = c.delay.mean_var(0);
        let bits = c.departed_bytes as f64 * 8.0;
        let link = LinkSummary {
            queue_type: self.kind.to_string(),
            rate_bps: self.rate_bps,
            delay: self.delay_ns as f64 * 1e-9,
            utilization: per_s(bits / self.rate_bps),
            throughput_bps: per_s(bits),
            arrivals: c.arrivals,
            departures: c.departures,
            drops: c.early_drops + c.forced_drops,
            early_drops: c.early_drops,
            forced_drops: c.forced_drops,
            overflow_drops: c.overflow_drops,
            marks: c.marks,
            mean_queue: self.queue_avg.mean(w),
            max_queue: c.max_queue,
            mean_avg: self.avg_avg.mean(w),
            mean_delay,
            delay_var,
            delay_p50: c.delay.quantile(0.5, 0) * 1e-9,
            delay_p90: c.delay.quantile(0.9, 0) * 1e-9,
            delay_p95: c.delay.quantile(0.95, 0) * 1e-9,
            delay_p99: c.delay.quantile(0.99, 0) * 1e-9,
            drop_runs: runs.runs,
            mean_drop_run: runs.mean(),
            max_drop_run: runs.max,
            drop_run_hist: runs.hist.to_vec(),
            queued_at_end: self.queue.backlog().packets as u64,
            ..Default::default()
        };
        let mut flows: Vec<FlowStats> = self.flows.values().cloned().collect();
        flows.sort_by(|a, b| b.departed_bytes.cmp(&a.departed_bytes).then(a.src.cmp(&b.src)));
        DirSummary {
            link,
            marks_not_ect: c.marks_not_ect,
            early_drops_ect: c.early_drops_ect,
            delay_line_drops: c.delay_line_drops,
            departed_bytes: c.departed_bytes,
            window_s: secs,
            flows,
            other_flows: self.other.clone(),
        }
    }
}

#[cfg(test)]
#[path = "tests/pipe.rs"]
mod tests;
