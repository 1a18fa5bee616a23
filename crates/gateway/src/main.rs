//! `aqmlab-gateway`: see `--help`.

use std::process::ExitCode;

use gateway::{config, frame, pipe, run, tools};

const HELP: &str = "\
aqmlab-gateway: forward frames between two interfaces through an emulated bottleneck
(line rate, propagation delay, an aqm queue discipline per direction).

USAGE:
  aqmlab-gateway [--config FILE.toml|FILE.json] [--if-a IF] [--if-b IF] [--rate R]
                 [--rate-ab R] [--rate-ba R] [--delay D] [--delay-ab D] [--delay-ba D]
                 [--queue Q] [--queue-ab Q] [--queue-ba Q] [--warmup T] [--duration T]
                 [--exit-after T] [--stats FILE.json] [--ready FILE] [--seed N]
      Q is a queue table as JSON or inline TOML: '{type=\"red\", limit=50, min_th=5, max_th=15}'.
      Measures over [warmup, duration]; runs until SIGINT/SIGTERM or --exit-after
      (default --duration); then writes the statistics to --stats
      (or stdout). Needs CAP_NET_RAW/CAP_NET_ADMIN (root) in its network namespace.
  aqmlab-gateway blast --iface IF [--size IP_BYTES(1500)] [--seconds 3] [--pps 0] [--flows 1]
                 [--src 10.199.1.1] [--dst 10.199.2.1] [--dst-mac ff:ff:ff:ff:ff:ff] [--ecn 0] [--garbage]
      Send UDP frames (or random garbage) out of IF; prints a JSON report.
  aqmlab-gateway count --iface IF [--seconds 0]
      Count frames, IP packets and CE marks arriving on IF until the time or SIGTERM; JSON report.
  aqmlab-gateway bench-pipeline [--size FRAME_BYTES(1500)] [--packets 2000000]
      The forwarding path without sockets (parse, RED, serializer, delay line, CE): packets/s.
";

/// `--key value` pairs and bare switches.
type Flags = (Vec<(String, String)>, Vec<String>);

fn flags(args: &[String]) -> Result<Flags, String> {
    let mut kv = Vec::new();
    let mut switches = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let Some(key) = a.strip_prefix("--") else {
            return Err(format!("unexpected argument {a:?}"));
        };
        if let Some((k, v)) = key.split_once('=') {
            kv.push((k.to_string(), v.to_string()));
        } else if matches!(key, "garbage" | "help") {
            switches.push(key.to_string());
        } else {
            let v = args.get(i + 1).ok_or(format!("--{key} needs a value"))?;
            kv.push((key.to_string(), v.clone()));
            i += 1;
        }
        i += 1;
    }
    Ok((kv, switches))
}

fn get<T: std::str::FromStr>(kv: &[(String, String)], key: &str, default: T) -> Result<T, String> {
    match kv.iter().rev().find(|(k, _)| k == key) {
        Some((_, v)) => v.parse().map_err(|_| format!("--{key} {v:?} is invalid")),
        None => Ok(default),
    }
}

fn ipv4(s: &str) -> Result<[u8; 4], String> {
    s.parse::<std::net::Ipv4Addr>()
        .map(|a| a.octets())
        .map_err(|_| format!("{s:?}: not an IPv4 address"))
}

fn mac(s: &str) -> Result<[u8; 6], String> {
    let p: Vec<u8> = s.split(':').filter_map(|x| u8::from_str_radix(x, 16).ok()).collect();
    p.try_into().map_err(|_| format!("{s:?}: not a MAC address"))
}

fn print_json<T: serde::Serialize>(v: &T) {
    use std::io::Write;
    // A closed stdout (`| head`) is not an error worth a panic.
    let _ = writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

fn check_known(kv: &[(String, String)], known: &[&str]) -> Result<(), String> {
    for (k, _) in kv {
        if !known.contains(&k.as_str()) {
            return Err(format!("unknown option --{k}"));
        }
    }
    Ok(())
}

fn bench_pipeline(kv: &[(String, String)]) -> Result<(), String> {
    let size: usize = get(kv, "size", 1500)?;
    let packets: u64 = get(kv, "packets", 2_000_000)?;
    let cfg =
        config::parse_queue(r#"{"type":"red","limit":1000,"min_th":5,"max_th":15}"#, "queue")?;
    let disc = cfg
        .build(&aqm::BuildContext { link_rate_bps: Some(1e12), seed: Some(1) })
        .map_err(|e| e.to_string())?;
    let mut p = pipe::Pipe::new(disc, 1e12, 0, aqm::Time::ZERO, aqm::Time::MAX);
    let frames: Vec<Vec<u8>> = (0..64u16)
        .map(|i| {
            frame::build::ipv4(
                [10, 0, 0, 1],
                [10, 0, 0, 2],
                17,
                1000 + i,
                9,
                2,
                size.saturating_sub(14),
            )
        })
        .collect();
    let start = std::time::Instant::now();
    let mut out = 0u64;
    for i in 0..packets {
        let now = aqm::Time(start.elapsed().as_nanos() as u64);
        let f = &frames[(i % 64) as usize];
        if let frame::Class::Ip(m) = frame::classify(f) {
            p.arrive(now, f.to_vec(), m);
        }
        if i % 32 == 31 {
            p.advance(now);
            while p.pop_due(now).is_some() {
                out += 1;
            }
        }
    }
    let el = start.elapsed().as_secs_f64();
    print_json(&serde_json::json!({
        "frame_bytes": size, "packets": packets, "forwarded": out, "seconds": el,
        "pps": packets as f64 / el, "note": "in-process path only: no sockets, no kernel"
    }));
    Ok(())
}

fn main_inner() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sub = args.first().filter(|a| !a.starts_with('-')).cloned();
    let rest = if sub.is_some() { &args[1..] } else { &args[..] };
    let (kv, sw) = flags(rest)?;
    if sw.iter().any(|s| s == "help") || args.iter().any(|a| a == "-h") {
        print!("{HELP}");
        return Ok(());
    }
    run::install_signal_handlers();
    match sub.as_deref() {
        None => {
            let path = kv.iter().rev().find(|(k, _)| k == "config").map(|(_, v)| v.clone());
            let flags: Vec<(String, String)> =
                kv.into_iter().filter(|(k, _)| k != "config").collect();
            let cfg = config::load(path.as_deref(), &flags)?;
            let stats = run::run(&cfg)?;
            match &cfg.stats {
                Some(p) => run::write_json(p, &stats).map_err(|e| format!("{p}: {e}"))?,
                None => print_json(&stats),
            }
            Ok(())
        }
        Some("blast") => {
            check_known(
                &kv,
                &["iface", "size", "seconds", "pps", "flows", "src", "dst", "dst-mac", "ecn"],
            )?;
            let o = tools::BlastOptions {
                iface: get(&kv, "iface", String::new())?,
                size: get(&kv, "size", 1500usize)?,
                seconds: get(&kv, "seconds", 3.0)?,
                pps: get(&kv, "pps", 0.0)?,
                flows: get(&kv, "flows", 1u16)?,
                garbage: sw.iter().any(|s| s == "garbage"),
                src: ipv4(&get(&kv, "src", "10.199.1.1".to_string())?)?,
                dst: ipv4(&get(&kv, "dst", "10.199.2.1".to_string())?)?,
                dst_mac: mac(&get(&kv, "dst-mac", "ff:ff:ff:ff:ff:ff".to_string())?)?,
                ecn: get(&kv, "ecn", 0u8)?,
            };
            if o.iface.is_empty() {
                return Err("blast: --iface is required".into());
            }
            print_json(&tools::blast(&o)?);
            Ok(())
        }
        Some("count") => {
            check_known(&kv, &["iface", "seconds"])?;
            let iface: String = get(&kv, "iface", String::new())?;
            if iface.is_empty() {
                return Err("count: --iface is required".into());
            }
            print_json(&tools::count(&iface, get(&kv, "seconds", 0.0)?)?);
            Ok(())
        }
        Some("bench-pipeline") => {
            check_known(&kv, &["size", "packets"])?;
            bench_pipeline(&kv)
        }
        Some(other) => Err(format!("unknown command {other:?} (see --help)")),
    }
}

fn main() -> ExitCode {
    match main_inner() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aqmlab-gateway: error: {e}");
            ExitCode::from(2)
        }
    }
}
