//! The PI controller of Hollot, Misra, Towsley & Gong ("On designing improved
//! controllers for AQM routers supporting TCP flows", INFOCOM 2001, Section V).
//!
//! The drop (or mark) probability is updated at the sampling instants `kT`,
//! `T = 1 / sample_freq`, from the instantaneous queue `q` (packets):
//! ```text
//! p(kT) = p((k-1)T) + a (q(kT) - q_ref) - b (q((k-1)T) - q_ref)
//! ```
//! the discrete form of `C(s) = K_PI (s/z + 1) / s`; each arrival is dropped (or
//! ECN-marked) with probability `p`. `aqmlab.analysis.pi_design` computes `a` and `b`
//! from the paper's design rule (N-, C, R+).
//!
//! # Choices where the paper leaves room
//! - `p` is kept in [0, 1] (the paper's controller output is a probability).
//! - `q` counts waiting packets (the crate's convention), sampled exactly at `kT`:
//!   the queue is constant between arrivals and departures, so the samples due before an
//!   event are taken, at that event, from the queue as the previous event left it (a
//!   caller that never polls gets the same answers).
//! - The physical buffer always drops (overflow), whatever `p`.

use crate::common::{self, AqmRng, Limit};
use crate::config::build::seed;
use crate::config::fields::config_struct;
use crate::config::{AqmConfig, BuildAqm, BuildContext};
use crate::error::{AqmError, Result, check};
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::time::{Duration, Time};

config_struct! {
    /// The PI controller (Hollot, Misra, Towsley & Gong 2001, Section V):
    /// p(kT) = p((k-1)T) + a (q(kT) - q_ref) - b (q((k-1)T) - q_ref). Defaults: the
    /// paper's example (a = 1.822e-5, b = 1.816e-5, 160 Hz, q_ref = 200 packets);
    /// `aqmlab.analysis.pi_design` computes a and b for other networks.
    pub struct PiConfig {
        /// Gain on the current error, 1/packet, > 0.
        a: f64 = 1.822e-5,
        /// Gain on the previous error, 1/packet, >= 0.
        b: f64 = 1.816e-5,
        /// Sampling frequency 1/T, Hz, (0, 1e9].
        sample_freq: f64 = 160.0,
        /// The queue regulated to, packets.
        q_ref: f64 = 200.0,
        /// Buffer in packets (required unless `limit_bytes`).
        limit: Option<u64> = None,
        /// Buffer in bytes.
        limit_bytes: Option<u64> = None,
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool = false,
        /// Seed of the drop decisions' random stream.
        seed: Option<u64> = None,
    }
}

impl AqmConfig for PiConfig {
    fn limit_packets(&self) -> Option<u64> {
        self.limit
    }
}

impl BuildAqm for PiConfig {
    type Aqm = Pi;
    fn build(&self, ctx: &BuildContext) -> Result<Pi> {
        let params = PiParams {
            a: self.a,
            b: self.b,
            sample_freq: self.sample_freq,
            q_ref: self.q_ref,
            limit: Limit::new(self.limit, self.limit_bytes)?,
            ecn: self.ecn,
        };
        Pi::new(params, seed(self.seed, ctx))
    }
}

/// Validated PI parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PiParams {
    /// a, 1/packet: the gain on the current error.
    pub a: f64,
    /// b, 1/packet: the gain on the previous error.
    pub b: f64,
    /// Sampling frequency 1/T, Hz.
    pub sample_freq: f64,
    /// q_ref, packets: the queue the controller regulates to.
    pub q_ref: f64,
    /// The physical buffer.
    pub limit: Limit,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl PiParams {
    pub fn validate(&self) -> Result<()> {
        check::positive("a", self.a)?;
        check::non_negative("b", self.b)?;
        check::positive("sample_freq", self.sample_freq)?;
        if self.sample_freq > 1e9 {
            return Err(AqmError::invalid("sample_freq", self.sample_freq, "(0, 1e9] Hz"));
        }
        check::non_negative("q_ref", self.q_ref)?;
        Ok(())
    }
}

/// The PI AQM (see the module documentation).
#[derive(Clone, Debug)]
pub struct Pi {
    pub params: PiParams,
    /// p, the drop probability.
    pub p: f64,
    /// q((k-1)T), packets.
    pub q_old: f64,
    /// The queue as the last event left it, packets.
    q: u32,
    period: Duration,
    next_sample: Time,
    rng: AqmRng,
}

impl Pi {
    pub fn new(params: PiParams, seed: u64) -> Result<Pi> {
        params.validate()?;
        let period = Duration::from_secs_f64(1.0 / params.sample_freq).max(Duration(1));
        Ok(Pi {
            params,
            p: 0.0,
            q_old: 0.0,
            q: 0,
            period,
            next_sample: Time::ZERO + period,
            rng: common::rng_from_seed(seed),
        })
    }

    /// One sampling instant with queue `q`: the paper's difference equation.
    pub fn sample(&mut self, q: f64) {
        let pr = &self.params;
        let p = self.p + pr.a * (q - pr.q_ref) - pr.b * (self.q_old - pr.q_ref);
        self.p = p.clamp(0.0, 1.0);
        self.q_old = q;
    }

    /// When the next sample is due.
    pub fn poll_at(&self) -> Time {
        self.next_sample
    }

    /// Take every sample due at or before `now` (the queue unchanged since the last
    /// event). Once a sample changes nothing the rest would not either: skipped.
    pub fn poll(&mut self, now: Time) {
        let step = self.period.0;
        while now >= self.next_sample {
            let before = (self.p, self.q_old);
            self.sample(self.q as f64);
            self.next_sample += self.period;
            if before == (self.p, self.q_old) && now >= self.next_sample {
                let behind = (now.0 - self.next_sample.0) / step + 1;
                self.next_sample = Time(self.next_sample.0.saturating_add(behind * step));
            }
        }
    }

    pub fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        self.poll(now);
        self.q = backlog.packets;
        if self.params.limit.overflows(backlog, pkt) {
            return Verdict::Drop(DropReason::Overflow);
        }
        let verdict = if self.p > 0.0 && common::uniform01(&mut self.rng) < self.p {
            if self.params.ecn && pkt.ecn_capable {
                Verdict::Mark
            } else {
                return Verdict::Drop(DropReason::Early);
            }
        } else {
            Verdict::Enqueue
        };
        self.q = backlog.packets + 1;
        verdict
    }

    pub fn on_removed(&mut self, now: Time, backlog_after: Backlog) {
        self.poll(now);
        self.q = backlog_after.packets;
    }
}

// (out of line: see BLUE's impl)
impl QueueDiscipline for Pi {
    #[inline(never)]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        Pi::on_arrival(self, now, pkt, backlog)
    }
    #[inline(never)]
    fn on_removed(
        &mut self,
        now: Time,
        _pkt: &PacketInfo,
        backlog_after: Backlog,
        _departed: bool,
    ) {
        Pi::on_removed(self, now, backlog_after)
    }
    fn limit(&self) -> Limit {
        self.params.limit
    }
    fn poll_at(&self) -> Option<Time> {
        Some(Pi::poll_at(self))
    }
    fn poll(&mut self, now: Time) {
        Pi::poll(self, now)
    }
    /// p.
    fn signal(&self) -> f64 {
        self.p
    }
    fn signal_kind(&self) -> SignalKind {
        SignalKind::Probability
    }
    /// `p` and `q_old`.
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("p", self.p);
        out("q_old", self.q_old);
    }
}

#[cfg(test)]
#[path = "tests/pi.rs"]
mod tests;
