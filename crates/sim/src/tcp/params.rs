//! The sender's parameters and counters: the variants, [`TcpParams`] with its defaults
//! (see the parent module), [`TcpStats`].

use serde::Serialize;

use super::{BbrParams, CubicParams, LedbatParams, PacingParams, PragueParams, Rules};

/// `max_window` when the receiver window is not the limit.
pub const UNLIMITED: u32 = u32::MAX;

/// `max_window` as written: `null` for [`UNLIMITED`].
fn window_or_null<S: serde::Serializer>(w: &u32, s: S) -> Result<S::Ok, S::Error> {
    if *w == UNLIMITED { s.serialize_none() } else { s.serialize_some(w) }
}

/// The congestion control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Slow start, congestion avoidance, fast retransmit, go-back-N (Jacobson 1988).
    Tahoe,
    /// Tahoe plus fast recovery (RFC 2581); recovery ends at the first new ACK.
    Reno,
    /// Reno with partial-ACK handling (RFC 6582 or Lin & Morris 11.2).
    NewReno,
    /// CUBIC (RFC 9438) with NewReno's loss recovery (or SACK's).
    Cubic,
    /// DCTCP (RFC 8257): ECN marks answered in proportion to their fraction; losses
    /// as NewReno.
    Dctcp,
    /// LEDBAT (RFC 6817): a less-than-best-effort window steered by the queueing
    /// delay; losses as NewReno (or SACK).
    Ledbat,
    /// BBR v1 (Linux's `tcp_bbr.c`, draft-cardwell-iccrg-bbr-congestion-control-00):
    /// a model of the path's bandwidth and round trip sets the pacing rate and the
    /// window; SACK's loss recovery.
    Bbr,
    /// TCP Prague (draft-briscoe-iccrg-prague-congestion-control): ECT(1), accurate
    /// ECN feedback answered in proportion (DCTCP's response), paced, RTT-independent,
    /// classic on loss and on a classic ECN queue.
    Prague,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Cubic => "cubic",
            Variant::Dctcp => "dctcp",
            Variant::Ledbat => "ledbat",
            Variant::Bbr => "bbr",
            Variant::Prague => "prague",
        }
    }

    /// Does the variant answer partial ACKs as NewReno does?
    #[inline]
    pub(super) fn newreno_recovery(self) -> bool {
        !matches!(self, Variant::Tahoe | Variant::Reno)
    }
}

/// TCP parameters (see the module docs for the defaults).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpParams {
    pub variant: Variant,
    /// Receiver (maximum) window, packets; [`UNLIMITED`] (the default) for none
    /// (`null` when serialized).
    #[serde(serialize_with = "window_or_null")]
    pub max_window: u32,
    /// Initial congestion window, packets.
    pub init_cwnd: f64,
    /// Initial slow-start threshold, packets.
    pub ssthresh: f64,
    /// Packets to send; 0 = unlimited.
    pub packets: u64,
    /// Bytes on the wire of a data packet.
    pub packet_size: u32,
    /// Bytes on the wire of an ACK.
    pub ack_size: u32,
    pub delayed_ack: bool,
    /// Seconds.
    pub delack_interval: f64,
    /// Seconds.
    pub min_rto: f64,
    /// Seconds.
    pub max_rto: f64,
    /// Seconds.
    pub initial_rto: f64,
    /// Timer granularity, seconds: RTT samples are rounded to ticks.
    pub tick: f64,
    /// Cap of the exponential backoff multiplier.
    pub max_backoff: u32,
    pub dupack_threshold: u32,
    pub ecn: bool,
    /// SACK loss recovery (RFC 6675); the receiver sends SACK blocks (RFC 2018).
    pub sack: bool,
    /// Most SACK blocks on an ACK (3 with TCP timestamps, 4 without).
    pub sack_blocks: u32,
    /// Data packets carry ECT(1) rather than ECT(0) (L4S, RFC 9331; with `ecn`).
    pub ect1: bool,
    /// CUBIC's constants.
    pub cubic: CubicParams,
    /// DCTCP's weight g of a new observation of the marked fraction.
    pub dctcp_g: f64,
    /// LEDBAT's constants (a LEDBAT flow's only; the defaults when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledbat: Option<LedbatParams>,
    /// Pacing (Linux's internal pacing, see `pacing`): on for BBR, which sets the
    /// rate; for the other variants the rate is `tcp_update_pacing_rate`'s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pacing: Option<PacingParams>,
    /// BBR's constants (a BBR flow's only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bbr: Option<BbrParams>,
    /// Prague's constants (a Prague flow's only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prague: Option<PragueParams>,
    /// Fault injection for tests: the first transmission of these packets is lost.
    pub drop: Vec<u32>,
    /// The rules where the RFCs and the peers part ways (what a profile sets).
    #[serde(flatten)]
    pub rules: Rules,
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            variant: Variant::NewReno,
            max_window: UNLIMITED,
            init_cwnd: 2.0,
            ssthresh: 1e9,
            packets: 0,
            packet_size: 1000,
            ack_size: 40,
            delayed_ack: false,
            delack_interval: 0.1,
            // RFC 6298 (2.4): an RTO below 1 s is rounded up to 1 s; (2.5) a maximum of
            // at least 60 s; (2.1) 1 s before the first sample
            min_rto: 1.0,
            max_rto: 60.0,
            initial_rto: 1.0,
            tick: 0.01,
            max_backoff: 64,
            dupack_threshold: 3,
            ecn: false,
            sack: false,
            sack_blocks: 3,
            ect1: false,
            cubic: CubicParams::default(),
            dctcp_g: 1.0 / 16.0,
            ledbat: None,
            pacing: None,
            bbr: None,
            prague: None,
            drop: Vec::new(),
            rules: Rules::default(),
        }
    }
}

/// Counters of a sender.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TcpStats {
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    /// Packets lost by fault injection (`drop`).
    pub injected_losses: u64,
}
