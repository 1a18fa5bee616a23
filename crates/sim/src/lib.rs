//! # sim — a discrete-event packet network simulator for active queue management
//!
//! Nodes joined by full-duplex point-to-point links (rate, propagation delay), one
//! output queue per link direction holding any discipline of `crates/aqm`, static
//! shortest-path routing with link down/up events, TCP agents (Tahoe, Reno, NewReno,
//! CUBIC, DCTCP, LEDBAT; SACK, ECN), open-loop sources, and monitors over the
//! measurement window [warmup, duration].
//!
//! ```text
//!  scenario (TOML / Python dict) --Scenario::from_*--> Scenario --Sim::new--> Sim --run--> Summary
//! ```
//!
//! ## Design
//! - **Integer time.** The clock is `aqm::Time` (nanoseconds).
//! - **One event per hop.** A FIFO line's departure times are known when a packet is
//!   accepted, so a link direction keeps its packets in one FIFO and the event queue
//!   holds one entry per direction: when its head packet reaches the far end (see
//!   [`sim`]; the plain hop-by-hop path is in `sim.rs`, each faster mechanism that
//!   gives its results bit for bit in a module of its own). Events are 128-bit keys
//!   `(time, target, sequence)` in a binary heap ([`engine`]): no payload, no
//!   allocation per event, ties broken by the target (event kind, then index) and then
//!   by insertion order, so runs are deterministic.
//! - **Lazy timers.** A TCP retransmission timer is a deadline; one event per flow is
//!   pending and re-checks the deadline when it fires.
//! - **Queue length convention.** The queue an AQM sees and `mean_queue` count the
//!   packets waiting, not the one being transmitted (as ns-2 and Linux count it).
//! - **Deterministic randomness.** Each flow and each queue owns a generator seeded
//!   from the scenario seed and a stable stream name ([`rng::stream_seed`]).
//! - **One scenario model.** [`Scenario`] is the validated scenario; its
//!   [`Scenario::normalized`] view (SI numbers, expanded flows, named directions,
//!   routes) is what the Python front end reads instead of parsing files again.

pub mod engine;
pub mod error;
pub mod monitor;
pub mod net;
pub mod packet;
pub mod profile;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod trace;

pub use error::{Result, SimError};
pub use monitor::{FlowSummary, LinkSummary, Summary};
pub use scenario::Scenario;
pub use sim::{Sim, run};
pub use tcp::{TcpParams, Variant};
