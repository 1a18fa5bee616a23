//! RED against the properties Floyd & Jacobson (1993) state.

use crate::common::*;
use aqm::{
    Backlog, CountMode, DropReason, IdleRule, MarkMethod, PacketInfo, Queue, Red, Time, Verdict,
};

const N_MARKS: usize = 20_000;

// Method 2: inter-mark gaps at constant avg are uniform on {1, ..., 1/p_b} with mean 1/(2 p_b) + 1/2.
#[test]
fn method2_gaps_uniform_on_1_to_inv_pb() {
    // min_th 5, max_th 15, max_p 0.1, q = 10 -> p_b = 0.05, 1/p_b = 20
    let pb = 0.1 * (10.0 - 5.0) / (15.0 - 5.0);
    let k = (1.0_f64 / pb).round() as usize;
    let mut red = Red::new(params(5.0, 15.0, 0.1), 7).unwrap();
    let g = gaps(&mut red, 10, N_MARKS);
    assert!(g.iter().all(|&x| x >= 1 && x as usize <= k), "gap outside 1..=1/p_b");
    let mut counts = vec![0.0; k];
    for &x in &g {
        counts[x as usize - 1] += 1.0;
    }
    let expected = vec![N_MARKS as f64 / k as f64; k];
    let p = chi_square_p(&counts, &expected);
    assert!(p > 0.001, "chi-square p = {p}");
    let want = 1.0 / (2.0 * pb) + 0.5;
    let se = ((k * k - 1) as f64 / 12.0).sqrt() / (N_MARKS as f64).sqrt();
    assert!((mean(&g) - want).abs() < 4.0 * se, "mean {} vs {}", mean(&g), want);
}

// Fig. 2 read literally (count incremented before p_a, reset to 0): gaps uniform on {1, ..., 1/p_b - 1}.
#[test]
fn figure2_count_reading_gaps_uniform_on_1_to_inv_pb_minus_1() {
    let mut p = params(5.0, 15.0, 0.1);
    p.count_mode = CountMode::Figure2;
    let k = 19usize; // 1/p_b - 1 with p_b = 0.05
    let mut red = Red::new(p, 8).unwrap();
    let g = gaps(&mut red, 10, N_MARKS);
    assert!(g.iter().all(|&x| x >= 1 && x as usize <= k));
    let mut counts = vec![0.0; k];
    for &x in &g {
        counts[x as usize - 1] += 1.0;
    }
    let p = chi_square_p(&counts, &vec![N_MARKS as f64 / k as f64; k]);
    assert!(p > 0.001, "chi-square p = {p}");
    assert!((mean(&g) - 1.0 / (2.0 * 0.05)).abs() < 0.15);
}

// Method 1: gaps geometric with parameter p_b, mean 1/p_b.
#[test]
fn method1_gaps_geometric_mean_inv_pb() {
    let mut p = params(5.0, 15.0, 0.1);
    p.mark_method = MarkMethod::Geometric;
    let pb: f64 = 0.05;
    let mut red = Red::new(p, 9).unwrap();
    let g = gaps(&mut red, 10, N_MARKS);
    // bins 1..=60 and a tail bin
    let bins = 60usize;
    let mut counts = vec![0.0; bins + 1];
    for &x in &g {
        counts[(x as usize - 1).min(bins)] += 1.0;
    }
    let mut expected: Vec<f64> =
        (1..=bins).map(|n| N_MARKS as f64 * (1.0 - pb).powi(n as i32 - 1) * pb).collect();
    expected.push(N_MARKS as f64 * (1.0 - pb).powi(bins as i32));
    let pv = chi_square_p(&counts, &expected);
    assert!(pv > 0.001, "chi-square p = {pv}");
    let se = ((1.0 - pb) / (pb * pb)).sqrt() / (N_MARKS as f64).sqrt();
    assert!((mean(&g) - 1.0 / pb).abs() < 4.0 * se, "mean {}", mean(&g));
    // Method 1 is more clustered: its gap variance is far above Method 2's.
    let var = g.iter().map(|&x| (x as f64 - mean(&g)).powi(2)).sum::<f64>() / g.len() as f64;
    assert!(var > 2.0 * (20.0 * 20.0 - 1.0) / 12.0);
}

// Fig. 17's efficient variant (one random number per mark) gives the same uniform gaps as Method 2.
#[test]
fn fig17_efficient_gaps_uniform() {
    let mut p = params(5.0, 15.0, 0.1);
    p.efficient = true;
    let k = 20usize;
    let mut red = Red::new(p, 10).unwrap();
    let g = gaps(&mut red, 10, N_MARKS);
    assert!(g.iter().all(|&x| x >= 1 && x as usize <= k));
    let mut counts = vec![0.0; k];
    for &x in &g {
        counts[x as usize - 1] += 1.0;
    }
    let pv = chi_square_p(&counts, &vec![N_MARKS as f64 / k as f64; k]);
    assert!(pv > 0.001, "chi-square p = {pv}");
}

// ns-2's wait option (count as in Fig. 2): gaps uniform on {1/p_b, ..., 2/p_b - 1}.
#[test]
fn ns2_wait_gaps_between_inv_pb_and_twice() {
    let mut p = params(5.0, 15.0, 0.1);
    p.mark_method = MarkMethod::Ns2Wait;
    p.count_mode = CountMode::Figure2;
    let mut red = Red::new(p, 11).unwrap();
    let g = gaps(&mut red, 10, N_MARKS);
    assert!(g.iter().all(|&x| (20..=39).contains(&x)), "{:?}", g.iter().min());
    let mut counts = vec![0.0; 20];
    for &x in &g {
        counts[x as usize - 20] += 1.0;
    }
    let pv = chi_square_p(&counts, &[N_MARKS as f64 / 20.0; 20]);
    assert!(pv > 0.001, "chi-square p = {pv}");
}

// Eq. (2): the average after a burst growing the queue from 0 to L over L arrivals; 4.88 for w_q = 0.001, L = 100.
#[test]
fn burst_average_matches_eq2() {
    for &(w, l) in &[(0.001, 100u32), (0.002, 50), (0.005, 10)] {
        let mut p = params(1000.0, 2000.0, 0.1);
        p.w_q = w;
        let mut red = Red::new(p, 1).unwrap();
        // The i-th arrival of the burst sees a queue of i packets (Section VI-A's setting).
        for i in 1..=l {
            red.on_arrival(Time(i as u64), &pkt(1000), backlog(i));
        }
        assert!(
            (red.core.avg - eq2(w, l)).abs() < 1e-9,
            "w {w} L {l}: {} vs {}",
            red.core.avg,
            eq2(w, l)
        );
    }
    // The paper prints 4.88: eq. (2) gives 4.8874, which the paper truncates (rounding gives 4.89).
    assert_eq!((eq2(0.001, 100) * 100.0).floor() / 100.0, 4.88);
}

// Through a Queue, a burst of L + 1 back-to-back packets into an empty buffer leaves avg = eq. (2) for L
// (the (L+1)-th arrival sees L packets waiting).
#[test]
fn queue_burst_average_matches_eq2() {
    let mut p = params(1000.0, 2000.0, 0.1);
    p.w_q = 0.001;
    let mut q: Queue<PacketInfo, Red> = Queue::new(Red::new(p, 1).unwrap());
    for _ in 0..=100 {
        q.enqueue(Time(5), pkt(1000), |_, _| panic!("no drop expected"));
    }
    assert!((q.discipline().core.avg - eq2(0.001, 100)).abs() < 1e-9);
}

// Idle-time aging: an arrival to an empty queue multiplies avg by (1 - w_q)^m, m = idle / s.
#[test]
fn idle_time_aging() {
    let mut p = params(1000.0, 2000.0, 0.1);
    p.w_q = 0.01;
    p.idle_pkt_time = 0.001; // s = 1 ms
    let mut red = Red::new(p, 1).unwrap();
    for i in 0..200 {
        red.on_arrival(Time(i), &pkt(1000), backlog(30));
    }
    let before = red.core.avg;
    // the queue empties at t = 1 s, next arrival at t = 1.25 s: m = 250
    red.on_removed(Time::from_secs_f64(1.0), &pkt(1000), true, Backlog::default());
    red.on_arrival(Time::from_secs_f64(1.25), &pkt(1000), Backlog::default());
    let want = before * (1.0f64 - 0.01).powf(250.0);
    assert!((red.core.avg - want).abs() < 1e-9 * before, "{} vs {}", red.core.avg, want);
    // Linux decays by (1-W)^(m ln 2): that would be far off.
    assert!((red.core.avg - before * (0.99f64).powf(250.0 * std::f64::consts::LN_2)).abs() > 0.01);
    // A second arrival to the still-empty queue ages only for the time since the first.
    let a1 = red.core.avg;
    red.on_arrival(Time::from_secs_f64(1.26), &pkt(1000), Backlog::default());
    let want2 = a1 * (0.99f64).powf(10.0);
    assert!((red.core.avg - want2).abs() < 1e-9 * before.max(1.0));
}

// ns-2 2.35's red.cc (`idle_rule = "ns2"`): the queue is idle only once the link has sent its last
// packet (Queue::resume finds it empty and deque() sets idletime_); an arrival then runs
// estimator(q, m + 1): m = int(ptc * idle) steps of (1 - w_q), then one EWMA step with q = 0. An
// arrival while the last packet is still on the wire (idle_ = 0) takes the EWMA step alone.
#[test]
fn ns2_idle_rule() {
    let w: f64 = 0.01;
    let fresh = || {
        let mut p = params(1000.0, 2000.0, 0.1);
        p.w_q = w;
        p.idle_pkt_time = 0.001; // s = 1 ms per mean_pkt_size (500) bytes: ptc = 1000 / s
        p.idle_rule = IdleRule::Ns2;
        let mut red = Red::new(p, 1).unwrap();
        for i in 0..200 {
            red.on_arrival(Time(i), &pkt(1000), backlog(30));
        }
        red
    };
    let t = Time::from_secs_f64;
    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9 * b, "{a} vs {b}");
    // A 1000-byte packet leaves for the link at 1 s: 2 ms on the wire, idle from 1.002 s.
    let mut red = fresh();
    let before = red.core.avg;
    red.on_removed(t(1.0), &pkt(1000), true, Backlog::default());
    red.on_arrival(t(1.0015), &pkt(1000), Backlog::default());
    close(red.core.avg, before * (1.0 - w));
    let mut red = fresh();
    red.on_removed(t(1.0), &pkt(1000), true, Backlog::default());
    // 1.2525 s: idle 0.2505 s, ptc * idle = 250.5, m = 250; m + 1 = 251 factors in all
    red.on_arrival(t(1.2525), &pkt(1000), Backlog::default());
    close(red.core.avg, before * (1.0 - w).powi(251));
    // (Fig. 2's rule, idle from 1 s and m = 252.5 real-valued, is 1.5% lower)
    assert!(red.core.avg / (before * (1.0 - w).powf(252.5)) > 1.014);
    // The arrival ended the idle period: the next one to the still-empty queue steps once.
    let a1 = red.core.avg;
    red.on_arrival(t(1.26), &pkt(1000), Backlog::default());
    close(red.core.avg, a1 * (1.0 - w));
    // A packet removed without being sent (dropped from the queue) at 2 s, 1 ms after a
    // 1000-byte departure: the link is busy until 2.001 s, the idle period starts then.
    let mut red = fresh();
    red.on_removed(t(1.999), &pkt(1000), true, backlog(1));
    red.on_removed(t(2.0), &pkt(1000), false, Backlog::default());
    red.on_arrival(t(2.0515), &pkt(1000), Backlog::default()); // m = int(50.5) = 50
    close(red.core.avg, before * (1.0 - w).powi(51));
}

fn drop_rate(mut red: Red, q: u32, size: u32, n: usize) -> f64 {
    let mut drops = 0;
    for i in 0..n {
        if let Verdict::Drop(_) = red.on_arrival(Time(i as u64), &pkt(size), backlog(q)) {
            drops += 1;
        }
    }
    drops as f64 / n as f64
}

// Gentle mode: p_b goes from max_p at max_th to 1 at 2 max_th; beyond, every packet is dropped.
#[test]
fn gentle_probabilities() {
    let n = 40_000;
    for &q in &[20u32, 25, 29] {
        let mut p = params(5.0, 15.0, 0.1);
        p.gentle = true;
        p.mark_method = MarkMethod::Geometric;
        let want = 0.1 + 0.9 * (q as f64 - 15.0) / 15.0;
        let got = drop_rate(Red::new(p, q as u64).unwrap(), q, 1000, n);
        let se = (want * (1.0 - want) / n as f64).sqrt();
        assert!((got - want).abs() < 5.0 * se, "q {q}: {got} vs {want}");
    }
    let mut p = params(5.0, 15.0, 0.1);
    p.gentle = true;
    let mut red = Red::new(p.clone(), 1).unwrap();
    assert_eq!(red.on_arrival(Time(1), &pkt(1000), backlog(31)), Verdict::Drop(DropReason::Forced));
    // without gentle, above max_th is forced
    p.gentle = false;
    let mut red = Red::new(p, 1).unwrap();
    assert_eq!(red.on_arrival(Time(1), &pkt(1000), backlog(16)), Verdict::Drop(DropReason::Forced));
}

// Byte mode: p_b is scaled by size / max_pkt_size.
#[test]
fn byte_mode_scales_by_size() {
    let n = 60_000;
    for &size in &[1500u32, 500, 40] {
        let mut p = params(5.0, 15.0, 0.1);
        p.byte_mode = true;
        p.mark_method = MarkMethod::Geometric;
        let want = 0.05 * size as f64 / 1500.0;
        let got = drop_rate(Red::new(p, size as u64).unwrap(), 10, size, n);
        let se = (want * (1.0 - want) / n as f64).sqrt();
        assert!((got - want).abs() < 5.0 * se, "size {size}: {got} vs {want}");
    }
}

// ECN: early decisions mark ECN-capable packets; forced decisions and overflow still drop.
#[test]
fn ecn_marks_only_where_allowed() {
    let mut p = params(5.0, 15.0, 0.5);
    p.ecn = true;
    p.limit = aqm::Limit { packets: Some(40), bytes: None };
    let mut red = Red::new(p.clone(), 3).unwrap();
    let ect = PacketInfo { size: 1000, flow: 1, ecn_capable: true, ect1: false, ce: false };
    let not_ect = PacketInfo { size: 1000, flow: 2, ecn_capable: false, ect1: false, ce: false };
    let (mut marks, mut early) = (0, 0);
    for i in 0..5000 {
        match red.on_arrival(Time(i), &ect, backlog(12)) {
            Verdict::Mark => marks += 1,
            Verdict::Drop(_) => panic!("ECN-capable packet dropped in the ramp"),
            _ => {}
        }
        if let Verdict::Drop(DropReason::Early) = red.on_arrival(Time(i), &not_ect, backlog(12)) {
            early += 1;
        }
    }
    assert!(marks > 100 && early > 100);
    // above max_th (non-gentle): forced drop even when ECN-capable
    assert_eq!(red.on_arrival(Time(9000), &ect, backlog(20)), Verdict::Drop(DropReason::Forced));
    // buffer full: overflow drop even when ECN-capable and avg below min_th
    let mut p2 = p.clone();
    p2.min_th = 100.0;
    p2.max_th = 200.0;
    let mut red = Red::new(p2, 3).unwrap();
    assert_eq!(red.on_arrival(Time(1), &ect, backlog(40)), Verdict::Drop(DropReason::Overflow));
    // ecn off: ECN-capable packets are dropped, never marked
    p.ecn = false;
    let mut red = Red::new(p, 3).unwrap();
    for i in 0..2000 {
        assert_ne!(red.on_arrival(Time(i), &ect, backlog(12)), Verdict::Mark);
    }
}

// The physical limit is enforced even while avg is below min_th; forced drops compare avg with max_th, not with the limit.
#[test]
fn physical_limit_always_enforced() {
    let mut p = params(50.0, 150.0, 0.1);
    p.w_q = 0.002;
    p.limit = aqm::Limit { packets: Some(10), bytes: None };
    let mut q: Queue<PacketInfo, Red> = Queue::new(Red::new(p, 1).unwrap());
    let mut drops = 0;
    for i in 0..100 {
        q.enqueue(Time(i), pkt(1000), |_, r| {
            assert_eq!(r, DropReason::Overflow);
            drops += 1
        });
    }
    assert_eq!(q.len_packets(), 10);
    assert_eq!(drops, 90);
    assert!(q.discipline().core.avg < 50.0);
}

// p_a never leaves [0, 1], even when count * p_b > 1 after avg fell (INET's negative p_a).
#[test]
fn p_a_clamped() {
    assert_eq!(MarkMethod::Uniform.p_a(0.1, 20), 1.0);
    assert_eq!(MarkMethod::Uniform.p_a(0.1, 10), 1.0);
    assert!((MarkMethod::Uniform.p_a(0.1, 5) - 0.2).abs() < 1e-12);
    assert_eq!(MarkMethod::Ns2Wait.p_a(0.1, 25), 1.0);
    assert_eq!(MarkMethod::Ns2Wait.p_a(0.1, 3), 0.0);
}

// Count: -1 below min_th, reset after a mark, incremented per arrival in the ramp.
#[test]
fn count_semantics() {
    let mut red = Red::new(params(5.0, 15.0, 0.02), 1).unwrap();
    red.on_arrival(Time(1), &pkt(1000), backlog(2));
    assert_eq!(red.core.count, -1);
    red.on_arrival(Time(2), &pkt(1000), backlog(6));
    assert_eq!(red.core.count, 0, "first arrival in the ramp: no unmarked packet since a mark yet");
    red.on_arrival(Time(3), &pkt(1000), backlog(6));
    assert!(red.core.count == 1 || red.core.count == -1);
}

// `min_backlog` (ns-2's `qlen > 1` and ns-3's rule): with the average in the forced
// region no arrival is dropped while fewer than min_backlog packets wait, and count
// restarts as below min_th; from min_backlog on RED decides as Fig. 2 does. The
// default 0 decides at any queue length.
#[test]
fn min_backlog_spares_a_short_queue() {
    for min_backlog in [0u32, 1, 2, 5] {
        let mut p = params(5.0, 15.0, 0.1);
        p.min_backlog = min_backlog;
        let mut red = Red::new(p, 1).unwrap();
        for q in 0..8u32 {
            red.core.avg = 20.0; // above max_th: every decision is a forced drop
            red.core.count = 7;
            let v = red.core.decide(&pkt(1000), backlog(q));
            if q < min_backlog {
                assert_eq!(v, Verdict::Enqueue, "min_backlog {min_backlog}, {q} waiting");
                assert_eq!(red.core.count, -1);
            } else {
                assert_eq!(v, Verdict::Drop(DropReason::Forced), "min_backlog {min_backlog}, {q}");
            }
        }
    }
}

// Drop-from-front evicts the head; the queue length stays at the limit.
#[test]
fn drop_front_evicts_head() {
    let mut p = params(500.0, 1500.0, 0.1);
    p.drop_front = true;
    p.limit = aqm::Limit { packets: Some(3), bytes: None };
    let mut q: Queue<PacketInfo, Red> = Queue::new(Red::new(p, 1).unwrap());
    let mut dropped = vec![];
    for f in 0..5u32 {
        q.enqueue(
            Time(f as u64),
            PacketInfo { size: 100, flow: f, ecn_capable: false, ect1: false, ce: false },
            |p, _| dropped.push(p.flow),
        );
    }
    assert_eq!(dropped, vec![0, 1]);
    let left: Vec<u32> = q.iter().map(|p| p.flow).collect();
    assert_eq!(left, vec![2, 3, 4]);
}

// Invalid parameters are rejected with the parameter named.
#[test]
fn invalid_parameters_named() {
    type Edit = Box<dyn Fn(&mut aqm::RedParams)>;
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(|p| p.min_th = 20.0), "min_th"),
        (Box::new(|p| p.w_q = 0.0), "w_q"),
        (Box::new(|p| p.w_q = 1.5), "w_q"),
        (Box::new(|p| p.max_p = 0.0), "max_p"),
        (Box::new(|p| p.max_p = f64::NAN), "max_p"),
        (Box::new(|p| p.min_th = -1.0), "min_th"),
        (Box::new(|p| p.idle_pkt_time = 0.0), "idle_pkt_time"),
    ];
    for (f, name) in cases {
        let mut p = params(5.0, 15.0, 0.1);
        f(&mut p);
        let e = Red::new(p, 1).unwrap_err();
        assert_eq!(e.param(), Some(name), "{e}");
    }
}
