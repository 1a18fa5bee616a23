//! Flows and their sources: the state of one flow (its TCP ends, or its open-loop
//! source), the flow's application events, and the open-loop sources (CBR, Poisson,
//! batch Poisson, Pareto ON/OFF) that emit packets without feedback. TCP hosts are in
//! `host`, web mice in `web`.

use aqm::Time;
use rand::Rng;

use super::Sim;
use super::event::Kind;
use super::web::WebConn;
use crate::monitor::FlowMon;
use crate::packet::{Pkt, flags};
use crate::rng::{SimRng, stream_rng};
use crate::scenario::{FlowDef, FlowKind};
use crate::tcp::{TcpParams, TcpReceiver, TcpSender, TcpStats, connection};
use crate::trace::BbrRow;

/// What emits a flow's packets besides TCP's own clock.
#[derive(Clone)]
pub(super) enum Source {
    /// A bulk or finite TCP transfer: the window alone.
    None,
    Cbr {
        interval: f64,
        batch: u32,
    },
    Poisson {
        mean: f64,
    },
    Batch {
        mean: f64,
        batch: u32,
    },
    Pareto {
        interval: f64,
        on_mean: f64,
        off_mean: f64,
        shape: f64,
        on_until: u64,
    },
    /// TELNET-like writes of one packet at exponential intervals.
    Telnet {
        mean: f64,
    },
    /// A web-mice connection; the group's first connection also generates arrivals.
    Web {
        generator: bool,
        first: usize,
        slots: u32,
        rate: f64,
        mean: f64,
        shape: f64,
        /// Every transfer is `mean` packets (else Pareto sizes of mean `mean`).
        fixed: bool,
    },
}

/// The times of a flow's pending events, so that a stale event is recognised.
#[derive(Clone, Copy, Default)]
pub(super) struct Timers {
    pub(super) send_at: Option<u64>,
    pub(super) rto_at: Option<u64>,
    pub(super) delack_at: Option<u64>,
}

/// An open-loop source's packet numbering and count.
#[derive(Clone, Copy, Default)]
pub(super) struct OpenLoop {
    pub(super) next_seq: u32,
    /// Packets emitted in the window.
    pub(super) sent: u64,
    /// Draw each packet's size from an exponential of mean `packet_size`.
    pub(super) exponential_sizes: bool,
}

#[derive(Clone)]
pub(super) struct Flow {
    pub(super) src: u16,
    pub(super) dst: u16,
    pub(super) packet_size: u32,
    pub(super) ecn: bool,
    /// Seconds: each packet leaves U[0, prep_delay] after it could.
    pub(super) prep_delay: f64,
    pub(super) start: u64,
    pub(super) stop: Option<u64>,
    pub(super) stopped: bool,
    pub(super) tcp: Option<Box<(TcpSender, TcpReceiver)>>,
    pub(super) source: Source,
    pub(super) open: OpenLoop,
    pub(super) rng: SimRng,
    pub(super) mon: FlowMon,
    /// The direction whose per-flow counters the summary reports.
    pub(super) bottleneck: usize,
    pub(super) timers: Timers,
    pub(super) trace_cwnd: bool,
    /// The destination host may take this flow's data at once (see `express`).
    pub(super) rx_express: bool,
    /// The source host may take this flow's ACKs at once, timers allowing.
    pub(super) tx_express: bool,
    pub(super) timeout_times: Vec<u64>,
    /// Web mice: the connection's transfers.
    pub(super) web: Option<Box<WebConn>>,
}

pub(super) fn pareto(rng: &mut SimRng, mean: f64, shape: f64) -> f64 {
    let scale = mean * (shape - 1.0) / shape;
    let u: f64 = 1.0 - rng.random::<f64>();
    scale / u.powf(1.0 / shape)
}

pub(super) fn expo(rng: &mut SimRng, mean: f64) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    -mean * u.ln()
}

#[inline]
pub(super) fn ns(s: f64) -> u64 {
    Time::from_secs_f64(s).0
}

/// BBR's state of sender `s` (packets of `size` bytes), for a BBR sender.
pub(super) fn bbr_row(s: &TcpSender, size: u32) -> Option<BbrRow> {
    let b = s.bbr()?;
    let bits = f64::from(size) * 8.0;
    Some(BbrRow {
        mode: b.mode.name(),
        btl_bw_bps: b.btl_bw() * bits,
        rt_prop: b.rt_prop.unwrap_or(0.0),
        pacing_rate_bps: s.pacing_rate() * bits,
        pacing_gain: b.pacing_gain,
        cwnd_gain: b.cwnd_gain,
        cwnd: s.cwnd,
    })
}

pub(super) fn add_stats(a: TcpStats, b: TcpStats) -> TcpStats {
    TcpStats {
        sent: a.sent + b.sent,
        retransmits: a.retransmits + b.retransmits,
        timeouts: a.timeouts + b.timeouts,
        fast_retransmits: a.fast_retransmits + b.fast_retransmits,
        ecn_reductions: a.ecn_reductions + b.ecn_reductions,
        injected_losses: a.injected_losses + b.injected_losses,
    }
}

/// The TCP parameters of flow `f`, with its packet size and ECN capability.
pub(super) fn tcp_params(f: &FlowDef) -> TcpParams {
    let mut p = f.tcp.clone();
    p.packet_size = f.packet_size;
    p.ecn = f.ecn;
    p
}

impl Flow {
    /// Flow `id` as the scenario defines it, counted at direction `bottleneck`.
    pub(super) fn new(id: usize, f: &FlowDef, bottleneck: usize) -> Flow {
        let tcp = f.kind.is_tcp().then(|| {
            let p = tcp_params(f);
            let (mut s, r) = connection(p, id as u32, f.src as u16, f.dst as u16);
            s.seed(crate::rng::stream_seed(f.seed, "bbr", 0, 0));
            if let FlowKind::Telnet { .. } | FlowKind::Web { .. } = f.kind {
                s.set_app_limit(0);
            }
            Box::new((s, r))
        });
        let source = match f.kind {
            FlowKind::Tcp => Source::None,
            FlowKind::Telnet { interval } => Source::Telnet { mean: interval },
            FlowKind::Cbr { interval, batch } => Source::Cbr { interval, batch },
            FlowKind::Poisson { interval } => Source::Poisson { mean: interval },
            FlowKind::BatchPoisson { interval, batch } => Source::Batch { mean: interval, batch },
            FlowKind::ParetoOnOff { interval, on_time, off_time, shape } => Source::Pareto {
                interval,
                on_mean: on_time,
                off_mean: off_time,
                shape,
                on_until: 0,
            },
            FlowKind::Web { arrival_rate, mean_packets, shape, fixed, first, slots } => {
                Source::Web {
                    generator: first == id,
                    first,
                    slots,
                    rate: arrival_rate,
                    mean: mean_packets,
                    shape,
                    fixed,
                }
            }
        };
        let web =
            matches!(f.kind, FlowKind::Web { .. }).then(|| Box::new(WebConn::new(tcp_params(f))));
        Flow {
            src: f.src as u16,
            dst: f.dst as u16,
            packet_size: f.packet_size,
            ecn: f.ecn,
            prep_delay: f.prep_delay,
            start: f.start.0,
            stop: f.stop.map(|t| t.0),
            stopped: false,
            tcp,
            source,
            open: OpenLoop { exponential_sizes: f.exponential_sizes, ..Default::default() },
            rng: stream_rng(f.seed),
            mon: FlowMon::default(),
            bottleneck,
            timers: Timers::default(),
            trace_cwnd: false,
            rx_express: false,
            tx_express: false,
            timeout_times: Vec::new(),
            web,
        }
    }

    /// The sender's counters, earlier transfers (web mice) included.
    pub(super) fn tcp_stats(&self) -> TcpStats {
        let now = self.tcp.as_ref().map(|t| t.0.stats).unwrap_or_default();
        self.web.as_ref().map_or(now, |w| add_stats(w.stats_acc, now))
    }
}

impl Sim {
    /// A flow's source may send: a web connection's generator arms itself, TCP sends
    /// what its window allows, an open-loop source emits.
    pub(super) fn on_send(&mut self, f: usize) {
        let fl = &self.flows[f];
        if fl.stopped {
            return;
        }
        if fl.web.is_some() && !self.web_may_send(f) {
            return;
        }
        if self.flows[f].tcp.is_some() {
            self.tcp_send(f);
        } else {
            self.emit(f);
        }
    }

    /// An application writes: a web transfer arrives, or a TELNET source writes.
    pub(super) fn on_app(&mut self, f: usize) {
        let fl = &self.flows[f];
        if fl.stopped {
            return;
        }
        match fl.source {
            Source::Web { .. } => self.web_arrival(f),
            Source::Telnet { mean } => self.telnet_write(f, mean),
            _ => {}
        }
    }

    /// The application stops writing; what is sent is still recovered.
    pub(super) fn on_stop(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        fl.stopped = true;
        if let Some(tcp) = fl.tcp.as_mut() {
            tcp.0.set_app_limit(tcp.0.snd_max as u64);
        }
    }

    /// An open-loop source emits its packet (or batch), then schedules the next
    /// emission.
    fn emit(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let mut n = 1u32;
        let next: f64 = match &mut fl.source {
            Source::Cbr { interval, batch } => {
                n = *batch;
                *interval
            }
            Source::Poisson { mean } => expo(&mut fl.rng, *mean),
            Source::Batch { mean, batch } => {
                n = *batch;
                expo(&mut fl.rng, *mean)
            }
            Source::Pareto { interval, on_mean, off_mean, shape, on_until } => {
                if now >= *on_until {
                    // A new ON period begins (the first one at the start time).
                    let on = pareto(&mut fl.rng, *on_mean, *shape);
                    *on_until = now + ns(on);
                }
                let nx = now + ns(*interval);
                if nx >= *on_until {
                    let off = pareto(&mut fl.rng, *off_mean, *shape);
                    let t = *on_until + ns(off);
                    (t - now) as f64 * 1e-9
                } else {
                    *interval
                }
            }
            Source::None | Source::Telnet { .. } | Source::Web { .. } => return,
        };
        let f_ecn = if fl.ecn { flags::ECT } else { 0 };
        for _ in 0..n {
            let seq = fl.open.next_seq;
            fl.open.next_seq = fl.open.next_seq.wrapping_add(1);
            if now >= self.w0 {
                fl.open.sent += 1;
            }
            let size = if fl.open.exponential_sizes {
                // at least one byte: a zero-length packet would take no time on the link
                expo(&mut fl.rng, fl.packet_size as f64).round().clamp(1.0, u32::MAX as f64) as u32
            } else {
                fl.packet_size
            };
            self.out.push(Pkt { flow: f as u32, seq, size, dst: fl.dst, flags: f_ecn, epoch: 0 });
        }
        let prep = fl.prep_delay;
        let at = (now.saturating_add(ns(next))).saturating_add(if prep > 0.0 {
            ns(fl.rng.random::<f64>() * prep)
        } else {
            0
        });
        let node = fl.src as usize;
        if at <= self.end && fl.stop.is_none_or(|s| at < s) {
            self.schedule(at, Kind::Send, f);
        }
        self.flush(node);
    }
}
