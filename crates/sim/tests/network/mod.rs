//! The network and its traffic: single paths, routing, determinism, ECN, scenario
//! errors, open-loop sources, web mice and the simulator's limits.

use super::*;

mod basics;
mod determinism;
mod ecn;
mod errors;
mod limits;
mod routing;
mod sources;
mod web;
