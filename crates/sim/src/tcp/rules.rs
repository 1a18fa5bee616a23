//! The rules a sender follows where the RFCs, ns-2 2.35, ns-3 3.37 and Linux part ways:
//! each a key of the scenario's flow table, grouped in [`Rules`], the part of
//! [`super::TcpParams`] that a profile sets (see `crate::profile`). The defaults are
//! the RFCs'; a value that follows a peer says which in its documentation.

use serde::Serialize;

use super::cubic::CubicRules;
use super::rto::RtoEstimator;
use super::rtt::RttSampling;

/// Which NewReno.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NewRenoFlavor {
    /// RFC 6582: on a full ACK, cwnd = ssthresh.
    #[default]
    Rfc6582,
    /// Lin & Morris 1997, Section 11.2: recovery ends only once the ACK covers the
    /// original window *and* `ack + ssthresh >= snd_max`; cwnd is then set to the
    /// packets in flight plus one.
    LinMorris,
}

/// When a NewReno sender restarts its retransmission timer on partial ACKs (RFC 6582
/// Section 4 describes both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NewRenoTimer {
    /// Only on the first partial ACK of a recovery, so that a window with many
    /// losses ends in a timeout (and go-back-N) instead of one retransmission per
    /// round trip for as long as it takes (ns-2's `newreno_changes1_ 1`, its default).
    #[default]
    Impatient,
    /// On every partial ACK (RFC 6298 rule 5.3; Linux re-arms it on every ACK of data).
    #[serde(rename = "steady")]
    SlowButSteady,
}

/// What ends the exponential backoff of the retransmission timer (`rto_backoff`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoBackoff {
    /// Karn's rule (RFC 6298 Section 5): the backed-off RTO is kept until a valid RTT
    /// sample (a packet not retransmitted) is acknowledged.
    #[default]
    Karn,
    /// Any ACK of new data recomputes the RTO from the estimator (ns-3 3.37).
    Ack,
}

/// When duplicate ACKs may start a new fast retransmit after a reduction
/// (`recover_rule`; `recover` is one past the highest packet sent when it began).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoverRule {
    /// Only once they acknowledge more than that (ack > recover): RFC 6582 Section 3.2
    /// step 2 ("covers more than recover"), ns-2's `bug_fix_` (`highest_ack_ >
    /// recover_`), ns-3 with the peer benchmark's hook. The duplicate ACKs that a
    /// go-back-N's needless copies raise once everything is acknowledged start none.
    #[default]
    Beyond,
    /// Once they acknowledge everything sent then (ack >= recover), one packet earlier
    /// than the RFC (ns-3 3.37 compares with `>=`; aqmlab's default until the RFC's
    /// rule replaced it).
    Cover,
}

/// What entering loss recovery does to a running retransmission timer
/// (`fast_retransmit_timer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrTimer {
    /// The fast retransmission restarts it, so the retransmission has a whole RTO to be
    /// acknowledged (ns-2's `reset_rtx_timer` on a fast retransmit; Linux re-arms it
    /// when it retransmits the head).
    #[default]
    Restart,
    /// It keeps running from the last ACK of new data: RFC 6298 rule 5.1 starts the
    /// timer on a send only when it is not running (ns-3 3.37). A retransmission whose
    /// ACK comes later than one RTO after that ACK then times out.
    Keep,
    /// As `Restart`, and every later retransmission of the head (the oldest packet not
    /// acknowledged) in SACK's recovery restarts it too, unless RACK's reorder timer is
    /// pending (Linux's `tcp_xmit_retransmit_queue`: `skb == rtx_head &&
    /// icsk_pending != ICSK_TIME_REO_TIMEOUT` re-arms the RTO). A lost retransmission of
    /// the head, sent again when RACK deems it lost, then has a whole RTO too.
    Head,
}

/// What the window does in the round trip after an ECN reduction (`ecn_cwr`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnCwr {
    /// The window stays until an ACK covers a packet sent after the reduction, as
    /// through a loss's recovery (RFC 3168 Section 6.1.2 answers ECN-Echo as a loss):
    /// ns-2 2.35 (no window opening on an ACK with ECN-Echo, which its receiver sets
    /// until that packet's CWR) and ns-3 3.37's CWR state; Linux's ends one ACK earlier.
    #[default]
    Hold,
    /// Congestion avoidance goes on from ssthresh at once, from the ACK that carried
    /// the echo on.
    Grow,
}

/// What a reduction starts from (`loss_ssthresh`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossSsthresh {
    /// RFC 5681 eq. 4 (ssthresh = FlightSize / 2), RFC 9438 Sections 4.6 to 4.8: a fast
    /// retransmit, an ECN-Echo or a timeout outside a loss episode reduces from the
    /// window, cwnd capped by the receiver window (the data in flight: the window
    /// grows only while the sender fills it, `app_limited`); a timeout while an
    /// earlier loss is still being repaired (in fast recovery, or before the ACKs cover
    /// what was sent when the last reduction began) keeps the ssthresh that episode
    /// set: RFC 5681 Section 3.1 holds ssthresh at a repeated
    /// timeout, and the flight size then is still the window the episode began with,
    /// not the window fast recovery inflated (Linux's `tcp_enter_loss` likewise).
    #[default]
    Rfc,
    /// ssthresh = max(floor(cwnd / 2), 2) from the window as it stands (ns-2's
    /// `window() / 2`): at a timeout in fast recovery the inflated window (capped by
    /// the receiver window), at a repeated timeout the window of 1 (ssthresh 2).
    Cwnd,
    /// ssthresh = max(pipe / 2, 2), the packets in flight as ns-3 3.37's
    /// `TcpNewReno::GetSsThresh` receives them (`BytesInFlight()`: RFC 6675's pipe, which
    /// leaves out the SACKed and lost packets), at a fast retransmit, an ECN-Echo and a
    /// timeout; cwnd then starts from ssthresh. (CUBIC reduces as with `"cwnd"`.)
    Pipe,
}

/// The window through a fast recovery without SACK (`recovery_window`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryWindow {
    /// RFC 5681 Section 3.2 and RFC 6582 Section 3.2: cwnd = ssthresh + 3 at the fast
    /// retransmit, inflated by one per duplicate ACK, deflated by a partial ACK's
    /// newly acknowledged packets less one, and set to ssthresh (an integer number of
    /// packets) by the ACK that ends the recovery, which opens the window no further.
    #[default]
    Rfc,
    /// ns-2 2.35's arithmetic (`Agent/TCP/Reno` and `/Newreno`): the fast retransmit
    /// sets cwnd to exactly half the window (`TcpAgent::slowdown()` with
    /// `precisionReduce_ true`, its default since 2006: `cwnd_ = windowd() / 2`,
    /// unrounded, at least 1; ssthresh is its integer part, at least 2); the inflation
    /// is kept apart from it (`dupwnd_`, `RenoTcpAgent::window()`); a partial ACK
    /// takes its newly acknowledged packets less one from the inflation, and from the
    /// window only what the inflation cannot cover (`NewRenoTcpAgent::partialnewack()`,
    /// `partial_window_deflation_ 1`); the ACK that ends the recovery drops the
    /// inflation, leaves the window as it is (`exit_recovery_fix_ 0`) and opens it as
    /// every new ACK does (`recv_newack_helper()`'s `opencwnd()`); a timeout in recovery
    /// drops the inflation before it reduces (`RenoTcpAgent::timeout()`: `dupwnd_ = 0`).
    Ns2,
}

/// What the window does while the sender does not fill it (`app_limited`): the
/// application has less to send than the window allows, or the receiver window is
/// the limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AppLimited {
    /// It grows only while the sender is window-limited (RFC 7661 Section 4.3; RFC
    /// 9438 Section 4.6's condition for reducing from cwnd): once in the last window
    /// of data the window kept the sender from sending, or, in slow start, while cwnd
    /// is below twice the most packets in flight in that window (Linux's
    /// `tcp_is_cwnd_limited`).
    #[default]
    Hold,
    /// It grows on every ACK of new data, used or not (ns-2 2.35, ns-3 3.37).
    Grow,
}

/// What a retransmission timeout does to the SACK scoreboard (`rto_sack`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoSack {
    /// Forget every SACK (RFC 2018 Section 8, RFC 6675 Section 5.1: the receiver may
    /// have reneged): the go-back-N resends what the receiver holds.
    #[default]
    Forget,
    /// Keep them unless the receiver reneged (Linux's `tcp_timeout_mark_lost`,
    /// tcp_input.c: reneging is the head SACKed, which the simulator's receivers never
    /// do): the go-back-N passes over the SACKed packets.
    Keep,
}

/// How the window of the Reno family (Tahoe, Reno, NewReno, DCTCP) grows in slow start
/// (outside HyStart++) and congestion avoidance (`reno_growth`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenoGrowth {
    /// RFC 5681: one packet per ACK of new data in slow start (eq. 2 with full-sized
    /// segments), 1/cwnd per ACK in congestion avoidance (eq. 3), whatever the ACK
    /// acknowledges.
    #[default]
    Rfc,
    /// Linux's (tcp_cong.c, `tcp_reno_cong_avoid`, which DCTCP uses too): the window is
    /// a whole number of packets; slow start adds the packets each ACK acknowledges, up
    /// to ssthresh (`tcp_slow_start`), and the rest count toward congestion avoidance,
    /// which adds one packet once cwnd packets have been acknowledged
    /// (`tcp_cong_avoid_ai`: its counter `snd_cwnd_cnt`, zeroed at each reduction).
    /// With delayed ACKs the window grows by one packet per round trip, as with an ACK
    /// per packet.
    Segments,
}

/// The rules of a sender (and its receiver) where the RFCs and the peers part ways,
/// each a key of the flow table; what a profile sets besides the numbers.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Rules {
    pub newreno: NewRenoFlavor,
    pub newreno_timer: NewRenoTimer,
    /// What ends the backoff.
    #[serde(skip_serializing_if = "is_default")]
    pub rto_backoff: RtoBackoff,
    /// Whether a fast retransmission restarts the retransmission timer.
    #[serde(skip_serializing_if = "is_default")]
    pub fast_retransmit_timer: FrTimer,
    /// When duplicate ACKs may start a new fast retransmit.
    #[serde(skip_serializing_if = "is_default")]
    pub recover_rule: RecoverRule,
    /// Which ACKs give RTT samples.
    #[serde(skip_serializing_if = "is_default")]
    pub rtt_sampling: RttSampling,
    /// How the samples give the retransmission timeout.
    #[serde(skip_serializing_if = "is_default")]
    pub rto_estimator: RtoEstimator,
    /// What a reduction halves (the Reno family).
    #[serde(skip_serializing_if = "is_default")]
    pub loss_ssthresh: LossSsthresh,
    /// The window through a fast recovery without SACK.
    #[serde(skip_serializing_if = "is_default")]
    pub recovery_window: RecoveryWindow,
    /// The window in the round trip after an ECN reduction.
    #[serde(skip_serializing_if = "is_default")]
    pub ecn_cwr: EcnCwr,
    /// The window while the sender does not fill it.
    #[serde(skip_serializing_if = "is_default")]
    pub app_limited: AppLimited,
    /// Lin & Morris 11.3: with cwnd < 10, send a new packet on each of the first two duplicate ACKs.
    pub tiny_window: bool,
    /// Limited transmit (RFC 3042): a new packet on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// HyStart++ (RFC 9406) in the first slow start.
    #[serde(skip_serializing_if = "is_default")]
    pub hystart: bool,
    /// Proportional Rate Reduction (RFC 6937) in SACK's loss recovery.
    #[serde(skip_serializing_if = "is_default")]
    pub prr: bool,
    /// RACK-TLP (RFC 8985): time-based loss detection and tail loss probes, with SACK.
    #[serde(skip_serializing_if = "is_default")]
    pub rack: bool,
    /// The receiver's quick-ACK mode (Linux's): every packet acknowledged at once for
    /// the first 16 of the connection and after a retransmission arrives.
    #[serde(skip_serializing_if = "is_default")]
    pub quickack: bool,
    /// The SACKs at a retransmission timeout.
    #[serde(skip_serializing_if = "is_default")]
    pub rto_sack: RtoSack,
    /// How the Reno family's window grows.
    #[serde(skip_serializing_if = "is_default")]
    pub reno_growth: RenoGrowth,
    /// CUBIC's rules (ns-3 3.37's where they depart from RFC 9438).
    #[serde(flatten)]
    pub cubic: CubicRules,
}

/// Is `v` its type's default (the RFCs' rule)?
pub(super) fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}
