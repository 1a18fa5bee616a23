//! Two threads or one, measured as the run goes (see "Two threads" in the simulator's
//! documentation).
//!
//! Two threads pay while each finds the other at the end of most windows. Where the
//! cores are shared, a thread that waits for one that is not running loses that time.
//! Blocks of windows are judged as they end (the first window's end after 20 ms):
//! - Over a block of wall time `W`, in which the threads waited `w0` and `w1` at window
//!   ends, each worked `W - w`; one thread would have done both parts' work in about
//!   `2W - w0 - w1`. So two threads are the slower once `w0 + w1 >= W`.
//! - Once the run has been on one thread, its pace there (simulated time per wall
//!   time) is known: two threads are the slower when a block of theirs goes slower.
//!
//! Then the parts are joined at the end of that window and the run goes on on one
//! thread, and tries two again later (after a quarter of a second, doubled at each
//! such fall-back, up to four seconds). The results do not depend on it: the parts are
//! joined at a window's end, as at an exact stop, and one thread gives the results of
//! two, bit for bit.

use std::time::{Duration, Instant};

/// A block is judged at the first window's end after it has lasted this long (shorter
/// ones are too noisy).
const MIN_BLOCK: Duration = Duration::from_millis(20);
/// The first time on one thread after a fall-back; doubled at each, up to `MAX_SOLO`.
const FIRST_SOLO: Duration = Duration::from_millis(250);
const MAX_SOLO: Duration = Duration::from_secs(4);
/// One thread runs in segments of this many windows between looks at the clock.
pub(super) const SOLO_SEGMENT: u64 = 1024;

/// A moment of the run: the wall clock and the simulated clock (ns).
type Mark = (Instant, u64);

/// Simulated ns per wall-clock second from `a` to `b` (None if no time passed).
fn pace(a: Mark, b: Mark) -> Option<f64> {
    let wall = (b.0 - a.0).as_secs_f64();
    (wall > 0.0).then(|| b.1.saturating_sub(a.1) as f64 / wall)
}

/// When a run on two threads goes on on one.
#[derive(Clone, Debug)]
pub(super) struct Pace {
    /// The current block's start (None before the first window on two threads).
    block: Option<Mark>,
    /// The time both threads waited at window ends in the current block.
    pub(super) waited: Duration,
    /// Two threads are not tried again before this; the start of the time on one.
    solo_until: Option<Instant>,
    solo_start: Option<Mark>,
    /// The pace of the last time on one thread.
    one: Option<f64>,
    /// The next time on one thread.
    solo: Duration,
    /// Judge a block once it is this long; fall back once the waits are this share
    /// of it (tests force fall-backs with zeros).
    min_block: Duration,
    loss: f64,
    first_solo: Duration,
    /// Fall-backs so far.
    pub(super) fallbacks: u32,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            block: None,
            waited: Duration::ZERO,
            solo_until: None,
            solo_start: None,
            one: None,
            solo: FIRST_SOLO,
            min_block: MIN_BLOCK,
            loss: 1.0,
            first_solo: FIRST_SOLO,
            fallbacks: 0,
        }
    }
}

impl Pace {
    /// Fall back at every block end, and go back to two threads after one segment
    /// (tests: the results must not change).
    pub(super) fn eager() -> Pace {
        Pace {
            min_block: Duration::ZERO,
            loss: 0.0,
            first_solo: Duration::ZERO,
            solo: Duration::ZERO,
            ..Pace::default()
        }
    }

    /// May two threads run now, at simulated time `sim`?
    pub(super) fn two_threads(&mut self, sim: u64) -> bool {
        let Some(until) = self.solo_until else { return true };
        let now = Instant::now();
        if now < until {
            return false;
        }
        if let Some(start) = self.solo_start.take() {
            self.one = pace(start, (now, sim)).or(self.one);
        }
        self.solo_until = None;
        self.block = None;
        true
    }

    /// Is a block over at `now` (or none begun)? Asked at every window's end.
    #[inline]
    pub(super) fn due(&self, now: Instant) -> bool {
        self.block.is_none_or(|(start, _)| now - start >= self.min_block)
    }

    /// At a block's end (`due`), at simulated time `sim`, with `other` (the other
    /// thread's waits since the last look): should the threads stop after this window?
    pub(super) fn judge(&mut self, other: Duration, now: Instant, sim: u64) -> bool {
        self.waited += other;
        let Some(start) = self.block else {
            self.block = Some((now, sim));
            self.waited = Duration::ZERO;
            return false;
        };
        let wall = (now - start.0).as_secs_f64();
        let waits = self.waited.as_secs_f64() >= self.loss * wall;
        let slower = match (self.one, pace(start, (now, sim))) {
            (Some(one), Some(two)) => two < one,
            _ => false,
        };
        self.block = Some((now, sim));
        self.waited = Duration::ZERO;
        waits || slower
    }

    /// The threads stopped at simulated time `sim`: one thread until the time on one
    /// thread is over.
    pub(super) fn fall_back(&mut self, sim: u64) {
        self.fallbacks += 1;
        let now = Instant::now();
        self.solo_until = Some(now + self.solo);
        self.solo_start = Some((now, sim));
        self.solo =
            if self.solo.is_zero() { self.first_solo } else { (self.solo * 2).min(MAX_SOLO) };
        self.block = None;
        self.waited = Duration::ZERO;
    }
}

impl super::Sim {
    /// Tests: fall back to one thread at every block judged and go back to two after
    /// one segment, so that a run switches between two threads and one many times.
    #[doc(hidden)]
    pub fn pace_eagerly(&mut self) {
        self.pace = Pace::eager();
    }

    /// How many times two threads fell back to one so far.
    pub fn fallbacks(&self) -> u32 {
        self.pace.fallbacks
    }
}
