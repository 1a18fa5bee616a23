//! AQMs from outside the crate: a discipline written in another language (a Python
//! class) or built apart (a plugin, a shared library made with the crate's
//! [`export_aqm!`](crate::export_aqm)), in a configuration as
//! `queue = { type = "python", class = "my_aqm:MyAqm", ... }` or
//! `queue = { type = "plugin", path = "libmy_aqm.so", ... }`.
//!
//! The crate holds no foreign code: it gives the extension point. An external AQM is
//! an [`ExternalAqm`] behind a `Box<dyn ...>`, built by the [`ExternalKind`] registered
//! under its `type` ([`register`]). One that decides only on arrival runs as the RED
//! family does, an arrival-time discipline over its owner's FIFO ([`External`], a
//! variant of [`crate::AnyAqm`]); one that also decides at dequeue runs in a queue that
//! holds its packets ([`ExternalQdisc`], a variant of [`crate::AnyQdisc`]), asked about
//! the packet at the head each time the line is free.
//!
//! A foreign discipline may fail on the packet path (a Python exception, a verdict it
//! may not give, a plugin's panic): the implementation stops the run by unwinding with a
//! [`Failure`] (`std::panic::resume_unwind`, so no panic message is printed), which the
//! caller's boundary turns into its error, naming the AQM, the method, the time and the
//! flow ([`Failure::new`]).

use std::fmt;
use std::sync::RwLock;

use crate::common::Limit;
use crate::config::{BuildContext, Value};
use crate::error::{AqmError, Result};
use crate::packet::{Backlog, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::time::Time;

mod config;
mod qdisc;

pub use config::ExternalConfig;
pub use qdisc::ExternalQdisc;

/// The configuration `type`s of external AQMs: a Python class, a plugin.
pub const EXTERNAL_TYPES: &[&str] = &["python", "plugin"];

/// What an AQM that decides at dequeue answers for the packet at the head of its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DequeueVerdict {
    /// Send it as it is.
    Send,
    /// Send it with congestion experienced set (ECN).
    Mark,
    /// Discard it and ask again about the next one.
    Drop,
}

/// A discipline from outside the crate, as the queues see it. The arrival-time part is
/// [`QueueDiscipline`]'s; [`ExternalAqm::on_dequeue`] is asked only when
/// [`ExternalAqm::decides_at_dequeue`] says so.
pub trait ExternalAqm: Send + Sync + fmt::Debug {
    /// The configuration `type` it came from (`"python"`, `"plugin"`).
    fn kind(&self) -> &'static str;
    /// Decide on an arriving packet (as [`QueueDiscipline::on_arrival`]).
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict;
    /// A packet left the buffer (as [`QueueDiscipline::on_removed`]).
    fn on_removed(&mut self, _now: Time, _pkt: &PacketInfo, _after: Backlog, _departed: bool) {}
    /// Whether it decides at dequeue too ([`ExternalAqm::on_dequeue`]).
    fn decides_at_dequeue(&self) -> bool {
        false
    }
    /// Decide on the packet at the head, enqueued at `enqueued_at`, as the line takes it;
    /// `backlog` counts it.
    fn on_dequeue(
        &mut self,
        _now: Time,
        _pkt: &PacketInfo,
        _enqueued_at: Time,
        _backlog: Backlog,
    ) -> DequeueVerdict {
        DequeueVerdict::Send
    }
    /// The buffer it declares (its `limit` and `limit_bytes` keys), for estimates; the
    /// AQM itself decides what to drop.
    fn limit(&self) -> Limit;
    /// When it next needs [`ExternalAqm::poll`].
    fn poll_at(&self) -> Option<Time> {
        None
    }
    /// Periodic work due at `now`.
    fn poll(&mut self, _now: Time) {}
    /// Its congestion signal for the monitors (see [`QueueDiscipline::signal`]).
    fn signal(&self) -> f64 {
        0.0
    }
    /// What [`ExternalAqm::signal`] measures.
    fn signal_kind(&self) -> SignalKind {
        SignalKind::None
    }
    /// Its own statistics, by name, for the summary of the link.
    fn stats(&self) -> Vec<(String, f64)> {
        Vec::new()
    }
    /// Another handle on the same discipline: a foreign object cannot in general be
    /// copied, so both handles share its state. (Only a split of a run onto two threads
    /// copies its queues, and a run with an external AQM never splits.)
    fn share(&self) -> Box<dyn ExternalAqm>;
}

/// How the AQMs of one external `type` are found and built.
pub trait ExternalKind: Send + Sync {
    /// The configuration `type` (one of [`EXTERNAL_TYPES`]).
    fn name(&self) -> &'static str;
    /// The key that says which AQM (`class`, `path`).
    fn target_key(&self) -> &'static str;
    /// Find the AQM `cfg` names and say whether it decides at dequeue; an error names
    /// the target and what is wrong (no such module, no `enqueue`, not a plugin, ...).
    fn probe(&self, cfg: &ExternalConfig) -> Result<bool>;
    /// Build one instance for a queue.
    fn build(&self, cfg: &ExternalConfig, ctx: &BuildContext) -> Result<Box<dyn ExternalAqm>>;
}

static KINDS: RwLock<Vec<&'static dyn ExternalKind>> = RwLock::new(Vec::new());

/// Make the external `type` `kind.name()` available (replacing an earlier registration
/// of the same name). A program registers the kinds it can run: the Python bindings
/// register `python`.
pub fn register(kind: &'static dyn ExternalKind) {
    let mut kinds = KINDS.write().unwrap_or_else(|e| e.into_inner());
    kinds.retain(|k| k.name() != kind.name());
    kinds.push(kind);
}

/// The registered kind named `name`.
pub fn kind(name: &str) -> Option<&'static dyn ExternalKind> {
    let kinds = KINDS.read().unwrap_or_else(|e| e.into_inner());
    kinds.iter().copied().find(|k| k.name() == name)
}

/// Why a run stopped on the packet path: the unwinding payload of an external AQM that
/// failed (see the module documentation).
pub struct Failure {
    /// What failed, where and when, in words.
    pub message: String,
    /// The foreign error itself, if the boundary can use it (a `PyErr`).
    pub cause: Option<Box<dyn std::any::Any + Send>>,
}

impl Failure {
    /// `"<what>.<method> at t = <now> s (flow <flow>): <problem>"`.
    pub fn new(what: &str, method: &str, now: Time, flow: Option<u32>, problem: &str) -> Failure {
        let flow = flow.map(|f| format!(", flow {f}")).unwrap_or_default();
        Failure {
            message: format!(
                "{what}.{method} at simulated time {:.9} s{flow}: {problem}",
                now.as_secs_f64()
            ),
            cause: None,
        }
    }

    /// Stop the run with this failure.
    pub fn raise(self) -> ! {
        std::panic::resume_unwind(Box::new(self))
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// An external arrival-time discipline: a variant of [`crate::AnyAqm`].
#[derive(Debug)]
pub struct External(pub Box<dyn ExternalAqm>);

impl Clone for External {
    fn clone(&self) -> External {
        External(self.0.share())
    }
}

// (never inlined: the built-ins' arms of `AnyAqm`'s dispatch stay as small as they were)
impl QueueDiscipline for External {
    #[inline(never)]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        self.0.on_arrival(now, pkt, backlog)
    }
    #[inline(never)]
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, after: Backlog, departed: bool) {
        self.0.on_removed(now, pkt, after, departed)
    }
    fn limit(&self) -> Limit {
        self.0.limit()
    }
    fn poll_at(&self) -> Option<Time> {
        self.0.poll_at()
    }
    fn poll(&mut self, now: Time) {
        self.0.poll(now)
    }
    fn signal(&self) -> f64 {
        self.0.signal()
    }
    fn signal_kind(&self) -> SignalKind {
        self.0.signal_kind()
    }
}

/// The error for an external `type` that this program cannot run.
pub(crate) fn unavailable(name: &str) -> AqmError {
    let how = match name {
        "python" => "a Python class runs from the aqmlab Python package (aqmlab run, \
                     aqmlab.sim, aqmlab.aqm.Queue, and its aqmlab-gateway command for the \
                     testbed), not from this program"
            .to_string(),
        _ => format!("no `{name}` queues in this program"),
    };
    AqmError::config("type", format!("`{name}`: {how}"))
}

/// A key of an external AQM's table read as an integer in `0..=max`, if present.
pub(crate) fn int_key(params: &[(String, Value)], key: &str, max: u64) -> Result<Option<u64>> {
    match params.iter().find(|(k, _)| k == key).map(|(_, v)| v) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Int(i)) if *i >= 0 && (*i as u64) <= max => Ok(Some(*i as u64)),
        Some(Value::UInt(u)) if *u <= max => Ok(Some(*u)),
        Some(v) => Err(AqmError::invalid(key, v, format!("an integer in 0..={max}"))),
    }
}
