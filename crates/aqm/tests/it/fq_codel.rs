//! The flow-queue scheduler and FQ-CoDel (RFC 8290): DRR's byte-fair shares, the
//! priority of new flows, the list rules, the drops from the fattest flow, the memory
//! limit, the flow hash, the per-flow AQM's periodic work.

use aqm::codel::CodelParams;
use aqm::fq::{FlowAqm, FlowList, Fq, FqParams};
use aqm::fq_codel::{FqCodel, fq_codel};
use aqm::{
    Backlog, DropReason, Duration, Packet, PacketInfo, PacketQueue, Qdisc, QueueStats, Time,
    Verdict,
};

/// A packet with a sequence number, to tell which packets went.
#[derive(Clone, Copy, Debug, PartialEq)]
struct P {
    info: PacketInfo,
    seq: u32,
}

impl Packet for P {
    fn info(&self) -> PacketInfo {
        self.info
    }
}

fn p(flow: u32, size: u32, seq: u32) -> P {
    P { info: PacketInfo { size, flow, ecn_capable: false, ect1: false, ce: false }, seq }
}

fn fq(params: FqParams) -> FqCodel<P> {
    fq_codel(params, CodelParams::default()).unwrap()
}

/// `n` flow ids whose buckets differ.
fn distinct_flows(q: &FqCodel<P>, n: usize) -> Vec<u32> {
    let mut ids: Vec<u32> = Vec::new();
    for id in 1.. {
        if ids.iter().all(|&j| q.bucket(j) != q.bucket(id)) {
            ids.push(id);
        }
        if ids.len() == n {
            break;
        }
    }
    ids
}

fn no_drop(_: P, _: DropReason) {
    panic!("no drop expected");
}

/// Section 4.2, DRR: flows with different packet sizes, all backlogged, get equal
/// bytes. After every turn a flow's deficit is in (-max packet, 0], so after k turns
/// it has sent [kQ, kQ + max) bytes; mid-turn one flow may be ahead by less than
/// Q + max. Checked after every dequeue.
#[test]
fn drr_shares_are_byte_fair() {
    let mut q = fq(FqParams::default());
    let sizes = [1500u32, 576, 200];
    let ids = distinct_flows(&q, sizes.len());
    for (k, (&id, &size)) in ids.iter().zip(&sizes).enumerate() {
        for i in 0..(300_000 / size) {
            q.enqueue(Time(0), p(id, size, i + 1_000_000 * k as u32), &mut no_drop);
        }
    }
    let quantum = q.params().quantum as u64;
    let max = *sizes.iter().max().unwrap() as u64;
    let mut sent = [0u64; 3];
    // Dequeue at the arrival time (sojourn 0: CoDel stays out of the way) until a
    // flow could run out: 200 kB each.
    while sent.iter().all(|&b| b < 200_000) {
        let d = q.dequeue(Time(0), &mut no_drop).unwrap();
        let k = ids.iter().position(|&id| id == d.pkt.info.flow).unwrap();
        sent[k] += d.pkt.info.size as u64;
        let (lo, hi) = (sent.iter().min().unwrap(), sent.iter().max().unwrap());
        assert!(hi - lo < quantum + max, "{sent:?}");
    }
    // Over the run the shares are equal within one quantum and packet per flow.
    let total: u64 = sent.iter().sum();
    for b in sent {
        let share = b as f64 / total as f64;
        assert!((share - 1.0 / 3.0).abs() < (quantum + max) as f64 / total as f64, "{sent:?}");
    }
}

/// A new (sparse) flow's packet goes before the backlogged flows' packets: the new
/// list is served first (Section 4.2).
#[test]
fn a_new_flow_goes_first() {
    let mut q = fq(FqParams::default());
    let ids = distinct_flows(&q, 3);
    let (a, b, c) = (ids[0], ids[1], ids[2]);
    for i in 0..50 {
        q.enqueue(Time(0), p(a, 1500, i), &mut no_drop);
        q.enqueue(Time(0), p(b, 1500, 100 + i), &mut no_drop);
    }
    // Serve until both backlogged flows are on the old list.
    let mut n = 0;
    while !q.lists().0.is_empty() {
        q.dequeue(Time(0), &mut no_drop).unwrap();
        n += 1;
    }
    assert!(n >= 2);
    let (ba, bb, bc) = (q.bucket(a), q.bucket(b), q.bucket(c));
    assert_eq!(q.flow(ba).list, FlowList::Old);
    assert_eq!(q.flow(bb).list, FlowList::Old);
    q.enqueue(Time(0), p(c, 100, 999), &mut no_drop);
    assert_eq!(q.flow(bc).list, FlowList::New);
    assert_eq!(q.flow(bc).deficit, q.params().quantum as i64);
    let d = q.dequeue(Time(0), &mut no_drop).unwrap();
    assert_eq!(d.pkt.seq, 999);
    // Its queue now empty, the new flow moves to the tail of the old list at its next
    // turn (it cannot stay new), and leaves the lists at its turn there.
    q.dequeue(Time(0), &mut no_drop).unwrap();
    assert_eq!(q.flow(bc).list, FlowList::Old);
    assert!(q.lists().1.contains(&(bc as u32)));
    while q.flow(bc).list == FlowList::Old {
        q.dequeue(Time(0), &mut no_drop).unwrap();
    }
    assert_eq!(q.flow(bc).list, FlowList::Inactive);
    assert!(!q.lists().1.contains(&(bc as u32)));
}

/// Over the limit, packets go from the head of the flow with the most bytes: up to
/// drop_batch_size of them, stopping once half of its bytes are gone (Section 4.1,
/// Linux's batch); the arrival stays (an eviction) unless it was the batch's own.
#[test]
fn overflow_drops_from_the_fattest_flow() {
    for batch in [64u32, 4] {
        let params = FqParams { limit: 20, drop_batch_size: batch, ..FqParams::default() };
        let mut q = fq(params);
        let ids = distinct_flows(&q, 2);
        let (a, b) = (ids[0], ids[1]);
        for i in 0..12 {
            q.enqueue(Time(0), p(a, 1000, i), &mut no_drop);
        }
        for i in 0..8 {
            q.enqueue(Time(0), p(b, 1000, 100 + i), &mut no_drop);
        }
        let mut dropped = Vec::new();
        let v = q.enqueue(Time(1), p(b, 1000, 200), &mut |pk, r| dropped.push((pk, r)));
        assert_eq!(v, Verdict::Evict { victim: 0 });
        // The fattest flow held 12 kB: half is 6 packets, or the batch if smaller.
        let half = (1..).find(|k| k * 1000 >= 12 * 1000 / 2).unwrap();
        let expect: Vec<u32> = (0..half.min(batch)).collect();
        let got: Vec<u32> = dropped.iter().map(|(pk, _)| pk.seq).collect();
        assert_eq!(got, expect);
        assert!(dropped.iter().all(|(pk, r)| pk.info.flow == a && *r == DropReason::Overflow));
        assert_eq!(q.backlog().packets, 21 - expect.len() as u32);
        assert_eq!(q.stats().overflow_drops, expect.len() as u64);
    }
    // The arrival alone makes its flow the fattest: it is the one dropped.
    let mut q = fq(FqParams { limit: 1, ..FqParams::default() });
    let ids = distinct_flows(&q, 2);
    q.enqueue(Time(0), p(ids[0], 500, 0), &mut no_drop);
    let mut dropped = Vec::new();
    let v = q.enqueue(Time(0), p(ids[1], 1500, 1), &mut |pk, _| dropped.push(pk.seq));
    assert_eq!(v, Verdict::Drop(DropReason::Overflow));
    assert_eq!(dropped, vec![1]);
    let s = q.stats();
    assert_eq!((s.arrivals, s.enqueued, s.overflow_drops), (2, 1, 1));
}

/// The memory limit bounds the bytes held; what goes is taken from the fattest flow.
#[test]
fn memory_limit_holds() {
    let memory_limit = 20_000;
    let mut q = fq(FqParams { memory_limit, ..FqParams::default() });
    let ids = distinct_flows(&q, 3);
    let mut drops = 0;
    for i in 0..600u32 {
        // Flow 0 sends three times as often as the others.
        let flow = ids[[0, 0, 0, 1, 2][i as usize % 5]];
        let bytes: Vec<u64> = ids.iter().map(|&f| q.flow(q.bucket(f)).queue.bytes()).collect();
        let mut after = bytes.clone();
        after[ids.iter().position(|&f| f == flow).unwrap()] += 1000;
        // The first bucket with the most bytes.
        let key = |k: usize| (after[k], std::cmp::Reverse(q.bucket(ids[k])));
        let fattest = ids[(0..ids.len()).max_by_key(|&k| key(k)).unwrap()];
        q.enqueue(Time(i as u64), p(flow, 1000, i), &mut |pk, r| {
            assert_eq!(r, DropReason::Overflow);
            assert_eq!(pk.info.flow, fattest);
            drops += 1;
        });
        assert!(q.backlog().bytes <= memory_limit);
        if i % 7 == 0 {
            q.dequeue(Time(i as u64), &mut no_drop);
        }
    }
    assert!(drops > 100);
}

/// The bucket of a flow depends on the seed only through the salt: the same seed
/// gives the same buckets, another seed other buckets, and flows spread evenly.
#[test]
fn the_flow_hash_is_seeded_and_even() {
    let a = fq(FqParams { seed: 7, ..FqParams::default() });
    let b = fq(FqParams { seed: 7, ..FqParams::default() });
    let c = fq(FqParams { seed: 8, ..FqParams::default() });
    let same = (0..1000).all(|f| a.bucket(f) == b.bucket(f));
    let moved = (0..1000).filter(|&f| a.bucket(f) != c.bucket(f)).count();
    assert!(same);
    assert!(moved > 900, "{moved}");
    // 102,400 flows in 1024 buckets: chi-square with 1023 degrees of freedom.
    let mut counts = vec![0u64; 1024];
    for f in 0..102_400 {
        counts[a.bucket(f)] += 1;
    }
    let chi2: f64 = counts.iter().map(|&n| (n as f64 - 100.0).powi(2) / 100.0).sum();
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let pval = 1.0 - ChiSquared::new(1023.0).unwrap().cdf(chi2);
    assert!(pval > 0.001, "chi2 = {chi2}, p = {pval}");
}

/// A per-flow AQM that counts its periodic calls, as FQ-PIE's would update PIE.
#[derive(Clone, Debug, Default)]
struct Ticks {
    polls: Vec<Time>,
}

impl FlowAqm for Ticks {
    type Params = Duration;
    fn new(_: &Duration, _: u32) -> Self {
        Ticks::default()
    }
    fn dequeue<Q: Packet>(
        &mut self,
        _: &Duration,
        now: Time,
        queue: &mut PacketQueue<Q>,
        _: &mut QueueStats,
        _: &mut dyn FnMut(Q, DropReason),
    ) -> Option<aqm::Dequeued<Q>> {
        let h = queue.pop_front()?;
        assert!(now >= h.enqueued_at);
        Some(aqm::Dequeued { pkt: h.pkt, marked: h.marked, enqueued_at: h.enqueued_at })
    }
    fn period(p: &Duration) -> Option<Duration> {
        Some(*p)
    }
    fn poll(&mut self, _: &Duration, now: Time, _: Backlog) {
        self.polls.push(now);
    }
}

/// Periodic work runs on every flow at each multiple of the period, whether the
/// owner polls at `poll_at` or only enqueues and dequeues (which catch up).
#[test]
fn periodic_work_reaches_every_flow() {
    let params = FqParams { flows: 8, ..FqParams::default() };
    let mut q: Fq<P, Ticks> = Fq::new(params, Duration(10)).unwrap();
    assert_eq!(q.poll_at(), Some(Time(10)));
    q.poll(Time(10));
    assert_eq!(q.poll_at(), Some(Time(20)));
    q.enqueue(Time(45), p(1, 100, 0), &mut no_drop);
    q.dequeue(Time(45), &mut no_drop).unwrap();
    for k in 0..8 {
        assert_eq!(q.flow(k).aqm.polls, vec![Time(10), Time(20), Time(30), Time(40)]);
    }
    assert_eq!(q.poll_at(), Some(Time(50)));
}

/// Invalid scheduler parameters are refused, naming the field.
#[test]
fn invalid_parameters_name_the_field() {
    let cases = [
        (FqParams { flows: 0, ..FqParams::default() }, "flows"),
        (FqParams { flows: 70_000, ..FqParams::default() }, "flows"),
        (FqParams { quantum: 0, ..FqParams::default() }, "quantum"),
        (FqParams { limit: 0, ..FqParams::default() }, "limit"),
        (FqParams { memory_limit: 0, ..FqParams::default() }, "memory_limit"),
        (FqParams { drop_batch_size: 0, ..FqParams::default() }, "drop_batch_size"),
    ];
    for (params, field) in cases {
        let e = fq_codel::<P>(params, CodelParams::default()).unwrap_err();
        assert_eq!(e.param(), Some(field));
    }
    let bad = CodelParams { interval: Duration(0), ..CodelParams::default() };
    assert_eq!(fq_codel::<P>(FqParams::default(), bad).unwrap_err().param(), Some("interval"));
}
