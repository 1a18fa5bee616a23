//! All integration tests of the aqm crate, in one test binary.

mod adaptive;
mod baselines;
mod codel;
mod codel_tables;
mod common;
mod config;
mod fq_codel;
mod fred;
mod invariants;
mod red;
mod units;
