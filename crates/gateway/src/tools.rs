//! Helpers for the benchmark and the tests: `blast` sends UDP frames (or random
//! garbage) as fast as asked, and `count` counts what arrives (frames, IP packets, CE
//! marks), both inside the end namespaces; `bench_pipeline` times the forwarding path
//! without sockets.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::block::{BlockRing, Blocks};
use crate::error::{GatewayError, Result};
use crate::frame::{self, Class};
use crate::pipe::Pipe;
use crate::run::stop_requested;
use crate::sock::{self, RecvBatch};

/// What `blast` sends.
#[derive(Clone, Debug, clap::Args)]
pub struct BlastOptions {
    /// Interface to send from.
    #[arg(long, value_name = "IF")]
    pub iface: String,
    /// IP packet size, bytes (the frame adds 14).
    #[arg(long, value_name = "BYTES", default_value_t = 1500)]
    pub size: usize,
    /// How long to send, s.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Packets per second, 0 for as fast as possible.
    #[arg(long, default_value_t = 0.0)]
    pub pps: f64,
    /// Distinct source ports (flows).
    #[arg(long, default_value_t = 1)]
    pub flows: u16,
    /// Random bytes instead of valid frames (the garbage flood).
    #[arg(long)]
    pub garbage: bool,
    /// Source IPv4 address.
    #[arg(long, value_name = "ADDR", default_value = "10.199.1.1", value_parser = ipv4)]
    pub src: [u8; 4],
    /// Destination IPv4 address.
    #[arg(long, value_name = "ADDR", default_value = "10.199.2.1", value_parser = ipv4)]
    pub dst: [u8; 4],
    /// Destination MAC address.
    #[arg(long, value_name = "MAC", default_value = "ff:ff:ff:ff:ff:ff", value_parser = mac)]
    pub dst_mac: [u8; 6],
    /// The ECN field of every packet (0-3).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub ecn: u8,
}

fn ipv4(s: &str) -> std::result::Result<[u8; 4], String> {
    s.parse::<std::net::Ipv4Addr>().map(|a| a.octets()).map_err(|_| "not an IPv4 address".into())
}

fn mac(s: &str) -> std::result::Result<[u8; 6], String> {
    let p: Vec<u8> = s.split(':').filter_map(|x| u8::from_str_radix(x, 16).ok()).collect();
    p.try_into().map_err(|_| "not a MAC address (six hex bytes, ':' between)".into())
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct BlastReport {
    pub sent: u64,
    pub refused: u64,
    pub seconds: f64,
    pub pps: f64,
}

/// A tiny xorshift generator for garbage bytes (no dependency, no global state).
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn frames(o: &BlastOptions) -> Vec<Vec<u8>> {
    if o.garbage {
        let mut r = XorShift(0x9E37_79B9_7F4A_7C15);
        return (0..1024)
            .map(|i| {
                let len = (r.next() % 1600) as usize;
                let mut f: Vec<u8> = (0..len).map(|_| r.next() as u8).collect();
                // A third claim to be IPv4 or IPv6 with random headers, the rest random
                // EtherTypes; all carry a source MAC so that the switch path treats them as frames.
                if f.len() >= 14 {
                    match i % 3 {
                        0 => f[12..14].copy_from_slice(&frame::ETHERTYPE_IPV4.to_be_bytes()),
                        1 => f[12..14].copy_from_slice(&frame::ETHERTYPE_IPV6.to_be_bytes()),
                        _ => {}
                    }
                }
                f
            })
            .filter(|f| f.len() >= 14)
            .collect();
    }
    (0..o.flows.max(1))
        .map(|i| {
            let mut f = frame::build::ipv4(o.src, o.dst, 17, 10000 + i, 9, o.ecn, o.size);
            f[0..6].copy_from_slice(&o.dst_mac);
            f
        })
        .collect()
}

/// Send for `seconds`, paced to `pps` if given.
pub fn blast(o: &BlastOptions) -> Result<BlastReport> {
    let s = sock::open(&o.iface)?;
    let pool = frames(o);
    let start = Instant::now();
    let end = Duration::from_secs_f64(o.seconds.max(0.0));
    let mut rep = BlastReport::default();
    let mut k = 0usize;
    let mut batch: Vec<&[u8]> = Vec::with_capacity(sock::BATCH);
    while !stop_requested() {
        let el = start.elapsed();
        if el >= end {
            break;
        }
        let mut n = sock::BATCH;
        if o.pps > 0.0 {
            let due = (o.pps * el.as_secs_f64()) as u64;
            let owed = due.saturating_sub(rep.sent + rep.refused);
            if owed == 0 {
                std::thread::sleep(Duration::from_micros(200));
                continue;
            }
            n = n.min(owed as usize);
        }
        batch.clear();
        for _ in 0..n {
            batch.push(&pool[k % pool.len()]);
            k += 1;
        }
        let sent = s.send(&batch);
        rep.sent += sent as u64;
        rep.refused += (n - sent) as u64;
        if sent < n {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
    rep.seconds = start.elapsed().as_secs_f64();
    rep.pps = rep.sent as f64 / rep.seconds.max(1e-9);
    Ok(rep)
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct CountReport {
    pub frames: u64,
    pub bytes: u64,
    pub ip: u64,
    pub ce: u64,
    pub ect: u64,
    pub kernel_drops: u64,
    pub seconds: f64,
    /// Frames per second between the first and the last frame.
    pub pps: f64,
}

impl CountReport {
    /// One frame received.
    fn tally(&mut self, f: &[u8]) {
        self.frames += 1;
        self.bytes += f.len() as u64;
        if let Class::Ip(m) = frame::classify(f) {
            self.ip += 1;
            match m.ecn {
                frame::ECN_CE => self.ce += 1,
                frame::ECN_ECT0 | frame::ECN_ECT1 => self.ect += 1,
                _ => {}
            }
        }
    }
}

/// Count frames arriving on `iface` for `seconds` (or until SIGINT/SIGTERM), read
/// through a TPACKET_V3 block ring ([`crate::block`]), or with `recvmmsg` where the
/// kernel refuses it.
pub fn count(iface: &str, seconds: f64) -> Result<CountReport> {
    let s = sock::open(iface)?;
    let mut ring = BlockRing::setup(s.fd, Blocks::COUNTER).ok();
    let s = if ring.is_some() { s } else { sock::open(iface)? };
    let _ = s.kernel_stats();
    let mut b = RecvBatch::new();
    let start = Instant::now();
    let end = Duration::from_secs_f64(if seconds > 0.0 { seconds } else { 1e9 });
    let mut rep = CountReport::default();
    let (mut first, mut last) = (None, Instant::now());
    let (mut more, mut last_wait) = (true, ring.is_some());
    // After a stop, what the socket holds is still read; the block the kernel is
    // filling is handed over at its timeout, which is waited for once.
    while more || !stop_requested() && start.elapsed() < end {
        let n = match ring.as_mut() {
            Some(r) => r.next_block(|f, outgoing| {
                if !outgoing {
                    rep.tally(f)
                }
            }) as usize,
            None => {
                let n = s
                    .recv(&mut b)
                    .map_err(|source| GatewayError::Receive { iface: iface.to_string(), source })?;
                for i in (0..n).filter(|&i| !b.outgoing(i)) {
                    rep.tally(b.frame(i).0);
                }
                n
            }
        };
        more = n > 0;
        if n == 0 {
            if stop_requested() || start.elapsed() >= end {
                if !last_wait {
                    break;
                }
                last_wait = false;
                more = true;
                let timeout_ns = 2_000_000 * Blocks::COUNTER.timeout_ms as u64;
                sock::wait_readable(&[s.fd], timeout_ns);
                continue;
            }
            sock::wait_readable(&[s.fd], 50_000_000);
            continue;
        }
        let t = Instant::now();
        first.get_or_insert(t);
        last = t;
    }
    rep.kernel_drops = s.kernel_stats().drops;
    rep.seconds = start.elapsed().as_secs_f64();
    if let Some(f) = first {
        let span = last.duration_since(f).as_secs_f64();
        if span > 0.0 {
            rep.pps = rep.frames as f64 / span;
        }
    }
    Ok(rep)
}

#[derive(Clone, Debug, Serialize)]
pub struct PipelineReport {
    pub frame_bytes: usize,
    pub packets: u64,
    pub forwarded: u64,
    pub seconds: f64,
    pub pps: f64,
    pub note: &'static str,
}

/// The forwarding path without sockets (parse, RED, serializer, delay line, CE) over
/// `packets` frames of `frame_bytes`: packets per second.
pub fn bench_pipeline(frame_bytes: usize, packets: u64) -> Result<PipelineReport> {
    let cfg = crate::config::parse_queue(
        r#"{"type":"red","limit":1000,"min_th":5,"max_th":15}"#,
        "queue",
    )?;
    let disc = cfg.build_qdisc(&aqm::BuildContext { link_rate_bps: Some(1e12), seed: Some(1) })?;
    let mut p = Pipe::new(disc, 1e12, 0, aqm::Time::ZERO, aqm::Time::MAX);
    let ip_len = frame_bytes.saturating_sub(frame::ETH_HLEN);
    let frames: Vec<Vec<u8>> = (0..64u16)
        .map(|i| frame::build::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 17, 1000 + i, 9, 2, ip_len))
        .collect();
    let start = Instant::now();
    let mut out = 0u64;
    for i in 0..packets {
        let now = aqm::Time(start.elapsed().as_nanos() as u64);
        let f = &frames[(i % 64) as usize];
        if let Class::Ip(m) = frame::classify(f) {
            p.arrive(now, f.to_vec(), m);
        }
        if i % 32 == 31 {
            p.advance(now);
            while p.pop_due(now).is_some() {
                out += 1;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(PipelineReport {
        frame_bytes,
        packets,
        forwarded: out,
        seconds,
        pps: packets as f64 / seconds,
        note: "in-process path only: no sockets, no kernel",
    })
}
