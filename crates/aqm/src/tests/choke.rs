//! CHOKe's behaviour derived from Pan, Prabhakar & Psounis 2000.

use super::*;
use crate::common::{IdleRule, Limit, MarkMethod};
use crate::red::CountMode;

fn red(min_th: f64, max_th: f64, max_p: f64) -> RedParams {
    RedParams {
        min_th,
        max_th,
        w_q: 1.0,
        max_p,
        limit: Limit { packets: Some(10_000), bytes: None },
        gentle: false,
        ecn: false,
        byte_mode: false,
        queue_in_bytes: false,
        mark_method: MarkMethod::Uniform,
        count_mode: CountMode::Text,
        efficient: false,
        drop_front: false,
        min_backlog: 0,
        idle_rule: IdleRule::Figure2,
        idle_pkt_time: 1e-4,
        max_pkt_size: 1500,
        mean_pkt_size: 1000,
    }
}

/// A CHOKe holding `n` packets, `k` of them from flow 1 (spread through the queue).
fn filled(n: usize, k: usize, candidates: u32) -> Choke<PacketInfo> {
    let mut q = Choke::new(red(1.0, 1e6, 1e-9), candidates, 1).unwrap();
    for i in 0..n {
        let flow = if i * k / n != (i + 1) * k / n { 1 } else { 2 + i as u32 };
        q.queue.hold(Time::ZERO, PacketInfo::new(1000, flow), false);
    }
    assert_eq!(q.queue.iter().filter(|h| h.pkt.flow == 1).count(), k);
    q
}

/// Matches of a flow-1 arrival over `trials` seeded trials on copies of `base`.
fn measure(base: &Choke<PacketInfo>, trials: u64) -> u64 {
    let mut hits = 0;
    for t in 0..trials {
        let mut q = base.clone();
        q.rng = common::rng_from_seed(t);
        let mut gone = Vec::new();
        let v = q.enqueue(Time(1), PacketInfo::new(1000, 1), &mut |p, _| gone.push(p.flow));
        if q.matched == 1 {
            assert_eq!(v, Verdict::Drop(DropReason::Early));
            // The arrival and every matched candidate, all of flow 1.
            assert!(gone.len() >= 2 && gone.iter().all(|f| *f == 1), "{gone:?}");
            assert_eq!(q.backlog().packets as usize, base.queue.len() + 1 - gone.len());
            hits += 1;
        }
    }
    hits
}

#[test]
fn match_probability_is_the_flows_share_of_the_queue() {
    let trials = 20_000u64;
    // z for a two-sided 1e-5 level: a correct implementation fails once in 1e5 seeds.
    let z = 4.42;
    for (n, k) in [(50, 15), (80, 8), (40, 20), (60, 1)] {
        let f = k as f64 / n as f64;
        let hits = measure(&filled(n, k, 1), trials) as f64;
        let sd = (trials as f64 * f * (1.0 - f)).sqrt();
        assert!((hits - trials as f64 * f).abs() <= z * sd, "f = {f}: {hits} of {trials}");
    }
    assert_eq!(measure(&filled(30, 0, 1), 500), 0, "no packet of the flow, no match");
    assert_eq!(measure(&filled(30, 30, 1), 500), 500, "only the flow's packets, always");
}

#[test]
fn m_candidates_match_with_one_minus_the_miss_probability_to_the_m() {
    let trials = 20_000u64;
    let (n, k, m) = (50, 10, 3);
    let f = k as f64 / n as f64;
    let p = 1.0 - (1.0 - f).powi(m as i32);
    let hits = measure(&filled(n, k, m), trials) as f64;
    let sd = (trials as f64 * p * (1.0 - p)).sqrt();
    assert!((hits - trials as f64 * p).abs() <= 4.42 * sd, "{hits} vs {}", trials as f64 * p);
}

#[test]
fn below_min_th_nothing_is_compared() {
    let mut q = Choke::new(red(100.0, 200.0, 0.1), 1, 3).unwrap();
    for i in 0..50 {
        let v = q.enqueue(Time(i), PacketInfo::new(1000, 1), &mut |_, _| {});
        assert_eq!(v, Verdict::Enqueue);
    }
    assert_eq!(q.matched, 0);
}

#[test]
fn stats_account_for_both_packets_of_a_match() {
    let mut q = Choke::new(red(5.0, 30.0, 0.1), 1, 9).unwrap();
    let mut dropped = 0u64;
    for i in 0..20_000u64 {
        let flow = if i % 2 == 0 { 0 } else { 1 + (i % 7) as u32 };
        q.enqueue(Time(i * 1000), PacketInfo::new(1000, flow), &mut |_, _| dropped += 1);
        if i % 3 != 0 {
            q.dequeue(Time(i * 1000), &mut |_, _| {});
        }
    }
    let s = *q.stats();
    assert!(q.matched > 0);
    assert_eq!(s.arrivals + q.matched, s.enqueued + s.drops(), "{s:?}");
    assert_eq!(s.drops(), dropped);
    assert_eq!(s.enqueued, s.departures + q.backlog().packets as u64 + q.matched);
}

#[test]
fn invalid_candidates_are_refused() {
    let e = Choke::<PacketInfo>::new(red(5.0, 15.0, 0.1), 0, 1).unwrap_err();
    assert_eq!(e.param(), Some("candidates"));
}
