//! Selective acknowledgements: the blocks an ACK carries (RFC 2018), the way they
//! travel, and the sender's scoreboard (RFC 6675), all counted in packets.
//!
//! **How the blocks travel.** A simulated packet is a 16-byte value with no room for
//! options, so a SACK receiver numbers its ACKs and writes each ACK's blocks into the
//! flow's [`SackLog`], shared by the flow's two ends; the ACK carries its number's low
//! byte in `Pkt::epoch`. The sender, when that ACK arrives, takes the entry with that
//! byte and that cumulative ACK and drops the entries before it (their ACKs were
//! lost). The blocks are thus exactly those the receiver put on that ACK, and an ACK
//! that is lost takes its blocks with it, as on a real network. The ACK's size on the
//! wire grows by the option's length: 2 bytes of kind and length, 8 per block, padded
//! to a multiple of 4 (two NOPs): `4 + 8 n` bytes. Web mice do not take SACK (their
//! packets' epoch byte is the connection's).
//!
//! The scoreboard follows RFC 6675 Section 4 with sequence numbers in packets: one
//! SACKed flag per outstanding packet; `IsLost(s)` is true when at least `DupThresh`
//! SACKed packets lie above `s` (a segment is one SMSS, so "more than (DupThresh - 1)
//! SMSS bytes" and "DupThresh discontiguous sequences" both count packets); `pipe`
//! counts each unSACKed packet not deemed lost, and once more if it lies at or below
//! `HighRxt`; `NextSeg` implements rules (1) to (3). Rule (4), the optional rescue
//! retransmission, is not implemented.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Blocks `[start, end)` of packets, most recent first (RFC 2018 Section 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub n: u8,
    pub b: [(u32, u32); 4],
}

impl SackBlocks {
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.b[..self.n as usize]
    }

    fn push(&mut self, blk: (u32, u32)) {
        self.b[self.n as usize] = blk;
        self.n += 1;
    }

    /// Bytes the option adds to an ACK: kind, length, 8 per block, two NOPs.
    pub fn option_bytes(&self) -> u32 {
        if self.n == 0 { 0 } else { 4 + 8 * self.n as u32 }
    }
}

/// One ACK's blocks in the log.
#[derive(Clone, Copy, Debug)]
struct Entry {
    serial: u32,
    ack: u32,
    blocks: SackBlocks,
}

/// The SACK blocks of a flow's ACKs in flight (see the module docs).
#[derive(Debug, Default)]
pub struct SackLog {
    next_serial: u32,
    entries: VecDeque<Entry>,
}

/// A flow's log, shared by its sender and receiver (which may run on two threads; an
/// entry is always written before its ACK can arrive).
pub type SharedSackLog = Arc<Mutex<SackLog>>;

impl SackLog {
    /// Log the blocks of an ACK for `ack`; returns the byte the ACK carries.
    pub fn put(log: &SharedSackLog, ack: u32, blocks: SackBlocks) -> u8 {
        let mut l = log.lock().unwrap_or_else(|e| e.into_inner());
        let serial = l.next_serial;
        l.next_serial = serial.wrapping_add(1);
        l.entries.push_back(Entry { serial, ack, blocks });
        serial as u8
    }

    /// The blocks of the ACK for `ack` that carries `tag`; entries before it are
    /// dropped. No blocks if no entry matches (an ACK that overtook another).
    pub fn take(log: &SharedSackLog, ack: u32, tag: u8) -> SackBlocks {
        let mut l = log.lock().unwrap_or_else(|e| e.into_inner());
        match l.entries.iter().position(|e| e.serial as u8 == tag && e.ack == ack) {
            Some(i) => {
                let e = l.entries[i];
                l.entries.drain(..=i);
                e.blocks
            }
            None => SackBlocks::default(),
        }
    }
}

/// The receiver's out-of-order packets as sorted, disjoint, non-adjacent runs
/// `[start, end)`, and the blocks it reported last.
#[derive(Clone, Debug, Default)]
pub struct Runs {
    pub runs: Vec<(u32, u32)>,
    reported: SackBlocks,
}

impl Runs {
    /// Hold packet `s` (above the cumulative point); returns its run's index.
    pub fn insert(&mut self, s: u32) -> usize {
        let i = self.runs.partition_point(|r| r.1 < s);
        if i < self.runs.len() && self.runs[i].0 <= s {
            if s == self.runs[i].1 {
                self.runs[i].1 += 1;
                if i + 1 < self.runs.len() && self.runs[i + 1].0 == s + 1 {
                    self.runs[i].1 = self.runs[i + 1].1;
                    self.runs.remove(i + 1);
                }
            }
            // (else a duplicate inside the run)
            return i;
        }
        if i < self.runs.len() && self.runs[i].0 == s + 1 {
            self.runs[i].0 = s;
        } else {
            self.runs.insert(i, (s, s + 1));
        }
        i
    }

    /// The cumulative point moved to `next`: take the run that starts there (returns
    /// its end, or `next`) and forget the runs below.
    pub fn advance(&mut self, next: u32) -> u32 {
        let mut next = next;
        while let Some(&(a, b)) = self.runs.first() {
            if a > next {
                break;
            }
            next = next.max(b);
            self.runs.remove(0);
        }
        next
    }

    /// The blocks of the next ACK (RFC 2018 Section 4): the run holding the packet
    /// that triggered it first (`first`, if it is above the cumulative point), then
    /// the runs of the blocks reported last, most recent first, without repeats, at
    /// most `max` in all.
    pub fn blocks(&mut self, first: Option<usize>, max: usize) -> SackBlocks {
        let mut out = SackBlocks::default();
        if let Some(i) = first {
            out.push(self.runs[i]);
        }
        for &(a, _) in self.reported.as_slice() {
            if out.n as usize >= max {
                break;
            }
            // the run that now holds the block's first packet, if any is still out of order
            let j = self.runs.partition_point(|r| r.1 <= a);
            if j < self.runs.len() && self.runs[j].0 <= a {
                let r = self.runs[j];
                if !out.as_slice().contains(&r) {
                    out.push(r);
                }
            }
        }
        // A hole may stay open with every reported block acknowledged: report the
        // lowest runs (rare: only after the reports were lost with their ACKs).
        for &r in &self.runs {
            if out.n as usize >= max {
                break;
            }
            if !out.as_slice().contains(&r) {
                out.push(r);
            }
        }
        self.reported = out;
        out
    }
}

/// A packet SACKed.
pub const SACKED: u8 = 1;
/// A packet RACK deems lost (RFC 8985), until it is retransmitted again.
pub const LOST: u8 = 2;
/// A packet retransmitted and not yet delivered nor deemed lost again.
pub const RETX: u8 = 4;
/// A packet retransmitted at least once.
pub const EVER: u8 = 8;

/// The sender's scoreboard (RFC 6675 Section 4).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Each packet's flags from `base` (the oldest unacknowledged) on: [`SACKED`], and
    /// RACK's [`LOST`] and [`RETX`].
    flags: VecDeque<u8>,
    base: u32,
    /// One past the highest packet SACKed (0: none).
    pub high_sacked: u32,
    /// One past the highest packet retransmitted in this recovery (RFC 6675
    /// `HighRxt` + 1).
    pub high_rxt: u32,
    /// Packets SACKed (above the cumulative ACK).
    pub sacked: u32,
}

impl Scoreboard {
    /// Is packet `s` SACKed?
    pub fn is_sacked(&self, s: u32) -> bool {
        self.flag(s) & SACKED != 0
    }

    /// Packet `s`'s flags (0 past the record).
    #[inline]
    pub fn flag(&self, s: u32) -> u8 {
        if s < self.base {
            return 0;
        }
        self.flags.get((s - self.base) as usize).copied().unwrap_or(0)
    }

    /// Set and clear flags of packet `s` (below `snd_max`).
    pub fn set_flag(&mut self, s: u32, set: u8, clear: u8) {
        if s < self.base {
            return;
        }
        let i = (s - self.base) as usize;
        if self.flags.len() <= i {
            self.flags.resize(i + 1, 0);
        }
        self.flags[i] = (self.flags[i] | set) & !clear;
    }

    /// The cumulative ACK moved to `una`: drop the flags below.
    pub fn advance(&mut self, una: u32) {
        while self.base < una {
            if self.flags.pop_front().is_some_and(|f| f & SACKED != 0) {
                self.sacked -= 1;
            }
            self.base += 1;
        }
    }

    /// RFC 6675 `Update()`: mark the packets of `blocks` below `snd_max`; returns the
    /// packets newly SACKed.
    pub fn update(&mut self, blocks: &[(u32, u32)], snd_max: u32) -> u32 {
        self.update_with(blocks, snd_max, |_, _| {})
    }

    /// [`Scoreboard::update`], telling `each` every packet newly SACKed with the flags
    /// it had.
    pub fn update_with(
        &mut self,
        blocks: &[(u32, u32)],
        snd_max: u32,
        mut each: impl FnMut(u32, u8),
    ) -> u32 {
        let mut newly = 0;
        for &(a, b) in blocks {
            let (a, b) = (a.max(self.base), b.min(snd_max));
            if a >= b {
                continue;
            }
            let need = (b - self.base) as usize;
            if self.flags.len() < need {
                self.flags.resize(need, 0);
            }
            for s in a..b {
                let f = &mut self.flags[(s - self.base) as usize];
                if *f & SACKED == 0 {
                    each(s, *f);
                    *f = SACKED;
                    newly += 1;
                }
            }
            self.high_sacked = self.high_sacked.max(b);
        }
        self.sacked += newly;
        newly
    }

    /// RACK's pipe: each packet not SACKed counts once unless deemed lost, and once
    /// more while a retransmission of it is in flight (Linux's `tcp_packets_in_flight`:
    /// out - SACKed - lost + retransmitted).
    pub fn pipe_marked(&self, snd_max: u32) -> u32 {
        (self.base..snd_max)
            .map(|s| self.flag(s))
            .filter(|f| f & SACKED == 0)
            .map(|f| u32::from(f & LOST == 0) + u32::from(f & RETX != 0))
            .sum()
    }

    /// RACK's next retransmission: the lowest packet deemed lost and not retransmitted
    /// since.
    pub fn next_marked(&self, snd_max: u32) -> Option<u32> {
        (self.base..snd_max.min(self.base + self.flags.len() as u32))
            .find(|&s| self.flag(s) & (SACKED | LOST | RETX) == LOST)
    }

    /// Is some packet deemed lost by RACK and not yet delivered, retransmitted or not
    /// (Linux's `lost_out` is not zero)?
    pub fn any_marked(&self) -> bool {
        self.flags.iter().any(|f| f & LOST != 0)
    }

    /// Forget every SACK (after a retransmission timeout, RFC 2018 Section 8: the
    /// receiver may have reneged).
    pub fn clear(&mut self) {
        self.flags.clear();
        self.sacked = 0;
        self.high_sacked = 0;
        self.high_rxt = 0;
    }

    /// Keep the SACKs and forget the rest (RACK's marks, `HighRxt`) after a timeout, as
    /// Linux's `tcp_timeout_mark_lost` does when the receiver has not reneged.
    pub fn keep_sacked(&mut self) {
        for f in self.flags.iter_mut() {
            *f &= SACKED | EVER;
        }
        self.high_rxt = 0;
    }

    /// SACKed packets above `s` (below `snd_max`).
    fn sacked_above(&self, s: u32, snd_max: u32) -> u32 {
        (s + 1..snd_max).filter(|&x| self.is_sacked(x)).count() as u32
    }

    /// RFC 6675 `IsLost(s)`.
    pub fn is_lost(&self, s: u32, snd_max: u32, dupthresh: u32) -> bool {
        s >= self.base && s < snd_max && self.sacked_above(s, snd_max) >= dupthresh
    }

    /// RFC 6675 `SetPipe()`: packets deemed in the network (one pass from the top,
    /// counting the SACKed packets above each).
    pub fn pipe(&self, snd_max: u32, dupthresh: u32) -> u32 {
        let (mut above, mut pipe) = (0, 0);
        for s in (self.base..snd_max).rev() {
            if self.is_sacked(s) {
                above += 1;
                continue;
            }
            if above < dupthresh {
                pipe += 1; // not IsLost
            }
            if s < self.high_rxt {
                pipe += 1;
            }
        }
        pipe
    }

    /// RFC 6675 `NextSeg()` rules (1) and (3) (rule (2), new data, is the sender's):
    /// the lowest packet above `HighRxt` and below the highest SACKed one that is not
    /// SACKed, and whether it is deemed lost (rule 1: the lowest lost one) or only
    /// unSACKed (rule 3).
    pub fn next_retransmission(&self, snd_max: u32, dupthresh: u32) -> Option<(u32, bool)> {
        let from = self.high_rxt.max(self.base);
        let to = self.high_sacked.min(snd_max);
        // SACKed packets at or above `to`, then down from there
        let mut above = (to..snd_max).filter(|&x| self.is_sacked(x)).count() as u32;
        let (mut lost, mut unsacked) = (None, None);
        for s in (from..to).rev() {
            if self.is_sacked(s) {
                above += 1;
                continue;
            }
            unsacked = Some(s);
            if above >= dupthresh {
                lost = Some(s);
            }
        }
        match (lost, unsacked) {
            (Some(s), _) => Some((s, true)),
            (None, Some(s)) => Some((s, false)),
            _ => None,
        }
    }
}
