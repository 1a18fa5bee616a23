//! The command line of `aqmlab-gateway` (clap): forwarding without a subcommand, and
//! the tools `blast`, `count` and `bench-pipeline`.

use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use crate::config::{self, FileConfig};
use crate::error::Result;
use crate::{run, tools};

/// Forward frames between two interfaces through an emulated bottleneck: line rate,
/// propagation delay and an aqm queue discipline in each direction.
///
/// Measures over [warmup, duration] and runs until SIGINT/SIGTERM or --exit-after
/// (default --duration); then writes the statistics to --stats (or standard output).
/// Needs CAP_NET_RAW and CAP_NET_ADMIN (root) in its network namespace. Settings come
/// from --config (TOML or JSON, the keys of the flags with '_' for '-') and the flags,
/// which win.
#[derive(Debug, Parser)]
#[command(name = "aqmlab-gateway", args_conflicts_with_subcommands = true)]
#[command(allow_negative_numbers = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    forward: Forward,
}

/// Forwarding: a configuration file and flags over it.
#[derive(Debug, Args)]
struct Forward {
    /// Configuration file: TOML, or JSON (a .json name or text starting with "{").
    #[arg(long, value_name = "FILE")]
    config: Option<String>,
    #[command(flatten)]
    flags: FileConfig,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Send UDP frames (or random garbage) out of an interface; prints a JSON report.
    Blast(tools::BlastOptions),
    /// Count frames, IP packets and CE marks arriving on an interface until the time
    /// is up or SIGTERM; prints a JSON report.
    Count {
        /// Interface to count on.
        #[arg(long, value_name = "IF")]
        iface: String,
        /// How long, s (0: until SIGINT/SIGTERM).
        #[arg(long, default_value_t = 0.0)]
        seconds: f64,
    },
    /// The forwarding path without sockets (parse, RED, serializer, delay line, CE):
    /// packets per second.
    BenchPipeline {
        /// Frame size, bytes (Ethernet header included).
        #[arg(long, value_name = "BYTES", default_value_t = 1500)]
        size: usize,
        #[arg(long, default_value_t = 2_000_000)]
        packets: u64,
    },
}

fn print_json<T: Serialize>(v: &T) {
    use std::io::Write;
    // A closed stdout (`| head`) is not an error worth a panic.
    let _ = writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// The whole program from its arguments (the first is the program's name): parse, run,
/// print help, a usage error or a run's error as the binary does, and return the exit
/// status (0, clap's status for usage errors, 2 for a failed run). Used by the binary
/// and by the Python package's `aqmlab-gateway` command, which links this crate.
/// Queue tables may name a plugin (`type = "plugin"`); a Python class (`type =
/// "python"`) only in the Python package's command, which registers that type.
pub fn main_from<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    aqm::plugin::host::register();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version go to standard output with status 0; usage errors to
            // standard error with status 2.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    match cli.run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("aqmlab-gateway: error: {e}");
            2
        }
    }
}

impl Cli {
    /// Carry out the command.
    pub fn run(self) -> Result<()> {
        match self.command {
            None => {
                let cfg = config::load(self.forward.config.as_deref(), self.forward.flags)?;
                run::install_signal_handlers();
                let stats = run::run(&cfg)?;
                match &cfg.stats {
                    Some(p) => run::write_json(p, &stats)?,
                    None => print_json(&stats),
                }
            }
            Some(Command::Blast(o)) => {
                run::install_signal_handlers();
                print_json(&tools::blast(&o)?);
            }
            Some(Command::Count { iface, seconds }) => {
                run::install_signal_handlers();
                print_json(&tools::count(&iface, seconds)?);
            }
            Some(Command::BenchPipeline { size, packets }) => {
                print_json(&tools::bench_pipeline(size, packets)?);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("aqmlab-gateway").chain(args.iter().copied()))
    }

    #[test]
    fn the_testbeds_flags_parse() {
        let cli = parse(&[
            "--if-a",
            "gwa",
            "--if-b",
            "gwb",
            "--rate-ab",
            "10000000.0",
            "--rate-ba",
            "10000000.0",
            "--delay",
            "0.021",
            "--queue-ab",
            r#"{"type":"red","limit":100}"#,
            "--queue-ba",
            r#"{"type":"red","limit":100}"#,
            "--warmup",
            "2.0",
            "--duration",
            "8.0",
            "--exit-after",
            "68.0",
            "--seed",
            "1",
            "--stats",
            "/tmp/gw.json",
            "--ready",
            "/tmp/gw.ready",
        ])
        .unwrap();
        assert!(cli.command.is_none());
        let c = config::load(None, cli.forward.flags).unwrap();
        assert_eq!((c.ab.rate_bps, c.ba.delay_s, c.duration_s), (10e6, 0.021, Some(8.0)));
        assert_eq!(c.ready.as_deref(), Some("/tmp/gw.ready"));
    }

    #[test]
    fn subcommands_take_their_flags() {
        let cli = parse(&["blast", "--iface", "eth0", "--garbage", "--seconds", "6"]).unwrap();
        let Some(Command::Blast(o)) = cli.command else { panic!() };
        assert!(o.garbage && o.seconds == 6.0 && o.size == 1500);
        assert_eq!((o.dst, o.dst_mac), ([10, 199, 2, 1], [0xff; 6]));
        let cli = parse(&["count", "--iface", "eth0"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Count { seconds: 0.0, .. })));
        let cli = parse(&["bench-pipeline", "--size", "78"]).unwrap();
        assert!(matches!(cli.command, Some(Command::BenchPipeline { size: 78, .. })));
    }

    #[test]
    fn errors_name_the_flag() {
        let e = parse(&["--nope", "1"]).unwrap_err().to_string();
        assert!(e.contains("--nope"), "{e}");
        let e = parse(&["--queue", "type='red', limit="]).unwrap_err().to_string();
        assert!(e.contains("--queue"), "{e}");
        let e = parse(&["blast", "--dst", "10.1"]).unwrap_err().to_string();
        assert!(e.contains("--dst") && e.contains("IPv4"), "{e}");
        let e = parse(&["count"]).unwrap_err().to_string();
        assert!(e.contains("--iface"), "{e}");
        let e = parse(&["blast", "--iface", "x", "--rate", "1"]).unwrap_err().to_string();
        assert!(e.contains("--rate"), "{e}");
    }
}
