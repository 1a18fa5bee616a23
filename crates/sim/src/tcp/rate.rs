//! Delivery-rate samples as Linux's `tcp_rate.c` takes them (draft-cheng-iccrg-
//! delivery-rate-estimation), for BBR: each packet remembers, when sent, how much had
//! been delivered and when; an ACK that delivers packets (cumulatively or by SACK)
//! yields one sample from the most recently sent of them: the packets delivered since
//! it was sent, over the longer of its send phase and its ACK phase.
//!
//! - `on_send` (`tcp_rate_skb_sent`): with nothing outstanding the sampling interval
//!   starts now; the packet records `delivered`, `delivered_mstamp`,
//!   `first_tx_mstamp` and whether the sender is application-limited.
//! - `on_delivered` (`tcp_rate_skb_delivered`): of the packets an ACK newly ACKs or
//!   SACKs, the one with the highest recorded `delivered` gives the sample's start (of
//!   equals, the first in the order Linux walks them: SACKed ones, then the cumulative
//!   ACK's); or, with `newest_sent` (Linux 6.x, `tcp_skb_sent_after`), the one
//!   sent last (of equal send times, the later in the order of sending, as RACK's
//!   `sent_after` has it here); a SACKed packet gives no sample again.
//! - `sample` (`tcp_rate_gen`): `delivered` is the packets delivered since, the
//!   interval `max(send phase, ACK phase)`; a sample whose interval is shorter than the
//!   minimum RTT is invalid. The application-limited mark ends once the packets in
//!   flight when it was set are delivered.
//! - `check_app_limited` (`tcp_rate_check_app_limited`): a sender with nothing more to
//!   send and room in its window marks the samples of the packets it sends next.
//!
//! The sample's RTT (BBR's `rs->rtt_us`, Linux's `ca_rtt_us`) is that of the most
//! recently sent packet the ACK delivered, if it was never retransmitted.

use std::collections::VecDeque;

/// What a packet remembered when it was last sent (`tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug, Default)]
struct TxRec {
    /// Its send time, ns.
    sent: u64,
    /// `first_tx_mstamp` then, ns.
    first_tx: u64,
    /// `delivered_mstamp` then, ns.
    delivered_at: u64,
    /// `delivered` then, packets.
    delivered: u64,
    app_limited: bool,
    /// Its place in the order of sending (ties of `sent`).
    order: u64,
    /// Sent more than once (no RTT sample from it).
    retrans: bool,
    /// Its timing is still usable (a SACK takes it; Linux's `delivered_mstamp = 0`).
    timed: bool,
    /// Counted as delivered already.
    done: bool,
}

/// One ACK's rate sample (`struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Packets delivered over the interval; None: no valid sample.
    pub delivered: Option<u64>,
    /// The interval, s; None: no valid sample.
    pub interval: Option<f64>,
    /// `delivered` when the sample's packet was sent.
    pub prior_delivered: u64,
    /// Packets this ACK newly ACKed or SACKed.
    pub acked_sacked: u32,
    /// Packets this ACK newly deemed lost.
    pub losses: u32,
    /// Packets in flight before the ACK.
    pub prior_in_flight: u32,
    pub is_app_limited: bool,
    /// The RTT of the newest packet delivered, s (none if it was retransmitted).
    pub rtt: Option<f64>,
}

impl RateSample {
    /// The delivery rate, packets per second, of a valid sample.
    pub fn rate(&self) -> Option<f64> {
        match (self.delivered, self.interval) {
            (Some(d), Some(i)) if i > 0.0 => Some(d as f64 / i),
            _ => None,
        }
    }
}

/// The sender's delivery accounting (`tcp_sock`'s `delivered`, `delivered_mstamp`,
/// `first_tx_mstamp`, `app_limited`) and the sample being built.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// The sequence number of `recs[0]` (snd_una).
    base: u32,
    recs: VecDeque<TxRec>,
    /// Packets delivered so far (`tp->delivered`).
    pub delivered: u64,
    /// When `delivered` last grew, ns.
    pub delivered_at: u64,
    first_tx: u64,
    /// `delivered + in flight` when the sender was last found application-limited;
    /// 0 = not limited (`tp->app_limited`).
    pub app_limited: u64,
    /// The smallest RTT sample, s (`tcp_min_rtt`; 0 before any).
    pub min_rtt: f64,
    /// The sample's packet is the one sent last, not the one with the highest
    /// `delivered` (key `bbr_rate_newest_sent`).
    pub newest_sent: bool,
    /// Packets sent so far (the order of sending).
    sends: u64,
    /// This ACK's sample so far: the chosen packet's record (and whether it was
    /// SACKed), the newest send time among clean packets, the packets delivered.
    pick: Option<(TxRec, bool)>,
    newest_clean: Option<u64>,
    newly: u32,
}

impl RateSampler {
    /// Packet `seq` leaves at `now` (ns), `outstanding` packets being unacknowledged
    /// before it; `retx` if it was sent before.
    pub fn on_send(&mut self, seq: u32, now: u64, outstanding: u32, retx: bool) {
        if outstanding == 0 {
            self.first_tx = now;
            self.delivered_at = now;
        }
        let Some(i) = seq.checked_sub(self.base) else { return };
        let i = i as usize;
        if self.recs.len() <= i {
            self.recs.resize(i + 1, TxRec::default());
        }
        self.sends += 1;
        let r = &mut self.recs[i];
        *r = TxRec {
            sent: now,
            order: self.sends,
            first_tx: self.first_tx,
            delivered_at: self.delivered_at,
            delivered: self.delivered,
            app_limited: self.app_limited != 0,
            retrans: retx || r.retrans,
            timed: true,
            done: false,
        };
    }

    /// Packet `seq` is newly delivered (ACKed, or `sacked`).
    pub fn on_delivered(&mut self, seq: u32, sacked: bool) {
        let Some(r) = seq.checked_sub(self.base).and_then(|i| self.recs.get_mut(i as usize)) else {
            return;
        };
        if r.done {
            return;
        }
        r.done = true;
        self.delivered += 1;
        self.newly += 1;
        if !r.retrans && self.newest_clean.is_none_or(|t| r.sent > t) {
            self.newest_clean = Some(r.sent);
        }
        if !r.timed {
            return;
        }
        // (the cumulative ACK's packets come first here, Linux's last: a SACKed
        // packet wins a tie with one of them, as it would there)
        let newest = self.newest_sent;
        let better = |(p, p_sacked): (TxRec, bool)| {
            if newest {
                // tcp_skb_sent_after(tx_tstamp, first_tx_mstamp, end_seq, last_end_seq)
                return r.sent > p.sent || (r.sent == p.sent && r.order > p.order);
            }
            r.delivered > p.delivered || (sacked && !p_sacked && r.delivered == p.delivered)
        };
        if self.pick.is_none_or(better) {
            self.pick = Some((*r, sacked));
        }
        if sacked {
            r.timed = false;
        }
    }

    /// The left edge moves to `una`: the records below go.
    pub fn advance(&mut self, una: u32) {
        while self.base < una {
            self.recs.pop_front();
            self.base += 1;
        }
    }

    /// The ACK at `now` (ns) has been taken: its sample (`tcp_rate_gen`), with the
    /// packets it deemed lost and those in flight before it.
    pub fn sample(&mut self, now: u64, losses: u32, prior_in_flight: u32) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let rtt = self.newest_clean.take().map(|t| (now - t) as f64 * 1e-9);
        if let Some(r) = rtt
            && (self.min_rtt == 0.0 || r < self.min_rtt)
        {
            self.min_rtt = r;
        }
        let acked_sacked = std::mem::take(&mut self.newly);
        if acked_sacked > 0 {
            self.delivered_at = now;
        }
        let mut rs =
            RateSample { acked_sacked, losses, prior_in_flight, rtt, ..Default::default() };
        let Some((p, _)) = self.pick.take() else { return rs };
        self.first_tx = p.sent;
        rs.prior_delivered = p.delivered;
        rs.is_app_limited = p.app_limited;
        // the send phase and the ACK phase (tcp_rate_gen), the longer one
        let snd = p.sent - p.first_tx;
        let ack = now - p.delivered_at;
        let interval = snd.max(ack) as f64 * 1e-9;
        rs.delivered = Some(self.delivered - p.delivered);
        if self.min_rtt > 0.0 && interval >= self.min_rtt {
            rs.interval = Some(interval);
        }
        rs
    }

    /// Nothing more to send and room in the window (`tcp_rate_check_app_limited`):
    /// the samples of what is sent next are application-limited.
    pub fn check_app_limited(&mut self, in_flight: u32) {
        self.app_limited = (self.delivered + u64::from(in_flight)).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Packets 0 and 1 leave at 0 and 0.5 ms; 0's ACK at 20 ms (delivered 1, the
    /// send phase from 0 ms); 2 and 3 leave at 20 and 21 ms (both recording
    /// `delivered` 1, `delivered_mstamp` 20 ms, `first_tx_mstamp` 0), and one ACK at
    /// 40.6 ms delivers 1, 2 and 3. The draft's rule takes 2 (the first of the highest
    /// `delivered`): send phase 20 - 0, ACK phase 40.6 - 20 = 20.6 ms; tcp_rate.c's
    /// `tcp_skb_sent_after` takes 3, sent last: send phase 21 - 0 = 21 ms. Either way
    /// 4 - 1 = 3 packets; the next send phase starts at the chosen packet's send time.
    #[test]
    fn the_sample_comes_from_the_packet_sent_last() {
        for newest_sent in [false, true] {
            let mut r = RateSampler { newest_sent, ..Default::default() };
            r.on_send(0, 0, 0, false);
            r.on_send(1, MS / 2, 1, false);
            r.on_delivered(0, false);
            r.advance(1);
            let s = r.sample(20 * MS, 0, 2);
            assert_eq!((s.delivered, s.prior_delivered), (Some(1), 0));
            assert_eq!(r.first_tx, 0);
            r.on_send(2, 20 * MS, 1, false);
            r.on_send(3, 21 * MS, 2, false);
            for seq in 1..4 {
                r.on_delivered(seq, false);
            }
            r.advance(4);
            let s = r.sample(40 * MS + 6 * MS / 10, 0, 3);
            let (interval, first_tx) =
                if newest_sent { (21e-3, 21 * MS) } else { (20.6e-3, 20 * MS) };
            assert_eq!((s.delivered, s.prior_delivered), (Some(3), 1), "newest_sent {newest_sent}");
            assert!((s.interval.unwrap() - interval).abs() < 1e-12, "newest_sent {newest_sent}");
            assert_eq!(r.first_tx, first_tx, "newest_sent {newest_sent}");
        }
    }

    /// Two packets sent in the same instant: under `tcp_skb_sent_after` the later in
    /// the order of sending gives the sample (here its application-limited mark).
    #[test]
    fn a_tie_of_send_times_goes_to_the_later_send() {
        for newest_sent in [false, true] {
            let mut r = RateSampler { newest_sent, ..Default::default() };
            r.on_send(0, 0, 0, false);
            r.on_delivered(0, false);
            r.advance(1);
            r.sample(20 * MS, 0, 1);
            r.on_send(1, 20 * MS, 0, false);
            r.check_app_limited(1);
            r.on_send(2, 20 * MS, 1, false);
            r.on_delivered(1, false);
            r.on_delivered(2, false);
            r.advance(3);
            let s = r.sample(40 * MS, 0, 2);
            assert_eq!(s.is_app_limited, newest_sent, "newest_sent {newest_sent}");
        }
    }
}
