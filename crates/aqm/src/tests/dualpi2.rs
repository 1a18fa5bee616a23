//! DualPI2's behaviour derived from RFC 9332.

use super::*;
use crate::packet::PacketInfo;

fn params() -> DualPi2Params {
    DualPi2Params {
        target: Duration::from_millis(15),
        tupdate: Duration::from_millis(16),
        alpha: 0.16,
        beta: 3.2,
        k: 2.0,
        step_thresh: Duration::from_millis(1),
        c_protection: 0.1,
        drop_on_overload: true,
        ecn: true,
        limit: Limit { packets: Some(10_000), bytes: None },
    }
}

fn pkt(l4s: bool, ecn: bool) -> PacketInfo {
    PacketInfo { size: 1000, flow: 0, ecn_capable: ecn || l4s, ect1: l4s }
}

/// A DualPI2 with p' held at `p` (no update falls due).
fn frozen(p: f64) -> DualPi2<PacketInfo> {
    let mut q = DualPi2::new(params(), 11).unwrap();
    q.next_update = Time::MAX;
    q.p_base = p;
    q
}

/// Of `n` packets of one kind, each enqueued and dequeued at once (no waiting): how many
/// came out marked and how many were dropped.
fn outcomes(q: &mut DualPi2<PacketInfo>, l4s: bool, ecn: bool, n: u64) -> (u64, u64) {
    let (mut marked, mut dropped) = (0, 0);
    for i in 0..n {
        q.enqueue(Time(i), pkt(l4s, ecn), &mut |_, _| {});
        match q.dequeue(Time(i), &mut |_, _| dropped += 1) {
            Some(d) if d.marked => marked += 1,
            _ => {}
        }
    }
    (marked, dropped)
}

fn within(count: u64, n: u64, p: f64) -> bool {
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    (count as f64 - n as f64 * p).abs() <= 4.42 * sd.max(1e-9)
}

#[test]
fn classic_drop_is_p_squared_and_l4s_mark_is_k_p() {
    let n = 40_000;
    for p in [0.05, 0.2, 0.3, 0.45] {
        let mut q = frozen(p);
        let (m, d) = outcomes(&mut q, false, false, n);
        assert_eq!(m, 0);
        assert!(within(d, n, p * p), "p' = {p}: classic drops {d} of {n}, p_C = {}", p * p);
        let (m, d) = outcomes(&mut q, false, true, n);
        assert_eq!(d, 0, "ECN-capable Classic packets are marked below overload");
        assert!(within(m, n, p * p), "p' = {p}: classic marks {m}");
        let (m, d) = outcomes(&mut q, true, false, n);
        let p_cl = (2.0 * p).min(1.0);
        assert_eq!(d, 0);
        assert!(within(m, n, p_cl), "p' = {p}: L4S marks {m} of {n}, k p' = {p_cl}");
    }
}

#[test]
fn overload_disables_classic_ecn_and_drops_l4s_with_p_c() {
    // p' = 0.6: p_C = 0.36 > 1/k^2 = 0.25.
    let n = 40_000;
    let p = 0.6;
    let mut q = frozen(p);
    assert!(q.overloaded());
    let (m, d) = outcomes(&mut q, false, true, n);
    assert_eq!(m, 0);
    assert!(within(d, n, p * p), "{d}");
    let (m, d) = outcomes(&mut q, true, false, n);
    assert!(within(d, n, p * p), "L4S drops {d}");
    assert_eq!(m + d, n, "every L4S packet not dropped is marked (k p' >= 1)");
}

#[test]
fn base_probability_follows_the_pi_update_on_the_classic_delay() {
    // 100 Classic packets at time 0 and nothing sent: at the update instants
    // t = 16, 32, ... ms the head has waited t.
    let mut q = DualPi2::new(params(), 1).unwrap();
    for _ in 0..100 {
        q.enqueue(Time::ZERO, pkt(false, false), &mut |_, _| {});
    }
    let (mut p, mut prev) = (0.0f64, 0.0f64);
    for k in 1..=40u64 {
        let t = Time(k * 16_000_000);
        q.poll(t);
        let curq = t.as_secs_f64();
        p = (p + 0.16 * (curq - 0.015) + 3.2 * (curq - prev)).clamp(0.0, 1.0);
        prev = curq;
        assert!((q.p_base - p).abs() < 1e-12, "update {k}: {} vs {p}", q.p_base);
    }
    // An L4S queue alone does not move p' (it is the Classic delay that counts).
    let mut q = DualPi2::new(params(), 1).unwrap();
    for _ in 0..100 {
        q.enqueue(Time::ZERO, pkt(true, false), &mut |_, _| {});
    }
    q.poll(Time(1_000_000_000));
    assert_eq!(q.p_base, 0.0);
}

#[test]
fn l4s_packets_past_the_step_are_always_marked() {
    let mut q = frozen(0.0);
    for _ in 0..10 {
        q.enqueue(Time::ZERO, pkt(true, false), &mut |_, _| {});
    }
    let early = q.dequeue(Time(999_999), &mut |_, _| {}).unwrap();
    assert!(!early.marked, "below the step, p_L = p_CL = 0");
    while let Some(d) = q.dequeue(Time(1_000_000), &mut |_, _| {}) {
        assert!(d.marked);
    }
}

#[test]
fn classic_keeps_its_protected_share_of_a_saturated_line() {
    let mut q = frozen(0.0);
    let (mut l_bytes, mut c_bytes) = (0u64, 0u64);
    for i in 0..20_000u64 {
        // Both queues always backlogged.
        while q.backlogs().0.packets < 5 {
            q.enqueue(Time(i), pkt(true, false), &mut |_, _| {});
        }
        while q.backlogs().1.packets < 5 {
            q.enqueue(Time(i), pkt(false, false), &mut |_, _| {});
        }
        let d = q.dequeue(Time(i), &mut |_, _| {}).unwrap();
        if d.pkt.ect1 { l_bytes += d.pkt.size as u64 } else { c_bytes += d.pkt.size as u64 }
    }
    let share = c_bytes as f64 / (l_bytes + c_bytes) as f64;
    assert!((share - 0.1).abs() < 1e-3, "Classic share {share}");
}

#[test]
fn stats_account_for_every_arrival() {
    let mut pr = params();
    pr.limit = Limit { packets: Some(40), bytes: None };
    let mut q = DualPi2::new(pr, 5).unwrap();
    let mut gone = 0u64;
    for i in 0..50_000u64 {
        let now = Time(i * 200_000);
        let l4s = i % 3 == 0;
        q.enqueue(
            now,
            PacketInfo {
                size: 1000,
                flow: (i % 5) as u32,
                ecn_capable: l4s || i % 2 == 0,
                ect1: l4s,
            },
            &mut |_, _| gone += 1,
        );
        if i % 5 != 0 {
            q.dequeue(now, &mut |_, _| gone += 1);
        }
    }
    let s = *q.stats();
    assert!(s.early_drops > 0 && s.overflow_drops > 0 && s.marks > 0, "{s:?}");
    assert_eq!(s.arrivals, s.enqueued + s.overflow_drops);
    assert_eq!(s.enqueued, s.departures + s.early_drops + q.backlog().packets as u64);
    assert_eq!(s.drops(), gone);
    assert_eq!(s.marks, q.l_marks + q.c_marks);
}

#[test]
fn invalid_parameters_name_the_field() {
    let mut p = params();
    p.k = 0.5;
    assert_eq!(DualPi2::<PacketInfo>::new(p, 1).unwrap_err().param(), Some("k"));
    let mut p = params();
    p.c_protection = 1.0;
    assert_eq!(DualPi2::<PacketInfo>::new(p, 1).unwrap_err().param(), Some("c_protection"));
    let mut p = params();
    p.target = Duration::ZERO;
    assert_eq!(DualPi2::<PacketInfo>::new(p, 1).unwrap_err().param(), Some("target"));
}
