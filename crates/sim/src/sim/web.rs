//! Web mice: a pool of TCP connections (flows `first..first + slots`) carrying
//! transfers that arrive as a Poisson process with Pareto sizes (Floyd, Gummadi &
//! Shenker's web traffic). The group's first connection generates the arrivals; an
//! arrival takes a free connection, which starts a fresh sender and receiver for it
//! (a new connection epoch, so that stragglers of the previous transfer are ignored),
//! or is counted rejected when every connection is busy.

use aqm::Time;

use super::Sim;
use super::event::Kind;
use super::flow::{Source, add_stats, expo, ns, pareto};
use crate::tcp::{TcpParams, TcpReceiver, TcpSender, TcpStats};

/// The transfers of one web connection.
#[derive(Clone)]
pub(super) struct WebConn {
    /// The connection's TCP parameters; each transfer sets its own `packets`.
    pub(super) params: TcpParams,
    /// Incremented by every transfer: packets of an earlier one are ignored.
    pub(super) epoch: u8,
    /// A transfer is in progress, started at `transfer_start`.
    pub(super) busy: bool,
    pub(super) transfer_start: u64,
    /// Transfers completed in the window, the sum of their completion times and of
    /// their start-up times (s), and the completion times.
    pub(super) transfers: u64,
    pub(super) fct_sum: f64,
    pub(super) startup_sum: f64,
    pub(super) fcts: Vec<f64>,
    /// Arrivals rejected because every connection was busy (the group's first
    /// connection counts them).
    pub(super) rejected: u64,
    /// The generator's first arrival is scheduled.
    pub(super) gen_armed: bool,
    /// Counters of earlier transfers' senders.
    pub(super) stats_acc: TcpStats,
}

impl WebConn {
    pub(super) fn new(params: TcpParams) -> WebConn {
        WebConn {
            params,
            epoch: 0,
            busy: false,
            transfer_start: 0,
            transfers: 0,
            fct_sum: 0.0,
            startup_sum: 0.0,
            fcts: Vec::new(),
            rejected: 0,
            gen_armed: false,
            stats_acc: TcpStats::default(),
        }
    }
}

impl Sim {
    /// At a web connection's send event: whether its sender may send. The generator's
    /// first event schedules the first arrival instead; an idle connection sends
    /// nothing.
    pub(super) fn web_may_send(&mut self, f: usize) -> bool {
        let now = self.now;
        let fl = &mut self.flows[f];
        let Source::Web { generator, rate, .. } = fl.source else { return true };
        let web = fl.web.as_mut().expect("a web connection");
        if generator && !web.gen_armed {
            let at = now + ns(expo(&mut fl.rng, 1.0 / rate));
            web.gen_armed = true;
            self.schedule(at, Kind::App, f);
            return false;
        }
        web.busy
    }

    /// A transfer arrives at the group of generator `f`: draw its size and the next
    /// arrival, and start it.
    pub(super) fn web_arrival(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let Source::Web { first, slots, rate, mean, shape, fixed, .. } = fl.source else {
            return;
        };
        let size = if fixed { mean } else { pareto(&mut fl.rng, mean, shape) };
        let size = size.round().clamp(1.0, (u32::MAX / 4) as f64) as u64;
        let at = now + ns(expo(&mut fl.rng, 1.0 / rate));
        if fl.stop.is_none_or(|s| at < s) {
            self.schedule(at, Kind::App, f);
        }
        self.start_transfer(first, slots as usize, size);
    }

    /// A web transfer of `size` packets arrives: start it on a free connection of the
    /// group `first..first + slots`, or count it rejected.
    fn start_transfer(&mut self, first: usize, slots: usize, size: u64) {
        let now = self.now;
        let busy = |fl: &super::flow::Flow| fl.web.as_ref().is_some_and(|w| w.busy);
        let Some(s) = (first..first + slots).find(|&i| !busy(&self.flows[i])) else {
            if now >= self.w0 {
                self.flows[first].web.as_mut().expect("a web connection").rejected += 1;
            }
            return;
        };
        let fl = &mut self.flows[s];
        let web = fl.web.as_mut().expect("a web connection");
        let mut p = web.params.clone();
        p.packets = size;
        let sender = TcpSender::new(p.clone(), s as u32, fl.dst);
        if let Some(old) = fl.tcp.as_ref() {
            web.stats_acc = add_stats(web.stats_acc, old.0.stats);
        }
        let receiver = TcpReceiver::new(&p, s as u32, fl.src);
        fl.tcp = Some(Box::new((sender, receiver)));
        web.epoch = web.epoch.wrapping_add(1);
        web.busy = true;
        web.transfer_start = now;
        fl.mon.first_data = None;
        fl.timers.send_at = None;
        let tcp = fl.tcp.as_mut().expect("just set");
        fl.mon.cwnd_change(self.w0, self.w1, now, tcp.0.cwnd);
        tcp.0.start(Time(now), &mut self.out, if fl.prep_delay > 0.0 { 0 } else { u32::MAX });
        let node = fl.src as usize;
        self.flush(node);
        self.sync_timers(s);
    }

    /// The ACK that completes a web connection's transfer arrived at `now`.
    pub(super) fn web_done(&mut self, f: usize, in_window: bool) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let web = fl.web.as_mut().expect("a web connection");
        web.busy = false;
        if in_window {
            let fct = (now - web.transfer_start) as f64 * 1e-9;
            web.transfers += 1;
            web.fct_sum += fct;
            web.fcts.push(fct);
            // (its last packet was acknowledged: its first one arrived)
            let first = fl.mon.first_data.unwrap_or(now);
            web.startup_sum += (first - web.transfer_start) as f64 * 1e-9;
        }
    }
}
