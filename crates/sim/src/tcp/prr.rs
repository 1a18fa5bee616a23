//! Proportional Rate Reduction (RFC 6937) for SACK's loss recovery, in packets.
//!
//! During recovery the window is set on every ACK to what is in flight (RFC 6675's
//! pipe) plus `sndcnt`, the packets the ACK lets the sender send: while pipe is above
//! ssthresh, a share of what the receiver got since recovery began, `ceil(prr_delivered
//! ssthresh / RecoverFS) - prr_out`, so that the sending rate falls smoothly to
//! ssthresh / RecoverFS of the rate at which data is delivered; once pipe is at or
//! below ssthresh, the slow-start reduction bound (PRR-SSRB, the RFC's recommended
//! bound): at most `max(prr_delivered - prr_out, DeliveredData) + 1` and no more than
//! ssthresh - pipe. `DeliveredData` is the change in snd_una plus the change in the
//! packets SACKed; `RecoverFS` the flight size when recovery began. As Linux's
//! `tcp_cwnd_reduction` does, the ACK that starts recovery sends at least the fast
//! retransmission (`sndcnt >= 1` while nothing was sent). Recovery ends with cwnd =
//! ssthresh.

/// PRR's state for one recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prr {
    /// prr_delivered: packets the receiver got since recovery began.
    pub delivered: u64,
    /// prr_out: packets sent since recovery began.
    pub out: u64,
    /// RecoverFS: the flight size when recovery began, packets.
    pub recover_fs: u64,
}

impl Prr {
    /// Recovery begins with `flight` packets outstanding.
    pub fn start(flight: u32) -> Prr {
        Prr { delivered: 0, out: 0, recover_fs: u64::from(flight.max(1)) }
    }

    /// An ACK during recovery that delivered `delivered` packets, with `pipe` packets
    /// in flight and `ssthresh`: the packets it lets the sender send (RFC 6937
    /// Section 3, PRR-SSRB).
    pub fn sndcnt(&mut self, delivered: u32, pipe: u32, ssthresh: f64) -> u32 {
        self.delivered += u64::from(delivered);
        let (prr_d, prr_o) = (self.delivered as f64, self.out as f64);
        let pipe = f64::from(pipe);
        let n = if pipe > ssthresh {
            (prr_d * ssthresh / self.recover_fs as f64).ceil() - prr_o
        } else {
            let limit = (prr_d - prr_o).max(f64::from(delivered)) + 1.0;
            (ssthresh - pipe).min(limit)
        };
        let n = n.max(if self.out == 0 { 1.0 } else { 0.0 });
        n.max(0.0) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 Section 5's first example: 20 packets outstanding, one lost, ssthresh 10
    /// (a Reno-style halving): each of the 19 duplicate ACKs delivers one packet; while
    /// pipe is above ssthresh PRR sends one packet for every two delivered, so that
    /// after the recovery pipe is ssthresh and the sender sent half as much as was
    /// delivered.
    #[test]
    fn one_loss_sends_one_packet_per_two_delivered() {
        let mut p = Prr::start(20);
        let (ssthresh, mut pipe) = (10.0, 19u32);
        let mut sent = Vec::new();
        for _ in 0..19 {
            // each duplicate ACK takes a packet out of the network
            pipe -= 1;
            let n = p.sndcnt(1, pipe, ssthresh);
            p.out += u64::from(n);
            pipe += n;
            sent.push(n);
        }
        // the first ACK sends the fast retransmission; while pipe is above ssthresh (the
        // first 16 ACKs) the packets sent after k ACKs are ceil(k ssthresh / RecoverFS)
        let mut out = 0;
        for (k, n) in sent.iter().enumerate().take(16) {
            out += n;
            assert_eq!(out, (k as u32 + 1).div_ceil(2), "after ACK {}", k + 1);
        }
        assert!(sent.iter().all(|&n| n <= 1));
        assert_eq!((p.out, pipe), (10, 10), "half of the 20 in flight, pipe = ssthresh");
    }

    /// Below ssthresh (heavy losses: pipe 4 with ssthresh 10), the slow-start bound
    /// lets an ACK that delivered 2 packets send at most prr_delivered - prr_out + 1 or
    /// DeliveredData + 1, here 3, never past ssthresh.
    #[test]
    fn reduction_bound_below_ssthresh() {
        let mut p = Prr { delivered: 6, out: 6, recover_fs: 20 };
        assert_eq!(p.sndcnt(2, 4, 10.0), 3);
        let mut p = Prr { delivered: 6, out: 0, recover_fs: 20 };
        assert_eq!(p.sndcnt(2, 4, 10.0), 6, "capped at ssthresh - pipe");
    }
}
