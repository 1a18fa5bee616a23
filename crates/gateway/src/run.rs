//! The event loop: one thread, two sockets. Each turn receives what is waiting on
//! both interfaces (in batches), offers IP frames to the direction's pipe, starts the
//! transmissions that are due, sends the frames whose delay has passed, and sleeps in
//! `ppoll` until a socket is readable or the next departure is due.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use aqm::Time;
use serde::Serialize;

use crate::config::Config;
use crate::frame::{self, Class, Invalid};
use crate::pipe::{LinkSummary, Pipe};
use crate::sock::{self, PacketSocket, RecvBatch};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// SIGINT and SIGTERM end the loop (the statistics are then written).
pub fn install_signal_handlers() {
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
}

/// Whether a stop was requested.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Frames seen on one interface.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SideCounters {
    pub rx_frames: u64,
    pub rx_bytes: u64,
    /// IP frames that carried the kernel's receive timestamp (used as arrival time).
    pub rx_timestamped: u64,
    /// Largest gap between a frame's kernel timestamp and its processing, ns.
    pub max_rx_lag_ns: u64,
    pub ip: u64,
    pub arp_forwarded: u64,
    pub non_ip_dropped: u64,
    pub malformed_dropped: u64,
    pub runt_dropped: u64,
    pub oversize_dropped: u64,
    /// Frames this interface sent.
    pub tx_frames: u64,
    /// Frames the kernel refused to send (counted, dropped).
    pub tx_errors: u64,
    /// Frames the kernel dropped before the gateway read them (socket buffer full).
    pub kernel_drops: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct GatewayInfo {
    pub if_a: String,
    pub if_b: String,
    pub elapsed_s: f64,
    pub warmup_s: f64,
    pub duration_s: Option<f64>,
    pub exit_after_s: Option<f64>,
    pub side_a: SideCounters,
    pub side_b: SideCounters,
    /// Loop turns and the largest backlog seen (memory check).
    pub loops: u64,
    pub max_queue_ab: usize,
    pub max_queue_ba: usize,
    pub max_in_flight: usize,
    pub stopped_by: String,
}

/// The statistics file: `links.ab` (A->B) and `links.ba` in the simulator's link
/// shape, and the gateway's own counters.
#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    pub links: std::collections::BTreeMap<String, LinkSummary>,
    pub gateway: GatewayInfo,
}

struct Side {
    sock: PacketSocket,
    counters: SideCounters,
    /// Frames to send out of this side's interface this turn.
    out: Vec<Vec<u8>>,
}

/// Write `value` as JSON to `path` atomically (temporary file + rename).
pub fn write_json<T: Serialize>(path: &str, value: &T) -> std::io::Result<()> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?)?;
    std::fs::rename(&tmp, path)
}

/// Run the gateway until SIGINT/SIGTERM or the configured duration. Returns the statistics.
pub fn run(cfg: &Config) -> Result<Stats, String> {
    let (q_ab, q_ba) = cfg.build_queues()?;
    let open = |name: &str| {
        PacketSocket::open(name).map_err(|e| {
            if e.kind() == std::io::ErrorKind::PermissionDenied {
                format!("cannot open a raw socket on {name}: {e} (run as root or with CAP_NET_RAW and CAP_NET_ADMIN)")
            } else {
                format!("cannot open a raw socket on {name}: {e}")
            }
        })
    };
    let mut sides = [
        Side { sock: open(&cfg.if_a)?, counters: SideCounters::default(), out: Vec::new() },
        Side { sock: open(&cfg.if_b)?, counters: SideCounters::default(), out: Vec::new() },
    ];
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong) };
    let warmup = Time::from_secs_f64(cfg.warmup_s);
    let end = cfg.duration_s.map(Time::from_secs_f64).unwrap_or(Time::MAX);
    let exit_at = cfg.exit_after_s.map(Time::from_secs_f64).unwrap_or(Time::MAX);
    let ns = |s: f64| (s * 1e9).round() as u64;
    // pipes[0]: A -> B (arrives on side 0, leaves on side 1); pipes[1]: B -> A.
    let mut pipes = [
        Pipe::new(q_ab, cfg.ab.rate_bps, ns(cfg.ab.delay_s), warmup, end),
        Pipe::new(q_ba, cfg.ba.rate_bps, ns(cfg.ba.delay_s), warmup, end),
    ];
    let origin = Instant::now();
    let clock = || Time(origin.elapsed().as_nanos() as u64);
    // The kernel stamps frames with CLOCK_REALTIME; this maps them to our clock.
    let realtime_origin = sock::realtime_ns() - clock().as_nanos() as i128;
    if let Some(r) = &cfg.ready {
        std::fs::write(r, format!("{}\n", std::process::id())).map_err(|e| format!("{r}: {e}"))?;
    }
    let mut batch = RecvBatch::new();
    let fds = [sides[0].sock.fd, sides[1].sock.fd];
    let mut loops = 0u64;
    let (mut max_q0, mut max_q1, mut max_fl) = (0usize, 0usize, 0usize);
    let stopped_by;
    loop {
        loops += 1;
        if stop_requested() {
            stopped_by = "signal".to_string();
            break;
        }
        let mut now = clock();
        if now >= exit_at {
            stopped_by = "exit_after".to_string();
            break;
        }
        // 1. Receive: at most 4 batches per side per turn, so sending is not starved.
        // `drained[s]`: every frame that arrived on side s before this turn's reads has
        // been read, so its direction may be served up to now; otherwise only up to the
        // newest arrival read (`latest[s]`), or frames still in the socket would arrive
        // "in the past" of a line already served past them (conservative time keeping).
        let mut drained = [true; 2];
        let mut latest = [Time::ZERO; 2];
        for s in 0..2 {
            for round in 0..4 {
                let n = match sides[s].sock.recv(&mut batch) {
                    Ok(n) => n,
                    Err(e) => return Err(format!("receive on {}: {e}", sides[s].sock.name)),
                };
                if n == 0 {
                    break;
                }
                if round == 3 && n == sock::BATCH {
                    drained[s] = false;
                }
                for i in 0..n {
                    if batch.outgoing(i) {
                        continue;
                    }
                    let (data, truncated) = batch.frame(i);
                    let c = &mut sides[s].counters;
                    c.rx_frames += 1;
                    c.rx_bytes += data.len() as u64;
                    if truncated {
                        c.oversize_dropped += 1;
                        continue;
                    }
                    match frame::classify(data) {
                        Class::Arp => {
                            c.arp_forwarded += 1;
                            sides[1 - s].out.push(data.to_vec());
                        }
                        Class::Ip(meta) => {
                            c.ip += 1;
                            let len = frame::ETH_HLEN + meta.ip_len as usize;
                            // Each frame gets its own arrival time (the kernel's receive
                            // timestamp, so a gateway descheduled for a while still sees
                            // the arrivals as they were spaced), and transmissions due by
                            // then start first: the AQM must not see a batch as one burst
                            // that the line would have drained meanwhile.
                            now = clock();
                            let stamp = batch.timestamp_ns(i).map(|ts| {
                                Time((ts - realtime_origin).clamp(0, now.as_nanos() as i128) as u64)
                            });
                            if let Some(st) = stamp {
                                c.rx_timestamped += 1;
                                c.max_rx_lag_ns = c.max_rx_lag_ns.max((now - st).as_nanos());
                            }
                            let t = stamp.unwrap_or(now).max(pipes[s].last_event());
                            latest[s] = latest[s].max(t);
                            pipes[s].advance(t);
                            pipes[s].arrive(t, data[..len].to_vec(), meta);
                        }
                        Class::Invalid(Invalid::Runt) => c.runt_dropped += 1,
                        Class::Invalid(Invalid::NonIp) => c.non_ip_dropped += 1,
                        Class::Invalid(Invalid::Malformed) => c.malformed_dropped += 1,
                    }
                }
                if n < sock::BATCH {
                    break;
                }
            }
        }
        // 2. Serve both directions and collect what leaves.
        now = clock();
        for d in 0..2 {
            let horizon = if drained[d] { now } else { latest[d].max(pipes[d].last_event()) };
            pipes[d].advance(horizon);
            while let Some(f) = pipes[d].pop_due(now) {
                sides[1 - d].out.push(f.data);
            }
        }
        max_q0 = max_q0.max(pipes[0].queue_len());
        max_q1 = max_q1.max(pipes[1].queue_len());
        max_fl = max_fl.max(pipes[0].in_flight() + pipes[1].in_flight());
        // 3. Send.
        for side in sides.iter_mut() {
            if !side.out.is_empty() {
                let n = side.sock.send(&side.out);
                side.counters.tx_frames += n as u64;
                side.counters.tx_errors += (side.out.len() - n) as u64;
                side.out.clear();
            }
        }
        // 4. Sleep until a frame arrives or the next event (at most 100 ms, so a
        // signal that slipped in before ppoll is seen soon).
        let wake = [pipes[0].next_wakeup(), pipes[1].next_wakeup(), Some(exit_at)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(Time::MAX);
        let now = clock();
        if wake > now && drained == [true, true] {
            sock::wait_readable(&fds, (wake - now).as_nanos().min(100_000_000));
        }
    }
    let now = clock();
    for side in sides.iter_mut() {
        side.counters.kernel_drops += side.sock.kernel_stats().drops;
    }
    let mut links = std::collections::BTreeMap::new();
    links.insert("ab".to_string(), pipes[0].summary(now));
    links.insert("ba".to_string(), pipes[1].summary(now));
    let [a, b] = sides;
    Ok(Stats {
        links,
        gateway: GatewayInfo {
            if_a: cfg.if_a.clone(),
            if_b: cfg.if_b.clone(),
            elapsed_s: now.as_secs_f64(),
            warmup_s: cfg.warmup_s,
            duration_s: cfg.duration_s,
            exit_after_s: cfg.exit_after_s,
            side_a: a.counters,
            side_b: b.counters,
            loops,
            max_queue_ab: max_q0,
            max_queue_ba: max_q1,
            max_in_flight: max_fl,
            stopped_by,
        },
    })
}
