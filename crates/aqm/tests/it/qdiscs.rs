//! The queues that hold their packets, built from queue tables: what the table reader
//! accepts and refuses, and random sequences of arrivals and departures that never
//! break the counting invariants.

use aqm::config::{BuildContext, QueueConfig, parse_queue};
use aqm::{AnyQdisc, DropReason, PacketInfo, Qdisc, Time, Verdict};
use proptest::prelude::*;

fn read(src: &str) -> QueueConfig {
    toml::from_str(src).unwrap()
}

fn build(src: &str) -> AnyQdisc<PacketInfo> {
    read(src).build_qdisc(&BuildContext { link_rate_bps: Some(10e6), seed: Some(3) }).unwrap()
}

/// codel and fq_codel hold their packets: build_qdisc builds them, the arrival-time
/// path refuses them and says why.
#[test]
fn codel_types_need_a_packet_holding_queue() {
    for kind in ["codel", "fq_codel"] {
        let cfg = read(&format!("type = \"{kind}\""));
        assert!(cfg.holds_packets());
        assert_eq!(build(&format!("type = \"{kind}\"")).kind(), kind);
        let e = cfg.build(&BuildContext::default()).unwrap_err();
        assert_eq!(e.param(), Some("type"));
        assert!(e.to_string().contains("holds its packets"), "{e}");
        assert!(e.to_string().contains("red"), "{e}");
    }
    assert!(!read("type = \"red\"\nlimit = 5").holds_packets());
}

/// The defaults: RFC 8289's target and interval, Linux's limits, FQ-CoDel with ECN.
#[test]
fn defaults_are_the_rfcs() {
    let t = toml::Value::try_from(read("type = \"codel\"")).unwrap();
    assert_eq!(t["target"].as_float(), Some(0.005));
    assert_eq!(t["interval"].as_float(), Some(0.1));
    assert_eq!(t["limit"].as_integer(), Some(1000));
    assert_eq!(t["ecn"].as_bool(), Some(false));
    let t = toml::Value::try_from(read("type = \"fq_codel\"")).unwrap();
    assert_eq!(t["limit"].as_integer(), Some(10240));
    assert_eq!(t["flows"].as_integer(), Some(1024));
    assert_eq!(t["quantum"].as_integer(), Some(1514));
    assert_eq!(t["memory_limit"].as_integer(), Some(32 * 1024 * 1024));
    assert_eq!(t["drop_batch_size"].as_integer(), Some(64));
    assert_eq!(t["ecn"].as_bool(), Some(true));
}

/// Times may carry units; the normalised form has seconds.
#[test]
fn times_read_with_units() {
    let cfg =
        read("type = \"fq_codel\"\ntarget = \"2ms\"\ninterval = \"50ms\"\nce_threshold = \"1ms\"");
    let t = toml::Value::try_from(cfg.normalized().unwrap()).unwrap();
    assert_eq!(t["target"].as_float(), Some(0.002));
    assert_eq!(t["interval"].as_float(), Some(0.05));
    assert_eq!(t["ce_threshold"].as_float(), Some(0.001));
}

/// Invalid parameters are refused with the field's path and the allowed range.
#[test]
fn invalid_parameters_name_the_field() {
    let cases = [
        ("type = \"codel\"\ntarget = 0", "target", "> 0"),
        ("type = \"codel\"\ninterval = \"-1ms\"", "interval", "> 0"),
        ("type = \"codel\"\nlimit = 0", "limit", "1..="),
        ("type = \"codel\"\nce_threshold = -1", "ce_threshold", ">= 0"),
        ("type = \"codel\"\nmaxpacket = 0", "maxpacket", ">= 1"),
        ("type = \"fq_codel\"\nflows = 0", "flows", "1..=65536"),
        ("type = \"fq_codel\"\nflows = 100000", "flows", "1..=65536"),
        ("type = \"fq_codel\"\nquantum = 0", "quantum", "1..="),
        ("type = \"fq_codel\"\nmemory_limit = 0", "memory_limit", ">= 1"),
        ("type = \"fq_codel\"\ndrop_batch_size = 0", "drop_batch_size", "1..="),
        ("type = \"fq_codel\"\nlimit = 5000000000", "limit", "1..="),
    ];
    for (src, field, allowed) in cases {
        let table: toml::Value = toml::from_str(src).unwrap();
        let cfg = parse_queue(table, "link[1].queue_ab").unwrap();
        let e = cfg
            .build_qdisc::<PacketInfo>(&BuildContext::default())
            .unwrap_err()
            .at("link[1].queue_ab");
        assert_eq!(e.param(), Some(format!("link[1].queue_ab.{field}").as_str()), "{src}: {e}");
        assert!(e.to_string().contains(allowed), "{src}: {e}");
    }
}

const CONFIGS: &[&str] = &[
    "type = \"codel\"\nlimit = 30\ntarget = \"1ms\"\ninterval = \"10ms\"",
    "type = \"codel\"\nlimit = 50\ntarget = \"1ms\"\ninterval = \"5ms\"\necn = true\nce_threshold = \"2ms\"",
    "type = \"fq_codel\"\nlimit = 40\nflows = 4\nquantum = 300\ntarget = \"1ms\"\ninterval = \"10ms\"",
    "type = \"fq_codel\"\nlimit = 100\nmemory_limit = 9000\nflows = 16\ndrop_batch_size = 3\ntarget = \"1ms\"\ninterval = \"5ms\"\nce_threshold = \"1ms\"",
];

#[derive(Clone, Debug)]
enum Op {
    Arrive { size: u32, flow: u32, ecn: bool, dt: u64 },
    Depart { dt: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (40u32..1500, 0u32..12, any::<bool>(), 0u64..1_000_000).prop_map(|(size, flow, ecn, dt)| Op::Arrive { size, flow, ecn, dt }),
        3 => (0u64..3_000_000).prop_map(|dt| Op::Depart { dt }),
    ]
}

/// Run `ops` on the qdisc of `src`, checking the counts after every step.
fn check(src: &str, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut q = build(src);
    let limit = q.limit();
    let (mut now, mut arrival_drops, mut all_drops, mut marks_out) = (0u64, 0u64, 0u64, 0u64);
    for op in ops {
        match *op {
            Op::Arrive { size, flow, ecn, dt } => {
                now += dt;
                let pkt = PacketInfo { size, flow, ecn_capable: ecn, ect1: false, ce: false };
                let v = q.enqueue(Time(now), pkt, &mut |_, _| all_drops += 1);
                if let Verdict::Drop(r) = v {
                    prop_assert_eq!(r, DropReason::Overflow);
                    arrival_drops += 1;
                }
            }
            Op::Depart { dt } => {
                now += dt;
                if let Some(d) = q.dequeue(Time(now), &mut |_, _| all_drops += 1) {
                    prop_assert!(Time(now) >= d.enqueued_at);
                    if d.marked {
                        prop_assert!(d.pkt.ecn_capable, "marked a packet that is not ECN-capable");
                        marks_out += 1;
                    }
                }
            }
        }
        let s = *q.stats();
        let b = q.backlog();
        prop_assert!(limit.packets.is_none_or(|p| b.packets <= p));
        prop_assert_eq!(s.arrivals, s.enqueued + arrival_drops, "every arrival counted once");
        prop_assert_eq!(
            s.enqueued,
            s.departures + (all_drops - arrival_drops) + b.packets as u64,
            "enqueued = departures + drops after enqueue + backlog"
        );
        prop_assert_eq!(s.drops(), all_drops);
        prop_assert!(s.marks >= marks_out);
    }
    // Drain: everything held leaves or is dropped.
    while q.dequeue(Time(now), &mut |_, _| all_drops += 1).is_some() {}
    prop_assert_eq!(q.backlog().packets, 0);
    prop_assert_eq!(q.backlog().bytes, 0);
    let s = *q.stats();
    prop_assert_eq!(s.arrivals, s.departures + s.drops());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    // Counts are conserved, marks only hit ECN-capable packets, nothing panics.
    #[test]
    fn qdisc_invariants_hold(which in 0..CONFIGS.len(), ops in proptest::collection::vec(op(), 1..400)) {
        check(CONFIGS[which], &ops)?;
    }
}

/// In FQ-CoDel each flow has its own CoDel: a flow that keeps a standing queue is
/// dropped from, a sparse flow sharing the line is not.
#[test]
fn codel_runs_per_flow() {
    let mut q = build("type = \"fq_codel\"\necn = false");
    let AnyQdisc::FqCodel(fq) = &q else { panic!() };
    let (bulk, sparse) =
        (1..).map(|f| (f, f + 1000)).find(|(a, b)| fq.bucket(*a) != fq.bucket(*b)).unwrap();
    let ms = 1_000_000u64;
    let mut drops = Vec::new();
    // bulk: 2 packets per ms for 2 s; sparse: one packet every 20 ms; one departure per ms.
    for t in 0..2000u64 {
        for k in 0..2 {
            q.enqueue(Time(t * ms + k), PacketInfo::new(1000, bulk), &mut |p, _| {
                drops.push(p.flow)
            });
        }
        if t % 20 == 0 {
            q.enqueue(Time(t * ms + 2), PacketInfo::new(100, sparse), &mut |p, _| {
                drops.push(p.flow)
            });
        }
        q.dequeue(Time(t * ms + ms / 2), &mut |p, _| drops.push(p.flow));
    }
    assert!(drops.len() > 10, "{}", drops.len());
    assert!(drops.iter().all(|&f| f == bulk));
}
