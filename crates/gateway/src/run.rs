//! The event loop: one thread, two sockets. Each turn receives what is waiting on
//! both interfaces (in batches), offers IP frames to the direction's pipe, starts the
//! transmissions that are due, sends the frames whose delay has passed, and sleeps in
//! `ppoll` until a socket is readable or the next departure is due.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use aqm::Time;
use aqm::stats::DelayStats;
use serde::Serialize;

use crate::config::Config;
use crate::error::{GatewayError, Result};
use crate::frame::{self, Class, Invalid};
use crate::pipe::{DirSummary, Pipe};
use crate::port::Port;
use crate::ring::RxFrame;
use crate::sched::{self, Scheduling};
use crate::sock;

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
    /// That gap over the IP frames read on this side (the wait that reading in
    /// batches or a late wake-up adds before a frame meets its queue), s.
    pub rx_lag_mean_s: f64,
    pub rx_lag_p50_s: f64,
    pub rx_lag_p99_s: f64,
    /// For the frames sent from this side: how long after its release time (the end
    /// of its transmission plus the delay) each was handed to the kernel, s.
    pub tx_lag_mean_s: f64,
    pub tx_lag_p50_s: f64,
    pub tx_lag_p99_s: f64,
    #[serde(skip)]
    rx_lag: DelayStats,
    #[serde(skip)]
    tx_lag: DelayStats,
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

impl SideCounters {
    /// The lag fields from the lags recorded.
    fn summarize_lags(&mut self) {
        let q = |d: &DelayStats, p: f64| d.quantile(p, 0) * 1e-9;
        self.rx_lag_mean_s = self.rx_lag.mean_var(0).0;
        (self.rx_lag_p50_s, self.rx_lag_p99_s) = (q(&self.rx_lag, 0.5), q(&self.rx_lag, 0.99));
        self.tx_lag_mean_s = self.tx_lag.mean_var(0).0;
        (self.tx_lag_p50_s, self.tx_lag_p99_s) = (q(&self.tx_lag, 0.5), q(&self.tx_lag, 0.99));
    }
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
    /// How frames were read and written: "rings" (PACKET_MMAP) or "mmsg".
    pub io: String,
    /// The CPU scheduling it ran with (`--realtime`), and what was refused.
    pub scheduling: Scheduling,
}

/// The statistics file: `links.ab` (A->B) and `links.ba` in the simulator's link
/// shape with the gateway's extras, and the gateway's own counters.
#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    pub links: BTreeMap<String, DirSummary>,
    pub gateway: GatewayInfo,
}

/// Write `value` as JSON to `path` atomically (temporary file + rename).
pub fn write_json<T: Serialize>(path: &str, value: &T) -> Result<()> {
    let tmp = format!("{path}.tmp");
    let text = serde_json::to_vec_pretty(value).map_err(std::io::Error::other);
    text.and_then(|t| std::fs::write(&tmp, t))
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| GatewayError::file(path, e))
}

/// The gateway's clock: monotonic nanoseconds since the sockets were opened, and the
/// mapping of the kernel's receive timestamps (CLOCK_REALTIME) onto it.
struct Clock {
    origin: Instant,
    realtime_origin: i128,
}

impl Clock {
    fn start() -> Clock {
        let origin = Instant::now();
        let realtime_origin = sock::realtime_ns() - origin.elapsed().as_nanos() as i128;
        Clock { origin, realtime_origin }
    }
    fn now(&self) -> Time {
        Time(self.origin.elapsed().as_nanos() as u64)
    }
    /// A kernel timestamp as our time, not after `now`.
    fn stamp(&self, realtime_ns: i128, now: Time) -> Time {
        Time((realtime_ns - self.realtime_origin).clamp(0, now.as_nanos() as i128) as u64)
    }
}

/// Frames read from one side in a turn: whether the socket was drained, and the
/// newest arrival time read.
struct Reading {
    drained: bool,
    latest: Time,
}

/// Frames read from one side per turn at most, so that sending is not starved.
const READ_MAX: usize = 4 * sock::BATCH;
/// Buffers of frames sent kept for the frames read next (a frame is copied out of
/// the receive ring into one), at most.
const SPARE_MAX: usize = 1024;

/// Buffers for frames, reused: an allocation and a release per frame saved.
#[derive(Default)]
struct Spare(Vec<Vec<u8>>);

impl Spare {
    /// A buffer holding a copy of `data`.
    fn copy(&mut self, data: &[u8]) -> Vec<u8> {
        let mut b = self.0.pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(data);
        b
    }

    /// Keep the buffers of `sent` (emptied) for later frames.
    fn keep(&mut self, sent: &mut Vec<Vec<u8>>) {
        let room = SPARE_MAX - self.0.len();
        self.0.extend(sent.drain(..).take(room));
        sent.clear();
    }
}

/// The running gateway: both sides, both directions, the clock.
struct Gateway {
    /// ports[s]: the interface frames arrive on for pipes[s] and leave from for
    /// pipes[1 - s]; counters[s] its frames; out[s] the frames to send from it this turn.
    ports: [Port; 2],
    counters: [SideCounters; 2],
    out: [Vec<Vec<u8>>; 2],
    spare: Spare,
    /// pipes[0]: A -> B (arrives on side 0, leaves on side 1); pipes[1]: B -> A.
    pipes: [Pipe; 2],
    clock: Clock,
    scheduling: Scheduling,
    /// When to stop (`exit_after`; the end of time without it).
    exit_at: Time,
    /// Loop turns, the longest queue of each direction and the most frames in the
    /// delay lines at once (the memory check).
    loops: u64,
    max_queue: [usize; 2],
    max_in_flight: usize,
}

/// Run the gateway until SIGINT/SIGTERM or the configured duration. Returns the statistics.
pub fn run(cfg: &Config) -> Result<Stats> {
    let mut gw = Gateway::open(cfg)?;
    if let Some(r) = &cfg.ready {
        let pid = format!("{}\n", std::process::id());
        std::fs::write(r, pid).map_err(|e| GatewayError::file(r, e))?;
    }
    catching_aqm_failures(move || {
        let stopped_by = loop {
            gw.loops += 1;
            if stop_requested() {
                break "signal";
            }
            if gw.clock.now() >= gw.exit_at {
                break "exit_after";
            }
            gw.turn()?;
        };
        Ok(gw.finish(cfg, stopped_by))
    })
}

/// Run `f`, turning the failure of an AQM from outside the `aqm` crate (a Python class
/// that raises, a plugin that panics: it unwinds with an [`aqm::external::Failure`])
/// into [`GatewayError::Aqm`] (the time it names is the gateway's clock, since the
/// sockets opened); any other panic goes on unwinding.
fn catching_aqm_failures<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => match payload.downcast::<aqm::external::Failure>() {
            Ok(failure) => Err(GatewayError::Aqm(failure.message.replacen(
                "simulated time",
                "gateway time",
                1,
            ))),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

impl Gateway {
    /// Build the disciplines (a bad parameter is reported before any socket), open
    /// both sockets and start the clock.
    fn open(cfg: &Config) -> Result<Gateway> {
        let (q_ab, q_ba) = cfg.build_queues()?;
        let ports = [Port::open(&cfg.if_a, cfg.io)?, Port::open(&cfg.if_b, cfg.io)?];
        let scheduling = sched::apply(cfg.realtime);
        if let Some(e) = &scheduling.error {
            eprintln!(
                "aqmlab-gateway: warning: not applied: {e}; running under {}",
                scheduling.policy
            );
        }
        let warmup = Time::from_secs_f64(cfg.warmup_s);
        let end = cfg.duration_s.map(Time::from_secs_f64).unwrap_or(Time::MAX);
        let ns = |s: f64| (s * 1e9).round() as u64;
        let pipes = [
            Pipe::new(q_ab, cfg.ab.rate_bps, ns(cfg.ab.delay_s), warmup, end),
            Pipe::new(q_ba, cfg.ba.rate_bps, ns(cfg.ba.delay_s), warmup, end),
        ];
        Ok(Gateway {
            ports,
            counters: Default::default(),
            out: Default::default(),
            spare: Spare::default(),
            pipes,
            clock: Clock::start(),
            scheduling,
            exit_at: cfg.exit_after_s.map(Time::from_secs_f64).unwrap_or(Time::MAX),
            loops: 0,
            max_queue: [0; 2],
            max_in_flight: 0,
        })
    }

    /// One turn: receive, serve both directions, send, sleep.
    fn turn(&mut self) -> Result<()> {
        let reading = [self.receive(0)?, self.receive(1)?];
        self.serve(&reading);
        self.send();
        self.sleep(reading[0].drained && reading[1].drained);
        Ok(())
    }

    /// Read what waits on side `s`, at most [`READ_MAX`] frames.
    /// `drained`: every frame that arrived before this turn's reads has been read, so
    /// the direction may be served up to now; otherwise only up to the newest arrival
    /// read (`latest`), or frames still in the socket would arrive "in the past" of a
    /// line already served past them (conservative time keeping).
    fn receive(&mut self, s: usize) -> Result<Reading> {
        let mut reading = Reading { drained: true, latest: Time::ZERO };
        let [out_a, out_b] = &mut self.out;
        let mut inbound = Inbound {
            counters: &mut self.counters[s],
            pipe: &mut self.pipes[s],
            out: if s == 0 { out_b } else { out_a },
            spare: &mut self.spare,
            clock: &self.clock,
        };
        let port = &mut self.ports[s];
        reading.drained = port
            .receive(READ_MAX, |fr| inbound.offer(fr, &mut reading.latest))
            .map_err(|source| GatewayError::Receive { iface: port.sock.name.clone(), source })?;
        Ok(reading)
    }

    /// Serve both directions (up to now, or up to the newest arrival read where a
    /// socket was not drained) and collect what leaves.
    fn serve(&mut self, reading: &[Reading; 2]) {
        let now = self.clock.now();
        for (d, r) in reading.iter().enumerate() {
            let pipe = &mut self.pipes[d];
            let horizon = if r.drained { now } else { r.latest.max(pipe.last_event()) };
            pipe.advance(horizon);
            while let Some((release, f)) = pipe.pop_due_at(now) {
                self.counters[1 - d].tx_lag.add((now - release).as_nanos());
                self.out[1 - d].push(f.data);
            }
            self.max_queue[d] = self.max_queue[d].max(pipe.queue_len());
        }
        let in_flight = self.pipes[0].in_flight() + self.pipes[1].in_flight();
        self.max_in_flight = self.max_in_flight.max(in_flight);
    }

    fn send(&mut self) {
        for s in 0..2 {
            if !self.out[s].is_empty() {
                let n = self.ports[s].send(&self.out[s]);
                self.counters[s].tx_frames += n as u64;
                self.counters[s].tx_errors += (self.out[s].len() - n) as u64;
                self.spare.keep(&mut self.out[s]);
            }
        }
    }

    /// Sleep until a frame arrives or the next event (at most 100 ms, so that a signal
    /// that slipped in before `ppoll` is seen soon); not at all while a socket has
    /// frames left.
    fn sleep(&self, drained: bool) {
        let wake = [self.pipes[0].next_wakeup(), self.pipes[1].next_wakeup(), Some(self.exit_at)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(Time::MAX);
        let now = self.clock.now();
        if wake > now && drained {
            let fds = [self.ports[0].sock.fd, self.ports[1].sock.fd];
            sock::wait_readable(&fds, (wake - now).as_nanos().min(100_000_000));
        }
    }

    /// The statistics at the stop.
    fn finish(mut self, cfg: &Config, stopped_by: &str) -> Stats {
        let now = self.clock.now();
        for (c, port) in self.counters.iter_mut().zip(&self.ports) {
            c.kernel_drops += port.sock.kernel_stats().drops;
            // Frames counted as sent that the kernel then rejected.
            let rejected = port.tx_rejected().min(c.tx_frames);
            c.tx_frames -= rejected;
            c.tx_errors += rejected;
            c.summarize_lags();
        }
        let mut links = BTreeMap::new();
        for (d, (name, from, to)) in
            [("ab", &cfg.if_a, &cfg.if_b), ("ba", &cfg.if_b, &cfg.if_a)].into_iter().enumerate()
        {
            let mut s = self.pipes[d].summary(now);
            s.link.aqm_stats = self.pipes[d].aqm_stats();
            (s.link.index, s.link.from, s.link.to) = (d, from.clone(), to.clone());
            links.insert(name.to_string(), s);
        }
        let io = self.ports[0].kind().to_string();
        let [a, b] = self.counters;
        Stats {
            links,
            gateway: GatewayInfo {
                if_a: cfg.if_a.clone(),
                if_b: cfg.if_b.clone(),
                elapsed_s: now.as_secs_f64(),
                warmup_s: cfg.warmup_s,
                duration_s: cfg.duration_s,
                exit_after_s: cfg.exit_after_s,
                side_a: a,
                side_b: b,
                io,
                scheduling: self.scheduling,
                loops: self.loops,
                max_queue_ab: self.max_queue[0],
                max_queue_ba: self.max_queue[1],
                max_in_flight: self.max_in_flight,
                stopped_by: stopped_by.to_string(),
            },
        }
    }
}

/// Where the frames read on one side go: its counters, the direction's pipe, and the
/// other side's frames to send.
struct Inbound<'a> {
    counters: &'a mut SideCounters,
    pipe: &'a mut Pipe,
    out: &'a mut Vec<Vec<u8>>,
    spare: &'a mut Spare,
    clock: &'a Clock,
}

impl Inbound<'_> {
    /// A frame read: counted, then forwarded (ARP), offered to the direction's pipe
    /// (IP) or dropped. `latest`: the newest arrival time offered this turn.
    fn offer(&mut self, fr: RxFrame<'_>, latest: &mut Time) {
        if fr.outgoing {
            return;
        }
        let (data, c) = (fr.data, &mut *self.counters);
        c.rx_frames += 1;
        c.rx_bytes += data.len() as u64;
        if fr.truncated {
            c.oversize_dropped += 1;
            return;
        }
        match frame::classify(data) {
            Class::Arp => {
                c.arp_forwarded += 1;
                self.out.push(self.spare.copy(data));
            }
            Class::Ip(meta) => {
                c.ip += 1;
                let len = frame::ETH_HLEN + meta.ip_len as usize;
                // Each frame gets its own arrival time (the kernel's receive timestamp,
                // so a gateway descheduled for a while still sees the arrivals as they
                // were spaced), and transmissions due by then start first: the AQM must
                // not see a batch as one burst that the line would have drained meanwhile.
                let now = self.clock.now();
                let stamp = fr.stamp_ns.map(|ts| self.clock.stamp(ts, now));
                if let Some(st) = stamp {
                    let lag = (now - st).as_nanos();
                    c.rx_timestamped += 1;
                    c.max_rx_lag_ns = c.max_rx_lag_ns.max(lag);
                    c.rx_lag.add(lag);
                }
                let t = stamp.unwrap_or(now).max(self.pipe.last_event());
                *latest = (*latest).max(t);
                self.pipe.advance(t);
                self.pipe.arrive(t, self.spare.copy(&data[..len]), meta);
            }
            Class::Invalid(Invalid::Runt) => c.runt_dropped += 1,
            Class::Invalid(Invalid::NonIp) => c.non_ip_dropped += 1,
            Class::Invalid(Invalid::Malformed) => c.malformed_dropped += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm::external::Failure;

    #[test]
    fn an_external_aqms_failure_ends_the_run_with_an_error_naming_it() {
        let r: Result<()> = catching_aqm_failures(|| {
            Failure::new("my_aqm:Red", "enqueue", Time(1_500_000_000), Some(7), "returned None")
                .raise()
        });
        let Err(GatewayError::Aqm(m)) = r else { panic!("{r:?}") };
        assert_eq!(m, "my_aqm:Red.enqueue at gateway time 1.500000000 s, flow 7: returned None");
    }

    #[test]
    fn spare_buffers_hold_the_new_frame_only_and_are_bounded() {
        let mut spare = Spare::default();
        let mut sent: Vec<Vec<u8>> = (0..SPARE_MAX + 10).map(|i| vec![i as u8; 1514]).collect();
        spare.keep(&mut sent);
        assert!(sent.is_empty());
        assert_eq!(spare.0.len(), SPARE_MAX);
        // A reused 1514-byte buffer holds a 60-byte frame and nothing of the old one.
        let b = spare.copy(&[7u8; 60]);
        assert_eq!(b, vec![7u8; 60]);
        assert_eq!(spare.0.len(), SPARE_MAX - 1);
        let mut empty = Spare::default();
        assert_eq!(empty.copy(b"abc"), b"abc".to_vec());
    }

    #[test]
    fn other_panics_go_on_unwinding() {
        let r = std::panic::catch_unwind(|| catching_aqm_failures::<()>(|| panic!("a bug")));
        assert!(r.is_err());
    }
}
