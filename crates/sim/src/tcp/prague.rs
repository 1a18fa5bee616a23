//! TCP Prague (`variant = "prague"`), the scalable sender of L4S, as
//! draft-briscoe-iccrg-prague-congestion-control-04 describes it and Linux's
//! `tcp_prague.c` (the L4S team's tree) implements it, in packets:
//!
//! - **Identification** (RFC 9331 Section 4.1): data packets carry ECT(1)
//!   (`ect1` is forced on; a Prague flow is ECN-capable whatever `ecn` says).
//! - **Accurate ECN feedback** (RFC 9331 Section 4.2; draft-ietf-tcpm-accurate-ecn Section 3.2): the
//!   receiver counts the CE-marked packets it receives (`r.cep`, from 5) and every ACK
//!   carries the count's three low bits in its ACE field (the ECE, CWR and AE flags);
//!   the sender adds `(ACE - s.cep) mod 8` to its own count, so each ACK tells exactly
//!   how many packets were marked since the last. With delayed ACKs, a change of the
//!   CE state first acknowledges the packets before it (change-triggered ACKs), as
//!   DCTCP's receiver does.
//! - **Moving average** (draft -01 Section 2.3.2, `prague_update_alpha`): once per round
//!   trip, `alpha = (1 - g) alpha + g F`, g = 1/16, F the fraction of the packets
//!   delivered in the round that were CE-marked; alpha starts at 1 and is not moved
//!   before the first CE mark (Linux's `saw_ce`).
//! - **Multiplicative decrease on ECN** (Section 2.4.2, `prague_enter_cwr`): an ACK
//!   that reports CE marks outside a loss recovery, at most once per round trip (the
//!   reduction's round ends when the ACKs pass what was sent when it began, Linux's CWR
//!   state), sets `cwnd = cwnd (1 - alpha / 2)` (at least 2) and `ssthresh = cwnd`.
//! - **Additive increase** (the draft's additive increase, `prague_update_cwnd`): every ACK outside a
//!   loss recovery, in CWR too, opens the window by the packets it delivered that were
//!   not marked: in slow start one packet each, in congestion avoidance `ai / cwnd`
//!   each, so a round trip with no mark adds `ai` packets.
//! - **Reduced RTT-dependence** (Section 2.4.4, Linux's default `RTT_CONTROL_RATE`):
//!   once `prague_rtt_transition` (500) rounds have passed since slow start, a flow
//!   whose smoothed RTT R is below `prague_rtt_target` (T, 25 ms) grows by
//!   `ai = (R / T)^2` per round trip instead of 1, so its rate grows by `1/T^2` packets
//!   per second per second whatever R; and it moves alpha and reduces at most once per
//!   T. Flows below T thus converge to the same rate rather than to rates in the
//!   inverse ratio of their RTTs. `prague_rtt_target = 0` turns this off; RTTs above
//!   100 ms are not scaled (Linux's `MAX_SCALED_RTT`).
//! - **Loss** (RFC 9331 Section 4.3's Reno-friendly response to loss; `prague_enter_loss`): the classic response, half the
//!   window, and the sender's loss recovery (NewReno's, or SACK's with `sack`); the
//!   window does not grow in the recovery. A path whose queues never mark (no ECN on
//!   the path) thus sees a Reno sender: the documented fallback.
//! - **Classic ECN AQM detection** (RFC 9331 Section 4.3; the draft's fall-back on
//!   detection of a Classic ECN AQM; Briscoe and Ahmed, "TCP Prague
//!   Fall-back on Detection of a Classic ECN AQM", arXiv:1911.00710; Linux's
//!   `prague_classic_ecn_detection` with `prague_ecn_fallback = 1`): a score `c`,
//!   moved once per round trip (after the first CE mark) by `V lg(mdev / V0)` and, when
//!   the queue's delay `d = srtt_pace - min_rtt` is above `D0`, by `D lg(d / D0)`
//!   (V = D = 1/2, V0 = 750 us, D0 = 2 ms), kept in [0, 17]; srtt_pace and mdev_pace are
//!   the per-ACK RTT samples' moving average and mean deviation with gains `2^-s` and
//!   `2^-(s+1)`, `s = lg ssthresh + lg ssthresh / 2 + 1` (at most 18, set at each
//!   reduction). Above 8 (`L_STICKY`) the reduction's alpha is at least `0.625 (min(c,
//!   9) - 8)`: the flow answers a Classic ECN queue (PIE, CoDel, RED marking ECT(1) as
//!   ECT(0)) nearly as CUBIC does (a 30 % reduction per marked round trip). Linux's
//!   module turns the detection off by default; aqmlab turns it on
//!   (`prague_ecn_fallback = false` turns it off) since the issue asks for the
//!   fallback. Linux takes base-2 logarithms by `ilog2` with a carried remainder; this
//!   takes them exactly.
//! - **Pacing** (the draft's packet pacing, `prague_update_pacing_rate`): always paced, at
//!   `cwnd / srtt` in congestion avoidance and twice that while `cwnd < ssthresh / 2`
//!   (the `pacing_*_ratio` keys do not apply), from an RTT estimate of its own at the
//!   samples' full resolution (gain 1/8), so that the timer's `tick` does not round it.
//!
//! Where this departs from Linux: windows and counts are in packets, not bytes; the
//! RTT samples are those of the oldest packet an ACK newly covers (sent once); the
//! minimum RTT is the minimum over the run (Linux's window is 5 minutes).

use serde::Serialize;

use super::TcpSender;
use crate::packet::{Pkt, flags};
use aqm::Time;

/// The keys of a Prague flow.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PragueParams {
    /// The reference RTT of RTT-independence, s (25 ms, `prague_rtt_target`); 0: off.
    pub rtt_target: f64,
    /// Rounds after slow start before the flow becomes RTT-independent (500).
    pub rtt_transition: u32,
    /// The classic ECN AQM detection and fallback (on).
    pub ecn_fallback: bool,
}

impl Default for PragueParams {
    fn default() -> Self {
        PragueParams { rtt_target: 0.025, rtt_transition: 500, ecn_fallback: true }
    }
}

/// EWMA gain of alpha, g = 1/16 (`PRAGUE_SHIFT_G`).
const G: f64 = 1.0 / 16.0;
/// AccECN's initial CE packet counter (both ends).
const CEP_INIT: u32 = 5;
/// RTTs above this are not scaled (`MAX_SCALED_RTT`), s.
const MAX_SCALED_RTT: f64 = 0.1;
/// The detection's thresholds and weights (`L_STICKY`, `CLASSIC_ECN`, `C_STICKY`,
/// V, D, V0, D0).
const L_STICKY: f64 = 8.0;
const CLASSIC_ECN: f64 = L_STICKY + 1.0;
const C_STICKY: f64 = CLASSIC_ECN + L_STICKY;
const V: f64 = 0.5;
const D: f64 = 0.5;
const V0_US: f64 = 750.0;
const D0_US: f64 = 2000.0;
/// The largest gain shift of srtt_pace (`PRAGUE_MAX_SRTT_BITS`).
const MAX_SHIFT: u32 = 18;

/// Prague's state.
#[derive(Clone, Debug)]
pub struct Prague {
    pub p: PragueParams,
    /// The moving average of the marked fraction.
    pub alpha: f64,
    /// A CE mark has been reported (an AQM on the path marks).
    pub saw_ce: bool,
    /// The sender's CE packet counter (`s.cep`).
    cep: u32,
    /// The CE marks the current ACK reported.
    pub(super) ce_now: u32,
    /// The round ends once snd_una reaches this; packets delivered and CE-marked in it.
    next_seq: u32,
    delivered: u64,
    marked: u64,
    /// Rounds since slow start ended (Linux's `round`).
    pub rounds: u64,
    /// When alpha last moved and the last ECN reduction, ns.
    alpha_at: u64,
    cwr_at: Option<u64>,
    /// Smoothed RTT at full resolution (gain 1/8), s; 0 before a sample.
    pub srtt: f64,
    /// The detection's RTT estimator: minimum, average, mean deviation (s), gain shift.
    min_rtt: f64,
    srtt_pace: f64,
    mdev_pace: f64,
    shift: u32,
    /// The classic ECN score.
    pub classic_ecn: f64,
}

impl Prague {
    pub fn new(p: PragueParams) -> Prague {
        Prague {
            p,
            alpha: 1.0,
            saw_ce: false,
            cep: CEP_INIT,
            ce_now: 0,
            next_seq: 0,
            delivered: 0,
            marked: 0,
            rounds: 0,
            alpha_at: 0,
            cwr_at: None,
            srtt: 0.0,
            min_rtt: f64::INFINITY,
            srtt_pace: 0.0,
            mdev_pace: 0.0,
            shift: MAX_SHIFT,
            classic_ecn: 0.0,
        }
    }

    /// The CE marks an ACK with flags `f` reports (its ACE field against `s.cep`).
    pub fn on_ace(&mut self, f: u8) -> u32 {
        let ace = u32::from(f & flags::ECE != 0)
            | u32::from(f & flags::CWR != 0) << 1
            | u32::from(f & flags::AE != 0) << 2;
        let n = ace.wrapping_sub(self.cep) & 7;
        self.cep = self.cep.wrapping_add(n);
        self.ce_now = n;
        self.saw_ce |= n > 0;
        n
    }

    /// A round trip sample `r` (s): the smoothed RTT, the minimum, and the detection's
    /// estimator (`prague_rtt_estimator`).
    pub fn on_rtt(&mut self, r: f64) {
        self.srtt = if self.srtt > 0.0 { 0.875 * self.srtt + 0.125 * r } else { r };
        self.min_rtt = self.min_rtt.min(r);
        if self.srtt_pace > 0.0 {
            let err = r - self.srtt_pace;
            self.srtt_pace += err / f64::from(1u32 << self.shift);
            self.mdev_pace += (err.abs() - self.mdev_pace) / f64::from(2u32 << self.shift);
        } else {
            self.srtt_pace = r;
            self.mdev_pace = 1e-6;
        }
    }

    /// Is the flow RTT-independent now (`prague_is_rtt_indep`)?
    pub fn rtt_indep(&self, slow_start: bool) -> bool {
        self.p.rtt_target > 0.0 && !slow_start && self.rounds >= u64::from(self.p.rtt_transition)
    }

    /// The increase per round trip without marks, packets (`prague_ai_ack_increase`,
    /// `prague_rate_scaled_ai_ack_increase`): (R / T)^2 below T once RTT-independent.
    pub fn ai(&self) -> f64 {
        let (r, t) = (self.srtt, self.p.rtt_target);
        if t <= 0.0
            || self.rounds < u64::from(self.p.rtt_transition)
            || r <= 0.0
            || r > MAX_SCALED_RTT
            || r >= t
        {
            return 1.0;
        }
        (r / t) * (r / t)
    }

    /// The window after an ACK that delivered `unmarked` packets not CE-marked
    /// (the draft's additive increase): slow start up to ssthresh, the rest `ai / cwnd` each.
    pub fn grown(&self, cwnd: f64, ssthresh: f64, unmarked: f64) -> f64 {
        let mut left = unmarked;
        let mut w = cwnd;
        if w < ssthresh {
            let step = left.min(ssthresh - w);
            w += step;
            left -= step;
        }
        if left > 0.0 { w + left * self.ai() / w } else { w }
    }

    /// The alpha a reduction takes: alpha, or at least the classic fallback's floor
    /// (`prague_classic_ecn_fallback`).
    pub fn reduction_alpha(&self) -> f64 {
        if self.p.ecn_fallback && self.classic_ecn > L_STICKY {
            let c = self.classic_ecn.min(CLASSIC_ECN) - L_STICKY;
            self.alpha.max(0.625 * c)
        } else {
            self.alpha
        }
    }

    /// A reduction (ECN or loss) begins with `ssthresh`: the detection's gain shift
    /// (`prague_update_rtt_scaling`).
    pub fn on_ssthresh(&mut self, ssthresh: f64) {
        let lg = ssthresh.max(1.0).min(f64::from(u32::MAX)).log2().floor() as u32;
        self.shift = (lg + lg / 2 + 1).min(MAX_SHIFT);
    }

    /// The detection's step at the end of a round (`prague_classic_ecn_detection`).
    fn detect(&mut self) {
        if self.srtt_pace <= 0.0 || !self.min_rtt.is_finite() {
            return;
        }
        let lg = |us: f64| us.max(1.0).log2();
        let mut c = self.classic_ecn + V * (lg(self.mdev_pace * 1e6) - V0_US.log2());
        if self.srtt_pace > self.min_rtt {
            let depth = D * lg((self.srtt_pace - self.min_rtt) * 1e6);
            c += (depth - D * D0_US.log2()).max(0.0);
        }
        self.classic_ecn = c.clamp(0.0, C_STICKY);
    }

    /// After an ACK: may the round end (`prague_should_update_ewma`)? At `now` (ns),
    /// with snd_una `una`.
    fn round_over(&self, now: u64, una: u32, slow_start: bool) -> bool {
        una >= self.next_seq
            && (!self.rtt_indep(slow_start)
                || (now - self.alpha_at) as f64 >= self.p.rtt_target * 1e9)
    }

    /// The round ends: alpha moves (after a first mark), and the next round starts
    /// with `snd_nxt` (`prague_update_alpha`, `prague_new_round`).
    fn end_round(&mut self, now: u64, snd_nxt: u32, slow_start: bool) {
        if self.saw_ce {
            if self.p.ecn_fallback {
                self.detect();
            }
            let f = self.marked as f64 / self.delivered.max(1) as f64;
            self.alpha = ((1.0 - G) * self.alpha + G * f).min(1.0);
            self.alpha_at = now;
        }
        self.next_seq = snd_nxt;
        (self.delivered, self.marked) = (0, 0);
        if !slow_start {
            self.rounds += 1;
        }
    }
}

impl TcpSender {
    /// Prague's state, for a Prague sender.
    pub fn prague(&self) -> Option<&Prague> {
        self.prague.as_deref()
    }

    /// Prague's part of an ACK for `a` before the window's update: the CE marks it
    /// reports, the packets it delivered, and the reduction they call for (at `now`).
    pub(super) fn prague_ack(&mut self, now: Time, ack: &Pkt) {
        let a = ack.seq;
        let delivered =
            if self.sack.is_some() { self.delivered } else { a.saturating_sub(self.snd_una) };
        let slow_start = self.cwnd < self.ssthresh;
        let (recover, in_recovery) = (self.ecn_recover, self.in_recovery);
        let Some(pr) = self.prague.as_deref_mut() else { return };
        let ce = pr.on_ace(ack.flags);
        pr.delivered += u64::from(delivered);
        pr.marked += u64::from(ce);
        if ce == 0 || in_recovery || a <= recover {
            return;
        }
        // Section 2.4.2: once per round trip (Linux's CWR state); RTT-independent,
        // at most once per target RTT too.
        let (snd_max, ssthresh) = (self.snd_max, self.ssthresh);
        self.ecn_recover = snd_max;
        pr.on_ssthresh(ssthresh);
        let t = (pr.p.rtt_target * 1e9) as u64;
        if pr.rtt_indep(slow_start) && pr.cwr_at.is_some_and(|c| now.0 - c < t) {
            return;
        }
        pr.cwr_at = Some(now.0);
        let w = self.cwnd.min(f64::from(self.p.max_window));
        self.cwnd = (w * (1.0 - pr.reduction_alpha() / 2.0)).max(2.0);
        self.ssthresh = self.cwnd;
        self.stats.ecn_reductions += 1;
    }

    /// Prague's part of an ACK after the window's update: the round's end and the
    /// pacing rate (at `now`).
    pub(super) fn prague_after(&mut self, now: Time) {
        let slow_start = self.cwnd < self.ssthresh;
        let (una, nxt, cwnd, ssthresh) = (self.snd_una, self.snd_max, self.cwnd, self.ssthresh);
        let Some(pr) = self.prague.as_deref_mut() else { return };
        if pr.round_over(now.0, una, slow_start) {
            pr.end_round(now.0, nxt, slow_start);
        }
        let srtt = pr.srtt;
        if let Some(p) = self.pacing.as_deref_mut() {
            // (the draft's pacing) 100 % of cwnd / srtt, 200 % below half of ssthresh
            let ratio = if cwnd < ssthresh / 2.0 { 2.0 } else { 1.0 };
            p.rate = if srtt > 0.0 { ratio * cwnd / srtt } else { 0.0 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ACE: the three flags read as a counter mod 8 against s.cep (from 5), so that a
    /// wrap is counted (draft-ietf-tcpm-accurate-ecn Section 3.2.2.3).
    #[test]
    fn ace_counts_marks_modulo_eight() {
        let mut p = Prague::new(PragueParams::default());
        let ace = |n: u32| {
            let mut f = flags::ACK;
            if n & 1 != 0 {
                f |= flags::ECE;
            }
            if n & 2 != 0 {
                f |= flags::CWR;
            }
            if n & 4 != 0 {
                f |= flags::AE;
            }
            f
        };
        assert_eq!(p.on_ace(ace(5)), 0);
        assert!(!p.saw_ce);
        assert_eq!(p.on_ace(ace(7)), 2);
        assert_eq!(p.on_ace(ace(1)), 2, "7 + 2 wraps to 1");
        assert!(p.saw_ce);
    }

    /// Section 2.4.4: below the target RTT T, once RTT-independent, the increase per
    /// round trip is (R / T)^2; before the transition, or at or above T, it is 1.
    #[test]
    fn additive_increase_scales_with_the_square_of_the_rtt_ratio() {
        let mut p = Prague::new(PragueParams::default());
        p.srtt = 0.005;
        assert_eq!(p.ai(), 1.0, "before the transition");
        p.rounds = 500;
        assert!((p.ai() - (0.005f64 / 0.025).powi(2)).abs() < 1e-12);
        p.srtt = 0.030;
        assert_eq!(p.ai(), 1.0);
        p.p.rtt_target = 0.0;
        p.srtt = 0.005;
        assert_eq!(p.ai(), 1.0, "off");
    }

    /// Draft -01 Section 2.3.2: alpha = (1 - g) alpha + g F per round, g = 1/16, from 1, once a
    /// mark has been seen; before, it stays at 1.
    #[test]
    fn alpha_is_the_marked_fractions_moving_average() {
        let mut p = Prague::new(PragueParams { ecn_fallback: false, ..Default::default() });
        (p.delivered, p.marked) = (10, 0);
        p.end_round(1, 10, false);
        assert_eq!(p.alpha, 1.0, "no mark seen yet");
        p.saw_ce = true;
        (p.delivered, p.marked) = (10, 2);
        p.end_round(2, 20, false);
        assert!((p.alpha - (15.0 / 16.0 + 0.2 / 16.0)).abs() < 1e-12);
        assert_eq!(p.rounds, 2);
    }

    /// The detection: a queue delay of 8 ms over a 20 ms base RTT and a deviation of
    /// 3 ms move the score by 0.5 lg(3000/750) + 0.5 lg(8000/2000) = 2 per round; at
    /// 0.5 ms and 0.1 ms it falls (clamped at 0). Past 8 the reduction's alpha is at
    /// least 0.625 (c - 8), up to 0.625.
    #[test]
    fn classic_detection_scores_delay_and_its_variation() {
        let mut p = Prague::new(PragueParams::default());
        (p.min_rtt, p.srtt_pace, p.mdev_pace) = (0.020, 0.028, 0.003);
        p.detect();
        assert!((p.classic_ecn - 2.0).abs() < 1e-9, "{}", p.classic_ecn);
        for _ in 0..10 {
            p.detect();
        }
        assert_eq!(p.classic_ecn, C_STICKY);
        p.alpha = 0.1;
        assert!((p.reduction_alpha() - 0.625).abs() < 1e-12);
        p.classic_ecn = 8.4;
        assert!((p.reduction_alpha() - 0.25).abs() < 1e-12);
        (p.srtt_pace, p.mdev_pace) = (0.0205, 0.0001);
        p.classic_ecn = 1.0;
        p.detect();
        assert_eq!(p.classic_ecn, 0.0);
        assert_eq!(p.reduction_alpha(), 0.1);
    }

    /// Slow start takes one packet per unmarked packet up to ssthresh, the rest
    /// ai / cwnd each.
    #[test]
    fn growth_crosses_from_slow_start_into_additive_increase() {
        let p = Prague::new(PragueParams::default());
        assert_eq!(p.grown(10.0, 100.0, 2.0), 12.0);
        let w = p.grown(99.0, 100.0, 2.0);
        assert!((w - (100.0 + 1.0 / 100.0)).abs() < 1e-12);
    }
}
