//! The event queue: a binary heap of 128-bit keys `(time ns, target, sequence)`.
//!
//! An event is nothing but *who* must act *when*: a 24-bit target (a link direction
//! whose head packet reaches the far end, a flow's timer, a control action) and its
//! time. No payload travels with the event (packets wait in their link direction's
//! FIFO), so an entry is one `u128`, and the queue holds
//! about one entry per link direction and flow, not one per packet in flight.
//! Ties in time are broken by the target (event kind, then index: deliveries first, in
//! link-direction order), then by the insertion sequence number. The order of
//! simultaneous events is thus a property of the model, not of the order in which the
//! engine happened to schedule them, so skipping an event (an express hop) changes
//! nothing, and the run is deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use aqm::Time;

/// Bits of the key given to the target.
const TARGET_BITS: u32 = 24;
/// Bits of the key given to the insertion sequence number (2^40 events per run).
const SEQ_BITS: u32 = 40;
const TARGET_MASK: u128 = (1 << TARGET_BITS) - 1;

/// What an event wakes up. `kind` is 4 bits, `index` 20 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub kind: u8,
    pub index: u32,
}

impl Target {
    pub const MAX_INDEX: u32 = (1 << 20) - 1;
    #[inline]
    fn encode(self) -> u32 {
        ((self.kind as u32) << 20) | self.index
    }
    #[inline]
    fn decode(v: u32) -> Target {
        Target { kind: (v >> 20) as u8, index: v & Self::MAX_INDEX }
    }
}

/// A deterministic priority queue of events keyed by (time, target, sequence): the standard
/// binary heap of `u128` keys (measured faster here than a 4-ary heap, a radix heap
/// and a calendar queue), with two shortcuts:
/// - the earliest event may be kept outside the heap (`front`), so that an event
///   scheduled to be the next one (a reply, the next packet of a burst) costs no heap
///   operation;
/// - a pop from the heap only marks its top as taken (`taken`); the next push then
///   overwrites the top and sifts it down once, instead of a full pop followed by a
///   push. Nearly every event schedules another, so most pops cost half a heap
///   operation.
///
/// Checkpoints: [`EventQueue::pop_until`] answers `None` once `popped` reaches the
/// count set by [`EventQueue::checkpoint_in`] (never, unless set), so that the caller
/// can look at the run from time to time (its progress, its memory) at the cost of
/// one comparison per event; [`EventQueue::checkpoint_due`] tells such a stop from the
/// end of the events.
#[derive(Clone)]
pub struct EventQueue {
    front: Option<u128>,
    heap: BinaryHeap<Reverse<u128>>,
    /// The heap's top has been returned by `pop` and is dead.
    taken: bool,
    seq: u64,
    popped: u64,
    /// `pop_until` stops when `popped` reaches this.
    check_at: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::new()
    }
}

#[inline]
fn decode_key(k: u128) -> (Time, Target) {
    (Time((k >> 64) as u64), Target::decode(((k >> SEQ_BITS) & TARGET_MASK) as u32))
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            front: None,
            heap: BinaryHeap::with_capacity(1024),
            taken: false,
            seq: 0,
            popped: 0,
            check_at: u64::MAX,
        }
    }

    /// Stop `pop_until` after `n` more events (a checkpoint).
    pub fn checkpoint_in(&mut self, n: u64) {
        self.check_at = self.popped.saturating_add(n);
    }

    /// Bring the next checkpoint `n` events nearer: work done without events (a
    /// batch of packets) counts towards it.
    #[inline]
    pub fn charge(&mut self, n: u64) {
        self.check_at = self.check_at.saturating_sub(n);
    }

    /// Did `pop_until` stop for a checkpoint (rather than for lack of due events)?
    #[inline]
    pub fn checkpoint_due(&self) -> bool {
        self.popped >= self.check_at
    }

    /// Remove the dead top, if any.
    #[inline]
    fn settle(&mut self) {
        if self.taken {
            self.heap.pop();
            self.taken = false;
        }
    }

    /// Put `key` into the heap, over the dead top if there is one.
    #[inline]
    fn heap_insert(&mut self, key: u128) {
        if self.taken {
            self.taken = false;
            // overwriting the top sifts it down when the guard drops
            *self.heap.peek_mut().expect("a taken top exists") = Reverse(key);
        } else {
            self.heap.push(Reverse(key));
        }
    }

    /// Schedule `target` at `t`.
    #[inline]
    pub fn push(&mut self, t: Time, target: Target) {
        let key = ((t.0 as u128) << 64)
            | ((target.encode() as u128) << SEQ_BITS)
            | (self.seq & ((1 << SEQ_BITS) - 1)) as u128;
        self.seq += 1;
        match self.front {
            Some(f) if key < f => {
                self.heap_insert(f);
                self.front = Some(key);
            }
            Some(_) => self.heap_insert(key),
            None => {
                if self.taken {
                    // the live minimum of the heap is unknown without settling: file it
                    self.heap_insert(key);
                } else {
                    match self.heap.peek() {
                        Some(&Reverse(h)) if h < key => self.heap.push(Reverse(key)),
                        _ => self.front = Some(key),
                    }
                }
            }
        }
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        if let Some(f) = self.front {
            return Some(decode_key(f).0);
        }
        self.settle();
        Some(decode_key(self.heap.peek()?.0).0)
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Target)> {
        let k = match self.front.take() {
            Some(f) => f,
            None => {
                self.settle();
                let &Reverse(k) = self.heap.peek()?;
                self.taken = true;
                k
            }
        };
        self.popped += 1;
        Some(decode_key(k))
    }

    /// Remove and return the earliest event if it is due at or before `t`, unless a
    /// checkpoint is due.
    #[inline]
    pub fn pop_until(&mut self, t: Time) -> Option<(Time, Target)> {
        if self.popped >= self.check_at {
            return None;
        }
        match self.peek_time() {
            Some(et) if et <= t => self.pop(),
            _ => None,
        }
    }

    /// Keep only the pending events whose target `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(Target) -> bool) {
        self.settle();
        let mut keys: Vec<u128> = self.heap.drain().map(|Reverse(k)| k).collect();
        keys.extend(self.front.take());
        keys.retain(|&k| keep(decode_key(k).1));
        self.heap = keys.into_iter().map(Reverse).collect();
    }

    /// Take over the pending events of `other` whose target `keep` accepts, and its
    /// count of events run. Each target's events must come from one of the two queues
    /// (their insertion order is kept within it).
    pub fn absorb(&mut self, mut other: EventQueue, mut keep: impl FnMut(Target) -> bool) {
        other.settle();
        self.settle();
        if let Some(f) = self.front.take() {
            self.heap.push(Reverse(f));
        }
        let mut keys: Vec<u128> = other.heap.drain().map(|Reverse(k)| k).collect();
        keys.extend(other.front.take());
        for k in keys {
            if keep(decode_key(k).1) {
                self.heap.push(Reverse(k));
            }
        }
        self.seq = self.seq.max(other.seq);
        self.popped += other.popped;
    }

    /// Count the events run from zero again.
    pub fn reset_popped(&mut self) {
        self.popped = 0;
    }

    /// Events processed so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
    pub fn len(&self) -> usize {
        self.heap.len() - self.taken as usize + self.front.is_some() as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retain_and_absorb_split_and_join_a_queue() {
        let t = |kind: u8, index: u32| Target { kind, index };
        let mut a = EventQueue::new();
        for (at, kind, index) in [(5, 1, 1), (3, 1, 2), (5, 1, 1), (4, 0, 3), (6, 2, 2)] {
            a.push(Time(at), t(kind, index));
        }
        let mut b = a.clone();
        a.retain(|x| x.index != 2);
        b.retain(|x| x.index == 2);
        b.reset_popped();
        assert_eq!(a.len() + b.len(), 5);
        assert_eq!(a.pop(), Some((Time(4), t(0, 3))));
        assert_eq!(b.pop(), Some((Time(3), t(1, 2))));
        a.absorb(b, |x| x.kind != 9);
        assert_eq!(a.popped(), 2);
        assert_eq!(a.pop(), Some((Time(5), t(1, 1))));
        assert_eq!(a.pop(), Some((Time(5), t(1, 1))));
        assert_eq!(a.pop(), Some((Time(6), t(2, 2))));
        assert_eq!(a.pop(), None);
        // events pushed after the join still come after the ones of the same target
        a.push(Time(7), t(1, 1));
        assert_eq!(a.pop(), Some((Time(7), t(1, 1))));
    }

    #[test]
    fn orders_by_time_then_target_then_insertion() {
        let mut q = EventQueue::new();
        q.push(Time(5), Target { kind: 1, index: 7 });
        q.push(Time(3), Target { kind: 2, index: 1 });
        q.push(Time(5), Target { kind: 0, index: 9 });
        q.push(Time(5), Target { kind: 1, index: 7 });
        q.push(Time(5), Target { kind: 1, index: 2 });
        assert_eq!(q.pop(), Some((Time(3), Target { kind: 2, index: 1 })));
        assert_eq!(q.pop(), Some((Time(5), Target { kind: 0, index: 9 })));
        assert_eq!(q.pop(), Some((Time(5), Target { kind: 1, index: 2 })));
        assert_eq!(q.pop(), Some((Time(5), Target { kind: 1, index: 7 })));
        assert_eq!(q.pop(), Some((Time(5), Target { kind: 1, index: 7 })));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn pop_until_stops_at_checkpoints_only() {
        let mut q = EventQueue::new();
        for i in 0..10 {
            q.push(Time(i), Target { kind: 0, index: i as u32 });
        }
        q.checkpoint_in(4);
        let mut got = 0;
        let mut stops = 0;
        loop {
            while q.pop_until(Time(100)).is_some() {
                got += 1;
            }
            if !q.checkpoint_due() {
                break;
            }
            stops += 1;
            assert_eq!(got, 4 * stops);
            q.checkpoint_in(4);
        }
        assert_eq!((got, stops), (10, 2));
    }

    #[test]
    fn matches_a_sorted_model() {
        let mut q = EventQueue::new();
        let mut model = Vec::new();
        let mut x: u64 = 12345;
        let mut now = 0u64;
        for i in 0..2000u32 {
            x = crate::rng::mix64(x);
            if x.is_multiple_of(3) {
                let got = q.pop();
                model.sort();
                let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                if let Some((t, _, _)) = want {
                    now = t;
                }
                assert_eq!(got.map(|(t, g)| (t.0, g.index)), want.map(|(t, _, g)| (t, g)));
            } else {
                let t = now + x % 50;
                q.push(Time(t), Target { kind: 0, index: i });
                model.push((t, i, i));
            }
        }
    }
}
