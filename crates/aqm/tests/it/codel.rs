//! CoDel (RFC 8289): the drop schedule, the conditions for dropping, the count
//! carry-over, ECN, each derived from the RFC's rules and computed here.

use aqm::codel::{Codel, CodelCore, CodelParams};
use aqm::{DropReason, Duration, Held, PacketInfo, PacketQueue, Qdisc, QueueStats, Time, Verdict};

const MS: u64 = 1_000_000;

fn pkt(size: u32, ecn: bool) -> PacketInfo {
    PacketInfo { size, flow: 0, ecn_capable: ecn, ect1: false, ce: false }
}

fn codel(params: CodelParams, limit: u64) -> Codel<PacketInfo> {
    Codel::new(params, limit).unwrap()
}

/// Feed `q` 1000-byte packets every `arrive_every` ns and dequeue every `depart_every`
/// ns (at odd offsets from the arrivals), until `until`. Returns the times of the
/// dequeue calls that dropped, one entry per drop, and the packets sent (time, marked).
fn run(
    q: &mut Codel<PacketInfo>,
    ecn: bool,
    arrive_every: u64,
    depart_every: u64,
    until: u64,
) -> (Vec<u64>, Vec<(u64, bool)>) {
    let (mut drops, mut sent) = (Vec::new(), Vec::new());
    let (mut ta, mut td) = (0u64, depart_every / 2 + 1);
    while ta < until || td < until {
        if ta <= td {
            q.enqueue(Time(ta), pkt(1000, ecn), &mut |_, _| panic!("no overflow here"));
            ta += arrive_every;
        } else {
            let mut n = 0;
            if let Some(d) = q.dequeue(Time(td), &mut |_, r| {
                assert_eq!(r, DropReason::Forced);
                n += 1;
            }) {
                sent.push((td, d.marked));
            }
            drops.extend(std::iter::repeat_n(td, n));
            td += depart_every;
        }
    }
    (drops, sent)
}

/// Under constant overload (arrivals at twice the service rate) CoDel enters the
/// dropping state at the first dequeue an interval after the sojourn time first
/// reached target, then drops at the control law's times: the k-th gap is
/// interval / sqrt(k) after the previous *scheduled* drop (Section 4.5), each drop
/// happening at the first dequeue at or after its scheduled time.
#[test]
fn drop_schedule_follows_the_control_law() {
    let p = CodelParams::default();
    let mut q = codel(p.clone(), 100_000);
    let depart_every = MS; // 1000-byte packets at 8 Mb/s
    let (drops, sent) = run(&mut q, false, MS / 2, depart_every, 3_000 * MS);
    // The first dequeue with a sojourn time >= target and more than maxpacket bytes
    // left: sojourn grows by half a millisecond per departure.
    let first_dq = depart_every / 2 + 1;
    let first_above = (0..)
        .map(|k| first_dq + k * depart_every)
        .find(|&t| {
            // the k-th departure sends the packet that arrived at k * 0.5 ms
            let k = (t - first_dq) / depart_every;
            t - k * (MS / 2) >= p.target.0
        })
        .unwrap();
    let grid = |t: f64| {
        // the first dequeue at or after t
        let k = ((t - first_dq as f64) / depart_every as f64).ceil() as u64;
        first_dq + k * depart_every
    };
    let enter = grid((first_above + p.interval.0) as f64);
    let mut expected = vec![enter];
    let mut scheduled = enter as f64;
    for count in 1..drops.len() {
        scheduled += p.interval.0 as f64 / (count as f64).sqrt();
        expected.push(grid(scheduled));
    }
    assert!(drops.len() > 60, "{} drops", drops.len());
    assert_eq!(drops, expected);
    assert_eq!(q.core().count as usize, drops.len());
    // Everything else was sent; the state machine never left the dropping state.
    assert!(q.core().dropping);
    assert!(sent.iter().all(|(_, m)| !m));
    let s = q.stats();
    assert_eq!(s.forced_drops as usize, drops.len());
    assert_eq!(s.enqueued, s.departures + s.drops() + q.backlog().packets as u64);
}

/// Sojourn times below target never cause a drop, however long they last; nor do
/// sojourn times above target for less than one interval.
#[test]
fn no_drop_below_target_or_for_less_than_an_interval() {
    let p = CodelParams::default();
    // Arrivals slightly slower than departures: the queue never builds.
    let mut q = codel(p.clone(), 1000);
    let (drops, sent) = run(&mut q, false, MS + 1000, MS, 5_000 * MS);
    assert!(drops.is_empty());
    assert!(sent.len() > 4000);
    // A backlog whose head has waited between target and target + interval/2, for
    // 0.9 interval, then drains: no drop. Driven on the core with chosen sojourn times.
    let mut core = CodelCore::new();
    let mut stats = QueueStats::default();
    let above = (p.interval.0 * 9 / 10) / MS;
    for t in 0..above {
        let d = dequeue_with_sojourn(&mut core, &p, &mut stats, t * MS, p.target.0 + t * 1000);
        assert!(d.is_empty(), "dropped at {t} ms");
    }
    for t in above..above + 1000 {
        let d = dequeue_with_sojourn(&mut core, &p, &mut stats, t * MS, p.target.0 / 2);
        assert!(d.is_empty(), "dropped at {t} ms");
    }
    // Above target for exactly one interval: the first dequeue at first_above +
    // interval drops.
    let t0 = 2000 * MS;
    for i in 0..=p.interval.0 / MS {
        let d = dequeue_with_sojourn(&mut core, &p, &mut stats, t0 + i * MS, p.target.0);
        assert_eq!(d.len(), usize::from(i == p.interval.0 / MS), "at {i} ms");
    }
}

/// One dequeue of `core` at `now` from a fresh queue of ten 1000-byte packets whose
/// sojourn time is `sojourn` (so more than maxpacket bytes stay behind the head).
/// Returns the packets dropped. The core sees `now` plus a fixed offset.
fn dequeue_with_sojourn(
    core: &mut CodelCore,
    p: &CodelParams,
    stats: &mut QueueStats,
    now: u64,
    sojourn: u64,
) -> Vec<PacketInfo> {
    // Times are offset so that every packet arrived after time 0.
    let now = now + 10_000 * MS;
    let mut q = PacketQueue::default();
    for _ in 0..10 {
        q.push(Held { pkt: pkt(1000, false), marked: false, enqueued_at: Time(now - sojourn) });
    }
    let mut dropped = Vec::new();
    core.dequeue(p, Time(now), &mut q, stats, &mut |pk, _| dropped.push(pk));
    dropped
}

/// Drop times of `core` driven each millisecond from `from` to `to` (ms) with a head
/// sojourn time of `sojourn`.
fn drive(core: &mut CodelCore, p: &CodelParams, from: u64, to: u64, sojourn: u64) -> Vec<u64> {
    let mut stats = QueueStats::default();
    let mut out = Vec::new();
    for t in from..to {
        let n = dequeue_with_sojourn(core, p, &mut stats, t * MS, sojourn).len();
        out.extend(std::iter::repeat_n(t * MS, n));
    }
    out
}

/// Re-entering the dropping state soon after leaving it starts from the drop rate
/// of the last cycle: count = count - lastcount when that is more than 1 and the last
/// scheduled drop is less than 16 intervals ago (Section 5, the Linux version);
/// otherwise count restarts at 1.
#[test]
fn count_carries_over_on_quick_reentry() {
    let p = CodelParams::default();
    let i = p.interval.0;
    for (gap_ms, carried) in [(50, true), (16 * i / MS + 200, false)] {
        let mut core = CodelCore::new();
        // First cycle: 2 s above target.
        let d1 = drive(&mut core, &p, 0, 2000, 2 * p.target.0);
        let count1 = core.count;
        assert_eq!(count1 as usize, d1.len());
        assert!(count1 > 2 && core.dropping);
        // Below target: leave the dropping state; count stays.
        drive(&mut core, &p, 2000, 2000 + gap_ms, 0);
        assert!(!core.dropping);
        assert_eq!(core.count, count1);
        // Above target again: re-entry one interval after the sojourn went above.
        let start = 2000 + gap_ms;
        let d2 = drive(&mut core, &p, start, start + 1000, 2 * p.target.0);
        assert_eq!(d2[0], start * MS + i, "re-entry an interval after going above");
        // count - lastcount = the drops after the first of the last cycle.
        let delta = count1 - 1;
        let count = if carried { delta } else { 1 };
        let gap = i as f64 / (count as f64).sqrt();
        let next = (d2[0] as f64 + gap) / MS as f64;
        assert_eq!(d2[1], next.ceil() as u64 * MS, "second drop of the new cycle");
    }
}

/// With ECN, an ECN-capable packet is marked and sent where it would have been
/// dropped, on the same schedule; a packet that is not ECN-capable is still dropped.
#[test]
fn ecn_marks_instead_of_dropping() {
    let plain = CodelParams::default();
    let with_ecn = CodelParams { ecn: true, ..CodelParams::default() };
    let mut q = codel(plain, 100_000);
    let (drops, _) = run(&mut q, true, MS / 2, MS, 2_000 * MS);
    let mut q = codel(with_ecn.clone(), 100_000);
    let (no_drops, sent) = run(&mut q, true, MS / 2, MS, 2_000 * MS);
    assert!(no_drops.is_empty());
    let marks: Vec<u64> = sent.iter().filter(|(_, m)| *m).map(|(t, _)| *t).collect();
    // Both runs stay above target once dropping starts, so the state machine's times
    // depend only on the control law: the marks fall where the drops fell.
    assert!(marks.len() > 30);
    assert_eq!(marks, drops);
    assert_eq!(q.stats().marks as usize, marks.len());
    let mut q = codel(with_ecn, 100_000);
    let (drops2, sent2) = run(&mut q, false, MS / 2, MS, 2_000 * MS);
    assert_eq!(drops2, drops);
    assert!(sent2.iter().all(|(_, m)| !m));
}

/// ce_threshold marks every ECN-capable packet leaving with a sojourn time above it,
/// and only those.
#[test]
fn ce_threshold_marks_above_the_threshold() {
    let p = CodelParams { ce_threshold: Some(Duration(2 * MS)), ..CodelParams::default() };
    let mut q = codel(p, 1000);
    for (i, ecn) in [true, true, false, true].into_iter().enumerate() {
        q.enqueue(Time(i as u64 * MS), pkt(100, ecn), &mut |_, _| {});
    }
    let mut out = Vec::new();
    while let Some(d) = q.dequeue(Time(4 * MS), &mut |_, _| panic!("no drop")) {
        out.push(d.marked);
    }
    // sojourn times 4, 3, 2, 1 ms: above 2 ms for the first two (both ECN-capable).
    assert_eq!(out, vec![true, true, false, false]);
}

/// The buffer holds `limit` packets; further arrivals are overflow drops.
#[test]
fn limit_drops_arrivals() {
    let mut q = codel(CodelParams::default(), 5);
    let mut dropped = 0;
    let v: Vec<Verdict> =
        (0..7).map(|i| q.enqueue(Time(i), pkt(1500, false), &mut |_, _| dropped += 1)).collect();
    assert_eq!(v[4], Verdict::Enqueue);
    assert_eq!(v[5], Verdict::Drop(DropReason::Overflow));
    assert_eq!(dropped, 2);
    assert_eq!(q.backlog().packets, 5);
    assert_eq!(q.stats().overflow_drops, 2);
}

/// Invalid parameters are refused, naming the field.
#[test]
fn invalid_parameters_name_the_field() {
    let e =
        Codel::<PacketInfo>::new(CodelParams { target: Duration(0), ..CodelParams::default() }, 10)
            .unwrap_err();
    assert_eq!(e.param(), Some("target"));
    let e = Codel::<PacketInfo>::new(CodelParams::default(), 0).unwrap_err();
    assert_eq!(e.param(), Some("limit"));
    let e = Codel::<PacketInfo>::new(CodelParams { maxpacket: 0, ..CodelParams::default() }, 10)
        .unwrap_err();
    assert_eq!(e.param(), Some("maxpacket"));
}

/// When dequeues are far apart, every drop whose scheduled time has passed happens in
/// the one dequeue (Section 5's `while` loop): the number of drops at each dequeue is
/// the number of control-law times, computed here, that fell since the last one.
#[test]
fn a_late_dequeue_catches_up_with_every_due_drop() {
    let p = CodelParams::default();
    let mut core = CodelCore::new();
    let mut stats = QueueStats::default();
    let sojourn = 2 * p.target.0;
    // Above target from t = 0; the first dequeue at or after one interval enters.
    let mut t = 0;
    let mut entered = None;
    while entered.is_none() {
        if !dequeue_with_sojourn(&mut core, &p, &mut stats, t, sojourn).is_empty() {
            entered = Some(t);
        }
        t += MS;
    }
    let enter = entered.unwrap();
    assert_eq!(enter, p.interval.0);
    // Then one dequeue every 250 ms, with a queue deep enough for every drop.
    let mut scheduled = vec![enter as f64];
    let mut count = 1u32;
    for step in 1..=8u64 {
        let now = enter + step * 250 * MS;
        while *scheduled.last().unwrap() + p.interval.0 as f64 / (count as f64).sqrt() <= now as f64
        {
            let next = *scheduled.last().unwrap() + p.interval.0 as f64 / (count as f64).sqrt();
            scheduled.push(next);
            count += 1;
        }
        let due = scheduled.iter().filter(|&&s| s > (now - 250 * MS) as f64 && s <= now as f64);
        let n = dequeue_with_sojourn_deep(&mut core, &p, &mut stats, now, sojourn);
        assert_eq!(n, due.count(), "at step {step}");
        assert_eq!(core.count, count);
    }
    assert!(count > 30);
}

/// `dequeue_with_sojourn` with 200 packets queued: the number dropped.
fn dequeue_with_sojourn_deep(
    core: &mut CodelCore,
    p: &CodelParams,
    stats: &mut QueueStats,
    now: u64,
    sojourn: u64,
) -> usize {
    let now = now + 10_000 * MS;
    let mut q = PacketQueue::default();
    for _ in 0..200 {
        q.push(Held { pkt: pkt(1000, false), marked: false, enqueued_at: Time(now - sojourn) });
    }
    let mut n = 0;
    core.dequeue(p, Time(now), &mut q, stats, &mut |_, _| n += 1);
    n
}

/// No drop while the queue left behind holds at most maxpacket bytes, however long
/// the head waited (Section 5, `dodequeue`: the link is too slow to keep more queued).
#[test]
fn no_drop_with_at_most_maxpacket_bytes_queued() {
    let p = CodelParams::default();
    let mut q = codel(p.clone(), 1000);
    let mut t = 0;
    // One packet waiting, one arriving per 100 ms round, one leaving: the packet left
    // behind is 1000 bytes <= maxpacket, and each waits 100 ms (20 targets).
    q.enqueue(Time(0), pkt(1000, false), &mut |_, _| {});
    for _ in 0..100 {
        q.enqueue(Time(t), pkt(1000, false), &mut |_, _| panic!("overflow"));
        t += 100 * MS;
        q.dequeue(Time(t), &mut |_, _| panic!("dropped with one packet left"));
        assert_eq!(q.backlog().bytes, 1000);
    }
    // The same with two packets left behind (2000 bytes > maxpacket): CoDel drops.
    let mut q = codel(p, 1000);
    q.enqueue(Time(0), pkt(1000, false), &mut |_, _| {});
    q.enqueue(Time(0), pkt(1000, false), &mut |_, _| {});
    let mut drops = 0;
    for k in 1..200u64 {
        q.enqueue(Time(k * 100 * MS), pkt(1000, false), &mut |_, _| {});
        q.dequeue(Time(k * 100 * MS + 1), &mut |_, _| drops += 1);
    }
    assert!(drops > 0);
}
