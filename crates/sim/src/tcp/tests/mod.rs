//! Unit tests of the senders and the receiver, driven packet by packet: CUBIC and its
//! rules (`cubic`), the rules a profile sets (`rules`), DCTCP, SACK and the options
//! (`variants`).

use aqm::Time;
use rand::{Rng, SeedableRng};

use super::*;
use crate::packet::{Pkt, flags};

pub(super) fn params(variant: Variant) -> TcpParams {
    TcpParams { variant, max_window: 1000, ..TcpParams::default() }
}

pub(super) fn ms(t: u64) -> Time {
    Time(t * 1_000_000)
}

/// `p` with its rules changed by `f`.
pub(super) fn ruled(mut p: TcpParams, f: impl FnOnce(&mut Rules)) -> TcpParams {
    f(&mut p.rules);
    p
}

/// The data packets' numbers in `out`, which is emptied.
pub(super) fn seqs(out: &mut Vec<Pkt>) -> Vec<u32> {
    out.drain(..).filter(|p| !p.is_ack()).map(|p| p.seq).collect()
}

/// Deliver data packets `s` to the receiver and their ACKs to the sender at time `t`;
/// returns what the sender sent in answer.
pub(super) fn deliver(c: &mut (TcpSender, TcpReceiver), s: &[u32], t: Time) -> Vec<u32> {
    let mut acks = Vec::new();
    for &q in s {
        let d = Pkt { seq: q, size: 1000, ..Pkt::default() };
        c.1.on_data(t, &d, &mut acks);
    }
    let mut out = Vec::new();
    for a in acks {
        c.0.on_ack(t, &a, &mut out, u32::MAX);
    }
    seqs(&mut out)
}

mod bbr;
mod cubic;
mod growth;
mod loss;
mod prague;
mod rack;
mod recovery_window;
mod rto;
mod rules;
mod variants;
