//! All integration tests of the aqm crate, in one test binary.

mod adaptive;
mod baselines;
mod codel;
mod common;
mod config;
mod fred;
mod invariants;
mod red;
mod units;
