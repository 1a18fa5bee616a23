//! Random sequences of arrivals, departures and polls never break a queue's invariants.

use aqm::config::{BuildContext, QueueConfig};
use aqm::{PacketInfo, Queue, QueueDiscipline, Time, Verdict};
use proptest::prelude::*;

const CONFIGS: &[&str] = &[
    r#"type = "droptail"
limit = 20"#,
    r#"type = "droptail"
limit_bytes = 12000
drop_front = true"#,
    r#"type = "randomdrop"
limit = 15"#,
    r#"type = "randomdrop"
limit = 30
limit_bytes = 20000"#,
    r#"type = "red"
limit = 30
min_th = 3
max_th = 9
w_q = 0.2
max_p = 0.3"#,
    r#"type = "red"
limit = 25
limit_bytes = 15000
min_th = 2000
max_th = 8000
w_q = 0.1
max_p = 0.5
gentle = true
ecn = true
byte_mode = true
queue_in_bytes = true
drop_front = true"#,
    r#"type = "red"
limit = 25
min_th = 2
max_th = 6
w_q = 0.5
max_p = 1.0
efficient = true
mark_method = "geometric"
count_mode = "figure2""#,
    r#"type = "ared"
limit = 40
min_th = 3
max_th = 12
w_q = 0.05
interval = "1ms"
ecn = true"#,
    r#"type = "ared"
limit = 60
link_rate_bps = "10Mbps""#,
    r#"type = "feng_ared"
limit = 30
min_th = 3
max_th = 9
w_q = 0.3
max_p = 0.2
gentle = true"#,
    r#"type = "fred"
limit = 30
min_th = 4
max_th = 8
w_q = 0.2
min_q = 2"#,
    r#"type = "fred"
limit = 16
min_th = 4
max_th = 8
w_q = 0.1
many_flows = true"#,
    r#"type = "fred"
limit_bytes = 20000
min_th = 3000
max_th = 9000
min_q = 3000
w_q = 0.1
byte_mode = true"#,
    r#"type = "blue"
limit = 20
freeze_time = "1ms"
d1 = 0.1
ecn = true"#,
    r#"type = "blue"
limit = 30
threshold = 10
d2 = 0.05"#,
    r#"type = "pi"
limit = 25
q_ref = 5
a = 0.001
b = 0.0009
sample_freq = 1000
ecn = true"#,
];

#[derive(Clone, Debug)]
enum Op {
    Arrive { size: u32, flow: u32, ecn: bool, dt: u64 },
    Depart { dt: u64 },
    Poll { dt: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (40u32..1500, 0u32..12, any::<bool>(), 0u64..2_000_000).prop_map(|(size, flow, ecn, dt)| Op::Arrive { size, flow, ecn, dt }),
        3 => (0u64..3_000_000).prop_map(|dt| Op::Depart { dt }),
        1 => (0u64..800_000_000).prop_map(|dt| Op::Poll { dt }),
    ]
}

fn check(cfg: &QueueConfig, ops: &[Op], seed: u64) -> Result<(), TestCaseError> {
    let disc = cfg.build(&BuildContext { link_rate_bps: Some(10e6), seed: Some(seed) }).unwrap();
    let limit = disc.limit();
    let mut q: Queue<PacketInfo, _> = Queue::new(disc);
    let mut now = 0u64;
    let mut dropped = 0u64;
    for op in ops {
        match *op {
            Op::Arrive { size, flow, ecn, dt } => {
                now += dt;
                let pkt = PacketInfo { size, flow, ecn_capable: ecn, ect1: false, ce: false };
                let v = q.enqueue(Time(now), pkt, |_, _| dropped += 1);
                if v == Verdict::Mark {
                    prop_assert!(ecn, "marked a packet that is not ECN-capable");
                }
            }
            Op::Depart { dt } => {
                now += dt;
                q.dequeue(Time(now));
            }
            Op::Poll { dt } => {
                now += dt;
                q.poll(Time(now));
            }
        }
        if let Some(p) = limit.packets {
            prop_assert!(q.len_packets() as u32 <= p, "{} packets > limit {p}", q.len_packets());
        }
        if let Some(b) = limit.bytes {
            prop_assert!(q.len_bytes() <= b, "{} bytes > limit {b}", q.len_bytes());
        }
        let bytes: u64 = q.iter().map(|p| p.size as u64).sum();
        prop_assert_eq!(bytes, q.len_bytes());
        let s = *q.stats();
        prop_assert_eq!(
            s.arrivals,
            s.departures + s.drops() + q.len_packets() as u64,
            "conservation"
        );
        prop_assert_eq!(s.drops(), dropped);
        let mut state = Vec::new();
        q.discipline().inspect(&mut |k, v| state.push((k, v)));
        for (k, v) in state {
            prop_assert!(v.is_finite(), "{k} = {v}");
            match k {
                "avg" => prop_assert!(v >= 0.0, "avg = {v}"),
                "max_p" => prop_assert!((0.0..=1.0).contains(&v), "max_p = {v}"),
                _ => {}
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    // Queue length never exceeds the limit, packets are conserved, marks only hit ECN-capable packets, nothing panics.
    #[test]
    fn invariants_hold(which in 0..CONFIGS.len(), ops in proptest::collection::vec(op(), 1..400), seed in any::<u64>()) {
        let cfg: QueueConfig = toml::from_str(CONFIGS[which]).unwrap();
        check(&cfg, &ops, seed)?;
    }
}

// Unknown keys and unknown types are rejected, naming the key.
#[test]
fn unknown_keys_rejected() {
    let e = toml::from_str::<QueueConfig>("type = \"red\"\nlimit = 5\nmin_thresh = 3").unwrap_err();
    assert!(e.to_string().contains("min_thresh"), "{e}");
    let e = toml::from_str::<QueueConfig>("type = \"cake\"\nlimit = 5").unwrap_err();
    assert!(e.to_string().contains("cake"), "{e}");
}

// Every configuration error names its parameter, and `at` prefixes the field path.
#[test]
fn config_errors_name_the_field() {
    let cases = [
        ("type = \"red\"\nlimit = 5\nmin_th = 9\nmax_th = 3", "min_th"),
        ("type = \"red\"\nlimit = 5\nw_q = 0", "w_q"),
        ("type = \"red\"\nlimit = 0", "limit"),
        ("type = \"red\"", "limit"),
        ("type = \"red\"\nlimit = 5\nmark_method = \"fancy\"", "mark_method"),
        ("type = \"red\"\nlimit = 5\nlink_rate_bps = \"-3Mbps\"", "link_rate_bps"),
        ("type = \"ared\"\nlimit = 5\nmax_p = 0.7", "max_p"),
        ("type = \"ared\"\nlimit = 5\ninterval = \"0s\"", "interval"),
        ("type = \"fred\"\nlimit = 5\nmin_q = 0", "min_q"),
        ("type = \"fred\"\nlimit = 5\nmin_th = 4\nmax_th = 2", "min_th"),
        ("type = \"feng_ared\"\nlimit = 5\nfeng_alpha = 0.5", "feng_alpha"),
    ];
    for (src, field) in cases {
        let table: toml::Value = toml::from_str(src).unwrap();
        // A value the reader refuses (an unknown mark_method) is named as it is read.
        let e = match aqm::config::parse_queue(table, "link[2].queue_ab") {
            Ok(cfg) => cfg.build(&BuildContext::default()).unwrap_err().at("link[2].queue_ab"),
            Err(e) => e,
        };
        assert_eq!(e.param(), Some(format!("link[2].queue_ab.{field}").as_str()), "{src}: {e}");
    }
}
