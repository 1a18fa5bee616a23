//! All integration tests of the aqm crate, in one test binary.

mod adaptive;
mod baselines;
mod codel;
mod common;
mod config;
mod external;
mod fq_codel;
mod fq_pie;
mod fred;
mod invariants;
mod qdiscs;
mod qdiscs_algo;
mod red;
mod registry;
mod units;
