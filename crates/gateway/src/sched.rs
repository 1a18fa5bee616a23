//! The gateway's CPU scheduling: a real-time policy, so that the emulated link's
//! departures leave when due on a machine shared with other work, as a router's
//! forwarding path is never descheduled by unrelated processes.
//!
//! - `SCHED_FIFO` at `--realtime PRIO` (1-99; 0 leaves the default policy): the thread
//!   runs whenever it is runnable, ahead of every normal process, until it sleeps in
//!   `ppoll` again. Under the default policy a busy machine can leave it runnable but
//!   waiting for a CPU for a time slice (milliseconds), and every frame that fell due
//!   meanwhile then leaves at once. The kernel's real-time throttling
//!   (`sched_rt_runtime_us`, 95 % of each second by default) still bounds what a
//!   real-time thread that never sleeps (a flood it cannot keep up with) takes.
//! - Timer slack 1 ns (`PR_SET_TIMERSLACK`; the default is 50 us): how much later than
//!   asked the kernel may end `ppoll`'s timeout to merge wake-ups. Real-time threads get
//!   none whatever it says; under the default policy it bounds how late a departure's
//!   wake-up may be.
//!
//! What cannot be applied (no CAP_SYS_NICE, a container without real-time bandwidth) is
//! reported: [`Scheduling::error`] in the statistics and a warning on standard error.

use serde::Serialize;

/// The highest real-time priority Linux gives `SCHED_FIFO`.
pub const MAX_PRIORITY: u32 = 99;

/// The timer slack the gateway asks for, ns.
pub const TIMER_SLACK_NS: u64 = 1;

/// The scheduling the gateway ran with (`gateway.scheduling` in the statistics).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Scheduling {
    /// The real-time priority asked for (`--realtime`; 0: none asked).
    pub requested_priority: u32,
    /// The policy the thread ran under: "fifo" or "other" (the default).
    pub policy: String,
    /// Its real-time priority (0 under "other").
    pub priority: u32,
    /// The thread's timer slack as the kernel reports it after the settings, ns.
    pub timer_slack_ns: u64,
    /// What could not be applied, and why (null when everything asked for was).
    pub error: Option<String>,
}

fn last_os_error(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// The calling thread's policy and real-time priority.
fn current() -> (String, u32) {
    let policy = unsafe { libc::sched_getscheduler(0) };
    let mut p = libc::sched_param { sched_priority: 0 };
    unsafe { libc::sched_getparam(0, &mut p) };
    let name = match policy {
        libc::SCHED_FIFO => "fifo",
        libc::SCHED_RR => "rr",
        _ => "other",
    };
    (name.to_string(), p.sched_priority.max(0) as u32)
}

/// Apply the timer slack and, when `realtime` > 0, `SCHED_FIFO` at that priority to the
/// calling thread (the gateway's one thread); report what it runs with. `realtime`
/// must be at most [`MAX_PRIORITY`] (the configuration checks it).
pub fn apply(realtime: u32) -> Scheduling {
    let mut errors = Vec::new();
    let slack = TIMER_SLACK_NS as libc::c_ulong;
    if unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, slack, 0, 0, 0) } != 0 {
        errors.push(last_os_error("PR_SET_TIMERSLACK 1 ns"));
    }
    if realtime > 0 {
        let p = libc::sched_param { sched_priority: realtime.min(MAX_PRIORITY) as libc::c_int };
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } != 0 {
            errors.push(last_os_error(&format!("SCHED_FIFO priority {realtime}")));
        }
    }
    let (policy, priority) = current();
    let got = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    Scheduling {
        requested_priority: realtime,
        policy,
        priority,
        timer_slack_ns: got.max(0) as u64,
        error: if errors.is_empty() { None } else { Some(errors.join("; ")) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_policy_keeps_the_thread_as_it_was_with_one_ns_of_slack() {
        // In a thread of its own: the settings are per thread.
        let (before, s) = std::thread::spawn(|| (current(), apply(0))).join().unwrap();
        assert_eq!(s.requested_priority, 0);
        assert_eq!((s.policy.clone(), s.priority), before);
        assert_eq!(s.timer_slack_ns, TIMER_SLACK_NS, "{s:?}");
        assert_eq!(s.error, None);
    }

    #[test]
    fn fifo_is_applied_or_the_refusal_is_reported() {
        let s = std::thread::spawn(|| apply(10)).join().unwrap();
        assert_eq!(s.requested_priority, 10);
        match &s.error {
            // Applied: the kernel reports the policy and priority asked for.
            None => assert_eq!((s.policy.as_str(), s.priority), ("fifo", 10)),
            // Refused (no CAP_SYS_NICE): said, and the thread left under its policy.
            Some(e) => {
                assert!(e.starts_with("SCHED_FIFO priority 10: "), "{e}");
                assert_ne!(s.policy, "fifo");
            }
        }
    }
}
