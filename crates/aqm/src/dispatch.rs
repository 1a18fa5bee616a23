//! The enums that dispatch among the crate's disciplines by `match` (no boxing on the
//! packet path): [`AnyAqm`] over the arrival-time disciplines ([`QueueDiscipline`]) and
//! [`AnyQdisc`] over the queues that hold their packets ([`Qdisc`]), an arrival-time
//! discipline among them over a [`Fifo`]. Their variants are the registry's lines
//! ([`crate::registry`]), one per AQM, named as its type; a queue from outside the table
//! is a further variant written here, beside [`AnyQdisc::Fifo`], with an arm in each
//! match: [`AnyAqm::External`] and [`AnyQdisc::External`], the disciplines of
//! [`crate::external`].
//!
//! Both answer the general traits; what only one type has (RED's `avg`, `count` and
//! `max_p`, FRED's per-flow state) is read through the type's own
//! [`QueueDiscipline::inspect`] or by downcasting to it ([`AnyAqm::downcast_ref`],
//! [`AnyQdisc::downcast_ref`]).

use std::any::Any;

use crate::common::Limit;
use crate::external::{External, ExternalAqm, ExternalQdisc};
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::qdisc::{Dequeued, Fifo, Qdisc};
use crate::queue::{QueueDiscipline, QueueStats, SignalKind};
use crate::time::Time;

macro_rules! dispatch_enums {
    (
        arrival [$($amo:ident::$aty:ident($acfg:ident) = $an:literal, $ac:literal, $at:literal;)*]
        qdisc [$($qmo:ident::$qty:ident($qcfg:ident) = $qn:literal, $qc:literal, $qt:literal;)*]
    ) => {
        /// Every arrival-time discipline of the crate, dispatched by `match`.
        #[derive(Clone, Debug)]
        pub enum AnyAqm {
            $( #[doc = $at] $aty(crate::$amo::$aty), )*
            /// A discipline from outside the crate that decides on arrival
            /// ([`crate::external`]).
            External(External),
        }

        /// `match` over [`AnyAqm`]'s variants, binding each as `$q`.
        macro_rules! dispatch_aqm {
            ($self:ident, $q:ident => $e:expr) => {
                match $self {
                    $( AnyAqm::$aty($q) => $e, )*
                    AnyAqm::External($q) => $e,
                }
            };
        }

        impl AnyAqm {
            /// The configuration `type` name of this discipline.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( AnyAqm::$aty(_) => $an, )*
                    AnyAqm::External(e) => e.0.kind(),
                }
            }
        }

        /// Every qdisc of the crate, dispatched by `match`: the arrival-time disciplines
        /// over a FIFO ([`AnyQdisc::Fifo`]) and the queues that decide at dequeue or
        /// schedule.
        #[derive(Clone, Debug)]
        pub enum AnyQdisc<P> {
            /// An arrival-time discipline (Drop Tail, the RED family, FRED, ...) over a FIFO.
            Fifo(Fifo<P, AnyAqm>),
            $( #[doc = $qt] $qty(crate::$qmo::$qty<P>), )*
            /// A discipline from outside the crate that decides at dequeue too
            /// ([`crate::external`]).
            External(ExternalQdisc<P>),
        }

        /// `match` over [`AnyQdisc`]'s variants, binding each as `$q`.
        macro_rules! dispatch_qdisc {
            ($self:ident, $q:ident => $e:expr) => {
                match $self {
                    AnyQdisc::Fifo($q) => $e,
                    $( AnyQdisc::$qty($q) => $e, )*
                    AnyQdisc::External($q) => $e,
                }
            };
        }

        impl<P: Packet> AnyQdisc<P> {
            /// The configuration `type` name.
            pub fn kind(&self) -> &'static str {
                match self {
                    AnyQdisc::Fifo(f) => f.discipline().kind(),
                    $( AnyQdisc::$qty(_) => $qn, )*
                    AnyQdisc::External(e) => e.aqm().kind(),
                }
            }
        }
    };
}

builtin_aqms!(partition dispatch_enums [] []);

impl AnyAqm {
    /// The average queue the discipline keeps, for the monitors: its signal when that
    /// is an average queue ([`SignalKind::AverageQueue`]: the RED family, FRED), else 0.
    #[inline]
    pub fn average_queue(&self) -> f64 {
        dispatch_aqm!(self, q => {
            if q.signal_kind() == SignalKind::AverageQueue { q.signal() } else { 0.0 }
        })
    }

    /// [`QueueDiscipline::on_removed`] for a packet `pkt`, what the discipline sees of it
    /// taken only by a discipline that reads it: the built-ins' departures need no
    /// [`PacketInfo`] (an external discipline's arm would otherwise have every caller
    /// build one, 1% of a RED run's instructions in the simulator).
    #[inline(always)]
    pub fn on_removed_packet<P: Packet>(
        &mut self,
        now: Time,
        pkt: &P,
        backlog_after: Backlog,
        departed: bool,
    ) {
        dispatch_aqm!(self, q => QueueDiscipline::on_removed(q, now, &pkt.info(), backlog_after, departed))
    }

    /// The external discipline, if this is one.
    pub fn external(&self) -> Option<&dyn ExternalAqm> {
        match self {
            AnyAqm::External(e) => Some(e.0.as_ref()),
            _ => None,
        }
    }

    /// The discipline as its own type `T`, if it is one (`aqm.downcast_ref::<Fred>()`).
    pub fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        dispatch_aqm!(self, q => (q as &dyn Any).downcast_ref::<T>())
    }
}

impl QueueDiscipline for AnyAqm {
    // (always: with a second caller, the qdisc `Fifo`, the compiler stops inlining it
    // into the simulator's decision, which costs 1.5% of a RED run's instructions)
    #[inline(always)]
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        dispatch_aqm!(self, q => QueueDiscipline::on_arrival(q, now, pkt, backlog))
    }
    #[inline]
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, backlog_after: Backlog, departed: bool) {
        dispatch_aqm!(self, q => QueueDiscipline::on_removed(q, now, pkt, backlog_after, departed))
    }
    fn poll_at(&self) -> Option<Time> {
        dispatch_aqm!(self, q => QueueDiscipline::poll_at(q))
    }
    fn poll(&mut self, now: Time) {
        dispatch_aqm!(self, q => QueueDiscipline::poll(q, now))
    }
    fn victim(&mut self, backlog: Backlog) -> u32 {
        dispatch_aqm!(self, q => QueueDiscipline::victim(q, backlog))
    }
    fn limit(&self) -> Limit {
        dispatch_aqm!(self, q => QueueDiscipline::limit(q))
    }
    fn signal(&self) -> f64 {
        dispatch_aqm!(self, q => QueueDiscipline::signal(q))
    }
    fn signal_kind(&self) -> SignalKind {
        dispatch_aqm!(self, q => QueueDiscipline::signal_kind(q))
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        dispatch_aqm!(self, q => QueueDiscipline::inspect(q, out))
    }
}

impl<P: Packet> AnyQdisc<P> {
    /// The external discipline, if this is one (over a FIFO or deciding at dequeue).
    pub fn external(&self) -> Option<&dyn ExternalAqm> {
        match self {
            AnyQdisc::Fifo(f) => f.discipline().external(),
            AnyQdisc::External(q) => Some(q.aqm()),
            _ => None,
        }
    }

    /// The arrival-time discipline, when this is a [`Fifo`].
    pub fn fifo_discipline(&self) -> Option<&AnyAqm> {
        match self {
            AnyQdisc::Fifo(f) => Some(f.discipline()),
            _ => None,
        }
    }
}

impl<P: Packet + 'static> AnyQdisc<P> {
    /// The discipline as its own type `T`, if it is one: an arrival-time discipline
    /// over a [`Fifo`] as itself (`q.downcast_ref::<Fred>()`), a qdisc as its type
    /// (`q.downcast_ref::<Pie<P>>()`).
    pub fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        match self {
            AnyQdisc::Fifo(f) => f.discipline().downcast_ref::<T>(),
            q => dispatch_qdisc!(q, q => (q as &dyn Any).downcast_ref::<T>()),
        }
    }
}

impl<P: Packet> Qdisc<P> for AnyQdisc<P> {
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        dispatch_qdisc!(self, q => q.enqueue(now, pkt, dropped))
    }
    #[inline]
    fn dequeue(
        &mut self,
        now: Time,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        dispatch_qdisc!(self, q => q.dequeue(now, dropped))
    }
    fn backlog(&self) -> Backlog {
        dispatch_qdisc!(self, q => q.backlog())
    }
    fn limit(&self) -> Limit {
        dispatch_qdisc!(self, q => q.limit())
    }
    fn stats(&self) -> &QueueStats {
        dispatch_qdisc!(self, q => q.stats())
    }
    fn poll_at(&self) -> Option<Time> {
        dispatch_qdisc!(self, q => q.poll_at())
    }
    fn poll(&mut self, now: Time) {
        dispatch_qdisc!(self, q => q.poll(now))
    }
    fn signal(&self) -> f64 {
        dispatch_qdisc!(self, q => q.signal())
    }
    fn signal_kind(&self) -> SignalKind {
        dispatch_qdisc!(self, q => q.signal_kind())
    }
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        dispatch_qdisc!(self, q => q.inspect(out))
    }
}
