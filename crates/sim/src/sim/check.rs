//! Debug checks of a direction's state: its cached flags agree with what they cache,
//! and it holds nothing its queue's kind or its link's state rules out. A direction
//! keeps four caches for the packet path: `fifo_up` (up, and the queue is the FIFO),
//! `has_avg` (the FIFO's discipline keeps state departures update), `tail_limit` (a
//! plain Drop Tail's buffer) and `lean` (the largest packet the lean path takes).
//! They change when the network is built and when a link goes down or up; the checks
//! run there and at the end of the run, in debug builds only (`debug_assert!`: the
//! tests run with them, release builds compile them out).

use super::Sim;
use super::link::{Dir, fifo_up, has_avg, tail_limit};
use super::plan::Express;
use super::queue::Queue;

impl Dir {
    /// The first way this direction's state disagrees with itself, if any; `lean_on`:
    /// the scenario has the lean path on (`express_hops`).
    pub(super) fn disagreement(&self, lean_on: bool) -> Option<String> {
        let lean = if self.up && lean_on { self.lean_limit() } else { 0 };
        let held = match &self.queue {
            Queue::Fifo(_) => None,
            Queue::Held(h) => Some(h),
        };
        let checks = [
            (
                self.fifo_up == fifo_up(self.up, &self.queue),
                "fifo_up: up and the queue is the FIFO",
            ),
            (self.has_avg == has_avg(&self.queue), "has_avg: the FIFO's discipline keeps state"),
            (self.tail_limit == tail_limit(&self.queue), "tail_limit: a plain Drop Tail's buffer"),
            (self.lean == lean, "lean: the lean path's largest packet"),
            (self.express.merged == self.merge.is_some(), "a merging direction has an inbox"),
            (
                held.is_none()
                    || self.n_started == self.q.len()
                        && self.bytes_waiting == 0
                        && self.express == Express::default()
                        && self.merge.is_none(),
                "a qdisc's packets wait in the qdisc, and none is handed on early",
            ),
            (
                self.up
                    || self.q.is_empty()
                        && self.n_plain == 0
                        && self.scheduled.is_none()
                        && held.is_none_or(|h| h.waiting() == 0),
                "a direction whose link is down holds no packet",
            ),
            (
                self.n_plain <= self.q.len() && self.n_started <= self.q.len(),
                "the slots counted are in the FIFO",
            ),
        ];
        checks.iter().find(|(ok, _)| !ok).map(|(_, what)| format!("{what} ({})", self.kind()))
    }
}

impl Sim {
    /// Check (debug builds) that the state of direction `d` agrees with itself.
    #[inline]
    pub(super) fn check_dir(&self, d: usize) {
        debug_assert_eq!(
            self.dirs[d].disagreement(self.sc.express_hops),
            None,
            "link direction {}",
            self.sc.dir_name(d)
        );
    }

    /// Check (debug builds) every direction, and that a network split for two threads
    /// has no direction that holds its packets.
    pub(super) fn check_dirs(&self) {
        for d in 0..self.dirs.len() {
            self.check_dir(d);
        }
        debug_assert!(
            self.split.is_none() || self.dirs.iter().all(|d| matches!(d.queue, Queue::Fifo(_))),
            "a split network with a direction that holds its packets"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// s -> r -> k at 10 Mb/s, the second link's queue `queue`, a TCP flow (counted
    /// at s -> r); the second link goes down at 1 s and up at 2 s if `events`.
    fn sim(queue: &str, events: bool) -> Sim {
        let mut t = String::from("duration = \"3s\"\n");
        for (a, b, q) in [("s", "r", r#"{ type = "droptail", limit = 100 }"#), ("r", "k", queue)] {
            t += &format!(
                "[[link]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\nqueue = {q}\n"
            );
        }
        t += "[[flow]]\ntype = \"tcp\"\nsrc = \"s\"\ndst = \"k\"\n";
        if events {
            for (at, action) in [("1s", "down"), ("2s", "up")] {
                t += &format!(
                    "[[event]]\nat = \"{at}\"\na = \"r\"\nb = \"k\"\naction = \"{action}\"\n"
                );
            }
        }
        Sim::new(Scenario::from_toml_str(&t).unwrap(), None).unwrap()
    }

    /// Each cache set wrong, and each state a kind rules out, is found.
    #[test]
    fn a_wrong_cache_is_found() {
        let tail = sim(r#"{ type = "droptail", limit = 100 }"#, false);
        let red = sim(r#"{ type = "red", limit = 100, min_th = 5, max_th = 15 }"#, false);
        let codel = sim(r#"{ type = "codel", limit = 100 }"#, false);
        for s in [&tail, &red, &codel] {
            for d in &s.dirs {
                assert_eq!(d.disagreement(true), None);
            }
        }
        type Spoil = fn(&mut Dir);
        let cases: [(&Sim, Spoil); 8] = [
            (&tail, |d| d.fifo_up = false),
            (&codel, |d| d.fifo_up = true),
            (&tail, |d| d.has_avg = true),
            (&red, |d| d.has_avg = false),
            (&red, |d| d.tail_limit = Some(aqm::Limit { packets: Some(100), bytes: None })),
            (&tail, |d| d.lean = 0),
            (&codel, |d| d.bytes_waiting = 1),
            (&red, |d| d.express.merged = true),
        ];
        for (i, (s, spoil)) in cases.into_iter().enumerate() {
            let mut d = s.dirs[2].clone();
            spoil(&mut d);
            assert!(d.disagreement(true).is_some(), "case {i}");
        }
    }

    /// A plain Drop Tail takes the lean path while its link is up: not while it is
    /// down, again once it is back up (the check passes at every change).
    #[test]
    fn the_lean_path_follows_the_link() {
        let mut s = sim(r#"{ type = "droptail", limit = 100 }"#, true);
        assert!(s.dirs[2].lean > 0 && s.dirs[2].fifo_up);
        s.run_until(aqm::Time::from_secs_f64(1.5)).unwrap();
        assert!(s.dirs[2].lean == 0 && !s.dirs[2].fifo_up && !s.dirs[2].up);
        s.run_until(aqm::Time::from_secs_f64(2.5)).unwrap();
        assert!(s.dirs[2].lean > 0 && s.dirs[2].fifo_up);
    }
}
