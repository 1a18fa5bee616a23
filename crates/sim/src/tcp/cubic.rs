//! CUBIC's window (RFC 9438), in packets and seconds.
//!
//! Readings of the RFC that the code takes:
//! - **Slow start** is Reno's (Section 4.10 allows it); HyStart++ is not implemented,
//!   as in the ns-3 3.37 runs CUBIC is compared with (HyStart off there).
//! - **The congestion avoidance stage** (the epoch, `t_epoch`) begins at the first
//!   ACK of congestion avoidance after a congestion event, a timeout or the end of
//!   slow start, with `cwnd_epoch` the window then and `W_est = cwnd_epoch`
//!   (Sections 4.2, 4.3).
//! - **W_max when there was no congestion event** (slow start ended at a configured
//!   ssthresh) is `cwnd_epoch`, so K = 0 and the window grows in the convex region;
//!   after a timeout likewise (Section 4.8: W_max is the window at the start of the
//!   stage).
//! - **The reduction** (Section 4.6) is taken from cwnd (capped by the receiver
//!   window), not from the flight size: the simulated senders are never
//!   application-limited in congestion avoidance except for finite transfers' tails.
//! - **The increase per ACK** (Sections 4.3 to 4.5): on each ACK of new data in
//!   congestion avoidance, W_est grows by `alpha_cubic / cwnd` (`alpha_cubic` becomes
//!   1 once W_est reaches `cwnd_prior`); if `W_cubic(t) < W_est` the window is W_est
//!   (Reno-friendly region); otherwise it grows by `(target - cwnd) / cwnd`, target
//!   being `W_cubic(t + RTT)` (RTT the smoothed RTT) clamped to `[cwnd, 1.5 cwnd]`.
//!   The RFC's rule is per ACK, not per packet acknowledged, as this simulator's Reno
//!   increase is.

use serde::Serialize;

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

impl CubicParams {
    /// alpha_cubic = 3 (1 - beta) / (1 + beta) (Section 4.3, Figure 4).
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// K = cbrt((W_max - cwnd_epoch) / C), seconds (Figure 2).
    pub fn k(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch) / self.c).cbrt()
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
    /// W_max, packets (0 before the first congestion event).
    pub w_max: f64,
    /// cwnd_prior: cwnd when ssthresh was last set, packets.
    pub cwnd_prior: f64,
    /// The current stage: (t_epoch in s, cwnd_epoch, K), None until its first ACK.
    pub epoch: Option<(f64, f64, f64)>,
    /// W_est, packets.
    pub w_est: f64,
    /// The next stage starts after a timeout (W_max = cwnd_epoch).
    after_rto: bool,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Cubic {
        Cubic { p, ..Default::default() }
    }

    /// A congestion event (loss or ECN-Echo) with window `cwnd` (Sections 4.6, 4.7):
    /// returns the new ssthresh, `cwnd * beta_cubic`, at least 2.
    pub fn on_congestion(&mut self, cwnd: f64) -> f64 {
        self.w_max = if self.p.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.p.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_rto = false;
        (cwnd * self.p.beta).max(2.0)
    }

    /// A retransmission timeout with window `cwnd` (Section 4.8): ssthresh as for a
    /// congestion event; the next stage starts with K = 0.
    pub fn on_timeout(&mut self, cwnd: f64) -> f64 {
        let ss = (cwnd * self.p.beta).max(2.0);
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_rto = true;
        ss
    }

    /// The window after an ACK of new data in congestion avoidance at time `now` (s),
    /// with window `cwnd` and smoothed RTT `srtt` (s).
    pub fn on_ack(&mut self, now: f64, cwnd: f64, srtt: f64) -> f64 {
        let (t0, _, k) = *self.epoch.get_or_insert_with(|| {
            if self.after_rto || self.w_max < cwnd {
                self.w_max = cwnd;
            }
            self.after_rto = false;
            self.w_est = cwnd;
            (now, cwnd, self.p.k(self.w_max, cwnd))
        });
        let t = now - t0;
        // Figure 4; alpha_cubic becomes 1 once W_est reaches cwnd_prior.
        let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { self.p.alpha() };
        self.w_est += alpha / cwnd;
        if self.p.w_cubic(t, k, self.w_max) < self.w_est {
            return self.w_est.max(cwnd);
        }
        let target = self.p.w_cubic(t + srtt, k, self.w_max).clamp(cwnd, 1.5 * cwnd);
        cwnd + (target - cwnd) / cwnd
    }
}
