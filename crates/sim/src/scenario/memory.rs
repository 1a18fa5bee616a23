//! The memory budget (`max_memory`): a scenario whose queues and lines could make the
//! simulator hold more packets than the budget allows is refused before it runs.
//!
//! The estimate is a worst case: every link direction's buffer full (its packet
//! limit, or its byte limit in packets of the scenario's smallest size) and its line
//! full (rate x propagation delay in packets of the smallest size, plus one), each
//! packet [`PACKET_BYTES`], plus [`FLOW_BYTES`] per flow and [`WINDOW_BYTES`] per
//! packet of the TCP flows' windows (their `max_window`s, at most twice the packets
//! the queues and lines hold: an unlimited window is bounded by the network). The
//! packets a run holds
//! cannot exceed it: a direction holds its waiting packets and those on its line, and
//! a packet handed on early is held by the next direction instead. The run checks the
//! packets it actually holds against the same budget as it goes (see the simulator's
//! guards), as a second line.
//!
//! The default budget is half of the machine's physical memory ([`default_budget`]).

use aqm::QueueDiscipline;
use aqm::config::BuildContext;

use super::{FlowDef, LinkDef};
use crate::error::{Result, SimError};

/// Bytes the simulator needs per packet it holds: a FIFO slot (40 bytes) twice over,
/// as a ring buffer doubles its room when it grows.
pub const PACKET_BYTES: u64 = 80;

/// An allowance of bytes per flow for its state (senders, receivers, monitors).
pub const FLOW_BYTES: u64 = 4096;

/// The budget when the machine's memory cannot be read: 4 GiB.
const FALLBACK_BUDGET: u64 = 4 << 30;

/// The machine's physical memory in bytes, if the system says.
pub fn physical_memory() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system configuration values.
        let (pages, size) =
            unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
        if pages > 0 && size > 0 {
            return Some((pages as u64).saturating_mul(size as u64));
        }
    }
    None
}

/// The budget when the scenario gives no `max_memory`: half of the machine's physical
/// memory (4 GiB if it cannot be read).
pub fn default_budget() -> u64 {
    physical_memory().map_or(FALLBACK_BUDGET, |m| m / 2)
}

/// Bytes a TCP flow may need per packet of its window: the packets a sender emits at
/// once (16 bytes each, before its host sends them on) and the receiver's record of
/// packets received out of order (8).
pub const WINDOW_BYTES: u64 = 24;

/// One direction's share of the estimate.
struct Share {
    /// Where the queue was given (`link[0].queue`).
    path: String,
    /// The direction (`a->b`).
    dir: String,
    /// Packets its buffer and device queue may hold.
    limit: u64,
    /// Packets its line may hold (rate x delay, plus one).
    line: u64,
}

/// Each direction's share of the estimate: its buffer (the limit in packets, or its
/// byte limit in packets of `smallest` bytes, plus the device queue) and its line.
fn shares(nodes: &[String], links: &[LinkDef], smallest: u64) -> Vec<Share> {
    let mut shares = Vec::with_capacity(2 * links.len());
    for l in links {
        for (side, q) in [&l.queue_ab, &l.queue_ba].into_iter().enumerate() {
            let ctx = BuildContext { link_rate_bps: Some(l.rate_bps), seed: Some(1) };
            // (validation built every queue already; one that fails here holds nothing)
            let lim = if q.holds_packets() {
                q.build_qdisc::<aqm::PacketInfo>(&ctx).map(|d| aqm::Qdisc::limit(&d))
            } else {
                q.build(&ctx).map(|d| d.limit())
            };
            let Ok(lim) = lim else { continue };
            let by_bytes = lim.bytes.map(|b| b.div_ceil(smallest));
            let limit = match (lim.packets.map(u64::from), by_bytes) {
                (Some(p), Some(b)) => p.min(b),
                (Some(p), None) => p,
                (None, Some(b)) => b,
                (None, None) => 0,
            };
            let line = (l.rate_bps * l.delay.as_secs_f64() / (8.0 * smallest as f64)).ceil();
            let line = if line.is_finite() { line.min(u64::MAX as f64) as u64 } else { u64::MAX };
            let (from, to) = if side == 0 { (l.a, l.b) } else { (l.b, l.a) };
            let (path, dir) =
                (l.queue_paths[side].clone(), format!("{}->{}", nodes[from], nodes[to]));
            let limit = limit.saturating_add(u64::from(l.device_queue));
            shares.push(Share { path, dir, limit, line: line.saturating_add(1) });
        }
    }
    shares
}

/// Refuse the scenario if its worst case (see the module documentation) is above
/// `budget` bytes. `smallest` is the smallest packet size of the scenario; `given`
/// says whether the scenario set `max_memory`.
pub(super) fn check(
    nodes: &[String],
    links: &[LinkDef],
    flows: &[FlowDef],
    smallest: u32,
    budget: u64,
    given: bool,
) -> Result<()> {
    let smallest = smallest.max(1) as u64;
    let mut shares = shares(nodes, links, smallest);
    let packets = shares.iter().fold(0u64, |n, s| n.saturating_add(s.limit).saturating_add(s.line));
    // At most the max_windows; the flights of all flows at most what the queues and
    // lines hold (a window grows only while used), their receivers' records as many again.
    let windows = flows
        .iter()
        .filter(|f| f.kind.is_tcp())
        .fold(0u64, |n, f| n.saturating_add(u64::from(f.tcp.max_window)))
        .min(packets.saturating_mul(2));
    let window_bytes = windows.saturating_mul(WINDOW_BYTES);
    let bytes = packets
        .saturating_mul(PACKET_BYTES)
        .saturating_add((flows.len() as u64).saturating_mul(FLOW_BYTES))
        .saturating_add(window_bytes);
    if bytes <= budget {
        return Ok(());
    }
    let whose =
        if given { "max_memory" } else { "the default max_memory, half the machine's memory" };
    shares.sort_by_key(|s| std::cmp::Reverse(s.limit.saturating_add(s.line)));
    let top: Vec<String> = shares
        .iter()
        .take(3)
        .map(|s| {
            format!(
                "{} of {} ({} packets buffered + {} on the line)",
                s.path, s.dir, s.limit, s.line
            )
        })
        .collect();
    let msg = format!(
        "the queues may hold up to {packets} packets ({} with the flows' state), above {whose} \
         ({}); the largest: {}; allowed: lower their limit (or link rate x delay), or raise \
         max_memory (bytes, e.g. \"16GB\")",
        show_bytes(bytes),
        show_bytes(budget),
        top.join(", ")
    );
    let path = match shares.first() {
        Some(s) if s.limit >= s.line => format!("{}.limit", s.path),
        _ => "max_memory".to_string(),
    };
    Err(SimError::at(&path, msg))
}

/// `n` bytes for a reader: "12.3 GB".
pub fn show_bytes(n: u64) -> String {
    let n = n as f64;
    match n {
        _ if n >= 1e9 => format!("{:.1} GB", n / 1e9),
        _ if n >= 1e6 => format!("{:.1} MB", n / 1e6),
        _ => format!("{n} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_memory_is_read() {
        // (every machine this runs on is a unix one with some memory)
        let m = physical_memory().expect("physical memory");
        assert!(m >= 1 << 26, "{m}");
        assert_eq!(default_budget(), m / 2);
    }
}
