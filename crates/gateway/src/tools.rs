//! Two helpers the benchmark and the tests run inside the end namespaces:
//! `blast` sends UDP frames (or random garbage) as fast as asked, and `count`
//! counts what arrives (frames, IP packets, CE marks).

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::frame::{self, Class};
use crate::run::stop_requested;
use crate::sock::{self, PacketSocket, RecvBatch};

/// What `blast` sends.
#[derive(Clone, Debug)]
pub struct BlastOptions {
    pub iface: String,
    /// IP packet size, bytes (the frame adds 14).
    pub size: usize,
    pub seconds: f64,
    /// Packets per second, 0 for as fast as possible.
    pub pps: f64,
    /// Distinct source ports (flows).
    pub flows: u16,
    /// Random bytes instead of valid frames (the garbage flood).
    pub garbage: bool,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// Destination MAC address (broadcast by default).
    pub dst_mac: [u8; 6],
    pub ecn: u8,
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
pub fn blast(o: &BlastOptions) -> Result<BlastReport, String> {
    let s = PacketSocket::open(&o.iface).map_err(|e| format!("{}: {e}", o.iface))?;
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

/// Count frames arriving on `iface` for `seconds` (or until SIGINT/SIGTERM).
pub fn count(iface: &str, seconds: f64) -> Result<CountReport, String> {
    let s = PacketSocket::open(iface).map_err(|e| format!("{iface}: {e}"))?;
    let _ = s.kernel_stats();
    let mut b = RecvBatch::new();
    let start = Instant::now();
    let end = Duration::from_secs_f64(if seconds > 0.0 { seconds } else { 1e9 });
    let mut rep = CountReport::default();
    let (mut first, mut last) = (None, Instant::now());
    while !stop_requested() && start.elapsed() < end {
        let n = s.recv(&mut b).map_err(|e| e.to_string())?;
        if n == 0 {
            sock::wait_readable(&[s.fd], 50_000_000);
            continue;
        }
        let t = Instant::now();
        first.get_or_insert(t);
        last = t;
        for i in 0..n {
            if b.outgoing(i) {
                continue;
            }
            let (f, _) = b.frame(i);
            rep.frames += 1;
            rep.bytes += f.len() as u64;
            if let Class::Ip(m) = frame::classify(f) {
                rep.ip += 1;
                match m.ecn {
                    frame::ECN_CE => rep.ce += 1,
                    frame::ECN_ECT0 | frame::ECN_ECT1 => rep.ect += 1,
                    _ => {}
                }
            }
        }
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
