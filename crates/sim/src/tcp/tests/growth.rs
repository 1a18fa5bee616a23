//! `reno_growth = "segments"`: the Reno family's window grows as Linux's
//! `tcp_reno_cong_avoid` (tcp_cong.c) has it, checked ACK by ACK against a transcription
//! of that code.

use super::*;

/// tcp_cong.c, in whole packets: `tcp_slow_start` then `tcp_cong_avoid_ai(tp, cwnd,
/// acked)`.
struct Linux {
    cwnd: u32,
    ssthresh: u32,
    cnt: u32,
}

impl Linux {
    fn reno_cong_avoid(&mut self, mut acked: u32) {
        if self.cwnd < self.ssthresh {
            // tcp_slow_start
            let cwnd = (self.cwnd + acked).min(self.ssthresh);
            acked -= cwnd - self.cwnd;
            self.cwnd = cwnd;
            if acked == 0 {
                return;
            }
        }
        // tcp_cong_avoid_ai(tp, tcp_snd_cwnd(tp), acked)
        let w = self.cwnd;
        if self.cnt >= w {
            self.cnt = 0;
            self.cwnd += 1;
        }
        self.cnt += acked;
        if self.cnt >= w {
            let delta = self.cnt / w;
            self.cnt -= delta * w;
            self.cwnd += delta;
        }
    }
}

fn ack(a: u32) -> Pkt {
    Pkt { seq: a, flags: flags::ACK, ..Pkt::default() }
}

/// A NewReno sender (SACK or not) with `growth`, first window 10, ssthresh 14.
fn sender(growth: RenoGrowth, sack: bool) -> TcpSender {
    let mut p = ruled(params(Variant::NewReno), |r| r.reno_growth = growth);
    (p.init_cwnd, p.ssthresh, p.sack) = (10.0, 14.0, sack);
    let mut s = connection(p, 0, 0, 1).0;
    let mut out = Vec::new();
    s.start(ms(0), &mut out, u32::MAX);
    s
}

/// ACKs covering 2 packets (delayed ACKs), and now and then 3 or 1 (a stretch ACK, an
/// ACK of an odd packet): after each the window is the kernel's, through slow start
/// (10 to 14, the rest of the crossing ACK counted) and 300 ACKs of congestion
/// avoidance.
#[test]
fn segments_growth_is_tcp_reno_cong_avoid() {
    for sack in [false, true] {
        let mut s = sender(RenoGrowth::Segments, sack);
        let mut k = Linux { cwnd: 10, ssthresh: 14, cnt: 0 };
        let mut una = 0;
        for i in 0..300u32 {
            let acked = [2, 2, 3, 2, 1, 2][(i % 6) as usize];
            una += acked;
            let mut out = Vec::new();
            s.on_ack(ms(10 + u64::from(i)), &ack(una), &mut out, u32::MAX);
            k.reno_cong_avoid(acked);
            assert_eq!((s.cwnd, s.cwnd_cnt), (f64::from(k.cwnd), k.cnt), "ACK {i}, sack {sack}");
        }
        assert!(k.cwnd > 30, "{}", k.cwnd);
    }
}

/// With an ACK per two packets, congestion avoidance adds one packet per window of
/// packets acknowledged under `segments` (Linux), half of one under RFC 5681's 1/cwnd
/// per ACK (eq. 3): from 14, after 20 windows' worth of ACKs, 34 against about 24.
#[test]
fn delayed_acks_halve_rfc_growth_but_not_linuxs() {
    for (growth, lo, hi) in [(RenoGrowth::Segments, 34.0, 34.0), (RenoGrowth::Rfc, 23.5, 24.5)] {
        let mut s = sender(growth, true);
        let mut una = 0;
        // slow start to 14 (4 ACKs of 1 packet under both rules)
        for _ in 0..4 {
            una += 1;
            s.on_ack(ms(5), &ack(una), &mut Vec::new(), u32::MAX);
        }
        assert_eq!(s.cwnd, 14.0, "{growth:?}");
        for _ in 0..20 {
            // one window's worth of packets acknowledged, two per ACK
            let w = s.cwnd.floor() as u32;
            let end = una + w;
            while una < end {
                una = (una + 2).min(end);
                s.on_ack(ms(10), &ack(una), &mut Vec::new(), u32::MAX);
            }
        }
        assert!(lo <= s.cwnd && s.cwnd <= hi, "{growth:?}: {}", s.cwnd);
    }
}

/// A reduction zeroes the counter (tcp_init_cwnd_reduction, tcp_enter_loss).
#[test]
fn a_reduction_zeroes_the_counter() {
    let mut s = sender(RenoGrowth::Segments, true);
    let mut out = Vec::new();
    for a in [4, 8, 11] {
        s.on_ack(ms(10), &ack(a), &mut out, u32::MAX);
    }
    // 10 + 4 in slow start, then 4 + 3 counted
    assert_eq!((s.cwnd, s.cwnd_cnt), (14.0, 7));
    s.halve();
    assert_eq!((s.ssthresh, s.cwnd_cnt), (7.0, 0));
}
