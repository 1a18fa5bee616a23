//! The TCP receiver: cumulative ACKs, delayed ACKs (with Linux's quick-ACK mode as an
//! option), ECN echo (RFC 3168, DCTCP's exact echo, or AccECN's CE counter for
//! Prague), SACK blocks.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use aqm::Time;

use super::sack::{Runs, SackLog, SharedSackLog};

/// ACKs sent at once in quick-ACK mode (Linux's `TCP_MAX_QUICKACKS`; its
/// `tcp_incr_quickack` takes min(16, rcv_wnd / 2 MSS), 16 with a receive window of 32
/// packets or more).
pub const QUICKACKS: u32 = 16;
use super::{TcpParams, Variant};
use crate::packet::{Pkt, flags};

/// A TCP receiver: cumulative ACKs, optional delayed ACKs (every second packet or
/// after `delack_interval`; out-of-order packets are acknowledged at once), ECN echo
/// until the sender's CWR.
///
/// With DCTCP, Prague or SACK (`ext`) the receiver keeps its out-of-order packets as
/// runs and takes `on_data_ext`: DCTCP's echo (RFC 8257 Section 3.2) sets ECE on an ACK
/// exactly when the packets it acknowledges were CE-marked: with delayed ACKs, a change
/// of the CE state first acknowledges the packets received before at once, with the
/// old state (the RFC's two-state machine); SACK blocks go into the flow's log. For
/// Prague, AccECN's feedback (draft-ietf-tcpm-accurate-ecn Section 3.2): the receiver
/// counts the CE-marked packets it receives (`r.cep`, from 5) and every ACK carries the
/// count modulo 8 in its ACE field (flags ECE, CWR and AE, low bit first); a change of
/// the CE state acknowledges the packets before it at once too (its change-triggered
/// ACKs), so that each ACK's count is that of the packets it acknowledges.
///
/// Quick-ACK mode (`quickack`, Linux's `icsk_ack.quick`): with delayed ACKs, the first
/// [`QUICKACKS`] ACKs of the connection go out at once, one per packet, and so do the
/// next [`QUICKACKS`] after a packet arrives that was received before (a
/// retransmission: Linux's `tcp_data_queue` enters the mode then). Linux also enters it
/// after an idle period longer than its RTO, which this receiver does not track.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    flow: u32,
    dst: u16,
    ack_size: u32,
    ecn: bool,
    delayed: bool,
    delack_interval: aqm::Duration,
    /// Next packet expected.
    pub next: u32,
    ooo: VecDeque<u32>,
    pending: u32,
    /// Delayed-ACK deadline.
    pub delack_deadline: Option<Time>,
    ece: bool,
    ext: bool,
    /// DCTCP's echo or AccECN's counter (DCTCP.CE is `ce_state`).
    dctcp: bool,
    accecn: bool,
    ce_state: bool,
    /// AccECN's CE packet counter (`r.cep`).
    cep: u32,
    runs: Runs,
    sack_log: Option<SharedSackLog>,
    sack_blocks: usize,
    /// Quick ACKs left (quick-ACK mode), and whether the mode is on.
    quick: u32,
    quickack: bool,
}

impl TcpReceiver {
    pub fn new(p: &TcpParams, flow: u32, dst: u16) -> TcpReceiver {
        TcpReceiver {
            flow,
            dst,
            ack_size: p.ack_size,
            ecn: p.ecn,
            delayed: p.delayed_ack,
            delack_interval: aqm::Duration::from_secs_f64(p.delack_interval),
            next: 0,
            ooo: VecDeque::new(),
            pending: 0,
            delack_deadline: None,
            ece: false,
            ext: p.sack || matches!(p.variant, Variant::Dctcp | Variant::Prague),
            dctcp: matches!(p.variant, Variant::Dctcp | Variant::Prague),
            accecn: p.variant == Variant::Prague,
            ce_state: false,
            cep: 5,
            runs: Runs::default(),
            sack_log: p.sack.then(|| Arc::new(Mutex::new(SackLog::default()))),
            sack_blocks: p.sack_blocks as usize,
            quick: if p.rules.quickack { QUICKACKS } else { 0 },
            quickack: p.rules.quickack,
        }
    }

    /// In quick-ACK mode, this packet is acknowledged at once (and counts against the
    /// mode's ACKs).
    #[inline]
    fn quick_ack(&mut self) -> bool {
        if self.quick == 0 {
            return false;
        }
        self.quick -= 1;
        true
    }

    /// The SACK log this receiver writes (shared with its sender).
    pub fn sack_log(&self) -> Option<SharedSackLog> {
        self.sack_log.clone()
    }

    #[inline]
    fn ack(&mut self, out: &mut Vec<Pkt>) {
        let mut f = flags::ACK;
        if self.ece {
            f |= flags::ECE;
        }
        out.push(Pkt {
            flow: self.flow,
            seq: self.next,
            size: self.ack_size,
            dst: self.dst,
            flags: f,
            epoch: 0,
        });
        self.pending = 0;
        self.delack_deadline = None;
    }

    /// A data packet arrived. Returns how many packets became deliverable in order.
    pub fn on_data(&mut self, now: Time, pkt: &Pkt, out: &mut Vec<Pkt>) -> u32 {
        if self.ext {
            return self.on_data_ext(now, pkt, out);
        }
        if self.ecn {
            if pkt.flags & flags::CWR != 0 {
                self.ece = false;
            }
            if pkt.flags & flags::CE != 0 {
                self.ece = true;
            }
        }
        let s = pkt.seq;
        if s == self.next {
            self.next += 1;
            let mut n = 1;
            let filled = !self.ooo.is_empty();
            if filled {
                // drop what the advance covered, then take the run that follows
                while self.ooo.front().is_some_and(|&x| x < self.next) {
                    self.ooo.pop_front();
                }
                while self.ooo.front() == Some(&self.next) {
                    self.ooo.pop_front();
                    self.next += 1;
                    n += 1;
                }
            }
            if self.delayed && !filled && pkt.flags & flags::CE == 0 && !self.quick_ack() {
                self.pending += 1;
                if self.pending >= 2 {
                    self.ack(out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + self.delack_interval);
                }
            } else {
                self.ack(out);
            }
            n
        } else {
            if self.quickack && s < self.next {
                self.quick = QUICKACKS;
            }
            if s > self.next {
                // sorted, without duplicates; usually appended at the back
                if self.ooo.back().is_none_or(|&b| b < s) {
                    self.ooo.push_back(s);
                } else if let Err(i) = self.ooo.binary_search(&s) {
                    self.ooo.insert(i, s);
                }
            }
            self.ack(out);
            0
        }
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack(&mut self, out: &mut Vec<Pkt>) {
        if self.pending > 0 {
            if self.ext { self.ack_ext(out, None) } else { self.ack(out) }
        }
        self.delack_deadline = None;
    }

    /// `on_data` with DCTCP's echo or SACK.
    #[inline(never)]
    fn on_data_ext(&mut self, now: Time, pkt: &Pkt, out: &mut Vec<Pkt>) -> u32 {
        let ce = pkt.flags & flags::CE != 0;
        if self.dctcp {
            if ce != self.ce_state {
                if self.pending > 0 {
                    // the packets before this one, with their CE state
                    self.ack_ext(out, None);
                }
                self.ce_state = ce;
            }
            self.ece = ce;
            if ce && self.accecn {
                self.cep = self.cep.wrapping_add(1);
            }
        } else if self.ecn {
            if pkt.flags & flags::CWR != 0 {
                self.ece = false;
            }
            if ce {
                self.ece = true;
            }
        }
        let s = pkt.seq;
        if s != self.next {
            if self.quickack && s < self.next {
                self.quick = QUICKACKS;
            }
            let first = (s > self.next).then(|| self.runs.insert(s));
            self.ack_ext(out, first);
            return 0;
        }
        let filled = !self.runs.runs.is_empty();
        let next = if filled { self.runs.advance(s + 1) } else { s + 1 };
        let n = next - s;
        self.next = next;
        if self.delayed && !filled && (self.dctcp || !ce) && !self.quick_ack() {
            self.pending += 1;
            if self.pending >= 2 {
                self.ack_ext(out, None);
            } else if self.delack_deadline.is_none() {
                self.delack_deadline = Some(now + self.delack_interval);
            }
        } else {
            self.ack_ext(out, None);
        }
        n
    }

    /// AccECN's ACE field: `r.cep` modulo 8 in the flags ECE, CWR, AE.
    fn ace(&self) -> u8 {
        let c = self.cep & 7;
        let bit = |b: u32, f: u8| if c & b != 0 { f } else { 0 };
        bit(1, flags::ECE) | bit(2, flags::CWR) | bit(4, flags::AE)
    }

    /// An ACK with SACK blocks (the run of out-of-order run `first` first) if SACK is
    /// on.
    fn ack_ext(&mut self, out: &mut Vec<Pkt>, first: Option<usize>) {
        let mut f = flags::ACK;
        if self.accecn {
            f |= self.ace();
        } else if self.ece {
            f |= flags::ECE;
        }
        let (mut size, mut epoch) = (self.ack_size, 0);
        if let Some(log) = &self.sack_log {
            let b = self.runs.blocks(first, self.sack_blocks);
            size += b.option_bytes();
            epoch = SackLog::put(log, self.next, b);
        }
        out.push(Pkt { flow: self.flow, seq: self.next, size, dst: self.dst, flags: f, epoch });
        self.pending = 0;
        self.delack_deadline = None;
    }
}
