//! Pacing as Linux's internal pacing does it (`tcp_output.c`): every data packet gets
//! an earliest departure time, and the sender sends nothing while the next one lies in
//! the future; the simulator wakes it then (a `Pace` event).
//!
//! - **The departure times** (`tcp_update_skb_after_send`): a packet sent at `now`
//!   moves the next departure time `tcp_wstamp_ns` to `max(tcp_wstamp_ns, now)` plus
//!   the packet's time at the pacing rate, `len_ns = 1e9 / rate` (rate in packets per
//!   second here, so every packet counts the same), less a credit of at most
//!   `len_ns / 2` for the time the sender sat idle past its departure time (Linux's
//!   allowance for OS jitter). The first 9 data packets of the connection are not
//!   paced (`data_segs_out >= 10`, sch_fq's initial quantum), nor is any packet while
//!   the rate is unknown.
//! - **The check** (`tcp_pacing_check`): the send loops stop while `tcp_wstamp_ns >
//!   now`. A packet that the sender emits outside those loops (a fast retransmission,
//!   a tail loss probe, the retransmission at a timeout) goes at once, as Linux's
//!   direct retransmissions do, and still moves the departure time.
//! - **The release** (Linux's pacing timer): while the sender waits for a departure
//!   time with something to send, that time is one of its timers: the deadline the
//!   simulator sees (`rtx_deadline`) is the earliest of it and the retransmission
//!   timer (or RACK-TLP's timers), and the simulator's timer event for the flow
//!   releases the next packet (`on_timeout`), as RACK-TLP's timers share it.
//! - **The rate**: BBR sets it (`bbr_set_pacing_rate`); any other variant with
//!   `pacing = true` takes `tcp_update_pacing_rate`'s after each ACK: `ratio * max(cwnd,
//!   packets_out) / srtt` with `ratio` = `pacing_ss_ratio` (200%) while `cwnd <
//!   ssthresh / 2` and `pacing_ca_ratio` (120%) otherwise; no rate (no pacing) before
//!   the first RTT sample, where Linux's division by `srtt_us` is skipped.
//!
//! Linux sends segments of up to 64 KB (TSO) and paces the segment; the simulator has
//! no segmentation offload and paces each packet.

use serde::Serialize;

/// The keys of a paced flow.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PacingParams {
    /// The pacing rate's multiple of `cwnd / srtt` in slow start (`cwnd < ssthresh /
    /// 2`), as a fraction (`net.ipv4.tcp_pacing_ss_ratio`, 200 %).
    pub ss_ratio: f64,
    /// The same in congestion avoidance (`net.ipv4.tcp_pacing_ca_ratio`, 120 %).
    pub ca_ratio: f64,
}

impl Default for PacingParams {
    fn default() -> Self {
        PacingParams { ss_ratio: 2.0, ca_ratio: 1.2 }
    }
}

/// The pacing state of a sender.
#[derive(Clone, Debug, Default)]
pub struct Pacing {
    pub p: PacingParams,
    /// The pacing rate, packets per second; 0 = none (not paced).
    pub rate: f64,
    /// The earliest departure time of the next packet, ns (`tcp_wstamp_ns`).
    pub next_at: u64,
    /// Data packets sent, retransmissions included (`data_segs_out`).
    pub segs_out: u64,
    /// Inside a call of the sender, `rtx_deadline` is its timers' (see `paced`);
    /// between calls those are kept here.
    pub(super) inside: bool,
    pub(super) timers_at: Option<aqm::Time>,
}

/// The packets Linux sends before it paces (`tcp_update_skb_after_send`).
const UNPACED: u64 = 10;

impl Pacing {
    pub fn new(p: PacingParams) -> Pacing {
        Pacing { p, ..Default::default() }
    }

    /// Must the send loops wait (`tcp_pacing_check`)?
    #[inline]
    pub fn blocked(&self, now: u64) -> bool {
        self.next_at > now
    }

    /// A data packet leaves at `now` (ns): the next departure time.
    pub fn on_send(&mut self, now: u64) {
        let prior = self.next_at;
        self.next_at = self.next_at.max(now);
        self.segs_out += 1;
        if self.rate > 0.0 && self.segs_out >= UNPACED {
            // len_ns = len * NSEC_PER_SEC / rate, rounded down; the idle credit
            let len = (1e9 / self.rate) as u64;
            let credit = self.next_at - prior;
            self.next_at += len - (len / 2).min(credit);
        }
    }

    /// `tcp_update_pacing_rate` for a window of `cwnd` packets, `ssthresh`,
    /// `packets_out` outstanding and a smoothed RTT `srtt` (s; 0 before a sample).
    pub fn set_from_window(&mut self, cwnd: f64, ssthresh: f64, packets_out: u32, srtt: f64) {
        if srtt <= 0.0 {
            self.rate = 0.0;
            return;
        }
        let cwnd = cwnd.floor();
        let ratio = if cwnd < (ssthresh / 2.0).floor() { self.p.ss_ratio } else { self.p.ca_ratio };
        self.rate = ratio * cwnd.max(f64::from(packets_out)) / srtt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At 1000 packets/s a packet takes 1 ms: once 10 have gone, back-to-back sends
    /// are 1 ms apart; after an idle gap the next departure time is credited with at
    /// most half a packet's time.
    #[test]
    fn departure_times_follow_the_rate_after_ten_packets() {
        let mut p = Pacing::new(PacingParams::default());
        p.rate = 1000.0;
        for _ in 0..9 {
            p.on_send(0);
            assert!(!p.blocked(0), "the first 9 packets are not paced");
        }
        p.on_send(0);
        assert_eq!(p.next_at, 1_000_000);
        assert!(p.blocked(999_999) && !p.blocked(1_000_000));
        p.on_send(1_000_000);
        assert_eq!(p.next_at, 2_000_000);
        // idle for 5 ms past the departure time: credit min(0.5 ms, 5 ms)
        p.on_send(7_000_000);
        assert_eq!(p.next_at, 7_500_000);
        // idle for 0.2 ms: credit 0.2 ms
        p.on_send(7_700_000);
        assert_eq!(p.next_at, 8_500_000);
    }

    /// tcp_update_pacing_rate: 200% of cwnd / srtt below half of ssthresh, 120% above;
    /// the packets outstanding if more than the window; no rate without an RTT.
    #[test]
    fn window_rate_takes_linux_ratios() {
        let mut p = Pacing::new(PacingParams::default());
        p.set_from_window(10.0, 100.0, 4, 0.1);
        assert!((p.rate - 2.0 * 10.0 / 0.1).abs() < 1e-9);
        p.set_from_window(50.0, 100.0, 60, 0.1);
        assert!((p.rate - 1.2 * 60.0 / 0.1).abs() < 1e-9);
        p.set_from_window(50.0, 100.0, 60, 0.0);
        assert_eq!(p.rate, 0.0);
    }
}
