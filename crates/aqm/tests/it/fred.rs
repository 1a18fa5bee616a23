//! FRED (Lin & Morris 1997, Section 4.5 and Section 6). Every expected value below
//! is worked out by hand from the paper's pseudo-code, with the reading documented in
//! `src/fred.rs`: at an arrival the average sees the queue *before* the packet, at a
//! departure the queue *after* it; with `w_q = 1` the average is therefore the `q`
//! of the last sampling event.

use std::collections::HashMap;

use aqm::common::Limit;
use aqm::{Backlog, DropReason, Fred, FredParams, PacketInfo, Queue, Time, Verdict};
use proptest::prelude::*;

const MS: u64 = 1_000_000;

/// Packet-mode parameters with a large buffer; idle_pkt_time s = 1 ms.
fn params(min_th: f64, max_th: f64, w_q: f64, max_p: f64, min_q: f64) -> FredParams {
    FredParams {
        min_th,
        max_th,
        w_q,
        max_p,
        limit: Limit { packets: Some(10_000), bytes: None },
        min_q,
        many_flows: false,
        byte_mode: false,
        max_pkt_size: 1000,
        idle_pkt_time: 0.001,
    }
}

/// Byte-mode parameters, MaximumPacketSize = 1000 bytes, a large byte buffer.
fn byte_params(min_th: f64, max_th: f64, w_q: f64, max_p: f64, min_q: f64) -> FredParams {
    FredParams {
        limit: Limit { packets: None, bytes: Some(10_000_000) },
        byte_mode: true,
        ..params(min_th, max_th, w_q, max_p, min_q)
    }
}

fn queue(p: FredParams, seed: u64) -> Queue<PacketInfo, Fred> {
    Queue::new(Fred::new(p, seed).unwrap())
}

fn arrive(q: &mut Queue<PacketInfo, Fred>, t: u64, flow: u32, size: u32) -> Verdict {
    q.enqueue(
        Time(t),
        PacketInfo { size, flow, ecn_capable: false, ect1: false, ce: false },
        |_, _| {},
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// p_a of Section 4.5: `pb / (1 - count pb)`, 1 once `count pb >= 1`.
fn paper_pa(pb: f64, count: i64) -> f64 {
    let cp = count as f64 * pb;
    if cp >= 1.0 { 1.0 } else { pb / (1.0 - cp) }
}

// A flow with fewer than min_q packets buffered is always accepted while avg < max_th, even when robust flows are being dropped at random.
#[test]
fn fragile_flow_below_min_q_never_dropped() {
    // min_q = 4 (the paper's value for large buffers) below maxq = min_th = 8.
    let (min_th, max_th, min_q) = (8.0, 24.0, 4.0);
    let mut q = queue(params(min_th, max_th, 1.0, 1.0, min_q), 7);
    let mut t = 0u64;
    // Fragile arrivals in the random-drop region, and among them those with
    // avgcq <= qlen < min_q, which only the MAX(minq, avgcq) of the paper protects.
    let (mut fragile_in_ramp, mut fragile_above_avgcq, mut robust_early) = (0, 0, 0);
    for step in 0..6000u32 {
        t += MS / 10;
        // Each step two robust flows (1, 2) and one mouse (a single packet of one of
        // 50 flows) arrive; the link drains the queue down to 16 packets.
        for f in [1, 2] {
            if arrive(&mut q, t, f, 1000) == Verdict::Drop(DropReason::Early) {
                robust_early += 1;
            }
        }
        arrive(&mut q, t, 100 + step % 50, 1000);
        while q.len_packets() > 16 {
            q.dequeue(Time(t));
        }
        // Every fifth step the fragile flow (0) sends a back-to-back burst while it
        // has fewer than min_q packets queued.
        if step % 5 == 0 {
            loop {
                let fred = q.discipline();
                let qlen = fred.flow_qlen(0).unwrap_or(0.0);
                // The queue is not empty, so the decision uses this avg.
                let (avg, avgcq) = (fred.avg(), fred.avgcq());
                if qlen >= min_q || avg >= max_th {
                    break;
                }
                if avg >= min_th {
                    fragile_in_ramp += 1;
                    if qlen >= avgcq {
                        fragile_above_avgcq += 1;
                    }
                }
                let v = arrive(&mut q, t, 0, 1000);
                assert_eq!(
                    v,
                    Verdict::Enqueue,
                    "fragile flow (qlen {qlen}, avgcq {avgcq}) dropped at avg {avg}"
                );
            }
        }
    }
    // The scenario did exercise random drops of robust flows with the fragile flow present.
    assert!(robust_early >= 1000, "only {robust_early} early drops of robust flows");
    assert!(
        fragile_in_ramp >= 1000,
        "only {fragile_in_ramp} fragile arrivals with min_th <= avg < max_th"
    );
    assert!(
        fragile_above_avgcq >= 500,
        "only {fragile_above_avgcq} fragile arrivals with avgcq <= qlen < min_q"
    );
}

// A flow holding maxq (= min_th below max_th) packets has its arrival dropped with FlowLimit, and each such attempt adds a strike.
#[test]
fn flow_at_maxq_dropped_with_strike() {
    let mut q = queue(params(4.0, 8.0, 0.002, 0.02, 2.0), 1);
    for i in 0..4 {
        assert_eq!(arrive(&mut q, i, 1, 1000), Verdict::Enqueue, "packet {i} of flow 1");
    }
    assert_eq!(q.discipline().flow_strike(1), Some(0));
    assert_eq!(arrive(&mut q, 10, 1, 1000), Verdict::Drop(DropReason::FlowLimit));
    assert_eq!(q.discipline().flow_strike(1), Some(1));
    assert_eq!(arrive(&mut q, 11, 1, 1000), Verdict::Drop(DropReason::FlowLimit));
    assert_eq!(q.discipline().flow_strike(1), Some(2));
    // maxq = min_th since avg < max_th; the flow keeps its 4 packets.
    assert_eq!(q.discipline().maxq(), 4.0);
    assert_eq!(q.discipline().flow_qlen(1), Some(4.0));
    assert_eq!(q.len_packets(), 4);
    // The limit is per flow: another flow is still accepted.
    assert_eq!(arrive(&mut q, 12, 2, 1000), Verdict::Enqueue);
}

/// Flow A (1) fills to maxq = 10 and tries `over` more times; flow B (2) then queues
/// 8 packets. With w_q = 1: avg = 17, Nactive = 2, avgcq = 8.5, q = 18.
fn struck_setup(over: usize) -> Queue<PacketInfo, Fred> {
    let mut q = queue(params(10.0, 40.0, 1.0, 0.02, 2.0), 3);
    let mut t = 0;
    for _ in 0..10 {
        t += 1;
        assert_eq!(arrive(&mut q, t, 1, 1000), Verdict::Enqueue);
    }
    for _ in 0..over {
        t += 1;
        assert_eq!(arrive(&mut q, t, 1, 1000), Verdict::Drop(DropReason::FlowLimit));
    }
    for _ in 0..8 {
        t += 1;
        assert_eq!(arrive(&mut q, t, 2, 1000), Verdict::Enqueue);
    }
    assert_eq!(q.len_packets(), 18);
    assert!(close(q.discipline().avg(), 17.0));
    assert!(close(q.discipline().avgcq(), 8.5));
    q
}

// A flow with strike > 1 is held to avgcq: its arrival is dropped once qlen >= avgcq though qlen < maxq, and accepted when qlen < avgcq.
#[test]
fn struck_flow_held_to_avgcq() {
    let mut q = struck_setup(2);
    assert_eq!(q.discipline().flow_strike(1), Some(2));
    // One departure (A's packet at the head): q = 17, avg = 17, avgcq = 17 / 2 = 8.5; A holds 9 < maxq 10.
    q.dequeue(Time(100));
    assert!(close(q.discipline().avgcq(), 8.5));
    assert_eq!(q.discipline().flow_qlen(1), Some(9.0));
    assert_eq!(arrive(&mut q, 101, 1, 1000), Verdict::Drop(DropReason::FlowLimit));
    assert_eq!(q.discipline().flow_strike(1), Some(3));
    assert_eq!(q.discipline().maxq(), 10.0);
    // Two more departures: q = avg = 15, avgcq = 7.5; A holds 7 < 7.5: accepted
    // (7 < MAX(min_q, avgcq) also keeps it out of the random drop).
    q.dequeue(Time(102));
    q.dequeue(Time(103));
    assert!(close(q.discipline().avgcq(), 7.5));
    assert_eq!(q.discipline().flow_qlen(1), Some(7.0));
    assert_eq!(arrive(&mut q, 104, 1, 1000), Verdict::Enqueue);
    assert_eq!(q.discipline().flow_strike(1), Some(3));
}

// With a single strike the same arrival (qlen 9 >= avgcq 8.5, below maxq) is not held to avgcq.
#[test]
fn single_strike_not_held_to_avgcq() {
    let mut q = struck_setup(1);
    q.dequeue(Time(100));
    let v = arrive(&mut q, 101, 1, 1000);
    assert_ne!(v, Verdict::Drop(DropReason::FlowLimit));
    assert_eq!(q.discipline().flow_strike(1), Some(1));
}

// Per-flow state (qlen, strike) exists only while the flow has packets buffered; strikes are forgotten with it.
#[test]
fn flow_state_deleted_when_last_packet_departs() {
    let mut q = queue(params(4.0, 8.0, 0.002, 0.02, 2.0), 1);
    for i in 0..5 {
        arrive(&mut q, i, 1, 1000); // the fifth exceeds maxq = 4: strike 1
    }
    assert_eq!(q.discipline().flow_state(1), Some((4.0, 1)));
    arrive(&mut q, 10, 2, 1000);
    arrive(&mut q, 11, 2, 1000);
    assert_eq!(q.discipline().n_active(), 2);
    for k in (0..4).rev() {
        q.dequeue(Time(20));
        let expect = if k == 0 { None } else { Some(k as f64) };
        assert_eq!(q.discipline().flow_qlen(1), expect);
    }
    assert_eq!(q.discipline().flow_strike(1), None);
    assert_eq!(q.discipline().n_active(), 1);
    assert_eq!(q.discipline().flow_qlen(2), Some(2.0));
    q.dequeue(Time(21));
    q.dequeue(Time(22));
    assert_eq!(q.discipline().flow_qlen(2), None);
    assert_eq!(q.discipline().n_active(), 0);
    // Flow 1 comes back with a fresh table: no strike.
    assert_eq!(arrive(&mut q, 30, 1, 1000), Verdict::Enqueue);
    assert_eq!(q.discipline().flow_state(1), Some((1.0, 0)));
}

// A dropped arrival of a flow with nothing buffered leaves no per-flow state (block C and the physical limit).
#[test]
fn dropped_arrival_of_idle_flow_leaves_no_state() {
    // min_th 2, max_th 4, w_q 1: flows 1, 2, 3, 1, 2 see q = 0..4, decided at avg <= 3,
    // all accepted; avg = 4 = max_th afterwards, so a new flow falls in block C.
    let mut q = queue(params(2.0, 4.0, 1.0, 0.02, 2.0), 1);
    for (i, f) in [1, 2, 3, 1, 2].into_iter().enumerate() {
        assert_eq!(arrive(&mut q, i as u64, f, 1000), Verdict::Enqueue);
    }
    assert_eq!(arrive(&mut q, 10, 9, 1000), Verdict::Drop(DropReason::Forced));
    assert_eq!(q.discipline().flow_qlen(9), None);
    assert_eq!(q.discipline().n_active(), 3);
    // Overflow of the physical buffer (2 packets) below min_th.
    let mut p = params(4.0, 8.0, 0.002, 0.02, 2.0);
    p.limit = Limit { packets: Some(2), bytes: None };
    let mut q = queue(p, 1);
    arrive(&mut q, 0, 1, 1000);
    arrive(&mut q, 1, 2, 1000);
    assert_eq!(arrive(&mut q, 2, 3, 1000), Verdict::Drop(DropReason::Overflow));
    assert_eq!(q.discipline().flow_qlen(3), None);
    assert_eq!(q.discipline().n_active(), 2);
    assert_eq!(q.discipline().count(), 0);
}

/// Flows 0..=5 each send two packets (round robin) with w_q = 1; the twelfth arrival
/// sees q = 11 and avg = 10 = max_th.
fn fill_to_max_th(q: &mut Queue<PacketInfo, Fred>) -> Vec<Verdict> {
    let mut out = Vec::new();
    for round in 0..2u64 {
        for f in 0..6u32 {
            out.push(arrive(q, round * 10 + f as u64, f, 1000));
        }
    }
    out
}

// Many-flows extension: with avg >= max_th a flow's first and second packets are accepted and its third dropped (FlowLimit, no strike, count = 0).
#[test]
fn two_packet_mode() {
    let mut p = params(8.0, 10.0, 1.0, 0.02, 2.0);
    p.many_flows = true;
    let mut q = queue(p, 1);
    let v = fill_to_max_th(&mut q);
    assert!(v.iter().all(|v| *v == Verdict::Enqueue), "{v:?}");
    assert!(close(q.discipline().avg(), 11.0));
    // Flow 0 holds 2: dropped. Block A is deleted: maxq stays min_th.
    assert_eq!(arrive(&mut q, 100, 0, 1000), Verdict::Drop(DropReason::FlowLimit));
    assert_eq!(q.discipline().maxq(), 8.0);
    assert_eq!(q.discipline().flow_strike(0), Some(0));
    assert_eq!(q.discipline().count(), 0);
    // A new flow: first and second accepted, third dropped.
    assert_eq!(arrive(&mut q, 101, 20, 1000), Verdict::Enqueue);
    assert_eq!(arrive(&mut q, 102, 20, 1000), Verdict::Enqueue);
    assert!(q.discipline().avg() >= 10.0);
    assert_eq!(arrive(&mut q, 103, 20, 1000), Verdict::Drop(DropReason::FlowLimit));
    assert_eq!(q.discipline().flow_qlen(20), Some(2.0));
}

// Basic FRED with avg >= max_th: block C drop-tails a flow with one packet (Forced), and block A sets maxq = 2 so a flow at 2 is struck.
#[test]
fn basic_mode_above_max_th() {
    let mut q = queue(params(8.0, 10.0, 1.0, 0.02, 2.0), 1);
    let v = fill_to_max_th(&mut q);
    assert!(v[..11].iter().all(|v| *v == Verdict::Enqueue), "{v:?}");
    assert_eq!(v[11], Verdict::Drop(DropReason::Forced));
    assert_eq!(q.discipline().maxq(), 2.0);
    assert_eq!(q.discipline().count(), 0);
    assert_eq!(arrive(&mut q, 100, 0, 1000), Verdict::Drop(DropReason::FlowLimit));
    assert_eq!(q.discipline().flow_strike(0), Some(1));
}

// The average is sampled at departures (down to an empty queue, as an EWMA step) and not at an arrival dropped while the queue is non-empty.
#[test]
fn average_at_departures_not_at_dropped_arrivals() {
    // w_q = 0.5; maxq = min_th = 3 packets for the one flow.
    let mut q = queue(params(3.0, 100.0, 0.5, 0.02, 2.0), 1);
    arrive(&mut q, 0, 1, 1000); // q = 0: avg 0
    arrive(&mut q, 1, 1, 1000); // q = 1: avg 0.5
    arrive(&mut q, 2, 1, 1000); // q = 2: avg 0.5 + 0.5 (2 - 0.5) = 1.25
    assert!(close(q.discipline().avg(), 1.25));
    assert_eq!(arrive(&mut q, 3, 1, 1000), Verdict::Drop(DropReason::FlowLimit));
    assert!(close(q.discipline().avg(), 1.25), "a dropped arrival moved avg");
    q.dequeue(Time(4)); // q = 2: 1.625
    assert!(close(q.discipline().avg(), 1.625));
    q.dequeue(Time(5)); // q = 1: 1.3125
    assert!(close(q.discipline().avg(), 1.3125));
    q.dequeue(Time(6)); // q = 0, departed: EWMA towards 0, not aging: 0.65625
    assert!(close(q.discipline().avg(), 0.65625));
}

// Idle aging: after the queue empties at t0, an arrival at t0 + 3 s (s = 1 ms) ages avg by (1 - w_q)^3, even if dropped; a second arrival at the same instant does not age it again.
#[test]
fn idle_aging_after_empty_period() {
    let mut p = params(10.0, 20.0, 0.5, 0.02, 2.0);
    p.limit = Limit { packets: None, bytes: Some(5000) };
    let mut q = queue(p, 1);
    for f in 1..=3 {
        arrive(&mut q, 0, f, 1000); // avg 0, 0.5, 1.25
    }
    for _ in 0..3 {
        q.dequeue(Time(MS)); // avg 1.625, 1.3125, 0.65625; q_time = 1 ms
    }
    assert!(close(q.discipline().avg(), 0.65625));
    // 3 ms idle, m = 3: 0.65625 * 0.5^3 = 0.08203125. The packet does not fit: dropped.
    assert_eq!(arrive(&mut q, 4 * MS, 4, 6000), Verdict::Drop(DropReason::Overflow));
    assert!(close(q.discipline().avg(), 0.08203125), "avg {}", q.discipline().avg());
    // Same instant: q_time was reset, no second aging; accepted, the post-accept average sees q = 0.
    assert_eq!(arrive(&mut q, 4 * MS, 5, 1000), Verdict::Enqueue);
    assert!(close(q.discipline().avg(), 0.08203125), "avg {}", q.discipline().avg());
    // Next arrival sees q = 1: EWMA step.
    arrive(&mut q, 4 * MS, 6, 1000);
    assert!(close(q.discipline().avg(), 0.08203125 + 0.5 * (1.0 - 0.08203125)));
}

// Byte mode multiplies the constants by MaximumPacketSize: MAX(avgcq, 1) becomes 1000 bytes and block A's maxq = 2 becomes 2000 bytes.
#[test]
fn byte_mode_scales_constants() {
    // min_th 3000, max_th 5000 bytes, w_q 1, 500-byte packets from new flows.
    let mut q = queue(byte_params(3000.0, 5000.0, 1.0, 0.02, 1000.0), 1);
    assert_eq!(arrive(&mut q, 0, 0, 500), Verdict::Enqueue);
    assert_eq!(q.discipline().avgcq(), 1000.0); // avg 0 / 1 -> MAX(0, 1000)
    assert_eq!(q.discipline().maxq(), 3000.0);
    assert_eq!(q.discipline().flow_qlen(0), Some(500.0));
    // Arrival j sees q = 500 j and avg = 500 (j - 1): j = 1..=10 accepted (below max_th).
    for j in 1..=10u32 {
        assert_eq!(arrive(&mut q, j as u64, j, 500), Verdict::Enqueue, "arrival {j}");
    }
    // avg = 5000 over Nactive = 11: 454.5 -> MAX(454.5, 1000) = 1000.
    assert!(close(q.discipline().avg(), 5000.0));
    assert_eq!(q.discipline().avgcq(), 1000.0);
    // avg = max_th: block A sets maxq = 2 * 1000 bytes; block C drops the new flow.
    assert_eq!(arrive(&mut q, 11, 11, 500), Verdict::Drop(DropReason::Forced));
    assert_eq!(q.discipline().maxq(), 2000.0);
}

// Byte mode, many flows: two-packet mode allows a flow 2 * MaximumPacketSize bytes (four 500-byte packets), the fifth is dropped.
#[test]
fn byte_mode_two_packet_mode() {
    let mut p = byte_params(3000.0, 5000.0, 1.0, 0.02, 1000.0);
    p.many_flows = true;
    let mut q = queue(p, 1);
    for j in 0..=11u32 {
        assert_eq!(arrive(&mut q, j as u64, j, 500), Verdict::Enqueue, "arrival {j}");
    }
    assert!(q.discipline().avg() >= 5000.0);
    for k in 0..4 {
        assert_eq!(arrive(&mut q, 20 + k, 50, 500), Verdict::Enqueue, "packet {k} of flow 50");
    }
    assert_eq!(q.discipline().flow_qlen(50), Some(2000.0));
    assert_eq!(arrive(&mut q, 30, 50, 500), Verdict::Drop(DropReason::FlowLimit));
}

/// Byte mode, min_th 2000, max_th 6000, w_q 1, min_q 1000, max_p 0.5. Flow R (0)
/// queues 1000 bytes, flows 1..=4 1000 bytes each; then R offers `size` bytes at
/// avg = 4000, count = 2 (ramp entered at the third arrival after R's), R's qlen
/// 1000 >= MAX(min_q, avgcq = MAX(4000 / 5, 1000)). Returns whether it was dropped early.
fn byte_mode_trial(seed: u64, size: u32) -> bool {
    let mut q = queue(byte_params(2000.0, 6000.0, 1.0, 0.5, 1000.0), seed);
    for f in 0..5u32 {
        assert_eq!(arrive(&mut q, f as u64, f, 1000), Verdict::Enqueue);
    }
    assert!(close(q.discipline().avg(), 4000.0));
    assert_eq!(q.discipline().count(), 1);
    match arrive(&mut q, 10, 0, size) {
        Verdict::Drop(DropReason::Early) => true,
        Verdict::Enqueue => false,
        v => panic!("unexpected {v:?}"),
    }
}

// Byte mode scales p_b by PacketSize / MaximumPacketSize: the early-drop frequency of a 1000-byte and a 250-byte packet match p_a computed from the paper.
#[test]
fn byte_mode_scales_pb() {
    let pb_full = 0.5 * (4000.0 - 2000.0) / (6000.0 - 2000.0);
    let n = 4000u64;
    for size in [1000u32, 250] {
        let pb = pb_full * size as f64 / 1000.0;
        let expected = paper_pa(pb, 2);
        let drops = (0..n).filter(|&s| byte_mode_trial(s, size)).count() as f64;
        let freq = drops / n as f64;
        let sigma = (expected * (1.0 - expected) / n as f64).sqrt();
        assert!(
            (freq - expected).abs() < 5.0 * sigma,
            "size {size}: frequency {freq}, paper p_a {expected}"
        );
    }
}

// A packet discarded by the owner (departed = false) leaves its flow's count but does not move the average.
#[test]
fn discard_updates_flow_without_averaging() {
    let mut f = Fred::new(params(4.0, 8.0, 0.5, 0.02, 2.0), 1).unwrap();
    let pkt = PacketInfo::new(1000, 1);
    let bl = |n: u32| Backlog { packets: n, bytes: n as u64 * 1000 };
    assert_eq!(f.on_arrival(Time(0), &pkt, bl(0)), Verdict::Enqueue);
    assert_eq!(f.on_arrival(Time(1), &pkt, bl(1)), Verdict::Enqueue);
    assert!(close(f.avg(), 0.5));
    f.on_removed(Time(2), &pkt, bl(1), false);
    assert_eq!(f.flow_qlen(1), Some(1.0));
    assert!(close(f.avg(), 0.5));
    f.on_removed(Time(3), &pkt, bl(0), false);
    assert_eq!(f.flow_qlen(1), None);
    assert_eq!(f.n_active(), 0);
    assert!(close(f.avg(), 0.5));
}

// Fred::new rejects what the configuration rejects, naming the parameter (and min_th <= 0).
#[test]
fn new_rejects_bad_params() {
    let base = params(4.0, 8.0, 0.002, 0.02, 2.0);
    let cases: Vec<(FredParams, &str)> = vec![
        (FredParams { min_th: 8.0, ..base.clone() }, "min_th"),
        (FredParams { min_th: 9.0, ..base.clone() }, "min_th"),
        (FredParams { min_th: 0.0, ..base.clone() }, "min_th"),
        (FredParams { max_th: f64::NAN, ..base.clone() }, "max_th"),
        (FredParams { w_q: 0.0, ..base.clone() }, "w_q"),
        (FredParams { max_p: 1.5, ..base.clone() }, "max_p"),
        (FredParams { min_q: 0.0, ..base.clone() }, "min_q"),
        (FredParams { max_pkt_size: 0, ..base.clone() }, "max_pkt_size"),
        (FredParams { idle_pkt_time: 0.0, ..base.clone() }, "idle_pkt_time"),
    ];
    for (p, name) in cases {
        let e = Fred::new(p, 1).unwrap_err();
        assert_eq!(e.param(), Some(name), "{e}");
    }
    assert!(Fred::new(base, 1).is_ok());
}

// The optional double-sampling guard (footnote 1) skips an arrival's EWMA step on the queue a departure sampled at the same instant; by default both sample.
#[test]
fn double_sampling_guard() {
    for guard in [false, true] {
        let mut q = queue(params(4.0, 8.0, 0.5, 0.02, 2.0), 1);
        q.discipline_mut().set_avoid_double_sampling(guard);
        arrive(&mut q, 0, 1, 1000); // avg 0
        arrive(&mut q, 0, 2, 1000); // q = 1: 0.5
        q.dequeue(Time(MS)); // q = 1: 0.75
        arrive(&mut q, MS, 3, 1000); // q = 1 again, same instant
        let expected = if guard { 0.75 } else { 0.75 + 0.5 * (1.0 - 0.75) };
        assert!(
            close(q.discipline().avg(), expected),
            "guard {guard}: avg {}",
            q.discipline().avg()
        );
    }
}

#[derive(Clone, Debug)]
enum Op {
    Arrive { size: u32, flow: u32, ecn: bool, dt: u64 },
    Depart { dt: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (40u32..1500, 0u32..20, any::<bool>(), 0u64..2 * MS).prop_map(|(size, flow, ecn, dt)| Op::Arrive { size, flow, ecn, dt }),
        2 => (0u64..3 * MS).prop_map(|dt| Op::Depart { dt }),
    ]
}

fn fred_params() -> impl Strategy<Value = FredParams> {
    (
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(0.002), Just(0.1), Just(1.0)],
        prop_oneof![Just(0.02), Just(0.5), Just(1.0)],
        1u32..6,
        prop_oneof![Just(None), (1u32..40).prop_map(Some)],
        prop_oneof![Just(None), (1500u64..40_000).prop_map(Some)],
    )
        .prop_map(|(byte_mode, many_flows, w_q, max_p, min_th, packets, bytes)| {
            let scale = if byte_mode { 1000.0 } else { 1.0 };
            let bytes = if packets.is_none() && bytes.is_none() { Some(20_000) } else { bytes };
            FredParams {
                min_th: min_th as f64 * scale,
                max_th: 2.0 * min_th as f64 * scale,
                w_q,
                max_p,
                limit: Limit { packets, bytes },
                min_q: 2.0 * scale,
                many_flows,
                byte_mode,
                max_pkt_size: 1000,
                idle_pkt_time: 0.0004,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    // Random arrivals and departures never exceed the limit, keep every flow's qlen equal to its buffered packets (bytes), Nactive equal to the flows buffered, and never panic.
    #[test]
    fn random_sequences_keep_invariants(p in fred_params(), ops in proptest::collection::vec(op(), 1..500), seed in any::<u64>()) {
        let limit = p.limit;
        let byte_mode = p.byte_mode;
        let unit = if byte_mode { 1000.0 } else { 1.0 };
        let mut q: Queue<PacketInfo, Fred> = Queue::new(Fred::new(p, seed).unwrap());
        let mut now = 0u64;
        for op in ops {
            match op {
                Op::Arrive { size, flow, ecn, dt } => {
                    now += dt;
                    let v = q.enqueue(Time(now), PacketInfo { size, flow, ecn_capable: ecn, ect1: false, ce: false }, |_, _| {});
                    prop_assert!(matches!(v, Verdict::Enqueue | Verdict::Drop(_)), "FRED answered {:?}", v);
                }
                Op::Depart { dt } => {
                    now += dt;
                    q.dequeue(Time(now));
                }
            }
            if let Some(pk) = limit.packets {
                prop_assert!(q.len_packets() as u32 <= pk);
            }
            if let Some(b) = limit.bytes {
                prop_assert!(q.len_bytes() <= b);
            }
            let mut per_flow: HashMap<u32, f64> = HashMap::new();
            for pkt in q.iter() {
                *per_flow.entry(pkt.flow).or_default() += if byte_mode { pkt.size as f64 } else { 1.0 };
            }
            let fred = q.discipline();
            for f in 0..20u32 {
                prop_assert_eq!(fred.flow_qlen(f), per_flow.get(&f).copied(), "flow {}", f);
            }
            let total: f64 = per_flow.values().sum();
            let queue_len = if byte_mode { q.len_bytes() as f64 } else { q.len_packets() as f64 };
            prop_assert_eq!(total, queue_len);
            prop_assert_eq!(fred.n_active(), per_flow.len());
            prop_assert!(fred.avg().is_finite() && fred.avg() >= 0.0);
            prop_assert!(fred.avgcq() >= unit);
            let s = *q.stats();
            prop_assert_eq!(s.arrivals, s.departures + s.drops() + q.len_packets() as u64);
        }
    }
}
