//! The `[[flow]]` section: each table read by its `type`, checked, and expanded into
//! flows (`count` copies; a web entry into its pool of connections), each with its own
//! seed and start time.

use aqm::Time;
use rand::Rng;
use toml::Table;

use super::links::Network;
use super::read::{SPACING, above, bytes, int_in, pos_secs, rate, secs, ticks};
use super::spec::{
    BatchSpec, CommonSpec, FlowSpec, KindSpec, OpenLoopSpec, SizeDistribution, StartSpec,
    TransferSizes,
};
use super::{FlowDef, FlowKind, MAX_SECS, tcp};
use crate::error::{Result, SimError};
use crate::rng::{stream_rng, stream_seed};
use crate::tcp::{TcpParams, Variant};

/// At most this many flows (the event queue's target index).
const MAX_FLOWS: usize = crate::engine::Target::MAX_INDEX as usize;

/// Read and expand the `[[flow]]` tables.
pub(super) fn read(tables: &[Table], net: &Network, seed: u64) -> Result<Vec<FlowDef>> {
    let mut flows = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let p = format!("flow[{i}]");
        let spec = FlowSpec::read(t, &p)?;
        let entry = Entry::read(&spec, net, &p)?;
        // (checked before expanding: `count` copies of a web pool can be billions)
        let more = entry.count as u64 * entry.slots() as u64;
        if flows.len() as u64 + more > MAX_FLOWS as u64 {
            let n = flows.len() as u64 + more;
            return Err(SimError::at(&p, format!("{n} flows so far; at most {MAX_FLOWS} in all")));
        }
        entry.expand(&spec.common, i, seed, &mut flows)?;
    }
    Ok(flows)
}

/// A `[[flow]]` entry checked, before its expansion into flows.
struct Entry {
    path: String,
    kind: FlowKind,
    src: usize,
    dst: usize,
    count: usize,
    packet_size: u32,
    stop: Option<Time>,
    prep_delay: f64,
    exponential_sizes: bool,
    /// ECN-capable transport: `ecn`, or a DCTCP or Prague flow.
    ecn: bool,
    tcp: TcpParams,
}

impl Entry {
    fn read(spec: &FlowSpec, net: &Network, p: &str) -> Result<Entry> {
        let (c, fp) = (&spec.common, |k: &str| format!("{p}.{k}"));
        let src = net.node(&c.src, &fp("src"))?;
        let dst = net.node(&c.dst, &fp("dst"))?;
        if src == dst {
            return Err(SimError::invalid(
                &fp("dst"),
                format!("{:?}", c.dst),
                "a node other than src",
            ));
        }
        let count = int_in(c.count.unwrap_or(1), &fp("count"), 1, 1 << 19)? as usize;
        let packet_size = match &c.packet_size {
            Some(q) => bytes(q, &fp("packet_size"))?,
            None => 1000,
        };
        let stop = match &c.stop {
            Some(q) => Some(Time::from_secs_f64(secs(q, &fp("stop"))?)),
            None => None,
        };
        let prep_delay = match &c.prep_delay {
            Some(q) => secs(q, &fp("prep_delay"))?,
            None => 0.0,
        };
        // Open-loop flows carry TCP's defaults too (never used by their sources).
        let tcp_keys = spec.kind.tcp().cloned().unwrap_or_default();
        let ecn = c.ecn || matches!(tcp_keys.variant, Variant::Dctcp | Variant::Prague);
        let tcp = tcp::params(&tcp_keys, ecn, packet_size, p)?;
        if tcp.sack && matches!(spec.kind, KindSpec::Web(..)) {
            return Err(SimError::at(&fp("sack"), "not available for web flows"));
        }
        if tcp.pacing.is_some() && prep_delay > 0.0 && spec.kind.tcp().is_some() {
            let why = "0 with pacing (the departure times hold the sender back instead)";
            return Err(SimError::invalid(&fp("prep_delay"), prep_delay, why));
        }
        let open_loop = spec.kind.open_loop();
        let exponential_sizes =
            open_loop.is_some_and(|o| o.size_distribution == SizeDistribution::Exponential);
        let kind = kind(&spec.kind, packet_size, p)?;
        let path = p.to_string();
        Ok(Entry {
            path,
            kind,
            src,
            dst,
            count,
            packet_size,
            stop,
            prep_delay,
            exponential_sizes,
            ecn,
            tcp,
        })
    }

    /// Flows per copy: a web pool's connections, else 1.
    fn slots(&self) -> usize {
        match self.kind {
            FlowKind::Web { slots, .. } => slots as usize,
            _ => 1,
        }
    }

    /// Push the entry's flows (`i` is its index among the `[[flow]]` tables).
    fn expand(&self, c: &CommonSpec, i: usize, seed: u64, flows: &mut Vec<FlowDef>) -> Result<()> {
        let slots = self.slots();
        for k in 0..self.count * slots {
            let (copy, slot) = (k / slots, k % slots);
            let id = flows.len();
            let mut kind = self.kind.clone();
            if let FlowKind::Web { first, .. } = &mut kind {
                *first = id - slot;
            }
            let seed = if slots > 1 {
                stream_seed(seed, "web", i as u64, ((copy as u64) << 32) | slot as u64)
            } else {
                stream_seed(seed, "flow", i as u64, k as u64)
            };
            let start = self.start(&c.start, seed)?;
            let ty = kind.name();
            let name = match (&c.name, self.count, slots) {
                (Some(n), 1, 1) => n.clone(),
                (Some(n), _, 1) => format!("{n}#{k}"),
                (Some(n), _, _) => format!("{n}#{copy}.{slot}"),
                (None, _, 1) => format!("{ty}{id}"),
                (None, _, _) => format!("{ty}{}.{slot}", id - slot),
            };
            flows.push(FlowDef {
                name,
                spec: i,
                kind,
                src: self.src,
                dst: self.dst,
                start: Time::from_secs_f64(start),
                stop: self.stop,
                packet_size: self.packet_size,
                exponential_sizes: self.exponential_sizes,
                ecn: self.ecn,
                prep_delay: self.prep_delay,
                tcp: self.tcp.clone(),
                seed,
            });
        }
        Ok(())
    }

    /// The start time of the flow seeded `seed`: `start`, or a draw from its interval.
    fn start(&self, start: &Option<StartSpec>, seed: u64) -> Result<f64> {
        let fp = |k: &str| format!("{}.{k}", self.path);
        Ok(match start {
            None => 0.0,
            Some(StartSpec::At(q)) => secs(q, &fp("start"))?,
            Some(StartSpec::Uniform { uniform: [lo, hi] }) => {
                let lo = secs(lo, &fp("start.uniform[0]"))?;
                let hi = secs(hi, &fp("start.uniform[1]"))?;
                if hi < lo {
                    let allowed = format!(">= uniform[0] ({lo})");
                    return Err(SimError::invalid(&fp("start.uniform[1]"), hi, allowed));
                }
                let mut rng = stream_rng(seed ^ 0x5354_4152_5400_0000);
                lo + (hi - lo) * rng.random::<f64>()
            }
        })
    }
}

/// What the flow at `p` sends, from its kind's keys (`packet_size` turns a rate into a
/// packet interval).
fn kind(spec: &KindSpec, packet_size: u32, p: &str) -> Result<FlowKind> {
    let fp = |k: &str| format!("{p}.{k}");
    let shape = |v: Option<f64>, default: f64| {
        above(v.unwrap_or(default), 1.0, true, &fp("shape"), "> 1 (a finite mean)")
    };
    let interval = |o: &OpenLoopSpec| interval(o, packet_size, p);
    Ok(match spec {
        KindSpec::Tcp(_) => FlowKind::Tcp,
        KindSpec::Telnet(_, t) => FlowKind::Telnet {
            interval: match &t.interval {
                Some(q) => pos_secs(q, &fp("interval"))?,
                None => 1.0,
            },
        },
        KindSpec::Cbr(o, b) => {
            let batch = batch(b, p)?;
            // `interval` is the batches' spacing as given; `rate` stays the mean rate.
            let interval = if o.rate.is_some() {
                batch_interval(interval(o)?, batch, p)?
            } else {
                interval(o)?
            };
            FlowKind::Cbr { interval, batch }
        }
        KindSpec::Poisson(o) => FlowKind::Poisson { interval: interval(o)? },
        KindSpec::BatchPoisson(o, b) => {
            let batch = batch(b, p)?;
            FlowKind::BatchPoisson { interval: batch_interval(interval(o)?, batch, p)?, batch }
        }
        KindSpec::ParetoOnOff(o, s) => {
            let shape = shape(s.shape, 1.5)?;
            let period = |q: &Option<_>, k: &str| match q {
                Some(q) => pos_secs(q, &fp(k)),
                None => Ok(0.5),
            };
            FlowKind::ParetoOnOff {
                interval: interval(o)?,
                on_time: period(&s.on_time, "on_time")?,
                off_time: period(&s.off_time, "off_time")?,
                shape,
            }
        }
        KindSpec::Web(t, w) => {
            let arrival_rate = w.arrival_rate.unwrap_or(1.0);
            let arrival_rate =
                above(arrival_rate, 0.0, true, &fp("arrival_rate"), "> 0 transfers per second")?;
            if ticks(1.0 / arrival_rate) < 1 {
                let allowed =
                    format!("<= 1e9 transfers per second (a mean gap of 1 ns; {SPACING})");
                return Err(SimError::invalid(&fp("arrival_rate"), arrival_rate, allowed));
            }
            let mean_packets = w.mean_packets.unwrap_or(12.0);
            let mean_packets = above(mean_packets, 1.0, false, &fp("mean_packets"), ">= 1 packet")?;
            let shape = shape(w.shape, 1.2)?;
            let fixed = w.size_distribution == TransferSizes::Fixed;
            if fixed && mean_packets.fract() != 0.0 {
                let allowed = "a whole number of packets >= 1 (size_distribution = \"fixed\")";
                return Err(SimError::invalid(&fp("mean_packets"), mean_packets, allowed));
            }
            if t.packets.is_some() {
                return Err(SimError::at(
                    &fp("packets"),
                    "not allowed for web flows (sizes are drawn from mean_packets)",
                ));
            }
            let slots = int_in(w.max_transfers.unwrap_or(100), &fp("max_transfers"), 1, 100_000)?;
            let slots = slots as u32;
            FlowKind::Web { arrival_rate, mean_packets, shape, fixed, first: 0, slots }
        }
    })
}

/// The packets of a batch (`batch`, default 1) of the flow at `p`.
fn batch(b: &BatchSpec, p: &str) -> Result<u32> {
    Ok(int_in(b.batch.unwrap_or(1), &format!("{p}.batch"), 1, 1 << 20)? as u32)
}

/// The spacing of batches of `batch` packets whose mean packet spacing is `per_packet`
/// (s): the mean rate stays that of the packets. At most the longest time a scenario
/// may name.
fn batch_interval(per_packet: f64, batch: u32, p: &str) -> Result<f64> {
    let iv = per_packet * batch as f64;
    if iv > MAX_SECS {
        let most = (MAX_SECS / per_packet).floor().max(1.0);
        let allowed = format!(
            "at most {most} at this rate (batches at most {MAX_SECS:.6e} s apart: \
             {per_packet:e} s per packet)"
        );
        return Err(SimError::invalid(&format!("{p}.batch"), batch, allowed));
    }
    Ok(iv)
}

/// An open-loop flow's packet interval (s): given, or from its mean rate.
fn interval(o: &OpenLoopSpec, packet_size: u32, p: &str) -> Result<f64> {
    let fp = |k: &str| format!("{p}.{k}");
    match (&o.rate, &o.interval) {
        (Some(_), Some(_)) => Err(SimError::at(&fp("interval"), "give rate or interval, not both")),
        (Some(r), None) => {
            let bps = rate(r, &fp("rate"))?;
            let iv = 8.0 * packet_size as f64 / bps;
            if ticks(iv) < 1 {
                let allowed = format!(
                    "a rate <= {:.6e} b/s (one {packet_size}-byte packet per ns; {SPACING})",
                    8.0 * packet_size as f64 / 0.5e-9
                );
                return Err(SimError::invalid(&fp("rate"), bps, allowed));
            }
            Ok(iv)
        }
        (None, Some(iv)) => pos_secs(iv, &fp("interval")),
        (None, None) => Err(SimError::at(
            &fp("rate"),
            "missing; give the mean rate (e.g. \"1Mbps\") or the packet interval",
        )),
    }
}
