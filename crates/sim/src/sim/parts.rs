//! Two threads (see "Two threads" in the simulator's documentation).
//!
//! A network whose flows' paths split into two parts that meet only at merging
//! directions runs each part on its own thread (the split is made when the network is
//! built, see `plan`). A merging direction takes the packets of its feeders through
//! its inbox, sorted, no sooner than its lookahead after they were accepted; so in
//! windows no longer than the shortest lookahead across the cut, each part can run a
//! window on its own, given the packets the other part handed over in the windows
//! before. At the end of a window each thread publishes what it
//! handed over, waits for the other, and puts the other's packets into its inboxes.
//! No inbox offers a packet at or past the end of the window (`cap`), so nothing is
//! ever missing. Within a part, events run as on one thread; across parts, only the
//! inboxes meet, and they sort. The results are those of one thread, bit for bit
//! (the tests compare them); the count of events differs a little (batches stop at
//! window ends).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use aqm::Time;

use super::Sim;
use super::event::Kind;
use super::inbox::Handover;
use super::plan::Split;
use crate::engine::Target;

/// Does part `me` run the events of `t`?
fn owns(split: &Split, me: u8, t: Target) -> bool {
    let i = t.index as usize;
    match Kind::of(t) {
        Kind::Deliver | Kind::Merge => split.dir_part[i] == me,
        // (no split is made for directions that hold their packets)
        Kind::Serve | Kind::Poll => split.dir_part[i] == me,
        Kind::Send | Kind::Rto | Kind::App | Kind::Stop => split.tx_part[i] == me,
        Kind::Delack => split.rx_part[i] == me,
        // (each part snapshots its own senders)
        Kind::Warmup => true,
        // (no split is made for link events and traces)
        Kind::Link | Kind::Sample => me == 0,
    }
}

/// What the two threads share: a count of arrivals at the end of windows (and a
/// condition variable for a thread that stopped spinning), a flag for a thread that
/// failed, and per part two outboxes, for odd and even windows; the window after which
/// both stop to go on on one thread (see `pace`) and the time part 1 waited (ns) since
/// part 0 last looked.
struct Shared {
    arrived: AtomicUsize,
    sleep: Mutex<()>,
    wake: Condvar,
    failed: AtomicBool,
    boxes: [[Mutex<Vec<Handover>>; 2]; 2],
    stop_after: AtomicUsize,
    waited: AtomicU64,
}

/// Spins before a thread waiting for the other sleeps: a few microseconds, about the
/// time a window takes on the dumbbell.
const SPINS: u32 = 2000;

impl Shared {
    fn new() -> Shared {
        Shared {
            arrived: AtomicUsize::new(0),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
            failed: AtomicBool::new(false),
            boxes: Default::default(),
            stop_after: AtomicUsize::new(usize::MAX),
            waited: AtomicU64::new(0),
        }
    }

    /// Wait for the other thread to end window `j`; false if it failed.
    fn wait(&self, j: usize) -> bool {
        let target = 2 * (j + 1);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 >= target {
            // The second to arrive: wake the other if it sleeps.
            self.notify();
            return true;
        }
        for _ in 0..SPINS {
            if self.arrived.load(Ordering::Acquire) >= target {
                return true;
            }
            std::hint::spin_loop();
        }
        let mut g = self.sleep.lock().unwrap_or_else(|e| e.into_inner());
        while self.arrived.load(Ordering::Acquire) < target {
            if self.failed.load(Ordering::Acquire) {
                return false;
            }
            g = self.wake.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        true
    }

    fn notify(&self) {
        let _g = self.sleep.lock().unwrap_or_else(|e| e.into_inner());
        self.wake.notify_all();
    }

    fn fail(&self) {
        self.failed.store(true, Ordering::Release);
        self.notify();
    }
}

fn lock(m: &Mutex<Vec<Handover>>) -> std::sync::MutexGuard<'_, Vec<Handover>> {
    // (a thread that panicked holding it has its panic resumed by the caller)
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Sim {
    /// Take the other thread's part back, if the network is split (after progress
    /// steps: `run_until_ahead`). Every result but the clock and the count of events
    /// needs it; exact stops and the end of the run do it themselves.
    pub fn settle(&mut self) {
        if let Some(o) = self.other.take() {
            let split = self.split.take().expect("a split");
            self.join(*o, &split);
            self.split = Some(split);
        }
    }

    /// Run to `t` on two threads; the parts stay apart (`settle` joins them). False
    /// when the threads stopped before `t` because two were slower than one would be
    /// (see `pace`): the clock is then at the end of the last window.
    pub(super) fn run_parallel(&mut self, t: u64) -> crate::error::Result<bool> {
        let split = self.split.take().expect("a split");
        let mut other = match self.other.take() {
            Some(o) => o,
            None => Box::new(self.fork(&split)),
        };
        other.horizon = self.horizon;
        let start = self.now;
        let w = split.window.max(1);
        let sh = Shared::new();
        let (ra, rb) = std::thread::scope(|s| {
            let (sh, o) = (&sh, &mut *other);
            let parts = &split.dir_part;
            let hb = s.spawn(move || {
                let r = catch_unwind(AssertUnwindSafe(|| o.run_part(1, sh, start, t, w, parts)));
                if !matches!(r, Ok(Ok(()))) {
                    sh.fail();
                }
                r
            });
            let ra = catch_unwind(AssertUnwindSafe(|| self.run_part(0, sh, start, t, w, parts)));
            if !matches!(ra, Ok(Ok(()))) {
                sh.fail();
            }
            let rb = hb.join().unwrap_or_else(Err);
            (ra, rb)
        });
        let (ra, rb) = match (ra, rb) {
            (Err(p), _) | (_, Err(p)) => resume_unwind(p),
            (Ok(a), Ok(b)) => (a, b),
        };
        self.pace.waited += Duration::from_nanos(sh.waited.load(Ordering::Relaxed));
        if let Err(e) = ra.and(rb) {
            // (a guard stopped a part: the run cannot go on, the parts stay apart)
            self.guard.failed = Some(e.clone());
            self.other = Some(other);
            self.split = Some(split);
            return Err(e);
        }
        // What each part handed over in the last window, into the other's inboxes.
        for b in &sh.boxes[0] {
            for h in lock(b).drain(..) {
                other.inbox_push(h.dir as usize, h.t, h.from, h.pkt);
            }
        }
        for b in &sh.boxes[1] {
            for h in lock(b).drain(..) {
                self.inbox_push(h.dir as usize, h.t, h.from, h.pkt);
            }
        }
        self.other = Some(other);
        self.split = Some(split);
        Ok(sh.stop_after.load(Ordering::Relaxed) == usize::MAX || self.now >= t)
    }

    /// Split: `self` keeps part 0, the copy returned runs part 1. Each keeps the
    /// events of its part; the copy counts drops and marks from zero (they add up
    /// when the parts are joined).
    fn fork(&mut self, split: &Split) -> Sim {
        let mut b = Sim {
            sc: self.sc.clone(),
            now: self.now,
            end: self.end,
            w0: self.w0,
            w1: self.w1,
            q: self.q.clone(),
            dirs: self.dirs.clone(),
            routes: self.routes.clone(),
            link_up: self.link_up.clone(),
            flows: self.flows.clone(),
            out: Vec::with_capacity(64),
            out_from: 0,
            traces: None,
            finished: self.finished,
            has_web: self.has_web,
            wall: self.wall,
            busiest: self.busiest,
            horizon: self.horizon,
            in_host: false,
            split: None,
            outbox: Vec::new(),
            other: None,
            cap: u64::MAX,
            guard: self.guard.clone(),
            pace: self.pace.clone(),
        };
        for (me, sim) in [(0u8, &mut *self), (1u8, &mut b)] {
            for (d, dir) in sim.dirs.iter_mut().enumerate() {
                dir.express.remote = dir.express.merged && split.dir_part[d] != me;
            }
            sim.q.retain(|t| owns(split, me, t));
        }
        b.q.reset_popped();
        for fl in b.flows.iter_mut() {
            fl.mon.drops = 0;
            fl.mon.ack_drops = 0;
            fl.mon.marks = 0;
        }
        b
    }

    /// Run part `me` (the directions `parts` gives it) from `start` to `t`, window by
    /// window; a guard's error stops it (and the other part, through `sh`).
    fn run_part(
        &mut self,
        me: usize,
        sh: &Shared,
        start: u64,
        t: u64,
        w: u64,
        parts: &[u8],
    ) -> crate::error::Result<()> {
        let mut cur = start;
        let mut j = 0usize;
        loop {
            // The window [cur, end): ends on a multiple of the window length, or at t.
            let end = (cur / w + 1).saturating_mul(w).min(t.saturating_add(1));
            if j > 0 {
                // What the other part handed over in the window before.
                let mut theirs = lock(&sh.boxes[1 - me][(j - 1) % 2]);
                for h in theirs.drain(..) {
                    self.inbox_push(h.dir as usize, h.t, h.from, h.pkt);
                }
            }
            self.cap = end;
            loop {
                while let Some((et, target)) = self.q.pop_until(Time(end - 1)) {
                    self.now = et.0;
                    self.dispatch(target);
                }
                if !self.q.checkpoint_due() {
                    break;
                }
                if let Err(e) = self.checkpoint(&|d| parts[d] as usize == me) {
                    self.cap = u64::MAX;
                    return Err(e);
                }
            }
            self.now = end - 1;
            std::mem::swap(&mut *lock(&sh.boxes[me][j % 2]), &mut self.outbox);
            let t0 = Instant::now();
            if me == 0 && self.pace.due(t0) {
                let theirs = Duration::from_nanos(sh.waited.swap(0, Ordering::Relaxed));
                if self.pace.judge(theirs, t0, end) {
                    // (stored before this thread's arrival: the other sees it after)
                    sh.stop_after.store(j, Ordering::Release);
                }
            }
            if !sh.wait(j) {
                break;
            }
            let waited = t0.elapsed();
            if me == 0 {
                self.pace.waited += waited;
            } else {
                sh.waited.fetch_add(waited.as_nanos() as u64, Ordering::Relaxed);
            }
            let stop = sh.stop_after.load(Ordering::Acquire) <= j;
            j += 1;
            if end > t || stop {
                break;
            }
            cur = end;
        }
        self.cap = u64::MAX;
        Ok(())
    }

    /// Take the parts together again: each direction, sender and receiver from its part,
    /// drops and marks added, and the events of both.
    fn join(&mut self, mut b: Sim, split: &Split) {
        for d in 0..self.dirs.len() {
            if split.dir_part[d] == 1 {
                std::mem::swap(&mut self.dirs[d], &mut b.dirs[d]);
            }
            self.dirs[d].express.remote = false;
        }
        for f in 0..self.flows.len() {
            let (x, y) = (&mut self.flows[f], &mut b.flows[f]);
            let (drops, ack_drops, marks) = (
                x.mon.drops + y.mon.drops,
                x.mon.ack_drops + y.mon.ack_drops,
                x.mon.marks + y.mon.marks,
            );
            if split.tx_part[f] == 1 {
                std::mem::swap(x, y);
            }
            // `x` has the sender's part; the receiver's side comes from the other.
            if split.rx_part[f] != split.tx_part[f] {
                if let (Some(a), Some(o)) = (x.tcp.as_mut(), y.tcp.as_mut()) {
                    std::mem::swap(&mut a.1, &mut o.1);
                }
                x.timers.delack_at = y.timers.delack_at;
                x.mon.delivered = y.mon.delivered;
                x.mon.delivered_bytes = y.mon.delivered_bytes;
                x.mon.first_data = y.mon.first_data;
            }
            x.mon.drops = drops;
            x.mon.ack_drops = ack_drops;
            x.mon.marks = marks;
        }
        // (both parts hold the warm-up's snapshot event while it is pending)
        self.q.absorb(std::mem::take(&mut b.q), |t| Kind::of(t) != Kind::Warmup);
    }
}
