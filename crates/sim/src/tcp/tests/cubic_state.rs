//! Unit tests of `Cubic`'s state (cubic.rs): segments and Linux growth, a timeout
//! under `cubic_timeout = "linux"`.

use super::*;

/// Segments growth rounds W_cubic towards W_max and looks one minimum RTT ahead (not
/// the smoothed RTT), as Linux and ns-3 3.37 do: after a loss at W_max = 7 (ssthresh
/// floor(4.9) = 4, K = cbrt(3 / C)) with a minimum RTT of 66 ms, the window reaches
/// w + 1 as soon as W_max - floor(C (K - t - 0.066)^3) exceeds w, i.e. at once for 5,
/// at t = K - 0.066 - cbrt((7 - w) / C) for 6 and 7 (where the RFC's W_cubic only
/// reaches 5 and 6), and at K - 0.066 + cbrt(1 / C) for 8, the ACKs counted meanwhile
/// paying for each increase on the next ACK.
#[test]
fn segments_growth_target_rounds_towards_w_max() {
    let p = CubicParams::default();
    let r =
        CubicRules { growth: CubicGrowth::Segments, reno_friendly: false, ..Default::default() };
    let mut c = Cubic::new(p, r);
    for r in [0.2, 0.066, 0.1] {
        c.note_rtt(r);
    }
    let ss = c.on_congestion(7.0);
    assert_eq!((ss, c.w_max), (4.0, 7.0));
    let (rtt, w_max) = (0.066, 7.0);
    let k = ((w_max - ss) / p.c).cbrt();
    let due = |w: f64| {
        if w < w_max {
            (k - rtt - ((w_max - w) / p.c).cbrt()).max(0.0)
        } else {
            k - rtt + ((w + 1.0 - w_max) / p.c).cbrt()
        }
    };
    let mut cwnd = ss;
    let mut reached = Vec::new();
    // an ACK every 10 ms for 3.7 s (at W_max, cnt = 100 cwnd = 700 is never paid)
    for i in 0..370 {
        let t = i as f64 * 0.01;
        // the smoothed RTT (0.5 s) is not the one segments growth looks ahead by
        let next = c.on_ack_n(t, cwnd, 0.5, 1);
        if next > cwnd {
            reached.push((next, t));
        }
        cwnd = next;
    }
    assert_eq!(reached.iter().map(|r| r.0).collect::<Vec<_>>(), vec![5.0, 6.0, 7.0, 8.0, 9.0]);
    // 4 -> 5 needs cnt = floor(4 / (5 - 4)) = 4 ACKs; later increases are paid for by
    // the ACKs counted while the target was not above the window
    assert!((reached[0].1 - 0.03).abs() < 1e-9, "5 at {}", reached[0].1);
    for &(w, t) in &reached[1..] {
        let d = due(w - 1.0);
        assert!(t >= d - 1e-9 && t <= d + 0.01 + 1e-9, "{w} at {t}, due at {d}");
    }
    // the RFC's W_cubic reaches 5 only at K - RTT - cbrt(2 / C) = 0.181 s
    assert!((due(5.0) - (k - rtt - (2.0 / p.c).cbrt())).abs() < 1e-12);
    assert!(reached[0].1 < 0.18 && reached[1].1 > 0.18);
}

/// Linux growth keeps `cnt` while cwnd stays what it was computed at (tcp_cubic.c's
/// `bictcp_update` returns while `(s32)(tcp_jiffies32 - ca->last_time) <= HZ / 32`,
/// `LINUX_CNT_HOLD` = 32 ms). After a loss at W_max = 30 (ssthresh 21, K =
/// cbrt(9 / C)) with a minimum RTT of 20 ms, the integer target is W_max -
/// floor(C (K - t - 0.02)^3): 22 at first (cnt = 21 / (22 - 21) = 21), 23 from the
/// first t at which the floor is 7 or less (cnt = floor(21 / 2) = 10). ACKs every
/// 1/1024 s at cwnd 21 acknowledging nothing new (so cwnd stays): segments growth
/// takes cnt 10 at that ACK; Linux growth computes only at the ACKs 33 ticks (32 ms
/// or more) after its last computation, 0, 33, 66, 99, ..., and takes it at the first
/// of them from that ACK on.
#[test]
fn linux_growth_keeps_cnt_for_hz_over_32() {
    let p = CubicParams::default();
    let k = (9.0 / p.c).cbrt();
    let target = |i: u32| 30.0 - (p.c * (k - f64::from(i) / 1024.0 - 0.02).powi(3)).floor();
    let due = (0..200).find(|&i| target(i) >= 23.0).unwrap();
    assert_eq!(target(0), 22.0);
    let computed_at = due.div_ceil(33) * 33; // the first multiple of 33 from `due` on
    for (growth, first) in [(CubicGrowth::Segments, due), (CubicGrowth::Linux, computed_at)] {
        let r = CubicRules { growth, reno_friendly: false, ..Default::default() };
        let mut c = Cubic::new(p, r);
        c.note_rtt(0.02);
        assert_eq!(c.on_congestion(30.0), 21.0);
        let mut cnts = Vec::new();
        for i in 0..200u32 {
            assert_eq!(c.on_ack_n(f64::from(i) / 1024.0, 21.0, 0.1, 0), 21.0);
            cnts.push(c.cnt);
        }
        let want: Vec<u32> = (0..200).map(|i| if i < first { 21 } else { 10 }).collect();
        assert_eq!(cnts, want, "{growth:?}: due at tick {due}");
    }
    assert!(computed_at > due, "{due}: the hold must show");
}

/// Linux growth counts as tcp_cong.c's `tcp_cong_avoid_ai(tp, w, acked)` does, worked
/// by hand: from 0, 25 packets at w = 10 give 2 (5 left); then 1 packet at w = 3: the
/// 5 gathered at the larger w give one and are dropped, and the 1 counted stays. A
/// reduction zeroes the count (`tcp_init_cwnd_reduction`: `tp->snd_cwnd_cnt = 0`);
/// segments growth (ns-3 3.37's `m_cWndCnt`) keeps it.
#[test]
fn linux_growth_counts_as_tcp_cong_avoid_ai() {
    let r = CubicRules { growth: CubicGrowth::Linux, ..Default::default() };
    let mut c = Cubic::new(CubicParams::default(), r);
    assert_eq!((c.cong_avoid_ai(10, 25), c.acked), (2, 5));
    assert_eq!((c.cong_avoid_ai(3, 1), c.acked), (1, 1));
    for growth in [CubicGrowth::Linux, CubicGrowth::Segments] {
        let r = CubicRules { growth, reno_friendly: false, ..Default::default() };
        let mut c = Cubic::new(CubicParams::default(), r);
        c.note_rtt(0.02);
        c.on_congestion(20.0); // W_max 20, ssthresh 14
        // a stage from cwnd = W_max (K = 0): for its first second the target W_max +
        // floor(C (t + 0.02)^3) is not above cwnd, cnt = 100 cwnd = 2000, and the
        // packets acknowledged gather without an increase
        c.on_ack_n(0.0, 20.0, 0.02, 0);
        for i in 0..30 {
            assert_eq!(c.on_ack_n(0.001 * f64::from(i), 20.0, 0.02, 2), 20.0);
        }
        assert_eq!(c.acked, 60);
        c.on_congestion(20.0);
        let kept = if growth == CubicGrowth::Linux { 0 } else { 60 };
        assert_eq!(c.acked, kept, "{growth:?}");
    }
}

/// `cubic_timeout = "linux"`: tcp_cubic.c's `bictcp_reset` zeroes `last_max_cwnd` and
/// `delay_min` after `cubictcp_recalc_ssthresh` took ssthresh = max(cwnd 717 / 1024,
/// 2) from cwnd (120: 84). With `last_max_cwnd` = 0 the next congestion event below
/// the old W_max (150) sets W_max to its window (fast convergence compares with 0:
/// `cwnd < last_max_cwnd` is false), where the RFC's timeout keeps W_max and fast
/// convergence takes 100 (1 + 0.7) / 2 = 85; and `cnt` is at most 20 until then
/// (`last_max_cwnd == 0 && cnt > 20`).
#[test]
fn linux_timeout_forgets_w_max_and_delay_min() {
    let segments = |timeout| CubicRules {
        growth: CubicGrowth::Linux,
        timeout,
        reno_friendly: false,
        ..Default::default()
    };
    let mut c = Cubic::new(CubicParams::default(), segments(CubicTimeout::Linux));
    c.note_rtt(0.05);
    c.on_congestion(150.0);
    assert_eq!(c.on_timeout(120.0, 120.0), f64::from(120 * 717 / 1024));
    assert_eq!((c.min_rtt, c.no_w_max), (0.0, true));
    // the next stage: K = 0 at its window, the target cwnd itself, cnt capped at 20
    assert_eq!(c.segments_cnt(1.0, 84.0, 1e-6, 1), 20);
    c.on_congestion(100.0);
    assert_eq!(c.w_max, 100.0);
    let mut r = Cubic::new(CubicParams::default(), segments(CubicTimeout::Rfc));
    r.note_rtt(0.05);
    r.on_congestion(150.0);
    r.on_timeout(120.0, 120.0);
    assert_eq!(r.min_rtt, 0.05);
    r.on_congestion(100.0);
    assert_eq!(r.w_max, 85.0);
}
