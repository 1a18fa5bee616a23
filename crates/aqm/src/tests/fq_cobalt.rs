//! FQ-COBALT: COBALT's events reach the flow they belong to (CAKE's `cake_drop` and
//! dequeue, over RFC 8290's scheduler).

use super::*;
use crate::packet::PacketInfo;
use crate::qdisc::Qdisc;
use crate::time::Duration;

const MS: u64 = 1_000_000;

fn fq(limit: u64) -> FqCobalt<PacketInfo> {
    let cfg = FqCobaltConfig { limit, ..FqCobaltConfig::default() };
    cfg.build::<PacketInfo>(&BuildContext::default()).unwrap()
}

/// Two flow ids that hash to different buckets.
fn two_flows(q: &FqCobalt<PacketInfo>) -> (u32, u32) {
    let b = (2..).find(|&f| q.bucket(f) != q.bucket(1)).unwrap();
    (1, b)
}

#[test]
fn overflow_steps_up_blue_in_the_fattest_flow_only() {
    let mut q = fq(4);
    let (a, b) = two_flows(&q);
    for f in [a, a, a, b] {
        q.enqueue(Time::ZERO, PacketInfo::new(1000, f), &mut |_, _| panic!("room"));
    }
    let mut dropped = Vec::new();
    q.enqueue(Time(MS), PacketInfo::new(1000, b), &mut |p, r| dropped.push((p.flow, r)));
    // The batch takes flow a's head until half its 3000 bytes are gone: two packets.
    assert_eq!(dropped, [(a, DropReason::Overflow), (a, DropReason::Overflow)]);
    let (fa, fb) = (&q.flow(q.bucket(a)).aqm.core, &q.flow(q.bucket(b)).aqm.core);
    assert_eq!(fa.p_drop, 1.0 / 256.0);
    assert!(fa.dropping && fa.count == 1 && fa.drop_next == Time(MS));
    assert_eq!(*fb, CobaltCore::new());
}

#[test]
fn a_flow_found_empty_steps_its_blue_down() {
    let mut q = fq(100);
    let (a, b) = two_flows(&q);
    q.enqueue(Time::ZERO, PacketInfo::new(1000, a), &mut |_, _| {});
    q.enqueue(Time::ZERO, PacketInfo::new(1000, b), &mut |_, _| {});
    let ia = q.bucket(a);
    q.flow_mut(ia).aqm.core.p_drop = 3.0 / 4096.0;
    // Both packets leave; the next dequeues find the flows empty.
    let now = Time(MS);
    let mut sent = 0;
    while q.dequeue(now, &mut |_, _| panic!("no drop")).is_some() {
        sent += 1;
    }
    assert_eq!(sent, 2);
    assert_eq!(q.flow(ia).aqm.core.p_drop, 2.0 / 4096.0);
    assert_eq!(q.flow(q.bucket(b)).aqm.core.p_drop, 0.0);
    // Once more later than target (5 ms): another step.
    q.enqueue(now, PacketInfo::new(1000, a), &mut |_, _| {});
    let later = now + Duration(6 * MS);
    while q.dequeue(later, &mut |_, _| {}).is_some() {}
    assert_eq!(q.flow(ia).aqm.core.p_drop, 1.0 / 4096.0);
}

#[test]
fn each_flow_runs_codel_on_its_own_sojourn_times() {
    let mut q = fq(10_000);
    let (a, b) = two_flows(&q);
    // Flow a's packets all wait 20 ms and more; flow b's arrive just before they leave.
    q.enqueue(Time::ZERO, PacketInfo::new(1000, a), &mut |_, _| {});
    q.dequeue(Time::ZERO, &mut |_, _| {});
    for t in 1..=40 {
        q.enqueue(Time(t * MS), PacketInfo::new(1000, a), &mut |_, _| {});
    }
    for t in 41..200 {
        let now = Time(t * MS);
        q.enqueue(now, PacketInfo::new(1000, a), &mut |_, _| {});
        q.enqueue(now, PacketInfo::new(1000, b), &mut |_, _| {});
        q.dequeue(now, &mut |_, _| {});
        q.dequeue(now, &mut |_, _| {});
    }
    let (fa, fb) = (&q.flow(q.bucket(a)).aqm.core, &q.flow(q.bucket(b)).aqm.core);
    assert!(fa.dropping && fa.count > 1, "{fa:?}");
    assert!(!fb.dropping && fb.count == 0, "{fb:?}");
}
