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
        mtu: 1500,
        scheduler: DualPi2Scheduler::Wrr,
        tshift: Duration::from_millis(40),
    }
}

fn pkt(l4s: bool, ecn: bool) -> PacketInfo {
    PacketInfo { size: 1000, flow: 0, ecn_capable: ecn || l4s, ect1: l4s, ce: false }
}

/// A DualPI2 with p' held at `p` (no update falls due).
fn frozen(p: f64) -> DualPi2<PacketInfo> {
    let mut q = DualPi2::new(params(), 11).unwrap();
    q.next_update = Time::MAX;
    q.p_base = p;
    q
}

/// Packets kept waiting by `outcomes`: enough that the departing packet always leaves
/// at least 2 MTU behind it (the small-queue guard never applies), even after a run of
/// drops at dequeue.
const STANDING: u64 = 64;

/// About `n` packets of one kind, dequeued from a queue of that kind topped up to
/// `STANDING` packets, all arrived at the same instant (none waits long enough for the
/// step): how many came out marked, how many were dropped, and how many were decided
/// (delivered + dropped; a dequeue may drop several before it delivers one).
fn outcomes(q: &mut DualPi2<PacketInfo>, l4s: bool, ecn: bool, n: u64) -> (u64, u64, u64) {
    let (mut marked, mut dropped, mut delivered) = (0, 0, 0);
    for i in 0..n {
        while (q.backlog().packets as u64) < STANDING {
            q.enqueue(Time(i), pkt(l4s, ecn), &mut |_, _| {});
        }
        if let Some(d) = q.dequeue(Time(i), &mut |_, _| dropped += 1) {
            delivered += 1;
            marked += d.marked as u64;
        }
    }
    // Leave the queue empty for the next measurement.
    while q.dequeue(Time(n), &mut |_, _| {}).is_some() {}
    (marked, dropped, delivered + dropped)
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
        let (m, d, n) = outcomes(&mut q, false, false, n);
        assert_eq!(m, 0);
        assert!(within(d, n, p * p), "p' = {p}: classic drops {d} of {n}, p_C = {}", p * p);
        let (m, d, n) = outcomes(&mut q, false, true, n);
        assert_eq!(d, 0, "ECN-capable Classic packets are marked below overload");
        assert!(within(m, n, p * p), "p' = {p}: classic marks {m}");
        let (m, d, n) = outcomes(&mut q, true, false, n);
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
    let (m, d, n) = outcomes(&mut q, false, true, n);
    assert_eq!(m, 0);
    assert!(within(d, n, p * p), "{d}");
    let (m, d, n) = outcomes(&mut q, true, false, n);
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
                ce: false,
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

/// One packet enqueued and dequeued with `left` packets of 1000 bytes staying queued:
/// (marked, dropped).
fn one_with_backlog(q: &mut DualPi2<PacketInfo>, l4s: bool, ecn: bool, left: u64) -> (bool, bool) {
    while q.dequeue(Time::ZERO, &mut |_, _| {}).is_some() {}
    for _ in 0..=left {
        q.enqueue(Time::ZERO, pkt(l4s, ecn), &mut |_, _| {});
    }
    let mut dropped = false;
    let d = q.dequeue(Time::ZERO, &mut |_, _| dropped = true);
    (d.is_some_and(|d| d.marked), dropped)
}

#[test]
fn no_pi_drop_or_mark_while_less_than_two_mtu_stay_queued() {
    // p' = 1: p_C = 1, p_CL = 1 and overload, so without the guard every packet is
    // dropped (Classic, or L4S on overload) and never passes unmarked.
    let mtu = params().mtu as u64;
    let below = (2 * mtu).div_ceil(1000) - 1; // packets of 1000 bytes: < 2 MTU
    let at = (2 * mtu).div_ceil(1000); // >= 2 MTU
    for (l4s, ecn) in [(false, false), (false, true), (true, false)] {
        let mut q = frozen(1.0);
        assert_eq!(one_with_backlog(&mut q, l4s, ecn, below), (false, false), "{l4s} {ecn}");
        let (_, dropped) = one_with_backlog(&mut q, l4s, ecn, at);
        assert!(dropped, "{l4s} {ecn}: {at} packets left, the guard is off");
    }
    // mtu = 0: no guard, even an otherwise empty queue drops.
    let mut q = DualPi2::new(DualPi2Params { mtu: 0, ..params() }, 3).unwrap();
    q.next_update = Time::MAX;
    q.p_base = 1.0;
    assert!(one_with_backlog(&mut q, false, false, 0).1);
    // The native step is not guarded: an L packet that waited past step_thresh alone.
    let mut q = frozen(0.0);
    q.enqueue(Time::ZERO, pkt(true, false), &mut |_, _| {});
    let d = q.dequeue(Time::ZERO + params().step_thresh, &mut |_, _| {}).unwrap();
    assert!(d.marked);
}

#[test]
fn ce_packets_join_the_l_queue_and_ect0_the_classic() {
    let mut q = frozen(0.0);
    let ce = PacketInfo { ce: true, ..pkt(false, true) };
    q.enqueue(Time::ZERO, ce, &mut |_, _| {});
    assert_eq!(q.backlogs().0.packets, 1, "CE (ECN field 11, odd) is classified L");
    q.enqueue(Time::ZERO, pkt(false, true), &mut |_, _| {});
    assert_eq!(q.backlogs().1.packets, 1, "ECT(0) (10, even) is Classic");
    q.enqueue(Time::ZERO, pkt(true, false), &mut |_, _| {});
    assert_eq!(q.backlogs().0.packets, 2, "ECT(1) (01, odd) is L");
}

#[test]
fn the_time_shifted_fifo_serves_the_longest_wait_with_l_shifted_by_tshift() {
    let tshift = Duration::from_millis(40);
    let pr = DualPi2Params { scheduler: DualPi2Scheduler::Tsfifo, tshift, ..params() };
    let ms = |m: u64| Time(m * 1_000_000);
    // C's head arrived at 0, L's at `l_at`; at 60 ms L goes first iff
    // (60 - l_at) + 40 >= 60, i.e. l_at <= 40 ms.
    for l_at in [0u64, 20, 39, 40, 41, 55] {
        let mut q = DualPi2::new(pr.clone(), 1).unwrap();
        q.next_update = Time::MAX;
        q.enqueue(ms(0), pkt(false, false), &mut |_, _| {});
        q.enqueue(ms(l_at), pkt(true, false), &mut |_, _| {});
        let first = q.dequeue(ms(60), &mut |_, _| {}).unwrap();
        let expect_l = (60 - l_at) + 40 >= 60;
        assert_eq!(first.pkt.ect1, expect_l, "L head arrived at {l_at} ms");
    }
    // Both queues always backlogged, one packet every 1 ms: the Classic packets leave
    // after waiting about tshift longer than the L packets.
    let mut q = DualPi2::new(pr, 1).unwrap();
    q.next_update = Time::MAX;
    let (mut wl, mut wc) = (Vec::new(), Vec::new());
    for i in 0..20_000u64 {
        let now = Time(i * 1_000_000);
        q.enqueue(now, pkt(true, false), &mut |_, _| {});
        q.enqueue(now, pkt(false, false), &mut |_, _| {});
        let d = q.dequeue(now, &mut |_, _| {}).unwrap();
        let w = now.saturating_since(d.enqueued_at).as_secs_f64();
        if i > 10_000 {
            if d.pkt.ect1 { wl.push(w) } else { wc.push(w) }
        }
    }
    let mean = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    let gap = mean(&wc) - mean(&wl);
    assert!((gap - 0.040).abs() <= 0.001, "Classic waits {gap} s longer, tshift 40 ms");
}
