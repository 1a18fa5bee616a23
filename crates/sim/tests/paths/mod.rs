//! A packet's paths through a link direction: the speed mechanisms and the qdisc path
//! give the results of the plain hop-by-hop path; queues that hold their packets.

use super::*;

mod checks;
mod codel;
mod express;
mod held_queues;
mod qdisc_path;
