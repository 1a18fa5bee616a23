//! Which segments give RTT samples (`rtt_sampling`).
//!
//! By default the sender times one segment per round trip, as ns-2 does (RFC 6298
//! Section 3 asks for at least one sample per RTT). `rtt_sampling = "ack"` samples on
//! every ACK of new data, as ns-3 3.37 does without timestamps (its `RttHistory`): the
//! sender keeps the send time of every segment it sends for the first time
//! ([`SendTimes`], stamped where every segment leaves; LEDBAT's delay samples read the
//! same record), and an ACK
//! that covers the oldest segment still recorded gives that segment's round trip,
//! unless it was retransmitted (Karn's rule); a timeout forgets the record, so that the
//! segments resent after it give none. Both feed the same estimator (RFC 6298 Section
//! 2, gains 1/8 and 1/4), so that sampling on every ACK moves srtt and rttvar every
//! packet rather than every round trip; with `"ack"` the estimator also works as
//! ns-3's `RttMeanDeviation` does: samples at full resolution (ns-2 rounds them to
//! ticks) and an RTO of srtt + max(tick, 4 rttvar) not rounded up to the tick.

use std::collections::VecDeque;

use aqm::Time;
use serde::Serialize;

/// Which ACKs give RTT samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// One timed segment per round trip (ns-2's `rtt_seq_`).
    #[default]
    Segment,
    /// Every ACK that covers a segment sent once (ns-3 3.37's `SendTimes`).
    Ack,
}

/// First send times of the segments `first..first + sent.len()`, each with whether it
/// was retransmitted since.
#[derive(Clone, Debug, Default)]
pub struct SendTimes {
    sent: VecDeque<(Time, bool)>,
    first: u32,
}

impl SendTimes {
    /// Segment `seq` leaves at `now`; `retx` if it was sent before.
    #[inline]
    pub fn on_send(&mut self, seq: u32, retx: bool, now: Time) {
        if seq < self.first {
            return;
        }
        let i = (seq - self.first) as usize;
        if let Some(e) = self.sent.get_mut(i) {
            e.1 |= retx;
        } else if !retx {
            // (a first send is always the next new segment; a gap would be data the
            // record was told to forget)
            while self.sent.len() < i {
                self.sent.push_back((now, true));
            }
            self.sent.push_back((now, false));
        }
    }

    /// When segment `seq` was first sent, if it is still recorded.
    #[inline]
    pub fn sent_at(&self, seq: u32) -> Option<Time> {
        let i = seq.checked_sub(self.first)? as usize;
        self.sent.get(i).map(|e| e.0)
    }

    /// Segments recorded (not yet acknowledged).
    pub fn len(&self) -> usize {
        self.sent.len()
    }

    /// Nothing recorded.
    pub fn is_empty(&self) -> bool {
        self.sent.is_empty()
    }

    /// An ACK for everything below `ack` arrived at `now`: the round trip of the oldest
    /// recorded segment it covers, if that one was sent only once. The covered
    /// segments leave the record.
    #[inline]
    pub fn on_ack(&mut self, ack: u32, now: Time) -> Option<f64> {
        if ack <= self.first {
            return None;
        }
        let sample = match self.sent.front() {
            Some(&(t, false)) => Some((now - t).as_secs_f64()),
            _ => None,
        };
        let n = ((ack - self.first) as usize).min(self.sent.len());
        self.sent.drain(..n);
        self.first = ack;
        sample
    }

    /// A timeout: forget every segment sent so far (`snd_max` is the next new one).
    pub fn forget(&mut self, snd_max: u32) {
        self.sent.clear();
        self.first = snd_max;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> Time {
        Time(t * 1_000_000)
    }

    /// The round trip of a segment sent at `sent` ms and acknowledged at `acked` ms.
    fn rtt(acked: u64, sent: u64) -> Option<f64> {
        Some((ms(acked) - ms(sent)).as_secs_f64())
    }

    /// Each ACK gives the round trip of the oldest segment it covers; a retransmitted
    /// segment gives none; after `forget`, only segments sent for the first time later.
    #[test]
    fn samples_of_the_oldest_covered_segment() {
        let mut h = SendTimes::default();
        for (seq, t) in [(0, 0), (1, 10), (2, 20), (3, 30)] {
            h.on_send(seq, false, ms(t));
        }
        assert_eq!(h.on_ack(1, ms(100)), rtt(100, 0));
        assert_eq!(h.on_ack(3, ms(125)), rtt(125, 10), "segment 1, sent at 10 ms");
        h.on_send(3, true, ms(130));
        assert_eq!(h.on_ack(4, ms(200)), None, "segment 3 was resent (Karn)");
        assert_eq!(h.on_ack(4, ms(210)), None, "no new data acknowledged");
        h.on_send(4, false, ms(220));
        h.on_send(5, false, ms(230));
        h.forget(6);
        h.on_send(4, true, ms(300));
        assert_eq!(h.on_ack(6, ms(400)), None, "sent before the timeout");
        h.on_send(6, false, ms(410));
        assert_eq!(h.on_ack(7, ms(500)), rtt(500, 410));
    }
}
