//! `aqmlab-gateway`: see `--help` and [`gateway::cli`].

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(gateway::cli::main_from(std::env::args_os()))
}
