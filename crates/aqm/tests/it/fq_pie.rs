//! FQ-PIE (Linux's `sch_fq_pie`): PIE on each flow queue, each flow's probability
//! following RFC 8033's update from its own delay; the arrival dropped on overflow; ECN
//! marks up to the marking threshold; configuration through the queue table.

use aqm::config::{BuildContext, QueueConfig};
use aqm::fq::{FqParams, Overflow};
use aqm::fq_pie::{FqPie, fq_pie};
use aqm::pie::{BurstReset, DelayMode, PieParams, auto_scale};
use aqm::{AnyQdisc, DropReason, Duration, Limit, PacketInfo, Qdisc, Time, Verdict};

fn pie_params() -> PieParams {
    PieParams {
        target: Duration::from_secs_f64(0.015),
        tupdate: Duration::from_secs_f64(0.015),
        alpha: 0.125,
        beta: 1.25,
        max_burst: Duration::from_secs_f64(0.150),
        ecn: false,
        mark_ecn_th: 0.1,
        limit: Limit::new(Some(10240), None).unwrap(),
        delay_mode: DelayMode::Timestamp,
        dq_threshold: 1 << 14,
        mean_pkt_size: 1500,
        derandomize: true,
        burst_reset: BurstReset::Rfc,
    }
}

fn pkt(flow: u32, ecn: bool) -> PacketInfo {
    PacketInfo { size: 1000, flow, ecn_capable: ecn, ect1: false, ce: false }
}

fn build(fq: FqParams, pie: PieParams) -> FqPie<PacketInfo> {
    fq_pie(fq, pie).unwrap()
}

/// Two flow ids in different buckets.
fn two_flows(q: &FqPie<PacketInfo>) -> (u32, u32) {
    let b = (2..).find(|&id| q.bucket(id) != q.bucket(1)).unwrap();
    (1, b)
}

/// A heavy flow (two arrivals per departure slot) beside a light one (one arrival
/// every 20 departure slots) on a 1 ms-per-packet line for 3 s: the heavy flow's
/// drop probability rises while the light flow's stays 0 and none of its packets is
/// dropped. The heavy flow's next update is RFC 8033 Section
/// 4.2's, computed here.
#[test]
fn each_flow_has_its_own_probability() {
    let mut q = build(FqParams::default(), pie_params());
    let (heavy, light) = two_flows(&q);
    let mut light_drops = 0;
    let mut heavy_drops = 0;
    let tick = Duration::from_secs_f64(0.0005);
    let mut now = Time::ZERO;
    for i in 0..6000u32 {
        now += tick;
        let mut drop = |p: PacketInfo, _r: DropReason| {
            if p.flow == light {
                light_drops += 1;
            } else {
                heavy_drops += 1;
            }
        };
        q.enqueue(now, pkt(heavy, false), &mut drop);
        if i % 40 == 0 {
            q.enqueue(now, pkt(light, false), &mut drop);
        }
        if i % 2 == 0 {
            q.dequeue(now, &mut drop);
        }
    }
    let (h, l) = (q.flow(q.bucket(heavy)), q.flow(q.bucket(light)));
    assert_eq!(light_drops, 0);
    assert!(heavy_drops > 0);
    assert!(h.aqm.core.drop_prob > 0.01, "{}", h.aqm.core.drop_prob);
    assert_eq!(l.aqm.core.drop_prob, 0.0);
    // one more update: RFC 8033 Section 4.2 computed here from the flow's state
    let (prob, qdelay_old, qdelay) =
        (h.aqm.core.drop_prob, h.aqm.core.qdelay_old, h.aqm.core.qdelay);
    let target = 0.015;
    let mut p = 0.125 * (qdelay - target) + 1.25 * (qdelay - qdelay_old);
    p *= auto_scale(prob);
    if prob >= 0.1 && p > 0.02 {
        p = 0.02;
    }
    let want = (prob + p).clamp(0.0, 1.0);
    let at = q.poll_at().unwrap();
    q.poll(at);
    let got = q.flow(q.bucket(heavy)).aqm.core.drop_prob;
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
}

/// Linux's FQ-PIE drops the arrival when `limit` packets are held, never a queued
/// packet (FQ-CoDel would drop from the fattest flow).
#[test]
fn overflow_drops_the_arrival() {
    let fq = FqParams { limit: 10, ..FqParams::default() };
    let mut q = build(fq, pie_params());
    assert_eq!(q.params().overflow, Overflow::Arrival);
    let (a, b) = two_flows(&q);
    let mut dropped = Vec::new();
    for _ in 0..10 {
        q.enqueue(Time::ZERO, pkt(a, false), &mut |p, r| dropped.push((p.flow, r)));
    }
    assert!(dropped.is_empty());
    let v = q.enqueue(Time::ZERO, pkt(b, false), &mut |p, r| dropped.push((p.flow, r)));
    assert_eq!(v, Verdict::Drop(DropReason::Overflow));
    assert_eq!(dropped, vec![(b, DropReason::Overflow)]);
    assert_eq!(q.backlog().packets, 10);
    let s = q.stats();
    assert_eq!(s.arrivals, s.enqueued + s.drops());
}

/// With ECN, an ECN-capable packet chosen for an early drop is marked while the
/// flow's probability is at most `mark_ecn_th`, and dropped above it; a packet that is
/// not ECN-capable is dropped either way.
#[test]
fn ecn_marks_up_to_the_threshold() {
    let pie = PieParams { ecn: true, max_burst: Duration::ZERO, ..pie_params() };
    for (prob, ecn, want_mark) in
        [(0.05, true, true), (0.05, false, false), (0.5, true, false), (0.1, true, true)]
    {
        let mut q = build(FqParams::default(), pie.clone());
        let idx = q.bucket(7);
        let mut marks = 0;
        let mut drops = 0;
        for i in 0..400u32 {
            // keep the flow's state where the test puts it: a long queue, a delay
            // above target, the probability `prob`
            let f = q.flow_mut(idx);
            (f.aqm.core.drop_prob, f.aqm.core.qdelay_old) = (prob, 0.1);
            let now = Time::ZERO + Duration::from_secs_f64(i as f64 * 1e-5);
            match q.enqueue(now, pkt(7, ecn), &mut |_, _| {}) {
                Verdict::Mark => marks += 1,
                Verdict::Drop(DropReason::Early) => drops += 1,
                _ => {}
            }
        }
        if want_mark {
            assert!(marks > 0 && drops == 0, "p {prob} ecn {ecn}: {marks} marks {drops} drops");
        } else {
            assert!(marks == 0 && drops > 0, "p {prob} ecn {ecn}: {marks} marks {drops} drops");
        }
    }
}

/// The queue table builds it with Linux's defaults and names a bad field.
#[test]
fn from_the_queue_table() {
    let ctx = BuildContext { link_rate_bps: Some(10e6), seed: Some(1) };
    let cfg: QueueConfig = toml::from_str("type = \"fq_pie\"").unwrap();
    assert!(cfg.holds_packets());
    let q: AnyQdisc<PacketInfo> = cfg.build_qdisc(&ctx).unwrap();
    assert_eq!(q.kind(), "fq_pie");
    assert_eq!(q.limit().packets, Some(10240));
    assert!(cfg.build(&ctx).is_err());
    for (bad, field) in [
        ("target = 0", "target"),
        ("flows = 0", "flows"),
        ("alpha = -1", "alpha"),
        ("mark_ecn_th = 2", "mark_ecn_th"),
        ("limit = 0", "limit"),
    ] {
        let cfg: QueueConfig = toml::from_str(&format!("type = \"fq_pie\"\n{bad}")).unwrap();
        let e = cfg.build_qdisc::<PacketInfo>(&ctx).unwrap_err().to_string();
        assert!(e.contains(field), "{bad}: {e}");
    }
}

/// Same seed, same drops; the flows' random streams differ from each other.
#[test]
fn seeded_and_repeatable() {
    let run = |seed: u64| {
        let fq = FqParams { seed, ..FqParams::default() };
        let pie = PieParams { max_burst: Duration::ZERO, derandomize: false, ..pie_params() };
        let mut q = build(fq, pie);
        let mut out = Vec::new();
        for i in 0..2000u32 {
            let now = Time::ZERO + Duration::from_secs_f64(i as f64 * 1e-4);
            for flow in [1, 2, 3] {
                let idx = q.bucket(flow);
                let f = q.flow_mut(idx);
                (f.aqm.core.drop_prob, f.aqm.core.qdelay_old) = (0.3, 0.1);
                out.push(matches!(
                    q.enqueue(now, pkt(flow, false), &mut |_, _| {}),
                    Verdict::Drop(_)
                ));
            }
        }
        out
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
    let r = run(5);
    let per_flow: Vec<Vec<bool>> =
        (0..3).map(|k| r.iter().skip(k).step_by(3).copied().collect()).collect();
    assert_ne!(per_flow[0], per_flow[1]);
}

/// Every arrival ends once (enqueued or dropped) and every packet enqueued leaves once.
/// FQ-PIE drops only arrivals (early or on overflow), never a queued packet, so
/// `arrivals = enqueued + drops` and `enqueued = departures + backlog`; the departures
/// are the packets dequeued.
#[test]
fn counts_each_packet_once() {
    let fq = FqParams { limit: 40, ..FqParams::default() };
    let mut q = build(fq, pie_params());
    let mut sent = 0u64;
    let mut now = Time::ZERO;
    for i in 0..5000u32 {
        now += Duration::from_secs_f64(0.0004);
        q.enqueue(now, pkt(i % 5, false), &mut |_, _| {});
        if i % 3 == 0 && q.dequeue(now, &mut |_, _| {}).is_some() {
            sent += 1;
        }
    }
    let s = q.stats();
    assert_eq!(s.departures, sent);
    assert!(s.drops() > 0);
    assert_eq!(s.arrivals, s.enqueued + s.drops());
    assert_eq!(s.enqueued, s.departures + q.backlog().packets as u64);
}
