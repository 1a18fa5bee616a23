//! RED as a plugin: Fig. 2 of Floyd & Jacobson (1993), with gentle mode (Floyd 2000).

use aqm::common::{AqmRng, Limit, rng_from_seed, uniform01};
use aqm::config::BuildContext;
use aqm::plugin::{Params, PluginAqm};
use aqm::{AqmError, Backlog, DropReason, PacketInfo, QueueDiscipline, Result, SignalKind};
use aqm::{Time, Verdict};

#[derive(Clone)]
pub struct Red {
    limit: u32,
    min_th: f64,
    max_th: f64,
    w_q: f64,
    max_p: f64,
    gentle: bool,
    ecn: bool,
    /// A small packet's transmission time, s.
    s: f64,
    avg: f64,
    count: i64,
    q_time: Option<Time>,
    rng: AqmRng,
}

impl PluginAqm for Red {
    fn new(p: &Params, ctx: &BuildContext) -> Result<Red> {
        let limit = p.u64("limit", None)?.ok_or_else(|| AqmError::config("limit", "missing"))?;
        let rate = ctx.link_rate_bps.unwrap_or(10e6);
        Ok(Red {
            limit: limit as u32,
            min_th: p.f64("min_th", 5.0)?,
            max_th: p.f64("max_th", 15.0)?,
            w_q: p.f64("w_q", 0.002)?,
            max_p: p.f64("max_p", 0.02)?,
            gentle: p.bool("gentle", false)?,
            ecn: p.bool("ecn", false)?,
            s: 8.0 * p.f64("mean_pkt_size", 500.0)? / rate,
            avg: 0.0,
            count: -1,
            q_time: None,
            rng: rng_from_seed(ctx.seed.unwrap_or(1)),
        })
    }
}

impl QueueDiscipline for Red {
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, q: Backlog) -> Verdict {
        if q.packets > 0 {
            // avg <- (1 - w_q) avg + w_q q
            self.avg += self.w_q * (q.packets as f64 - self.avg);
        } else if let Some(t) = self.q_time {
            // idle since q_time: avg <- (1 - w_q)^m avg
            let m = now.saturating_since(t).as_secs_f64() / self.s;
            self.avg *= (m * (1.0 - self.w_q).ln()).exp();
            self.q_time = Some(now);
        }
        let mut verdict = Verdict::Enqueue;
        if self.avg < self.min_th {
            self.count = -1;
        } else if self.avg >= if self.gentle { 2.0 * self.max_th } else { self.max_th } {
            self.count = -1;
            return Verdict::Drop(DropReason::Forced);
        } else {
            self.count += 1;
            let p_b = if self.avg < self.max_th {
                self.max_p * (self.avg - self.min_th) / (self.max_th - self.min_th)
            } else {
                self.max_p + (1.0 - self.max_p) * (self.avg - self.max_th) / self.max_th
            };
            let cp = self.count as f64 * p_b;
            let p_a = if cp < 1.0 { (p_b / (1.0 - cp)).min(1.0) } else { 1.0 };
            if p_a > 0.0 && uniform01(&mut self.rng) < p_a {
                self.count = -1;
                if !(self.ecn && pkt.ecn_capable) {
                    return Verdict::Drop(DropReason::Early);
                }
                verdict = Verdict::Mark;
            }
        }
        if q.packets >= self.limit {
            // the buffer is full
            self.count = -1;
            return Verdict::Drop(DropReason::Overflow);
        }
        verdict
    }

    fn on_removed(&mut self, now: Time, _pkt: &PacketInfo, after: Backlog, _departed: bool) {
        if after.packets == 0 {
            // the queue becomes empty: q_time <- time
            self.q_time = Some(now);
        }
    }

    fn limit(&self) -> Limit {
        Limit { packets: Some(self.limit), bytes: None }
    }

    fn signal(&self) -> f64 {
        self.avg
    }

    fn signal_kind(&self) -> SignalKind {
        SignalKind::AverageQueue
    }
}

aqm::export_aqm!(Red);
