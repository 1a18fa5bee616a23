//! The packet-holding qdiscs (PIE, CHOKe, DualPI2) under random sequences of arrivals,
//! dequeues and polls: limits, conservation and marks hold; the configurations build
//! through `build_qdisc` only, and bad parameters name their field.

use aqm::config::{BuildContext, QueueConfig};
use aqm::{AnyQdisc, PacketInfo};
use aqm::{Qdisc, Time, Verdict};
use proptest::prelude::*;

const CONFIGS: &[&str] = &[
    r#"type = "pie"
limit = 30
tupdate = "2ms"
target = "3ms"
max_burst = "5ms"
ecn = true
mean_pkt_size = 100"#,
    r#"type = "pie"
limit_bytes = 20000
delay_mode = "timestamp"
tupdate = "1ms"
max_burst = 0
derandomize = false"#,
    r#"type = "choke"
limit = 30
min_th = 2
max_th = 10
w_q = 0.3
max_p = 0.3
ecn = true
gentle = true"#,
    r#"type = "choke"
limit_bytes = 15000
min_th = 1
max_th = 5
w_q = 1
candidates = 3
drop_front = true"#,
    r#"type = "dualpi2"
limit = 40
tupdate = "1ms"
target = "2ms""#,
    r#"type = "dualpi2"
limit_bytes = 30000
ecn = false
drop_on_overload = false
c_protection = 0.5"#,
];

#[derive(Clone, Debug)]
enum Op {
    Arrive { size: u32, flow: u32, ecn: bool, ect1: bool, dt: u64 },
    Depart { dt: u64 },
    Poll { dt: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (40u32..1500, 0u32..6, any::<bool>(), any::<bool>(), 0u64..2_000_000)
            .prop_map(|(size, flow, ecn, ect1, dt)| Op::Arrive { size, flow, ecn, ect1, dt }),
        3 => (0u64..3_000_000).prop_map(|dt| Op::Depart { dt }),
        1 => (0u64..80_000_000).prop_map(|dt| Op::Poll { dt }),
    ]
}

fn check(cfg: &QueueConfig, ops: &[Op], seed: u64) -> Result<(), TestCaseError> {
    let ctx = BuildContext { link_rate_bps: Some(10e6), seed: Some(seed) };
    let mut q: AnyQdisc<PacketInfo> = cfg.build_qdisc(&ctx).unwrap();
    let limit = q.limit();
    let mut now = 0u64;
    let (mut dropped, mut out) = (0u64, 0u64);
    for op in ops {
        match *op {
            Op::Arrive { size, flow, ecn, ect1, dt } => {
                now += dt;
                let pkt = PacketInfo { size, flow, ecn_capable: ecn || ect1, ect1, ce: false };
                let v = q.enqueue(Time(now), pkt, &mut |_, _| dropped += 1);
                if v == Verdict::Mark {
                    prop_assert!(pkt.ecn_capable, "marked a packet that is not ECN-capable");
                }
            }
            Op::Depart { dt } => {
                now += dt;
                if let Some(d) = q.dequeue(Time(now), &mut |_, _| dropped += 1) {
                    out += 1;
                    prop_assert!(!d.marked || d.pkt.ecn_capable);
                    prop_assert!(d.enqueued_at <= Time(now));
                }
            }
            Op::Poll { dt } => {
                now += dt;
                q.poll(Time(now));
            }
        }
        let b = q.backlog();
        if let Some(p) = limit.packets {
            prop_assert!(b.packets <= p, "{} packets > limit {p}", b.packets);
        }
        if let Some(l) = limit.bytes {
            prop_assert!(b.bytes <= l, "{} bytes > limit {l}", b.bytes);
        }
        let s = *q.stats();
        prop_assert_eq!(s.drops(), dropped);
        prop_assert_eq!(s.departures, out);
        // Every packet that came in is gone, sent or waiting (CHOKe's matches drop a
        // queued packet on top of the arrival: that one was counted as enqueued too).
        prop_assert_eq!(
            s.enqueued,
            s.departures + b.packets as u64 + (s.drops() - (s.arrivals - s.enqueued))
        );
        let sig = q.signal();
        prop_assert!(sig.is_finite() && sig >= 0.0);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    // Limits, conservation and ECN-only marks hold; nothing panics.
    #[test]
    fn qdisc_invariants_hold(which in 0..CONFIGS.len(), ops in proptest::collection::vec(op(), 1..400), seed in any::<u64>()) {
        let cfg: QueueConfig = toml::from_str(CONFIGS[which]).unwrap();
        check(&cfg, &ops, seed)?;
    }
}

/// Packet-holding types say so, and `build` (the arrival-time interface) refuses them
/// with an error that says why.
#[test]
fn holding_types_build_as_qdiscs_only() {
    for (kind, holds) in
        [("pie", true), ("choke", true), ("dualpi2", true), ("blue", false), ("pi", false)]
    {
        let cfg: QueueConfig = toml::from_str(&format!("type = \"{kind}\"\nlimit = 10")).unwrap();
        assert_eq!(cfg.holds_packets(), holds, "{kind}");
        let q: AnyQdisc<PacketInfo> = cfg.build_qdisc(&BuildContext::default()).unwrap();
        assert_eq!(q.kind(), kind);
        match cfg.build(&BuildContext::default()) {
            Ok(d) => assert!(!holds && d.kind() == kind),
            Err(e) => assert!(holds && e.to_string().contains("build_qdisc"), "{e}"),
        }
    }
}

#[test]
fn config_errors_name_the_field() {
    let cases = [
        ("type = \"pie\"\nlimit = 5\ntarget = 0", "target"),
        ("type = \"pie\"\nlimit = 5\ntupdate = \"-1ms\"", "tupdate"),
        ("type = \"pie\"\nlimit = 5\nalpha = 0", "alpha"),
        ("type = \"pie\"\nlimit = 5\nmark_ecn_th = 1.5", "mark_ecn_th"),
        ("type = \"pie\"\nlimit = 5\ndq_threshold = 0", "dq_threshold"),
        ("type = \"pie\"\nlimit = 5\ndelay_mode = \"sojourn\"", "delay_mode"),
        ("type = \"blue\"\nlimit = 5\nd1 = 0", "d1"),
        ("type = \"blue\"\nlimit = 5\nfreeze_time = \"x\"", "freeze_time"),
        ("type = \"pi\"\nlimit = 5\nsample_freq = 0", "sample_freq"),
        ("type = \"pi\"\nlimit = 5\na = -1", "a"),
        ("type = \"choke\"\nlimit = 5\ncandidates = 0", "candidates"),
        ("type = \"choke\"\nlimit = 5\nmin_th = 9\nmax_th = 3", "min_th"),
        ("type = \"dualpi2\"\nlimit = 5\nk = 0", "k"),
        ("type = \"dualpi2\"\nlimit = 5\nc_protection = 0", "c_protection"),
        ("type = \"dualpi2\"\nstep_thresh = \"-1ms\"", "step_thresh"),
        ("type = \"dualpi2\"\nlimit = 0", "limit"),
    ];
    for (src, field) in cases {
        let table: toml::Value = toml::from_str(src).unwrap();
        let e = match aqm::config::parse_queue(table, "q") {
            Ok(cfg) => cfg.build_qdisc::<PacketInfo>(&BuildContext::default()).unwrap_err().at("q"),
            Err(e) => e,
        };
        assert_eq!(e.param(), Some(format!("q.{field}").as_str()), "{src}: {e}");
    }
}
