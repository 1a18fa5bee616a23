//! CUBIC's window (RFC 9438), in packets and seconds.
//!
//! Readings of the RFC that the code takes:
//! - **Slow start** is Reno's (Section 4.10 allows it), or HyStart++'s (RFC 9406,
//!   `hystart`; the ns-3 3.37 runs CUBIC is compared with turn HyStart off).
//! - **The congestion avoidance stage** (the epoch, `t_epoch`) begins at the first
//!   ACK of congestion avoidance after a congestion event, a timeout or the end of
//!   slow start, with `cwnd_epoch` the window then and `W_est = cwnd_epoch`
//!   (Sections 4.2, 4.3).
//! - **W_max when there was no congestion event** (slow start ended at a configured
//!   ssthresh) is `cwnd_epoch`, so K = 0 and the window grows in the convex region;
//!   after a timeout likewise (Section 4.8: W_max is the window at the start of the
//!   stage).
//! - **The reduction** (Section 4.6) is taken from cwnd (capped by the receiver
//!   window), never from a window that fast recovery inflated: cwnd grows only while
//!   the sender fills it (`app_limited`), Section 4.6's condition for using cwnd rather
//!   than the flight size; a timeout during a loss episode keeps the episode's ssthresh
//!   (`loss_ssthresh`).
//! - **The increase per ACK** (Sections 4.3 to 4.5): on each ACK of new data in
//!   congestion avoidance, W_est grows by `alpha_cubic / cwnd` (`alpha_cubic` becomes
//!   1 once W_est reaches `cwnd_prior`); if `W_cubic(t) < W_est` the window is W_est
//!   (Reno-friendly region); otherwise it grows by `(target - cwnd) / cwnd`, target
//!   being `W_cubic(t + RTT)` (RTT the smoothed RTT) clamped to `[cwnd, 1.5 cwnd]`.
//!   The RFC's rule is per ACK, not per packet acknowledged, as this simulator's Reno
//!   increase is.
//!
//! Keys give the rules of Linux and ns-3 3.37's `TcpCubic` where they depart from
//! the RFC (all default to the RFC's):
//! - `cubic_reno_friendly = false`: no Reno-friendly region (ns-3 3.37 keeps no W_est).
//! - `cubic_growth = "segments"`: the window is a whole number of packets (ssthresh and
//!   W_max after a reduction are rounded down) and grows by one packet once `cnt`
//!   packets have been acknowledged since the last increase, `cnt = floor(cwnd /
//!   (target - cwnd))` with Linux's and ns-3's integer target `W_max - floor(C (K -
//!   t')^3)` before K and `W_max + floor(C (t' - K)^3)` after it (W_cubic rounded
//!   towards W_max: up in the concave region, down in the convex one), t' = t + the
//!   minimum RTT sample (Linux's `delay_min`, ns-3's `m_delayMin`; the smoothed RTT until
//!   the first sample, and again after a `"reset"` timeout), at least 2 (at most 1.5x
//!   per round trip), `100 cwnd` when the target is not above cwnd, and at most 20 while
//!   no W_max is known (before the first congestion event; with `cubic_timeout =
//!   "reset"` also after a timeout). With the Reno-friendly region on, `cnt` is at most
//!   `floor(cwnd / (W_est - cwnd))` when W_est is above cwnd. `cubic_growth = "linux"`
//!   is segments growth with Linux's update interval (`cnt` is kept while cwnd stays
//!   the window it was computed at, for `LINUX_CNT_HOLD`) and its count of packets
//!   towards the next increase (`tcp_cong_avoid_ai`, zeroed at each reduction).
//! - `cubic_slow_start = "acked"`: slow start grows the window by the packets each ACK
//!   acknowledges (RFC 3465's byte counting without its limit L; ns-3 3.37's
//!   `TcpCubic`), so that the cumulative ACKs of a go-back-N after a timeout open the
//!   window by every packet they cover at once; the ACK that covers the highest packet
//!   sent before the timeout (which ends ns-3's loss state) opens nothing.
//! - `cubic_timeout = "reset"`: a timeout takes the reduction from the window without
//!   fast recovery's inflation (ssthresh during a recovery) and forgets W_max (ns-3
//!   3.37 resets its state when it enters its loss state).
//! - `cubic_timeout = "linux"`: Linux's `tcp_enter_loss` takes a new ssthresh,
//!   `max(cwnd beta, 2)` from the window as it stands, unless a reduction is under way
//!   (fast recovery, the round trip after an ECN reduction, or a timeout repeated
//!   with no ACK of new data since the last one, `icsk_retransmits`), when ssthresh is
//!   kept; then `cubictcp_state(sk, TCP_CA_Loss)` calls `bictcp_reset`, which forgets
//!   W_max (`last_max_cwnd` = 0: the next stage starts with K = 0 at its window, cnt at
//!   most 20 and no fast convergence until the next congestion event) and the minimum
//!   RTT (`delay_min`), and `bictcp_hystart_reset` arms HyStart again (the sender's).

use serde::Serialize;

use super::rules::is_default;

/// How the window grows in the concave and convex regions (`cubic_growth`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CubicGrowth {
    /// RFC 9438: `(target - cwnd) / cwnd` per ACK.
    #[default]
    Rfc,
    /// Linux's and ns-3's: one whole packet every `cnt` packets acknowledged.
    Segments,
    /// Linux's `bictcp_update`: segments growth whose `cnt` (and W_est) is computed
    /// again only when cwnd has changed since it last was or `LINUX_CNT_HOLD` has passed.
    Linux,
}

/// How long Linux's `bictcp_update` keeps `cnt` while cwnd stays the same: it returns
/// early while `(s32)(tcp_jiffies32 - ca->last_time) <= HZ / 32`, so the next
/// computation comes HZ / 32 + 1 jiffies later, 8 at HZ = 250 and 32 at HZ = 1000:
/// 32 ms (here in continuous time, not in whole jiffies).
pub const LINUX_CNT_HOLD: f64 = 0.032;

/// What a timeout does to CUBIC's state (`cubic_timeout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CubicTimeout {
    /// RFC 9438 Section 4.8: ssthresh from cwnd; the next stage has W_max = cwnd_epoch.
    #[default]
    Rfc,
    /// ns-3 3.37's: ssthresh from the window without fast recovery's inflation, and
    /// W_max forgotten (with segments growth: cnt at most 20 until the next event).
    Reset,
    /// Linux's (`tcp_enter_loss`, `bictcp_reset`): ssthresh from cwnd unless a reduction
    /// is under way (then kept); W_max and the minimum RTT forgotten, HyStart armed.
    Linux,
}

/// How slow start grows the window (`cubic_slow_start`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CubicSlowStart {
    /// RFC 5681 (Reno's, RFC 9438 Section 4.10): one packet per ACK of new data.
    #[default]
    Rfc,
    /// ns-3 3.37's `TcpCubic`: the packets the ACK acknowledges, without limit and
    /// without stopping at ssthresh within an ACK.
    Acked,
}

/// How the Reno-friendly estimate W_est grows (`cubic_reno_alpha`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CubicRenoAlpha {
    /// RFC 9438 Section 4.3: `alpha_cubic / cwnd` per packet acknowledged, alpha_cubic =
    /// 3 (1 - beta) / (1 + beta) until W_est reaches cwnd_prior, then 1.
    #[default]
    Rfc,
    /// Linux's (tcp_cubic.c, `tcp_friendliness` in `bictcp_update`): W_est (`tcp_cwnd`)
    /// is a whole number of packets, starting at cwnd with the stage, and grows by one
    /// each time the packets acknowledged since (`ack_cnt`) exceed
    /// `(cwnd * beta_scale) >> 3`, which they then lose; `beta_scale = 8 (1024 + b) / 3 /
    /// (1024 - b)` in integers with b = 1024 beta (717: 15), so alpha stays 8 / 15 and
    /// never becomes 1.
    Fixed,
}

/// CUBIC's constants (RFC 9438 Section 4.1 / 5).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CubicParams {
    /// C, packets / s^3 (0.4).
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor (0.7).
    pub beta: f64,
    /// Fast convergence (Section 4.7).
    pub fast_convergence: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams { c: 0.4, beta: 0.7, fast_convergence: true }
    }
}

/// CUBIC's rules where ns-3 3.37's `TcpCubic` and Linux depart from the RFC (see the
/// module docs); each a key of the flow table, `cubic_` and the field's name.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CubicRules {
    /// The Reno-friendly region (Section 4.3).
    #[serde(rename = "cubic_reno_friendly", skip_serializing_if = "is_true")]
    pub reno_friendly: bool,
    /// The increase rule of the concave and convex regions.
    #[serde(rename = "cubic_growth", skip_serializing_if = "is_default")]
    pub growth: CubicGrowth,
    /// The response to a timeout.
    #[serde(rename = "cubic_timeout", skip_serializing_if = "is_default")]
    pub timeout: CubicTimeout,
    /// Slow start's increase.
    #[serde(rename = "cubic_slow_start", skip_serializing_if = "is_default")]
    pub slow_start: CubicSlowStart,
    /// The Reno-friendly estimate's growth.
    #[serde(rename = "cubic_reno_alpha", skip_serializing_if = "is_default")]
    pub reno_alpha: CubicRenoAlpha,
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Default for CubicRules {
    fn default() -> Self {
        CubicRules {
            reno_friendly: true,
            growth: CubicGrowth::Rfc,
            timeout: CubicTimeout::Rfc,
            slow_start: CubicSlowStart::Rfc,
            reno_alpha: CubicRenoAlpha::Rfc,
        }
    }
}

impl CubicParams {
    /// alpha_cubic = 3 (1 - beta) / (1 + beta) (Section 4.3, Figure 4).
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// K = cbrt((W_max - cwnd_epoch) / C), seconds (Figure 2).
    pub fn k(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch) / self.c).cbrt()
    }

    /// Linux's `beta_scale` (`cubictcp_register`): 8 (1024 + b) / 3 / (1024 - b) in
    /// integers, b = beta in 1024ths (0.7: 717, beta_scale 15).
    pub fn beta_scale(&self) -> u32 {
        let b = (self.beta * 1024.0).round() as u32;
        8 * (1024 + b) / 3 / (1024 - b).max(1)
    }

    /// W_cubic(t) = C (t - K)^3 + W_max (Figure 1).
    pub fn w_cubic(&self, t: f64, k: f64, w_max: f64) -> f64 {
        self.c * (t - k).powi(3) + w_max
    }
}

/// CUBIC's state.
#[derive(Clone, Debug, Default)]
pub struct Cubic {
    pub p: CubicParams,
    pub r: CubicRules,
    /// W_max, packets (0 before the first congestion event).
    pub w_max: f64,
    /// cwnd_prior: cwnd when ssthresh was last set, packets.
    pub cwnd_prior: f64,
    /// The current stage: (t_epoch in s, cwnd_epoch, K), None until its first ACK.
    pub epoch: Option<(f64, f64, f64)>,
    /// W_est, packets.
    pub w_est: f64,
    /// `cubic_reno_alpha = "fixed"`: packets acknowledged towards W_est's next packet
    /// (tcp_cubic.c's `ack_cnt`).
    ack_cnt: u32,
    /// The next stage starts after a timeout (W_max = cwnd_epoch).
    after_rto: bool,
    /// Segments growth: packets acknowledged since the last increase.
    acked: u32,
    /// Segments growth: no W_max known (no congestion event yet, or a reset timeout).
    no_w_max: bool,
    /// Acked slow start: a timeout's go-back-N is under way (ns-3's loss state).
    loss: bool,
    /// Segments growth: the smallest RTT sample, s (0 before the first).
    min_rtt: f64,
    /// Linux growth: the `cnt` last computed, and the window and time it was computed
    /// at (`ca->cnt`, `ca->last_cwnd`, `ca->last_time`; a window of 0 until the first).
    cnt: u32,
    last_cwnd: f64,
    last_time: f64,
}

impl Cubic {
    pub fn new(p: CubicParams, r: CubicRules) -> Cubic {
        Cubic { p, r, no_w_max: true, ..Default::default() }
    }

    /// Slow start's increase for an ACK that acknowledges `acked` packets.
    pub fn slow_start_increase(&self, acked: f64) -> f64 {
        match self.r.slow_start {
            CubicSlowStart::Rfc => 1.0,
            CubicSlowStart::Acked => acked,
        }
    }

    /// Linux growth: a reduction zeroes the packets counted towards the next increase
    /// (`tp->snd_cwnd_cnt = 0` in tcp_input.c's `tcp_init_cwnd_reduction` and
    /// `tcp_enter_loss`); segments growth keeps them (ns-3 3.37's `m_cWndCnt`).
    fn forget_credit(&mut self) {
        if self.r.growth == CubicGrowth::Linux {
            self.acked = 0;
        }
    }

    /// Whole packets: segments or Linux growth.
    fn segments(&self) -> bool {
        matches!(self.r.growth, CubicGrowth::Segments | CubicGrowth::Linux)
    }

    /// Segments growth rounds a window down to whole packets.
    fn whole(&self, w: f64) -> f64 {
        if self.segments() { w.floor() } else { w }
    }

    /// A congestion event (loss or ECN-Echo) with window `cwnd` (Sections 4.6, 4.7):
    /// returns the new ssthresh, `cwnd * beta_cubic`, at least 2.
    pub fn on_congestion(&mut self, cwnd: f64) -> f64 {
        let cwnd = self.whole(cwnd);
        // (ns-3 3.37 and Linux have no W_max to compare with after a timeout that
        // forgot it)
        let reset = self.r.timeout != CubicTimeout::Rfc && self.no_w_max;
        self.w_max = if self.p.fast_convergence && !reset && cwnd < self.w_max {
            self.whole(cwnd * (1.0 + self.p.beta) / 2.0)
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_rto = false;
        self.no_w_max = false;
        self.forget_credit();
        self.whole(cwnd * self.p.beta).max(2.0)
    }

    /// A retransmission timeout with window `cwnd` (Section 4.8): ssthresh as for a
    /// congestion event; the next stage starts with K = 0. `deflated` is the window
    /// without fast recovery's inflation, which `cubic_timeout = "reset"` reduces.
    pub fn on_timeout(&mut self, cwnd: f64, deflated: f64) -> f64 {
        let cwnd = match self.r.timeout {
            CubicTimeout::Rfc => cwnd,
            CubicTimeout::Reset => {
                self.forget_w_max();
                deflated
            }
            CubicTimeout::Linux => {
                self.forget_w_max();
                cwnd
            }
        };
        let cwnd = self.whole(cwnd);
        let ss = self.whole(cwnd * self.p.beta).max(2.0);
        self.cwnd_prior = cwnd;
        self.restart_after_timeout();
        ss
    }

    /// `bictcp_reset`'s part that outlives the next stage's start: no W_max
    /// (`last_max_cwnd` = 0) and no minimum RTT (`delay_min` = 0).
    pub fn forget_w_max(&mut self) {
        self.no_w_max = true;
        self.min_rtt = 0.0;
    }

    /// A timeout that keeps ssthresh and W_max (one during a loss episode, see
    /// `loss_ssthresh`): the next stage starts with K = 0, as after any timeout.
    pub fn restart_after_timeout(&mut self) {
        self.epoch = None;
        self.after_rto = true;
        self.loss = true;
        self.last_cwnd = 0.0; // bictcp_reset
        self.forget_credit();
    }

    /// Acked slow start: does this ACK end a timeout's go-back-N (it covers the highest
    /// packet sent before the timeout, `past_recover`)? Such an ACK opens nothing, as
    /// in ns-3 3.37, where it ends the loss state: it covers every packet the receiver
    /// held beyond the holes, and counting them would open the window by up to a
    /// receiver window at once.
    pub fn ends_loss(&mut self, past_recover: bool) -> bool {
        if self.r.slow_start == CubicSlowStart::Acked && self.loss && past_recover {
            self.loss = false;
            return true;
        }
        false
    }

    /// The window after an ACK of new data in congestion avoidance at time `now` (s),
    /// with window `cwnd` and smoothed RTT `srtt` (s).
    pub fn on_ack(&mut self, now: f64, cwnd: f64, srtt: f64) -> f64 {
        self.on_ack_n(now, cwnd, srtt, 1)
    }

    /// As [`Cubic::on_ack`], for an ACK that acknowledges `acked` packets (the
    /// segments growth counts them; the RFC's rule is per ACK).
    pub fn on_ack_n(&mut self, now: f64, cwnd: f64, srtt: f64, acked: u32) -> f64 {
        if self.segments() {
            return self.on_ack_segments(now, cwnd, srtt, acked);
        }
        let (t0, _, k) = self.epoch_at(now, cwnd);
        let t = now - t0;
        // Figure 4; alpha_cubic becomes 1 once W_est reaches cwnd_prior.
        self.w_est += self.reno_step(cwnd, 1);
        if self.r.reno_friendly && self.p.w_cubic(t, k, self.w_max) < self.w_est {
            return self.w_est.max(cwnd);
        }
        let target = self.p.w_cubic(t + srtt, k, self.w_max).clamp(cwnd, 1.5 * cwnd);
        cwnd + (target - cwnd) / cwnd
    }

    /// The stage's start (t_epoch, cwnd_epoch, K) at the first ACK of congestion
    /// avoidance, as in [`Cubic::on_ack_n`].
    fn epoch_at(&mut self, now: f64, cwnd: f64) -> (f64, f64, f64) {
        *self.epoch.get_or_insert_with(|| {
            if self.after_rto || self.w_max < cwnd {
                self.w_max = cwnd;
            }
            self.after_rto = false;
            self.w_est = cwnd;
            self.ack_cnt = 0;
            (now, cwnd, self.p.k(self.w_max, cwnd))
        })
    }

    /// An RTT sample `r` (s), as measured: segments growth looks one minimum RTT
    /// ahead, as Linux (`delay_min`) and ns-3 (`m_delayMin`) do.
    #[inline]
    pub fn note_rtt(&mut self, r: f64) {
        if self.segments() && (self.min_rtt == 0.0 || r < self.min_rtt) {
            self.min_rtt = r;
        }
    }

    /// W_est's growth for an ACK of `acked` packets at window `cwnd` (Figure 4 per ACK
    /// under RFC growth, per packet under segments growth; `cubic_reno_alpha`).
    fn reno_step(&mut self, cwnd: f64, acked: u32) -> f64 {
        match self.r.reno_alpha {
            CubicRenoAlpha::Rfc => {
                let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { self.p.alpha() };
                alpha * f64::from(acked) / cwnd
            }
            // tcp_friendliness: `while (ca->ack_cnt > delta) { ca->ack_cnt -= delta;
            // ca->tcp_cwnd++; }`, delta = (cwnd * beta_scale) >> 3
            CubicRenoAlpha::Fixed => {
                let delta = ((cwnd as u32 * self.p.beta_scale()) >> 3).max(1);
                self.ack_cnt = self.ack_cnt.saturating_add(acked);
                let mut whole = 0.0;
                while self.ack_cnt > delta {
                    self.ack_cnt -= delta;
                    whole += 1.0;
                }
                whole
            }
        }
    }

    /// Segments growth (`cubic_growth = "segments"`): one packet once `cnt` packets
    /// have been acknowledged since the last increase (see the module docs). Linux
    /// growth keeps the last `cnt` while the window is the one it was computed at and
    /// `LINUX_CNT_HOLD` has not passed (`bictcp_update` returns at once; `ack_cnt`
    /// still counts the packets).
    fn on_ack_segments(&mut self, now: f64, cwnd: f64, srtt: f64, acked: u32) -> f64 {
        let cwnd = cwnd.floor();
        let held = self.r.growth == CubicGrowth::Linux
            && self.last_cwnd == cwnd
            && now - self.last_time < LINUX_CNT_HOLD;
        let cnt = if held {
            if self.r.reno_friendly {
                match self.r.reno_alpha {
                    CubicRenoAlpha::Fixed => self.ack_cnt = self.ack_cnt.saturating_add(acked),
                    CubicRenoAlpha::Rfc => self.w_est += self.reno_step(cwnd, acked),
                }
            }
            self.cnt
        } else {
            (self.last_cwnd, self.last_time) = (cwnd, now);
            self.cnt = self.segments_cnt(now, cwnd, srtt, acked);
            self.cnt
        };
        if self.r.growth == CubicGrowth::Linux {
            return cwnd + f64::from(self.cong_avoid_ai(cnt, acked));
        }
        self.acked = self.acked.saturating_add(acked);
        if self.acked >= cnt {
            self.acked -= cnt;
            return cwnd + 1.0;
        }
        cwnd
    }

    /// tcp_cong.c's `tcp_cong_avoid_ai(tp, w, acked)`: the packets cwnd grows by. Credit
    /// gathered at a larger `w` gives one packet and is dropped; then `acked` is counted
    /// and every `w` of them gives one.
    fn cong_avoid_ai(&mut self, w: u32, acked: u32) -> u32 {
        let mut grow = 0;
        if self.acked >= w {
            self.acked = 0;
            grow += 1;
        }
        self.acked = self.acked.saturating_add(acked);
        if self.acked >= w {
            let delta = self.acked / w;
            self.acked -= delta * w;
            grow += delta;
        }
        grow
    }

    /// Segments growth's `cnt` at window `cwnd` (whole packets) for an ACK of `acked`.
    fn segments_cnt(&mut self, now: f64, cwnd: f64, srtt: f64, acked: u32) -> u32 {
        let (t0, _, k) = self.epoch_at(now, cwnd);
        let ahead = if self.min_rtt > 0.0 { self.min_rtt } else { srtt };
        // Linux's and ns-3's integer target: origin -/+ floor(C |t - K|^3), the window
        // rounded up below W_max (concave region) and down above it (convex region).
        let t = now - t0 + ahead;
        let delta = (self.p.c * (t - k).abs().powi(3)).floor();
        let target = if t < k { self.w_max - delta } else { self.w_max + delta };
        let mut cnt = if target > cwnd { (cwnd / (target - cwnd)).floor() } else { 100.0 * cwnd };
        if self.no_w_max {
            cnt = cnt.min(20.0);
        }
        if self.r.reno_friendly {
            self.w_est += self.reno_step(cwnd, acked);
            if self.w_est > cwnd {
                cnt = cnt.min((cwnd / (self.w_est - cwnd)).floor());
            }
        }
        cnt.max(2.0) as u32
    }
}

#[cfg(test)]
#[path = "tests/cubic_state.rs"]
mod tests;
