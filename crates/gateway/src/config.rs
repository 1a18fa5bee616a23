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
//! ```
//! Queue tables use the scenario's parameter names (`aqm::QueueConfig`).

use aqm::{Quantity, QueueConfig};
use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub if_a: Option<String>,
    pub if_b: Option<String>,
    pub rate: Option<Quantity>,
    pub rate_ab: Option<Quantity>,
    pub rate_ba: Option<Quantity>,
    pub delay: Option<Quantity>,
    pub delay_ab: Option<Quantity>,
    pub delay_ba: Option<Quantity>,
    pub queue: Option<QueueConfig>,
    pub queue_ab: Option<QueueConfig>,
    pub queue_ba: Option<QueueConfig>,
    pub warmup: Option<Quantity>,
    pub duration: Option<Quantity>,
    pub exit_after: Option<Quantity>,
    pub stats: Option<String>,
    pub ready: Option<String>,
    pub seed: Option<u64>,
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
}

fn default_queue() -> QueueConfig {
    serde_json::from_str(r#"{"type":"droptail","limit":1000}"#).expect("valid default")
}

fn parse_file(text: &str, path: &str) -> Result<FileConfig, String> {
    if path.ends_with(".json") || text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| format!("{path}: {e}"))
    } else {
        toml::from_str(text).map_err(|e| format!("{path}: {e}"))
    }
}

/// Parse a queue table given on the command line as JSON or inline TOML
/// (`{type="red", limit=50}` or `type="red", limit=50`).
pub fn parse_queue(text: &str, what: &str) -> Result<QueueConfig, String> {
    let t = text.trim();
    if let Ok(q) = serde_json::from_str::<QueueConfig>(t) {
        return Ok(q);
    }
    let body = t.strip_prefix('{').and_then(|s| s.strip_suffix('}')).unwrap_or(t);
    #[derive(Deserialize)]
    struct W {
        q: QueueConfig,
    }
    toml::from_str::<W>(&format!("q = {{ {body} }}"))
        .map(|w| w.q)
        .map_err(|e| format!("{what}: {e}"))
}

impl FileConfig {
    /// Apply `--key value` flags on top of a file's values.
    pub fn apply_flag(&mut self, key: &str, value: &str) -> Result<(), String> {
        let q = || Some(Quantity::Text(value.to_string()));
        match key {
            "if-a" => self.if_a = Some(value.into()),
            "if-b" => self.if_b = Some(value.into()),
            "rate" => self.rate = q(),
            "rate-ab" => self.rate_ab = q(),
            "rate-ba" => self.rate_ba = q(),
            "delay" => self.delay = q(),
            "delay-ab" => self.delay_ab = q(),
            "delay-ba" => self.delay_ba = q(),
            "queue" => self.queue = Some(parse_queue(value, "--queue")?),
            "queue-ab" => self.queue_ab = Some(parse_queue(value, "--queue-ab")?),
            "queue-ba" => self.queue_ba = Some(parse_queue(value, "--queue-ba")?),
            "warmup" => self.warmup = q(),
            "duration" => self.duration = q(),
            "exit-after" => self.exit_after = q(),
            "stats" => self.stats = Some(value.into()),
            "ready" => self.ready = Some(value.into()),
            "seed" => {
                self.seed =
                    Some(value.parse().map_err(|_| format!("--seed {value:?}: an integer"))?)
            }
            other => return Err(format!("unknown option --{other}")),
        }
        Ok(())
    }

    pub fn validate(self) -> Result<Config, String> {
        let err = |e: aqm::AqmError| e.to_string();
        let rate =
            |own: &Option<Quantity>, both: &Option<Quantity>, name: &str| -> Result<f64, String> {
                let q = own
                    .as_ref()
                    .or(both.as_ref())
                    .ok_or(format!("{name}: missing (give rate or {name})"))?;
                let v = q.bps(name).map_err(err)?;
                if !(v.is_finite() && v > 0.0) {
                    return Err(format!("{name} = {v} is invalid: allowed > 0"));
                }
                Ok(v)
            };
        let delay =
            |own: &Option<Quantity>, both: &Option<Quantity>, name: &str| -> Result<f64, String> {
                let v = match own.as_ref().or(both.as_ref()) {
                    Some(q) => q.secs(name).map_err(err)?,
                    None => 0.0,
                };
                if !(v.is_finite() && v >= 0.0) {
                    return Err(format!("{name} = {v} is invalid: allowed >= 0"));
                }
                Ok(v)
            };
        let if_a = self.if_a.clone().ok_or("if_a: missing (the interface toward side A)")?;
        let if_b = self.if_b.clone().ok_or("if_b: missing (the interface toward side B)")?;
        if if_a == if_b {
            return Err("if_a and if_b must differ".into());
        }
        let ab = DirConfig {
            rate_bps: rate(&self.rate_ab, &self.rate, "rate_ab")?,
            delay_s: delay(&self.delay_ab, &self.delay, "delay_ab")?,
            queue: self.queue_ab.clone().or(self.queue.clone()).unwrap_or_else(default_queue),
        };
        let ba = DirConfig {
            rate_bps: rate(&self.rate_ba, &self.rate, "rate_ba")?,
            delay_s: delay(&self.delay_ba, &self.delay, "delay_ba")?,
            queue: self.queue_ba.clone().or(self.queue.clone()).unwrap_or_else(default_queue),
        };
        let warmup_s = match &self.warmup {
            Some(q) => q.secs("warmup").map_err(err)?.max(0.0),
            None => 0.0,
        };
        let duration_s = match &self.duration {
            Some(q) => {
                let d = q.secs("duration").map_err(err)?;
                if d.partial_cmp(&warmup_s) != Some(std::cmp::Ordering::Greater) {
                    return Err(format!(
                        "duration = {d} is invalid: allowed > warmup ({warmup_s})"
                    ));
                }
                Some(d)
            }
            None => None,
        };
        let exit_after_s = match &self.exit_after {
            Some(q) => Some(q.secs("exit_after").map_err(err)?),
            None => duration_s,
        };
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
        })
    }
}

/// Read the file (if any) and apply the flags.
pub fn load(path: Option<&str>, flags: &[(String, String)]) -> Result<Config, String> {
    let mut fc = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"))?;
            parse_file(&text, p)?
        }
        None => FileConfig::default(),
    };
    for (k, v) in flags {
        fc.apply_flag(k, v)?;
    }
    fc.validate()
}

impl Config {
    /// Build both directions' disciplines now, so that a bad parameter is reported
    /// before any socket is opened. Errors name the direction and the parameter.
    pub fn build_queues(&self) -> Result<(aqm::AnyAqm, aqm::AnyAqm), String> {
        let b = |d: &DirConfig, name: &str, seed: u64| {
            d.queue
                .build(&aqm::BuildContext { link_rate_bps: Some(d.rate_bps), seed: Some(seed) })
                .map_err(|e| e.at(name).to_string())
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

    #[test]
    fn flags_override_and_accept_inline_queues() {
        let flags: Vec<(String, String)> = [
            ("if-a", "a"),
            ("if-b", "b"),
            ("rate", "1Gbps"),
            ("queue", r#"{"type":"red","limit":100}"#),
            ("queue-ba", "type=\"droptail\", limit=7"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let c = load(None, &flags).unwrap();
        assert_eq!(c.ab.rate_bps, 1e9);
        assert_eq!(c.ab.queue.kind(), "red");
        assert_eq!(c.ba.queue.limit_packets(), Some(7));
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse_file(r#"{"if_a":"a","if_b":"b"}"#, "x.json").unwrap().validate().unwrap_err();
        assert!(e.contains("rate_ab"), "{e}");
        let e = parse_file("if_a='a'\nif_b='b'\nrate='10 parsecs'", "x.toml")
            .unwrap()
            .validate()
            .unwrap_err();
        assert!(e.contains("rate_ab") && e.contains("15Mbps"), "{e}");
        let e = parse_file("if_a='a'\nif_b='b'\nrate=1e6\nbogus=1", "x.toml").unwrap_err();
        assert!(e.contains("bogus"), "{e}");
        let c = parse_file(
            "if_a='a'\nif_b='b'\nrate=1e6\nqueue={type='red',limit=10,min_th=9,max_th=3}",
            "x.toml",
        )
        .unwrap()
        .validate()
        .unwrap();
        let e = c.build_queues().unwrap_err();
        assert!(e.contains("queue_ab."), "{e}");
        let e = load(None, &[("nope".into(), "1".into())]).unwrap_err();
        assert!(e.contains("--nope"), "{e}");
    }
}
