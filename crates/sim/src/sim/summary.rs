//! The end of a run and what it reports: the monitors closed at the duration, and the
//! summary (per link direction, per flow) whose definitions are in [`crate::monitor`].

use std::collections::BTreeMap;

use super::Sim;
use super::flow::Flow;
use super::link::{Dir, advance};
use crate::error::Result;
use crate::monitor::{BbrSummary, FlowSummary, LinkSummary, Summary};
use crate::scenario::FlowKind;

impl Sim {
    /// Close the monitors at the end of the run and flush the traces.
    pub(super) fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        let end = self.end;
        for d in 0..self.dirs.len() {
            self.serve(d, end);
            self.held_finish(d, end);
            let dir = &mut self.dirs[d];
            advance(dir, d, end, end, &mut self.traces, &self.flows);
            for k in dir.n_started..dir.q.len() {
                let enq = dir.q[k].enq;
                dir.mon.waited(enq, end);
            }
            dir.mon.finish(end);
        }
        for fl in self.flows.iter_mut() {
            if let Some(tcp) = fl.tcp.as_ref() {
                let c = tcp.0.cwnd;
                fl.mon.cwnd_change(self.w0, self.w1, end, c);
            }
        }
        self.busiest = (0..self.dirs.len())
            .max_by_key(|&d| (self.dirs[d].mon.total_departures(), std::cmp::Reverse(d)))
            .unwrap_or(0);
        self.finished = true;
        self.check_dirs();
        if let Some(t) = self.traces.as_mut() {
            t.finish()?;
        }
        Ok(())
    }

    /// The summary (complete once the run has reached its duration; after progress
    /// steps on two threads, `settle` first).
    pub fn summary(&self) -> Summary {
        let win = (self.w1 - self.w0) as f64 * 1e-9;
        let links: BTreeMap<String, LinkSummary> = self
            .dirs
            .iter()
            .enumerate()
            .map(|(d, dir)| (self.sc.dir_name(d), self.link_summary(d, dir, win)))
            .collect();
        let flows =
            self.flows.iter().enumerate().map(|(id, fl)| self.flow_summary(id, fl, win)).collect();
        let sc = &self.sc;
        let busiest = self.busiest;
        Summary {
            name: sc.name.clone(),
            duration: sc.duration.as_secs_f64(),
            warmup: sc.warmup.as_secs_f64(),
            seed: sc.seed,
            links,
            flows,
            events: self.q.popped(),
            wall_seconds: self.wall.elapsed().as_secs_f64(),
            profiles: sc.profiles.clone(),
            bottleneck_packets: self.dirs.get(busiest).map_or(0, |d| d.mon.total_departures()),
            bottleneck: if self.dirs.is_empty() { String::new() } else { sc.dir_name(busiest) },
        }
    }

    /// Direction `d` over a window of `win` seconds.
    fn link_summary(&self, d: usize, dir: &Dir, win: f64) -> LinkSummary {
        let sc = &self.sc;
        let m = &dir.mon;
        let l = &sc.links[d / 2];
        let (from, to) = if d.is_multiple_of(2) { (l.a, l.b) } else { (l.b, l.a) };
        let (mean_delay, delay_var) = m.delay_stats();
        LinkSummary {
            index: d,
            from: sc.nodes[from].clone(),
            to: sc.nodes[to].clone(),
            queue_type: dir.kind().to_string(),
            rate_bps: l.rate_bps,
            delay: l.delay.as_secs_f64(),
            utilization: m.busy_ns as f64 * 1e-9 / win,
            throughput_bps: m.departed_bytes as f64 * 8.0 / win,
            arrivals: m.arrivals(),
            departures: m.departures(),
            drops: m.early_drops + m.forced_drops,
            early_drops: m.early_drops,
            forced_drops: m.forced_drops,
            overflow_drops: m.overflow_drops,
            marks: m.marks,
            link_down_drops: m.link_down_drops,
            mean_queue: m.mean_queue(),
            max_queue: m.max_queue(),
            mean_avg: m.mean_avg(),
            mean_delay,
            delay_var,
            delay_p50: m.delay_quantile(0.5) * 1e-9,
            delay_p90: m.delay_quantile(0.9) * 1e-9,
            delay_p95: m.delay_quantile(0.95) * 1e-9,
            delay_p99: m.delay_quantile(0.99) * 1e-9,
            drop_runs: m.drop_runs.runs,
            mean_drop_run: m.drop_runs.mean(),
            max_drop_run: m.drop_runs.max,
            drop_run_hist: m.drop_runs.hist.to_vec(),
            queued_at_end: dir.queued_at(self.now) as u64,
            aqm_stats: dir.external().map(|e| e.stats().into_iter().collect()).unwrap_or_default(),
        }
    }

    /// Flow `id` over a window of `win` seconds.
    fn flow_summary(&self, id: usize, fl: &Flow, win: f64) -> FlowSummary {
        let sc = &self.sc;
        let def = &sc.flows[id];
        let b = &self.dirs[fl.bottleneck];
        let tcp = fl.tcp.as_ref().map(|t| &t.0);
        let mut st = fl.tcp_stats();
        if let Some(w) = fl.mon.at_warmup {
            st.sent -= w.sent;
            st.retransmits -= w.retransmits;
            st.timeouts -= w.timeouts;
            st.fast_retransmits -= w.fast_retransmits;
            st.ecn_reductions -= w.ecn_reductions;
        }
        let web = fl.web.as_deref();
        FlowSummary {
            id,
            name: def.name.clone(),
            kind: def.kind.name().to_string(),
            variant: tcp.map(|s| s.p.variant.name().to_string()),
            src: sc.nodes[def.src].clone(),
            dst: sc.nodes[def.dst].clone(),
            start: def.start.as_secs_f64(),
            goodput_bps: fl.mon.delivered_bytes as f64 * 8.0 / win,
            throughput_bps: b.flow_bytes.get(id).copied().unwrap_or(0) as f64 * 8.0 / win,
            bottleneck: sc.dir_name(fl.bottleneck),
            arrivals: b.flow_arrivals.get(id).copied().unwrap_or(0),
            drops: fl.mon.drops,
            marks: fl.mon.marks,
            timeouts: st.timeouts,
            fast_retransmits: st.fast_retransmits,
            retransmits: st.retransmits,
            sent: if tcp.is_some() { st.sent } else { fl.open.sent },
            delivered: fl.mon.delivered,
            mean_cwnd: if tcp.is_some() { fl.mon.mean_cwnd(self.w0, self.w1) } else { 0.0 },
            cwnd: tcp.map_or(0.0, |s| s.cwnd),
            ssthresh: tcp.map_or(0.0, |s| s.ssthresh.min(1e9)),
            srtt: tcp.map_or(0.0, |s| s.srtt),
            rto: tcp.map_or(0.0, |s| s.rto),
            completion_time: if web.is_some() {
                None
            } else {
                tcp.and_then(|s| s.done_at).map(|t| t.as_secs_f64())
            },
            transfers: web.map_or(0, |w| w.transfers),
            mean_fct: web.filter(|w| w.transfers > 0).map(|w| w.fct_sum / w.transfers as f64),
            rejected: web.map_or(0, |w| w.rejected),
            startup_time: match def.kind {
                FlowKind::Tcp | FlowKind::Telnet { .. } => {
                    fl.mon.first_data.map(|t| t.saturating_sub(fl.start) as f64 * 1e-9)
                }
                _ => None,
            },
            mean_startup: web
                .filter(|w| w.transfers > 0)
                .map(|w| w.startup_sum / w.transfers as f64),
            fct_p95: match def.kind {
                FlowKind::Web { first, slots, .. } if first == id => {
                    self.pool_fct_p95(first, slots)
                }
                _ => None,
            },
            pacing_rate_bps: tcp
                .filter(|s| s.p.pacing.is_some())
                .map(|s| s.pacing_rate() * f64::from(def.packet_size) * 8.0),
            bbr: tcp.and_then(|s| bbr_summary(s, def.packet_size)),
        }
    }

    /// The 95th percentile of the completion times of the transfers the web pool
    /// `first..first + slots` completed in the window (None if none did).
    fn pool_fct_p95(&self, first: usize, slots: u32) -> Option<f64> {
        let pool = &self.flows[first..first + slots as usize];
        let mut fcts: Vec<f64> = pool
            .iter()
            .filter_map(|f| f.web.as_deref())
            .flat_map(|w| w.fcts.iter().copied())
            .collect();
        quantile(&mut fcts, 0.95)
    }
}

/// A BBR sender's state for the summary.
fn bbr_summary(s: &crate::tcp::TcpSender, size: u32) -> Option<BbrSummary> {
    let row = super::flow::bbr_row(s, size)?;
    let b = s.bbr()?;
    Some(BbrSummary {
        bbr_mode: row.mode.to_string(),
        bbr_btl_bw_bps: row.btl_bw_bps,
        bbr_rt_prop: row.rt_prop,
        bbr_pacing_gain: row.pacing_gain,
        bbr_cwnd_gain: row.cwnd_gain,
        bbr_rounds: b.rounds,
    })
}

/// The `q`-quantile of `v` (sorted here) by linear interpolation between the order
/// statistics at `q (n - 1)` (numpy's default); None for no values.
pub(super) fn quantile(v: &mut [f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let h = q * (v.len() - 1) as f64;
    let (lo, frac) = (h.floor() as usize, h - h.floor());
    let hi = (lo + 1).min(v.len() - 1);
    Some(v[lo] + frac * (v[hi] - v[lo]))
}

#[cfg(test)]
mod tests {
    use super::quantile;

    #[test]
    fn quantile_interpolates_between_order_statistics() {
        assert_eq!(quantile(&mut [], 0.95), None);
        assert_eq!(quantile(&mut [3.0], 0.95), Some(3.0));
        // 21 values 0..=20 shuffled: q (n - 1) = 19 exactly
        let mut v: Vec<f64> = (0..21).map(|i| ((i * 8) % 21) as f64).collect();
        assert_eq!(quantile(&mut v, 0.95), Some(19.0));
        // 0, 10: h = 0.95, 0 + 0.95 * 10
        assert!((quantile(&mut [10.0, 0.0], 0.95).unwrap() - 9.5).abs() < 1e-12);
    }
}
