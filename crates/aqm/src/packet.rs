//! What a queue discipline sees of a packet, and what it answers.

/// The part of a packet an AQM algorithm may look at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketInfo {
    /// Size on the wire, bytes.
    pub size: u32,
    /// Flow identifier (FRED keeps per-flow state keyed by it).
    pub flow: u32,
    /// ECN-capable transport (ECT set): a "mark" may set CE instead of dropping.
    pub ecn_capable: bool,
    /// ECT(1): a scalable (L4S) sender, RFC 9331. DualPI2 classifies on it; the other
    /// disciplines see only `ecn_capable`, which is also set.
    pub ect1: bool,
    /// Arrives with CE already set (an upstream queue marked it). DualPI2 classifies
    /// CE packets into its L queue (RFC 9332); the other disciplines ignore it.
    pub ce: bool,
}

impl PacketInfo {
    pub fn new(size: u32, flow: u32) -> Self {
        PacketInfo { size, flow, ecn_capable: false, ect1: false, ce: false }
    }
}

/// Anything a [`crate::Queue`] can hold: it must say what the AQM sees of it.
pub trait Packet {
    fn info(&self) -> PacketInfo;
}

impl Packet for PacketInfo {
    fn info(&self) -> PacketInfo {
        *self
    }
}

/// The queue as the discipline sees it at a decision: the packets waiting,
/// **not** counting a packet being transmitted (as ns-2 and Linux count it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Packets waiting.
    pub packets: u32,
    /// Bytes waiting.
    pub bytes: u64,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// A random, probabilistic drop by the AQM (RED's p_a, gentle region included).
    Early,
    /// A deterministic drop by the AQM's average (avg >= max_th, or >= 2 max_th in
    /// gentle mode), not caused by a full buffer.
    Forced,
    /// The physical buffer (`limit` / `limit_bytes`) is full.
    Overflow,
    /// FRED: the flow is over its per-flow allowance (maxq, avgcq, strikes, two-packet mode).
    FlowLimit,
}

impl DropReason {
    /// Early drops are the random ones; all others count as forced.
    pub fn is_early(self) -> bool {
        matches!(self, DropReason::Early)
    }
}

/// The answer to an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accept the packet unchanged.
    Enqueue,
    /// Accept the packet and set its congestion-experienced mark (ECN).
    Mark,
    /// Discard the arriving packet.
    Drop(DropReason),
    /// The buffer is full: accept the arriving packet and discard the queued packet
    /// at position `victim` (0 = head of the queue). Drop-from-front and Random Drop.
    Evict { victim: u32 },
}

impl Verdict {
    /// The four-way classification used by the Python API and the monitors:
    /// `"enqueue"`, `"mark"`, `"drop_early"` or `"drop_forced"` (an eviction is a forced drop).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Enqueue => "enqueue",
            Verdict::Mark => "mark",
            Verdict::Drop(r) if r.is_early() => "drop_early",
            Verdict::Drop(_) | Verdict::Evict { .. } => "drop_forced",
        }
    }
}
