//! TCP: loss recovery, the options, NewReno's timers, CUBIC's ns-3 rules and the
//! modern extensions (CUBIC, DCTCP, SACK, limited transmit, the initial window).

use super::*;

mod cubic_rules;
mod modern_tcp;
mod modern_tcp_paths;
mod newreno_timer;
mod recovery;
mod tcp_options;
