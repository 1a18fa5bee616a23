//! The kinds of event the simulator schedules. An event is a [`Target`]: a kind and
//! the index of what acts (a link direction, a flow, a link event, a traced queue).
//! Simultaneous events run in kind order, then index order ([`crate::engine`]), so the
//! numbering below is part of the model: deliveries come first, in link-direction
//! order, as packets reaching nodes at one instant do.

use aqm::Time;

use crate::engine::Target;

#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// The head packet of a link direction reaches the far end (index: direction).
    Deliver = 0,
    /// A flow's source may send (index: flow).
    Send = 1,
    /// A TCP sender's retransmission deadline may have passed (index: flow).
    Rto = 2,
    /// A TCP receiver's delayed-ACK deadline may have passed (index: flow).
    Delack = 3,
    /// A link goes down or up (index: the scenario's event).
    Link = 4,
    /// A traced queue is sampled (index: entry of `trace.queue`).
    Sample = 5,
    /// An application writes: a TELNET packet, a web transfer arrival (index: flow).
    App = 6,
    /// A flow's application stops (index: flow).
    Stop = 7,
    /// The measurement window opens: the senders' counters are snapshot.
    Warmup = 8,
    /// A merging direction's batch (index: direction).
    Merge = 9,
    /// The line of a direction whose queue holds its packets frees: its qdisc gives
    /// the next packet (index: direction; see `held`).
    Serve = 10,
    /// A qdisc's periodic work is due (index: direction).
    Poll = 11,
}

impl Kind {
    const ALL: [Kind; 12] = [
        Kind::Deliver,
        Kind::Send,
        Kind::Rto,
        Kind::Delack,
        Kind::Link,
        Kind::Sample,
        Kind::App,
        Kind::Stop,
        Kind::Warmup,
        Kind::Merge,
        Kind::Serve,
        Kind::Poll,
    ];

    /// The kind of a target the simulator scheduled.
    #[inline(always)]
    pub(super) fn of(t: Target) -> Kind {
        Kind::ALL[t.kind as usize]
    }

    /// The target of this kind for `index`.
    #[inline(always)]
    pub(super) fn at(self, index: usize) -> Target {
        Target { kind: self as u8, index: index as u32 }
    }
}

impl super::Sim {
    /// Schedule an event of `kind` for `index` at `t` (ns).
    #[inline(always)]
    pub(super) fn schedule(&mut self, t: u64, kind: Kind, index: usize) {
        self.q.push(Time(t), kind.at(index));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_maps_to_its_number_and_back() {
        for (i, k) in Kind::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i);
            assert_eq!(Kind::of(k.at(7)), *k);
        }
    }
}
