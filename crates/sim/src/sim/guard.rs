//! The run's guards, looked at every [`CHECK_EVERY`] events (a merging direction's
//! batch counts as one event per packet): the event queue stops `pop_until` at a
//! checkpoint, which costs the event loop one comparison per event.
//!
//! - **Progress.** Validation refuses every spacing of events that rounds to zero
//!   (see `scenario`), so a run always moves its clock. Should anything still make
//!   events at one instant without end, the run stops with [`SimError::Stopped`] once
//!   more than [`Sim::progress_bound`] events ran at one instant (it notices within
//!   `CHECK_EVERY` events more), naming the event kind and the flow or link direction
//!   that most of them were for.
//! - **Memory.** At each checkpoint the packets the simulator holds (in every link
//!   direction's FIFO and inbox) are counted; above the scenario's budget
//!   (`max_memory`, at [`PACKET_BYTES`] a packet) the run stops, naming the direction
//!   that holds the most.

use std::collections::BTreeMap;

use super::Sim;
use super::event::Kind;
use crate::engine::Target;
use crate::error::{Result, SimError};
use crate::scenario::memory::{PACKET_BYTES, show_bytes};

/// Events between two checkpoints.
pub(super) const CHECK_EVERY: u64 = 1 << 16;

/// Events run after the progress guard fired, to find what they are for.
const TALLY: u32 = 4096;

/// What the guards remember between checkpoints.
#[derive(Clone, Debug, Default)]
pub(super) struct Guard {
    /// The clock at the last checkpoint.
    at: u64,
    /// The count of events run when the clock was first seen at `at`.
    since: u64,
    /// The error a guard stopped the run with: every later call returns it.
    pub(super) failed: Option<SimError>,
}

impl Sim {
    /// The most events a run may take at one instant: 2^20, plus 256 for each flow,
    /// link direction, link event and traced queue. A legitimate instant holds a few
    /// events per flow and direction (a send, a timer, a delivery), far below.
    pub fn progress_bound(&self) -> u64 {
        let things = self.flows.len() + self.dirs.len() + self.sc.events.len();
        (1 << 20) + 256 * (things + self.sc.trace.queue.len()) as u64
    }

    /// A checkpoint: check progress and memory (counting the directions `mine` accepts:
    /// on two threads, a part's own), and set the next one.
    #[cold]
    pub(super) fn checkpoint(&mut self, mine: &dyn Fn(usize) -> bool) -> Result<()> {
        self.q.checkpoint_in(CHECK_EVERY);
        if self.now == self.guard.at {
            if self.q.popped() - self.guard.since > self.progress_bound() {
                let e = self.stalled();
                self.guard.failed = Some(e.clone());
                return Err(e);
            }
        } else {
            self.guard.at = self.now;
            self.guard.since = self.q.popped();
        }
        let held =
            |d: usize| self.dirs[d].q.len() + self.dirs[d].merge.as_ref().map_or(0, |m| m.len());
        let (mut packets, mut top) = (0usize, (0usize, 0usize));
        for d in (0..self.dirs.len()).filter(|&d| mine(d)) {
            let n = held(d);
            packets += n;
            if n > top.1 {
                top = (d, n);
            }
        }
        let budget = self.sc.memory_budget();
        let bytes = (packets as u64).saturating_mul(PACKET_BYTES);
        if bytes > budget {
            let (d, n) = top;
            let l = &self.sc.links[d / 2];
            let msg = format!(
                "max_memory: the simulator holds {packets} packets ({}) at t = {} s, above \
                 the budget of {}; link direction {} holds {n} of them (its queue: {}); \
                 allowed: lower that queue's limit, slow the sources that feed it, or raise \
                 max_memory",
                show_bytes(bytes),
                self.now as f64 / 1e9,
                show_bytes(budget),
                self.sc.dir_name(d),
                l.queue_paths[d % 2],
            );
            let e = SimError::Stopped(msg);
            self.guard.failed = Some(e.clone());
            return Err(e);
        }
        Ok(())
    }

    /// The progress guard fired: run up to `TALLY` more events of this instant and
    /// name the target most of them were for.
    fn stalled(&mut self) -> SimError {
        let t = self.now;
        let mut tally: BTreeMap<(u8, u32), u32> = BTreeMap::new();
        for _ in 0..TALLY {
            match self.q.pop() {
                Some((et, target)) if et.0 == t => {
                    *tally.entry((target.kind, target.index)).or_default() += 1;
                    self.dispatch(target);
                }
                _ => break,
            }
        }
        let top = tally.iter().max_by_key(|&(k, n)| (*n, std::cmp::Reverse(*k)));
        let culprit = match top {
            Some((&(kind, index), _)) => self.describe(Target { kind, index }),
            None => "unknown events".to_string(),
        };
        SimError::Stopped(format!(
            "no progress: more than {} events at t = {} s without the clock moving; most \
             of them are {culprit}; the spacing of its events rounds to zero (allowed: \
             rates, intervals and timers whose spacing is at least 1 ns)",
            self.progress_bound(),
            t as f64 / 1e9
        ))
    }

    /// What an event acts on, for a reader.
    fn describe(&self, t: Target) -> String {
        let i = t.index as usize;
        let flow = |what: &str| match self.sc.flows.get(i) {
            Some(f) => format!("{what} of flow {i} ({}, from flow[{}])", f.name, f.spec),
            None => format!("{what} of flow {i}"),
        };
        match Kind::of(t) {
            Kind::Deliver => format!("deliveries of link direction {}", self.sc.dir_name(i)),
            Kind::Merge => format!("batches of link direction {}", self.sc.dir_name(i)),
            Kind::Serve => format!("departures of link direction {}", self.sc.dir_name(i)),
            Kind::Poll => format!("queue updates of link direction {}", self.sc.dir_name(i)),
            Kind::Send => flow("sends"),
            Kind::Rto => flow("retransmission timeouts"),
            Kind::Delack => flow("delayed ACKs"),
            Kind::App => flow("application writes"),
            Kind::Stop => flow("the stop"),
            Kind::Link => format!("link events (event[{i}])"),
            Kind::Sample => format!("queue samples (trace.queue[{i}])"),
            Kind::Warmup => "the opening of the measurement window".to_string(),
        }
    }
}
