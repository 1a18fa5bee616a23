//! Merging directions: a direction fed by several directions takes their packets from
//! an inbox, in batches, ahead of the clock.
//!
//! A direction fed by several directions (and by no host) cannot take packets at once
//! as an express hop does: its arrivals from different feeders must come in time
//! order. But nothing can reach it sooner than its feeders' shortest propagation delay
//! after the clock (the lookahead), since every feeder accepts packets at the clock or
//! later. So each feeder hands a packet bound for it, at acceptance, to its inbox.
//! Batch events fall on multiples of the span, the largest power of two of
//! nanoseconds not above the lookahead (no division per packet); a batch at `T` may
//! offer every arrival before `T` plus the lookahead. The inbox keeps the packets in
//! buckets of arrival times (half a span, or the time the direction takes to send 32
//! packets of 1000 bytes if that is shorter), unsorted until their batch sorts them by
//! arrival time, then feeder (the order of simultaneous deliveries), and offers them
//! to the direction in order, ahead of the clock.
//!
//! An inbox offers nothing past the time `run_until` runs to, nor past the end of a
//! two-thread window (`Sim::cap`), and neither the horizon nor a feeder's packets
//! waiting for their delivery events hold a hand-over back (the inbox sorts). Not
//! merging: a direction with a host among its feeders, a traced one, one that may
//! discard an accepted packet or whose feeders may, feeders without propagation
//! delay, and any scenario with link events (the directions are chosen when the
//! network is built, see `plan`). docs/simulator.md ("Merging directions") has the
//! measurements behind the bucket layout.

use std::collections::VecDeque;

use super::Sim;
use super::event::Kind;
use crate::packet::Pkt;

/// A packet for a merging direction run by the other thread (see `parts`): handed
/// over at the end of the window, into that direction's inbox.
#[derive(Clone, Copy, Debug)]
pub(super) struct Handover {
    /// The merging direction.
    pub dir: u32,
    /// The direction that accepted the packet.
    pub from: u32,
    /// The packet's arrival time at `dir`, ns.
    pub t: u64,
    pub pkt: Pkt,
}

/// An inbox's entry: a key `(arrival time - bucket start) << 24 | feeding direction`
/// (ties go in direction order, as simultaneous deliveries do; a direction delivers
/// one packet at a time) and the packet.
type Entry = (u64, Pkt);

/// The inbox of a merging direction.
#[derive(Clone)]
pub(super) struct Merge {
    /// The shortest propagation delay of the feeding directions: nothing can arrive
    /// sooner than this after the clock.
    pub(super) look: u64,
    /// Batch events fall on multiples of `2^span` ns, the largest power of two not
    /// above `look`: a batch at such a time takes all of its span, and more.
    span: u32,
    /// Buckets are `2^fine` ns wide: at most half a span, and about the time the
    /// direction takes to send `BUCKET_PACKETS` packets, so that each holds a few tens
    /// of packets at most and a batch visits few empty ones.
    fine: u32,
    /// Packets handed over and not yet offered, in buckets of arrival time
    /// `[k 2^fine, (k + 1) 2^fine)` from `k = base` on, each unsorted until its batch.
    buckets: VecDeque<Vec<Entry>>,
    base: u64,
    /// Emptied buckets, kept for their allocations.
    spare: Vec<Vec<Entry>>,
    /// Arrivals before this time have been offered.
    frontier: u64,
    /// Time of the pending batch event.
    at: Option<u64>,
}

/// An inbox's buckets span about the time its direction takes to send this many
/// packets of 1000 bytes, or half a span if that is shorter. Measured (instructions,
/// callgrind): 2, 4, 8, 16, 32 and 64 packets on the peers' S2 (1 Gb/s) took 1.452,
/// 1.323, 1.251, 1.214, 1.204 and 1.214 G, half a span 1.310 G; on S3 (10 Gb/s) 16,
/// 32 and 64 took 4.518, 4.518 and 4.543 G, half a span 4.939 G (the library's sort of
/// thousands of packets per bucket). On S1 (15 Mb/s) half a span is shorter.
const BUCKET_PACKETS: u64 = 32;

impl Merge {
    /// The inbox of a direction of `rate_bps` whose feeders' shortest propagation
    /// delay is `look` ns.
    pub(super) fn new(look: u64, rate_bps: u64) -> Merge {
        let span = 63 - look.leading_zeros();
        // (the order in which packets are offered is that of their keys, whatever the
        // buckets' width: the width only sets how much each batch sorts at once)
        let width = (BUCKET_PACKETS * 8000 * 1_000_000_000 / rate_bps.max(1)).max(1);
        let fine = (63 - width.leading_zeros()).min(span.saturating_sub(1));
        Merge {
            look,
            span,
            fine,
            buckets: VecDeque::new(),
            base: 0,
            spare: Vec::new(),
            frontier: 0,
            at: None,
        }
    }

    /// Packets handed over and not yet offered.
    pub(super) fn len(&self) -> usize {
        self.buckets.iter().map(Vec::len).sum()
    }

    /// The batch time for an arrival at `t`: the start of its span, which is less than
    /// a lookahead before it.
    #[inline(always)]
    fn batch_time(&self, t: u64) -> u64 {
        t >> self.span << self.span
    }

    /// File `pkt`, arriving at `t` from direction `from`, into its bucket.
    #[inline(always)]
    fn file(&mut self, t: u64, from: u32, pkt: Pkt) {
        debug_assert!(t >= self.frontier, "an arrival behind the merging direction's frontier");
        let k = t >> self.fine;
        if self.buckets.is_empty() {
            self.base = k;
        }
        while k < self.base {
            // (a batch dropped the empty buckets after the one it took)
            let v = self.spare.pop().unwrap_or_default();
            self.buckets.push_front(v);
            self.base -= 1;
        }
        while self.base + self.buckets.len() as u64 <= k {
            let v = self.spare.pop().unwrap_or_default();
            self.buckets.push_back(v);
        }
        let key = ((t - (k << self.fine)) << 24) | from as u64;
        self.buckets[(k - self.base) as usize].push((key, pkt));
    }

    /// Put back what a batch did not offer (`batch[taken..]`, all at or past its limit)
    /// as the front bucket; true if the front bucket holds packets.
    fn put_back(&mut self, mut batch: Vec<Entry>, taken: usize) -> bool {
        let front = self.buckets.front_mut().expect("the front bucket is still there");
        if taken == batch.len() {
            batch.clear();
            if front.is_empty() {
                *front = batch;
            } else {
                self.spare.push(batch);
            }
        } else {
            batch.drain(..taken);
            if front.is_empty() {
                *front = batch;
            } else {
                // (a batch run late, past its span's start, may have put packets into
                // this bucket meanwhile)
                front.extend_from_slice(&batch);
                batch.clear();
                self.spare.push(batch);
            }
        }
        !self.buckets.front().expect("a front bucket").is_empty()
    }

    /// When the next batch should run after one at `now`: at the start of the span of
    /// the earliest arrival left, or, for one at or past `bound` (the horizon or the
    /// window's end), not before `bound`. None if the inbox is empty.
    fn next_batch(&self, bound: u64, now: u64) -> Option<u64> {
        let i = self.buckets.iter().position(|v| !v.is_empty())?;
        let first = self.buckets[i].iter().map(|e| e.0).min().expect("a non-empty bucket");
        let min_t = ((self.base + i as u64) << self.fine) + (first >> 24);
        let at = self.batch_time(min_t);
        let at = if min_t >= bound { at.max(bound) } else { at };
        Some(at.max(now + 1))
    }
}

/// Sort a bucket of an inbox by key: insertion for the few packets a bucket holds.
fn sort_bucket(v: &mut [Entry]) {
    if v.len() > 24 {
        v.sort_unstable_by_key(|e| e.0);
        return;
    }
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].0 > x.0 {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

impl Sim {
    fn inbox(&mut self, b: usize) -> &mut Merge {
        self.dirs[b].merge.as_mut().expect("a merging direction has an inbox")
    }

    /// Hand `pkt`, arriving at the merging direction `b` at `t` from direction `from`,
    /// to its inbox, and make sure a batch event will take it. Most hand-overs find
    /// their bucket there and a batch already due by their span's start: those are
    /// filed in line, the others (and the other thread's) by `inbox_push_slow`.
    #[inline(always)]
    pub(super) fn inbox_push(&mut self, b: usize, t: u64, from: u32, pkt: Pkt) {
        let now = self.now;
        let dir = &mut self.dirs[b];
        if !dir.express.remote
            && let Some(m) = dir.merge.as_mut()
            && m.at.is_some_and(|a| a <= m.batch_time(t).max(now))
        {
            let k = t >> m.fine;
            if let Some(v) = k.checked_sub(m.base).and_then(|i| m.buckets.get_mut(i as usize)) {
                debug_assert!(
                    t >= m.frontier,
                    "an arrival behind the merging direction's frontier"
                );
                v.push((((t - (k << m.fine)) << 24) | from as u64, pkt));
                return;
            }
        }
        self.inbox_push_slow(b, t, from, pkt);
    }

    #[inline(never)]
    fn inbox_push_slow(&mut self, b: usize, t: u64, from: u32, pkt: Pkt) {
        if self.dirs[b].express.remote {
            self.outbox.push(Handover { dir: b as u32, from, t, pkt });
            return;
        }
        let now = self.now;
        let m = self.inbox(b);
        m.file(t, from, pkt);
        // The batch runs at the start of the arrival's span: nothing can arrive before
        // `t` after that (`t >= clock + look`).
        let at = m.batch_time(t).max(now);
        if m.at.is_none_or(|a| a > at) {
            m.at = Some(at);
            self.schedule(at, Kind::Merge, b);
        }
    }

    /// The batch event of the merging direction `b`: offer, in order, the arrivals that
    /// nothing can precede any more (before the clock plus the lookahead) and that do
    /// not pass the time `run_until` runs to.
    pub(super) fn on_merge(&mut self, b: usize) {
        let now = self.now;
        // (no batch takes arrivals at or past the horizon, nor past the window's end)
        let bound = self.horizon.saturating_add(1).min(self.cap);
        let m = self.inbox(b);
        if m.at != Some(now) {
            return; // stale
        }
        m.at = None;
        let limit = (now + m.look).min(bound);
        m.frontier = m.frontier.max(limit);
        while self.offer_bucket(b, limit) {}
        let m = self.inbox(b);
        if let Some(at) = m.next_batch(bound, now)
            && m.at.is_none_or(|a| a > at)
        {
            m.at = Some(at);
            self.schedule(at, Kind::Merge, b);
        }
    }

    /// Offer direction `b` the packets of its inbox's front bucket that arrive before
    /// `limit`, in order; true if the next bucket may hold more of them.
    fn offer_bucket(&mut self, b: usize, limit: u64) -> bool {
        let m = self.inbox(b);
        let start = m.base << m.fine;
        if start >= limit {
            return false;
        }
        let Some(front) = m.buckets.front_mut() else { return false };
        if front.is_empty() {
            let v = m.buckets.pop_front().expect("a front bucket");
            m.spare.push(v);
            m.base += 1;
            return true;
        }
        // The packets are offered from the bucket taken out; arrivals handed over
        // meanwhile are at or past the limit (`t >= clock + look`).
        let mut batch = std::mem::take(front);
        sort_bucket(&mut batch);
        let mut i = 0;
        while i < batch.len() {
            let (key, pkt) = batch[i];
            let t = start + (key >> 24);
            if t >= limit {
                break;
            }
            i += 1;
            self.enqueue(b, pkt, t);
        }
        // (a batch is many packets' work in one event: the guards count it)
        self.q.charge(i as u64);
        let m = self.inbox(b);
        if i == batch.len() && m.buckets.front().is_some_and(Vec::is_empty) {
            // (all offered, and nothing arrived into the bucket meanwhile: the next one)
            batch.clear();
            m.buckets.pop_front();
            m.spare.push(batch);
            m.base += 1;
            return true;
        }
        // (the rest is at or past the limit)
        !m.put_back(batch, i)
    }
}
