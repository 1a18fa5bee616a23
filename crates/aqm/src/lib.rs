//! # aqm — active queue management algorithms
//!
//! The RED family as a library (Drop Tail and Random Drop, RED, Adaptive RED, Feng et
//! al.'s Adaptive RED, FRED) and the AQMs set beside it today, every one a line of the
//! [`registry`] ([`registry::AQMS`] lists them, with their keys; docs/algorithms.md's
//! table is generated from it). Two shapes: an arrival-time discipline
//! ([`QueueDiscipline`], dispatched by [`AnyAqm`], such as the RED family and BLUE)
//! leaves the FIFO to its owner; a queue that holds its packets ([`Qdisc`], dispatched
//! by [`AnyQdisc`]) decides at dequeue, as CoDel, PIE and COBALT do, or schedules among
//! several queues, as the flow-queue scheduler [`Fq`] does, generic over the AQM of each
//! flow ([`FlowAqm`]; FQ-CoDel, FQ-PIE, FQ-COBALT).
//!
//! ## Design
//! - **Time is an argument.** Nothing reads a clock; every call takes `now: Time`
//!   (integer nanoseconds). Adaptive RED says when it next needs a call through
//!   [`QueueDiscipline::poll_at`].
//! - **Algorithms return verdicts; the caller acts.** A discipline sees a
//!   [`PacketInfo`] (size, flow, ECN-capable bit) and the [`Backlog`] and answers a
//!   [`Verdict`]: enqueue, mark, drop (early, forced, overflow, per-flow limit) or
//!   evict a queued packet. It holds no packets, so the same code serves the
//!   simulator, the Python API and a gateway forwarding real packets. [`Queue`] is a
//!   ready-made FIFO buffer that applies verdicts for callers that want one.
//! - **Params, state, stats apart.** Parameters are validated once by a fallible
//!   constructor ([`QueueConfig::build`] or each type's `new`) and are immutable;
//!   counters live in [`QueueStats`].
//! - **One variant, one type.** [`Red`], [`AdaptiveRed`], [`FengAdaptiveRed`] share
//!   [`red::RedCore`]; dispatch is the [`AnyAqm`] enum ([`dispatch`]).
//! - **One AQM, one file.** A built-in AQM's module holds its parameters (a
//!   `config_struct!`), their validation, its behaviour at arrival and dequeue, its
//!   trait implementations and its build; one line of the [`registry`] table gives its
//!   configuration `type`, its [`QueueConfig`] and dispatch variants, its Python class
//!   and its place in the docs' lists. What several share stays in shared modules:
//!   [`common`] (the buffer limit, the EWMA, the linear ramp), [`fq`] (the flow-queue
//!   scheduler), [`red::RedCore`], [`codel::CodelCore`], [`pie_core`].
//! - **Deterministic.** Each random discipline owns one seeded generator.
//! - **Open.** An AQM from outside the crate (a Python class, a plugin) is a further
//!   variant of the dispatch enums behind a `Box<dyn ...>` ([`external`]).
//!
//! [`stats`] holds what the simulator's monitors and the gateway measure alike: the
//! measurement window, time averages over it, waiting times, drop runs and the summary
//! of a link direction.
//!
//! The queue size a discipline sees counts the packets waiting, not the one being
//! transmitted (as ns-2 and Linux count it).

#[macro_use]
pub mod registry;

// What the AQMs share.
pub mod common;
pub mod config;
pub mod dispatch;
pub mod error;
pub mod external;
pub mod fq;
pub mod packet;
pub mod pie_core;
pub mod plugin;
pub mod qdisc;
pub mod queue;
pub mod stats;
pub mod time;
pub mod units;

// The AQMs, a module each (`src/<module>.rs`), and their types, from the registry's table.
builtin_aqms!(declare_modules);

pub use ared::{AdaptRule, AredAdaptation};
pub use blue::BlueParams;
pub use codel::{CodelCore, CodelParams};
pub use common::{IdleRule, Limit, MarkMethod};
pub use config::{BuildContext, QueueConfig};
pub use dispatch::{AnyAqm, AnyQdisc};
pub use dualpi2::DualPi2Params;
pub use error::{AqmError, Result};
pub use feng::FengAdaptation;
pub use fq::{FlowAqm, Fq, FqParams, Overflow};
pub use fq_pie::PieFlow;
pub use fred::FredParams;
pub use packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
pub use pi::PiParams;
pub use pie_core::{DelayMode, PieCore, PieParams};
pub use qdisc::{Dequeued, Fifo, Held, PacketQueue, Qdisc};
pub use queue::{Queue, QueueDiscipline, QueueStats, SignalKind};
pub use red::{CountMode, RedParams};
pub use sfb::SfbParams;
pub use time::{Duration, Time};
pub use units::Quantity;

/// The README's Rust (its "From Rust" example), compiled and run as this crate's doctest
/// (`cargo test -p aqm --doc`), so that the README shows code that works.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
