//! `aqmlab-gateway`: see `--help` and [`gateway::cli`].

use std::process::ExitCode;

use clap::Parser;
use gateway::cli::Cli;

fn main() -> ExitCode {
    match Cli::parse().run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aqmlab-gateway: error: {e}");
            ExitCode::from(2)
        }
    }
}
