//! COBALT's behaviour derived from its description (`sch_cake.c`'s `cobalt_*`
//! functions; ns-3's `BlueThreshold`): CoDel's control law, BLUE's steps and drops, ECN.

use super::*;
use crate::config::QueueConfig;
use crate::packet::PacketInfo;

const MS: u64 = 1_000_000;

fn ms(t: f64) -> Time {
    Time((t * MS as f64).round() as u64)
}

/// CAKE's parameters: target 5 ms, interval 100 ms, p_inc 1/256, p_dec 1/4096, and the
/// 400 ms BLUE timeout.
fn params(ecn: bool) -> CobaltParams {
    CobaltParams {
        target: Duration(5 * MS),
        interval: Duration(100 * MS),
        ecn,
        p_inc: 1.0 / 256.0,
        p_dec: 1.0 / 4096.0,
        blue_timeout: Duration(400 * MS),
    }
}

fn pkt(ecn: bool) -> PacketInfo {
    PacketInfo { ecn_capable: ecn, ..PacketInfo::new(1000, 1) }
}

/// What happened at each dequeue instant (ms): drops and marks.
#[derive(Default, Debug)]
struct Trace {
    drops: Vec<(u64, DropReason)>,
    marks: Vec<u64>,
}

/// A queue whose first packet leaves at once (starting CoDel's activity timer: due
/// `interval` later), then 20 packets queued 1 ms apart, then from 21 ms to `end` ms
/// one arrival and one dequeue each millisecond: the head has waited 20 ms at first
/// (over target), a millisecond less after each drop.
fn standing_queue(ecn: bool, end: u64) -> (Cobalt<PacketInfo>, Trace) {
    let mut q = Cobalt::new(params(ecn), 1000, 1).unwrap();
    let mut trace = Trace::default();
    q.enqueue(Time::ZERO, pkt(ecn), &mut |_, _| {});
    assert!(q.dequeue(Time::ZERO, &mut |_, _| panic!("no drop")).is_some());
    for t in 1..=20 {
        q.enqueue(Time(t * MS), pkt(ecn), &mut |_, _| {});
    }
    for t in 21..end {
        let now = Time(t * MS);
        q.enqueue(now, pkt(ecn), &mut |_, _| {});
        let d = q.dequeue(now, &mut |_, r| trace.drops.push((t, r))).unwrap();
        if d.marked {
            trace.marks.push(t);
        }
    }
    (q, trace)
}

/// The control law written from RFC 8289 Section 4.5, as COBALT schedules it: the first
/// signal `interval` after the first packet over target (21 ms), each next one
/// `interval / sqrt(count)` after the previous due time, `count` the signals so far
/// plus one; a signal lands on the first whole millisecond at or after its due time.
fn due_instants(until: f64) -> Vec<u64> {
    let mut due = 21.0 + 100.0;
    let mut count = 1.0_f64;
    let mut out = Vec::new();
    while due < until {
        out.push(due.ceil() as u64);
        count += 1.0;
        due += 100.0 / count.sqrt();
    }
    out
}

#[test]
fn codel_signals_follow_the_control_law() {
    let (q, trace) = standing_queue(false, 500);
    let expected = due_instants(500.0);
    assert_eq!(expected[..3], [121, 192, 250]);
    let instants: Vec<u64> = trace.drops.iter().map(|d| d.0).collect();
    assert_eq!(instants, expected);
    assert!(trace.drops.iter().all(|d| d.1 == DropReason::Forced));
    assert!(trace.marks.is_empty());
    // Each drop added one to count (from 1 when the dropping state began).
    assert_eq!(q.core().count as usize, expected.len() + 1);
    assert_eq!(q.core().p_drop, 0.0, "no overflow, no sojourn above 400 ms");
    assert_eq!(q.stats().forced_drops as usize, expected.len());
}

#[test]
fn ecn_capable_packets_are_marked_on_the_same_schedule() {
    let (q, trace) = standing_queue(true, 500);
    assert_eq!(trace.marks, due_instants(500.0));
    assert!(trace.drops.is_empty());
    assert_eq!(q.stats().marks as usize, trace.marks.len());
    // Without `ecn`, an ECN-capable packet is dropped as any other.
    let mut q = Cobalt::new(CobaltParams { ecn: false, ..params(true) }, 1000, 1).unwrap();
    q.enqueue(Time::ZERO, pkt(true), &mut |_, _| {});
    q.dequeue(Time::ZERO, &mut |_, _| {});
    for t in 1..=20 {
        q.enqueue(Time(t * MS), pkt(true), &mut |_, _| {});
    }
    let mut drops = 0;
    for t in 21..130 {
        q.enqueue(Time(t * MS), pkt(true), &mut |_, _| {});
        assert!(!q.dequeue(Time(t * MS), &mut |_, _| drops += 1).unwrap().marked);
    }
    assert_eq!(drops, 1, "the first signal, at 121 ms, is a drop");
}

#[test]
fn below_target_the_count_decays_one_per_due_time() {
    let (mut q, _) = standing_queue(false, 500);
    let count = q.core().count;
    let next = q.core().drop_next;
    // Empty the queue, then dequeue a packet that waited 1 ms: under target.
    while q.queue.pop_front().is_some() {}
    let now = next + Duration(MS);
    q.enqueue(now, pkt(false), &mut |_, _| {});
    let later = now + Duration(MS);
    q.dequeue(later, &mut |_, _| panic!("under target: no drop"));
    assert!(!q.core().dropping);
    // One due time had passed: count - 1, the next due interval / sqrt(count - 1) on.
    assert_eq!(q.core().count, count - 1);
    let gap = 100.0 * MS as f64 / ((count - 1) as f64).sqrt();
    assert_eq!(q.core().drop_next, next + Duration(gap as u64));
}

#[test]
fn overflow_raises_p_drop_by_p_inc_at_most_once_per_target() {
    let mut q = Cobalt::new(params(false), 2, 1).unwrap();
    let mut overflows = 0;
    for t in [0.0, 0.0, 1.0, 4.0, 6.0, 6.5, 11.6] {
        q.enqueue(ms(t), pkt(false), &mut |_, r| {
            assert_eq!(r, DropReason::Overflow);
            overflows += 1;
        });
    }
    // Overflows at 1, 4, 6, 6.5 and 11.6 ms: a step at 1 ms, none at 4 or at 6 (not
    // more than 5 ms after it), one at 6.5 and one at 11.6 (5.1 ms after 6.5).
    assert_eq!((overflows, q.stats().enqueued), (5, 2));
    assert_eq!(q.core().p_drop, 3.0 / 256.0);
    assert_eq!(q.core().blue_timer, Some(ms(11.6)));
    // The overflow starts CoDel's dropping state with a signal due now.
    assert!(q.core().dropping && q.core().count == 1 && q.core().drop_next == ms(11.6));
    // p_drop stops at 1.
    let mut core = CobaltCore { p_drop: 1.0 - 1.0 / 512.0, ..CobaltCore::new() };
    core.queue_full(&params(false), Time::ZERO);
    assert_eq!(core.p_drop, 1.0);
}

#[test]
fn an_empty_queue_lowers_p_drop_by_p_dec_at_most_once_per_target() {
    let p = params(false);
    let mut q = Cobalt::<PacketInfo>::new(p.clone(), 10, 1).unwrap();
    q.core_mut().p_drop = 2.0 / 4096.0 + 1.0 / 8192.0;
    for t in [10.0, 12.0, 15.5, 21.0] {
        assert!(q.dequeue(ms(t), &mut |_, _| {}).is_none());
    }
    // Steps at 10, 15.5 and 21 ms (more than 5 ms after the previous), not at 12; the
    // third finds less than p_dec left and stops at 0.
    assert_eq!(q.core().p_drop, 0.0);
    assert_eq!(q.core().blue_timer, Some(ms(21.0)));
    let mut core = CobaltCore { p_drop: 3.0 / 4096.0, ..CobaltCore::new() };
    core.queue_empty(&p, ms(10.0));
    core.queue_empty(&p, ms(12.0));
    assert_eq!(core.p_drop, 2.0 / 4096.0);
}

#[test]
fn a_sojourn_above_blue_timeout_raises_p_drop() {
    let mut q = Cobalt::new(params(false), 1000, 1).unwrap();
    for _ in 0..3 {
        q.enqueue(Time::ZERO, pkt(false), &mut |_, _| {});
    }
    // 400 ms exactly is not above the timeout.
    q.dequeue(ms(400.0), &mut |_, _| {});
    assert_eq!(q.core().p_drop, 0.0);
    q.dequeue(ms(400.001), &mut |_, _| {});
    assert_eq!(q.core().p_drop, 1.0 / 256.0);
    assert_eq!(q.core().blue_timer, Some(ms(400.001)));
}

/// Dequeues of packets under target with `p_drop` set: the fraction dropped.
fn blue_drop_fraction(p_drop: f64, ecn: bool, n: u32) -> (f64, u64) {
    let mut q = Cobalt::new(params(ecn), 1000, 7).unwrap();
    q.core_mut().p_drop = p_drop;
    let mut dropped = 0u32;
    for i in 0..n as u64 {
        let now = Time(i * MS);
        // two packets, so that the first may be dropped (the last never is)
        q.enqueue(now, pkt(ecn), &mut |_, _| {});
        q.enqueue(now, pkt(ecn), &mut |_, _| {});
        q.dequeue(now, &mut |_, r| {
            assert_eq!(r, DropReason::Early);
            dropped += 1;
        });
        q.queue.pop_front();
        q.core_mut().p_drop = p_drop; // no queue-empty step between the trials
    }
    (dropped as f64 / n as f64, q.stats().marks)
}

#[test]
fn blue_drops_with_probability_p_drop_even_ecn_capable_packets() {
    let n = 20_000;
    for (p, ecn) in [(0.25, false), (0.25, true), (1.0 / 256.0, false)] {
        let (f, marks) = blue_drop_fraction(p, ecn, n);
        // four binomial standard deviations
        let tol = 4.0 * (p * (1.0 - p) / n as f64).sqrt();
        assert!((f - p).abs() < tol, "p {p}: fraction {f}");
        assert_eq!(marks, 0, "BLUE drops, never marks");
    }
    assert_eq!(blue_drop_fraction(0.0, false, 1000).0, 0.0);
}

#[test]
fn the_last_packet_is_never_dropped() {
    let mut q = Cobalt::new(params(false), 1000, 1).unwrap();
    q.core_mut().p_drop = 1.0;
    for _ in 0..3 {
        q.enqueue(Time::ZERO, pkt(false), &mut |_, _| {});
    }
    let mut drops = 0;
    let d = q.dequeue(ms(1.0), &mut |_, _| drops += 1);
    assert!(d.is_some() && drops == 2 && q.backlog().packets == 0);
}

#[test]
fn same_seed_same_drops() {
    let run = |seed| {
        let mut q = Cobalt::new(params(false), 1000, seed).unwrap();
        q.core_mut().p_drop = 0.5;
        let mut out = Vec::new();
        for i in 0..200 {
            q.enqueue(Time(i), pkt(false), &mut |_, _| {});
        }
        // true for each packet dropped, false for each sent
        while q.dequeue(Time(300), &mut |_, _| out.push(true)).is_some() {
            out.push(false);
        }
        out
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

#[test]
fn the_configuration_reads_validates_and_builds() {
    let cfg: QueueConfig = toml::from_str("type = \"cobalt\"").unwrap();
    let QueueConfig::Cobalt(c) = &cfg else { panic!("{cfg:?}") };
    assert_eq!(c.cobalt.params().unwrap(), params(true), "CAKE's defaults, ECN on");
    assert_eq!(cfg.limit_packets(), Some(1000));
    assert!(cfg.holds_packets() && cfg.may_evict());
    let q = cfg.build_qdisc::<PacketInfo>(&BuildContext::default()).unwrap();
    assert_eq!(q.kind(), "cobalt");
    for (bad, key) in [
        ("p_inc = 0.0", "p_inc"),
        ("p_dec = 1.5", "p_dec"),
        ("blue_timeout = 0", "blue_timeout"),
        ("target = 0", "target"),
        ("limit = 0", "limit"),
    ] {
        let cfg: QueueConfig = toml::from_str(&format!("type = \"cobalt\"\n{bad}")).unwrap();
        let e = cfg.build_qdisc::<PacketInfo>(&BuildContext::default()).unwrap_err();
        assert_eq!(e.param(), Some(key), "{bad}: {e}");
    }
}
