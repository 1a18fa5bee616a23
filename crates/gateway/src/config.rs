//! The gateway's configuration: a TOML or JSON file, or command-line flags (flags win).
//!
//! ```toml
//! if_a = "gwa"            # interface toward side A
//! if_b = "gwb"            # interface toward side B
//! rate = "10Mbps"         # both directions (rate_ab / rate_ba override)
//! delay = "20ms"          # one-way, both directions (delay_ab / delay_ba override)
//! queue = { type = "red", limit = 50, min_th = 5, max_th = 15 }   # both directions
//! queue_ab = { ... }      # A -> B only
//! queue_ba = { ... }      # B -> A only
//! warmup = "2s"           # measurement window starts
//! duration = "12s"        # window ends (absent: at exit)
//! exit_after = "20s"      # the gateway exits (default: duration; absent both: at SIGTERM)
//! stats = "/tmp/gw.json"  # summary written here at exit
//! seed = 1
//! io = "rings"            # or "mmsg" (recvmmsg / sendmmsg)
//! realtime = 50           # SCHED_FIFO at this priority (0, the default: not)
//! ```
//! Queue tables use the scenario's parameter names (`aqm::QueueConfig`).

use aqm::{AqmError, Quantity, QueueConfig};
use serde::Deserialize;

use crate::error::{GatewayError, Result};

/// The settings as given: a file's keys (`if_a`, `rate_ab`, ...) or the flags of the
/// same names (`--if-a`, `--rate-ab`, ...); [`load`] lays the flags over the file.
/// Quantities take the simulator's units (`"10Mbps"`, `"20ms"`, or plain numbers in
/// b/s and s); queue tables take the scenario's queue parameters.
#[derive(Clone, Debug, Default, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// Interface toward side A.
    #[arg(long, value_name = "IF")]
    pub if_a: Option<String>,
    /// Interface toward side B.
    #[arg(long, value_name = "IF")]
    pub if_b: Option<String>,
    /// Line rate of both directions, e.g. "10Mbps".
    #[arg(long, value_name = "RATE", value_parser = quantity)]
    pub rate: Option<Quantity>,
    /// Line rate A->B (overrides --rate).
    #[arg(long, value_name = "RATE", value_parser = quantity)]
    pub rate_ab: Option<Quantity>,
    /// Line rate B->A (overrides --rate).
    #[arg(long, value_name = "RATE", value_parser = quantity)]
    pub rate_ba: Option<Quantity>,
    /// One-way propagation delay of both directions, e.g. "20ms" [default: 0].
    #[arg(long, value_name = "TIME", value_parser = quantity)]
    pub delay: Option<Quantity>,
    /// Delay A->B (overrides --delay).
    #[arg(long, value_name = "TIME", value_parser = quantity)]
    pub delay_ab: Option<Quantity>,
    /// Delay B->A (overrides --delay).
    #[arg(long, value_name = "TIME", value_parser = quantity)]
    pub delay_ba: Option<Quantity>,
    /// Queue of both directions, a queue table as JSON or inline TOML:
    /// '{type="red", limit=50, min_th=5, max_th=15}' [default: Drop Tail, 1000 packets].
    #[arg(long, value_name = "TABLE", value_parser = queue_flag)]
    pub queue: Option<QueueConfig>,
    /// Queue A->B (overrides --queue).
    #[arg(long, value_name = "TABLE", value_parser = queue_flag)]
    pub queue_ab: Option<QueueConfig>,
    /// Queue B->A (overrides --queue).
    #[arg(long, value_name = "TABLE", value_parser = queue_flag)]
    pub queue_ba: Option<QueueConfig>,
    /// Start of the measurement window [default: 0].
    #[arg(long, value_name = "TIME", value_parser = quantity)]
    pub warmup: Option<Quantity>,
    /// End of the measurement window [default: when the gateway stops].
    #[arg(long, value_name = "TIME", value_parser = quantity)]
    pub duration: Option<Quantity>,
    /// When the gateway exits [default: --duration; without both, at SIGINT/SIGTERM].
    #[arg(long, value_name = "TIME", value_parser = quantity)]
    pub exit_after: Option<Quantity>,
    /// Write the statistics here (JSON) at exit [default: standard output].
    #[arg(long, value_name = "FILE")]
    pub stats: Option<String>,
    /// Create this file, holding the gateway's pid, once the sockets are open.
    #[arg(long, value_name = "FILE")]
    pub ready: Option<String>,
    /// Seed of the A->B discipline's generator (B->A takes seed + 1) [default: 1].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// How frames are read and written: PACKET_MMAP rings, or recvmmsg/sendmmsg
    /// (the rings fall back to it where the kernel refuses them) [default: rings].
    #[arg(long, value_enum)]
    pub io: Option<IoMode>,
    /// Run under SCHED_FIFO at this real-time priority (1-99), so that departures
    /// leave when due on a machine shared with other work; 0: the default policy.
    /// Refused (no CAP_SYS_NICE): the gateway runs and its statistics say so
    /// (`gateway.scheduling.error`) [default: 0].
    #[arg(long, value_name = "PRIO")]
    pub realtime: Option<u32>,
}

/// How the sockets' frames are read and written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum IoMode {
    /// PACKET_MMAP receive and transmit rings (TPACKET_V2).
    #[default]
    Rings,
    /// `recvmmsg` / `sendmmsg` in batches of 64.
    Mmsg,
}

/// One direction, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct DirConfig {
    pub rate_bps: f64,
    pub delay_s: f64,
    pub queue: QueueConfig,
}

/// The validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub if_a: String,
    pub if_b: String,
    pub ab: DirConfig,
    pub ba: DirConfig,
    pub warmup_s: f64,
    pub duration_s: Option<f64>,
    /// When the gateway exits (default: at the end of the window, `duration`).
    pub exit_after_s: Option<f64>,
    pub stats: Option<String>,
    /// A file created once the sockets are bound (for scripts that wait for it).
    pub ready: Option<String>,
    pub seed: u64,
    pub io: IoMode,
    /// SCHED_FIFO priority (1-99), 0 for the default policy.
    pub realtime: u32,
}

fn default_queue() -> QueueConfig {
    serde_json::from_str(r#"{"type":"droptail","limit":1000}"#).expect("valid default")
}

/// A quantity given as a flag (checked when the configuration is validated).
fn quantity(text: &str) -> std::result::Result<Quantity, std::convert::Infallible> {
    Ok(Quantity::Text(text.to_string()))
}

fn queue_flag(text: &str) -> Result<QueueConfig> {
    parse_queue(text, "queue table")
}

fn parse_file(text: &str, path: &str) -> Result<FileConfig> {
    let parsed = if path.ends_with(".json") || text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| e.to_string())
    } else {
        toml::from_str(text).map_err(|e| e.to_string())
    };
    parsed.map_err(|e| GatewayError::Config(format!("{path}: {e}")))
}

/// Parse a queue table given on the command line as JSON or inline TOML
/// (`{type="red", limit=50}` or `type="red", limit=50`).
pub fn parse_queue(text: &str, what: &str) -> Result<QueueConfig> {
    let t = text.trim();
    // (the one reader of queue tables: errors name `what.key`)
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(t) {
        return Ok(aqm::config::parse_queue(v, what)?);
    }
    let body = t.strip_prefix('{').and_then(|s| s.strip_suffix('}')).unwrap_or(t);
    #[derive(Deserialize)]
    struct W {
        q: toml::Value,
    }
    let w = toml::from_str::<W>(&format!("q = {{ {body} }}"))
        .map_err(|e| GatewayError::Config(format!("{what}: {e}")))?;
    Ok(aqm::config::parse_queue(w.q, what)?)
}

/// The rate `own`, else `both`, in b/s: required, > 0.
fn rate(own: &Option<Quantity>, both: &Option<Quantity>, name: &str) -> Result<f64> {
    let q = own
        .as_ref()
        .or(both.as_ref())
        .ok_or_else(|| GatewayError::Config(format!("{name}: missing (give rate or {name})")))?;
    let v = q.bps(name)?;
    if !(v.is_finite() && v > 0.0) {
        return Err(AqmError::invalid(name, v, "> 0").into());
    }
    Ok(v)
}

/// The delay `own`, else `both`, in s: >= 0, default 0.
fn delay(own: &Option<Quantity>, both: &Option<Quantity>, name: &str) -> Result<f64> {
    let v = match own.as_ref().or(both.as_ref()) {
        Some(q) => q.secs(name)?,
        None => 0.0,
    };
    if !(v.is_finite() && v >= 0.0) {
        return Err(AqmError::invalid(name, v, ">= 0").into());
    }
    Ok(v)
}

impl FileConfig {
    /// These settings with `flags` laid over them (a flag given wins).
    pub fn overlay(self, flags: FileConfig) -> FileConfig {
        FileConfig {
            if_a: flags.if_a.or(self.if_a),
            if_b: flags.if_b.or(self.if_b),
            rate: flags.rate.or(self.rate),
            rate_ab: flags.rate_ab.or(self.rate_ab),
            rate_ba: flags.rate_ba.or(self.rate_ba),
            delay: flags.delay.or(self.delay),
            delay_ab: flags.delay_ab.or(self.delay_ab),
            delay_ba: flags.delay_ba.or(self.delay_ba),
            queue: flags.queue.or(self.queue),
            queue_ab: flags.queue_ab.or(self.queue_ab),
            queue_ba: flags.queue_ba.or(self.queue_ba),
            warmup: flags.warmup.or(self.warmup),
            duration: flags.duration.or(self.duration),
            exit_after: flags.exit_after.or(self.exit_after),
            stats: flags.stats.or(self.stats),
            ready: flags.ready.or(self.ready),
            seed: flags.seed.or(self.seed),
            io: flags.io.or(self.io),
            realtime: flags.realtime.or(self.realtime),
        }
    }

    /// One direction: its own rate, delay and queue, else those of both.
    fn direction(&self, which: &str) -> Result<DirConfig> {
        let (rate_own, delay_own, queue_own) = match which {
            "ab" => (&self.rate_ab, &self.delay_ab, &self.queue_ab),
            _ => (&self.rate_ba, &self.delay_ba, &self.queue_ba),
        };
        Ok(DirConfig {
            rate_bps: rate(rate_own, &self.rate, &format!("rate_{which}"))?,
            delay_s: delay(delay_own, &self.delay, &format!("delay_{which}"))?,
            queue: queue_own.clone().or(self.queue.clone()).unwrap_or_else(default_queue),
        })
    }

    /// Check every field and compute the defaults.
    pub fn validate(self) -> Result<Config> {
        let missing = |m: &str| GatewayError::Config(m.to_string());
        let if_a = self
            .if_a
            .clone()
            .ok_or_else(|| missing("if_a: missing (the interface toward side A)"))?;
        let if_b = self
            .if_b
            .clone()
            .ok_or_else(|| missing("if_b: missing (the interface toward side B)"))?;
        if if_a == if_b {
            return Err(missing("if_a and if_b must differ"));
        }
        let (ab, ba) = (self.direction("ab")?, self.direction("ba")?);
        let warmup_s = match &self.warmup {
            Some(q) => q.secs("warmup")?.max(0.0),
            None => 0.0,
        };
        let duration_s = match &self.duration {
            Some(q) => {
                let d = q.secs("duration")?;
                if d.partial_cmp(&warmup_s) != Some(std::cmp::Ordering::Greater) {
                    let allowed = format!("> warmup ({warmup_s})");
                    return Err(AqmError::invalid("duration", d, allowed).into());
                }
                Some(d)
            }
            None => None,
        };
        let exit_after_s = match &self.exit_after {
            Some(q) => Some(q.secs("exit_after")?),
            None => duration_s,
        };
        let realtime = self.realtime.unwrap_or(0);
        if realtime > crate::sched::MAX_PRIORITY {
            let allowed = format!("0 (off) to {}", crate::sched::MAX_PRIORITY);
            return Err(AqmError::invalid("realtime", realtime as f64, allowed).into());
        }
        Ok(Config {
            if_a,
            if_b,
            ab,
            ba,
            warmup_s,
            duration_s,
            exit_after_s,
            stats: self.stats,
            ready: self.ready,
            seed: self.seed.unwrap_or(1),
            io: self.io.unwrap_or_default(),
            realtime,
        })
    }
}

/// Read the file (if any), lay the flags over it and validate.
pub fn load(path: Option<&str>, flags: FileConfig) -> Result<Config> {
    let file = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| GatewayError::file(p, e))?;
            parse_file(&text, p)?
        }
        None => FileConfig::default(),
    };
    file.overlay(flags).validate()
}

/// A direction's qdisc.
type Qd = aqm::AnyQdisc<crate::pipe::Frame>;

impl Config {
    /// Build both directions' disciplines now, so that a bad parameter is reported
    /// before any socket is opened. Errors name the direction and the parameter.
    pub fn build_queues(&self) -> Result<(Qd, Qd)> {
        let b = |d: &DirConfig, name: &str, seed: u64| {
            d.queue
                .build_qdisc(&aqm::BuildContext {
                    link_rate_bps: Some(d.rate_bps),
                    seed: Some(seed),
                })
                .map_err(|e| GatewayError::Param(e.at(name)))
        };
        Ok((
            b(&self.ab, "queue_ab", self.seed)?,
            b(&self.ba, "queue_ba", self.seed.wrapping_add(1))?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_toml_with_per_direction_queues() {
        let text = r#"
            if_a = "gwa"
            if_b = "gwb"
            rate = "10Mbps"
            delay = "20ms"
            delay_ba = 0.001
            queue_ab = { type = "red", limit = 50, min_th = 5, max_th = 15 }
            warmup = "2s"
            duration = "12s"
            stats = "/tmp/x.json"
        "#;
        let c = parse_file(text, "gw.toml").unwrap().validate().unwrap();
        assert_eq!(c.ab.rate_bps, 10e6);
        assert_eq!(c.ab.delay_s, 0.02);
        assert_eq!(c.ba.delay_s, 0.001);
        assert_eq!(c.ab.queue.kind(), "red");
        assert_eq!(c.ba.queue.kind(), "droptail", "default for the other direction");
        assert_eq!((c.warmup_s, c.duration_s), (2.0, Some(12.0)));
        c.build_queues().unwrap();
    }

    /// Flags as the command line gives them.
    fn flags(args: &[&str]) -> FileConfig {
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            f: FileConfig,
        }
        let argv = std::iter::once("gw").chain(args.iter().copied());
        <Flags as clap::Parser>::try_parse_from(argv).unwrap().f
    }

    #[test]
    fn flags_override_and_accept_inline_queues() {
        let f = flags(&[
            "--if-a=a",
            "--if-b",
            "b",
            "--rate",
            "1Gbps",
            "--queue",
            r#"{"type":"red","limit":100}"#,
            "--queue-ba",
            "type=\"droptail\", limit=7",
        ]);
        let c = load(None, f).unwrap();
        assert_eq!(c.ab.rate_bps, 1e9);
        assert_eq!(c.ab.queue.kind(), "red");
        assert_eq!(c.ba.queue.limit_packets(), Some(7));
        let file = parse_file("if_a='x'\nif_b='y'\nrate='5Mbps'\nseed=3", "x.toml").unwrap();
        let c = file.overlay(flags(&["--if-b", "z", "--rate-ba", "2Mbps"])).validate().unwrap();
        assert_eq!((c.if_a.as_str(), c.if_b.as_str(), c.seed), ("x", "z", 3));
        assert_eq!((c.ab.rate_bps, c.ba.rate_bps), (5e6, 2e6));
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse_file(r#"{"if_a":"a","if_b":"b"}"#, "x.json").unwrap().validate().unwrap_err();
        let e = e.to_string();
        assert!(e.contains("rate_ab"), "{e}");
        let e = parse_file("if_a='a'\nif_b='b'\nrate='10 parsecs'", "x.toml")
            .unwrap()
            .validate()
            .unwrap_err()
            .to_string();
        assert!(e.contains("rate_ab") && e.contains("15Mbps"), "{e}");
        let e = parse_file("if_a='a'\nif_b='b'\nrate=1e6\nbogus=1", "x.toml").unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
        let c = parse_file(
            "if_a='a'\nif_b='b'\nrate=1e6\nqueue={type='red',limit=10,min_th=9,max_th=3}",
            "x.toml",
        )
        .unwrap()
        .validate()
        .unwrap();
        let e = c.build_queues().unwrap_err().to_string();
        assert!(e.contains("queue_ab."), "{e}");
        let e = parse_queue("type='red', limit=", "--queue").unwrap_err().to_string();
        assert!(e.starts_with("--queue: "), "{e}");
        // JSON and inline TOML go through the one queue-table reader: the key is named
        for text in [r#"{"type":"red","limit":50,"mark_method":"x"}"#, "type='red', bogus=1"] {
            let e = parse_queue(text, "--queue-ab").unwrap_err().to_string();
            assert!(e.starts_with("--queue-ab."), "{text}: {e}");
        }
        let q = parse_queue(r#"{"type":"red","limit":50,"min_th":5,"max_th":15}"#, "q").unwrap();
        assert_eq!(q, parse_queue("type='red', limit=50, min_th=5, max_th=15", "q").unwrap());
    }

    #[test]
    fn io_defaults_to_the_rings_and_names_its_values() {
        let base = "if_a='a'\nif_b='b'\nrate=1e6\n";
        let c = parse_file(base, "x.toml").unwrap().validate().unwrap();
        assert_eq!(c.io, IoMode::Rings);
        let file = parse_file(&format!("{base}io='mmsg'"), "x.toml").unwrap();
        assert_eq!(file.clone().validate().unwrap().io, IoMode::Mmsg);
        assert_eq!(file.overlay(flags(&["--io", "rings"])).validate().unwrap().io, IoMode::Rings);
        let e = parse_file(&format!("{base}io='xdp'"), "x.toml").unwrap_err().to_string();
        assert!(e.contains("rings") && e.contains("mmsg"), "{e}");
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            f: FileConfig,
        }
        let e = <Flags as clap::Parser>::try_parse_from(["gw", "--io", "xdp"]).err().unwrap();
        let e = e.to_string();
        assert!(e.contains("--io") && e.contains("rings") && e.contains("mmsg"), "{e}");
    }

    #[test]
    fn realtime_defaults_to_off_and_is_bounded_by_linuxs_priorities() {
        let base = "if_a='a'\nif_b='b'\nrate=1e6\n";
        assert_eq!(parse_file(base, "x.toml").unwrap().validate().unwrap().realtime, 0);
        let file = parse_file(&format!("{base}realtime=50"), "x.toml").unwrap();
        assert_eq!(file.clone().validate().unwrap().realtime, 50);
        assert_eq!(file.overlay(flags(&["--realtime", "99"])).validate().unwrap().realtime, 99);
        let e = parse_file(&format!("{base}realtime=100"), "x.toml").unwrap().validate();
        let e = e.unwrap_err().to_string();
        assert!(e.contains("realtime") && e.contains("0 (off) to 99"), "{e}");
    }
}
