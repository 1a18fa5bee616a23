//! # gateway — aqmlab's userspace bottleneck
//!
//! Forwards Ethernet frames between two interfaces (veth ends inside network
//! namespaces) through the same `crates/aqm` code the simulator uses, emulating one
//! bottleneck link in each direction: line rate (serialization), propagation delay
//! and an output queue holding any discipline of `aqm::QueueConfig`.
//!
//! ```text
//!   side A                      aqmlab-gateway                         side B
//!  ┌──────┐  veth   ┌──────┐  ┌─────────────────────────────┐ ┌──────┐  veth  ┌──────┐
//!  │ hosts├────────►│ if_a ├─►│ A->B pipe: queue/line/delay ├►│ if_b ├───────►│ hosts│
//!  │      │◄────────┤      │◄─┤ B->A pipe: queue/line/delay │◄┤      │◄───────┤      │
//!  └──────┘         └──────┘  └─────────────────────────────┘ └──────┘        └──────┘
//! ```
//!
//! It is a bridge-like middlebox, transparent at layer 2: both sides sit in one IP
//! subnet; ARP is forwarded at once, unqueued; IPv6 neighbour discovery is IP and
//! goes through the pipe like any packet. Other non-IP frames, runts, malformed or
//! truncated IP packets are counted and dropped.
//!
//! - [`frame`]: parsing, flow id (hash of the 5-tuple), setting CE (RFC 1624).
//! - [`pipe`]: one direction, pure (time is an argument), unit-tested; its summary is
//!   the simulator's link shape ([`aqm::stats::LinkSummary`]) with the gateway's extras.
//! - [`config`]: TOML/JSON file and flags (the same fields).
//! - [`cli`]: the command line (clap).
//! - [`sock`]: AF_PACKET sockets, `recvmmsg` / `sendmmsg`.
//! - [`ring`]: PACKET_MMAP receive and transmit rings (TPACKET_V2).
//! - [`block`]: a TPACKET_V3 block ring, for `count`.
//! - [`port`]: one interface's frames in and out, through the rings (or `sock`).
//! - [`run`]: the single-threaded event loop and the statistics file.
//! - [`sched`]: its CPU scheduling (SCHED_FIFO, timer slack), applied and reported.
//! - [`tools`]: `blast` (traffic and garbage generator), `count` (receiver) and
//!   `bench_pipeline` for the benchmark and the tests.
//! - [`error`]: the crate's one error type.

pub mod block;
pub mod cli;
pub mod config;
pub mod error;
pub mod frame;
pub mod pipe;
pub mod port;
pub mod ring;
pub mod run;
pub mod sched;
pub mod sock;
pub mod tools;

pub use error::{GatewayError, Result};
