//! Reading queue tables: defaults, the key each error names, enums, and the table a
//! configuration writes back.

use aqm::config::{QUEUE_TYPES, QueueConfig, parse_queue};
use aqm::{CountMode, MarkMethod, Quantity};

fn read(src: &str) -> aqm::Result<QueueConfig> {
    let table: toml::Value = toml::from_str(src).unwrap();
    parse_queue(table, "link[0].queue")
}

/// Each discipline starts from the defaults docs/algorithms.md lists.
#[test]
fn defaults_as_documented() {
    let QueueConfig::Red(r) = read("type = \"red\"").unwrap() else { panic!() };
    assert_eq!((r.min_th, r.max_th, r.w_q, r.red.max_p), (5.0, 15.0, 0.002, 0.02));
    assert!(!r.red.gentle && !r.red.ecn && !r.red.efficient && !r.red.drop_front);
    assert_eq!((r.red.mark_method, r.red.count_mode), (MarkMethod::Uniform, CountMode::Text));
    assert_eq!((r.red.mean_pkt_size, r.red.max_pkt_size), (500, 1500));
    assert_eq!((r.red.limit, r.red.link_rate_bps.clone(), r.red.seed), (None, None, None));
    let QueueConfig::AdaptiveRed(a) = read("type = \"ared\"").unwrap() else { panic!() };
    assert_eq!((a.min_th, a.max_th, a.w_q), (None, None, None));
    assert_eq!((a.red.max_p, a.red.gentle), (0.1, true));
    assert_eq!((a.interval, a.target_delay), (Quantity::Number(0.5), Quantity::Number(0.005)));
    assert_eq!((a.alpha, a.beta, a.max_p_min, a.max_p_max), (None, 0.9, 0.01, 0.5));
    let QueueConfig::FengAdaptiveRed(f) = read("type = \"feng_ared\"").unwrap() else { panic!() };
    assert_eq!(
        (f.min_th, f.max_th, f.w_q, f.red.max_p, f.red.gentle),
        (5.0, 15.0, 0.002, 0.02, false)
    );
    assert_eq!((f.feng_alpha, f.feng_beta), (3.0, 2.0));
    let QueueConfig::Fred(f) = read("type = \"fred\"").unwrap() else { panic!() };
    assert_eq!((f.min_th, f.max_th, f.w_q, f.max_p, f.min_q), (None, None, 0.002, 0.02, 2.0));
    let QueueConfig::DropTail(d) = read("type = \"droptail\"").unwrap() else { panic!() };
    assert_eq!((d.limit, d.limit_bytes, d.drop_front), (None, None, false));
}

/// A value sets its field whatever its form: enums by name, quantities as numbers or strings.
#[test]
fn values_set_their_fields() {
    let src = "type = \"red\"\nlimit = 30\nmark_method = \"ns2_wait\"\ncount_mode = \"figure2\"\n\
               link_rate_bps = \"10Mbps\"\nmin_th = 3\ngentle = true";
    let QueueConfig::Red(r) = read(src).unwrap() else { panic!() };
    assert_eq!((r.red.mark_method, r.red.count_mode), (MarkMethod::Ns2Wait, CountMode::Figure2));
    assert_eq!(r.red.link_rate_bps, Some(Quantity::Text("10Mbps".into())));
    assert_eq!((r.min_th, r.red.limit, r.red.gentle), (3.0, Some(30), true));
}

/// Every error of a table names its key under the table's path.
#[test]
fn errors_name_the_key() {
    let cases = [
        ("limit = 5", "link[0].queue.type", "missing"),
        ("type = 5", "link[0].queue.type", "droptail"),
        ("type = \"bleu\"", "link[0].queue.type", "feng_ared"),
        ("type = \"red\"\nmin_tj = 5", "link[0].queue.min_tj", "max_th"),
        ("type = \"red\"\nmin_th = \"abc\"", "link[0].queue.min_th", "f64"),
        ("type = \"red\"\nlimit = -5", "link[0].queue.limit", "u64"),
        ("type = \"red\"\nlimit = 5.5", "link[0].queue.limit", "u64"),
        ("type = \"red\"\ngentle = \"yes\"", "link[0].queue.gentle", "boolean"),
        ("type = \"red\"\nmark_method = \"fancy\"", "link[0].queue.mark_method", "ns2_wait"),
        ("type = \"red\"\nmark_method = 3", "link[0].queue.mark_method", "a string"),
        ("type = \"ared\"\ncount_mode = \"fig\"", "link[0].queue.count_mode", "figure2"),
        ("type = \"red\"\nidle_rule = \"ns3\"", "link[0].queue.idle_rule", "ns2"),
        ("type = \"ared\"\nadapt_rule = \"ns3\"", "link[0].queue.adapt_rule", "figure10"),
        ("type = \"ared\"\ninterval = [1]", "link[0].queue.interval", "sequence"),
        ("type = \"ared\"\nfeng_alpha = 3", "link[0].queue.feng_alpha", "max_p_max"),
        ("type = \"droptail\"\nmin_th = 3", "link[0].queue.min_th", "drop_front"),
        ("type = \"randomdrop\"\ndrop_front = true", "link[0].queue.drop_front", "seed"),
        ("type = \"red\"\ninterval = true", "link[0].queue.interval", "unknown field"),
        ("type = \"fred\"\nmany_flows = 1", "link[0].queue.many_flows", "boolean"),
    ];
    for (src, path, says) in cases {
        let e = read(src).unwrap_err();
        assert_eq!(e.param(), Some(path), "{src}: {e}");
        assert!(e.to_string().starts_with(path) && e.to_string().contains(says), "{src}: {e}");
    }
    let e = parse_queue(toml::Value::Integer(5), "link[0].queue").unwrap_err();
    assert!(e.to_string().starts_with("link[0].queue: ") && e.to_string().contains("red"), "{e}");
}

/// Deserializing a `QueueConfig` directly reads the same table; the message starts with the key.
#[test]
fn deserialize_reads_the_same_table() {
    let src = "type = \"ared\"\nlimit = 60\nlink_rate_bps = \"10Mbps\"";
    assert_eq!(toml::from_str::<QueueConfig>(src).unwrap(), read(src).unwrap());
    let e = toml::from_str::<QueueConfig>("type = \"red\"\nw_q = \"x\"").unwrap_err();
    assert!(e.to_string().contains("w_q: invalid type"), "{e}");
}

/// A configuration serializes to its table, every default filled in, and reads back equal.
#[test]
fn serializes_to_its_table() {
    for kind in QUEUE_TYPES {
        let cfg = read(&format!("type = \"{kind}\"\nlimit = 7")).unwrap();
        assert_eq!(cfg.kind(), *kind);
        let table = toml::Value::try_from(&cfg).unwrap();
        assert_eq!(table["type"].as_str(), Some(*kind));
        assert_eq!(table["limit"].as_integer(), Some(7));
        assert_eq!(parse_queue(table, "").unwrap(), cfg, "{kind}");
    }
    let table = toml::Value::try_from(read("type = \"red\"\nlimit = 7").unwrap()).unwrap();
    let keys: Vec<&str> = table.as_table().unwrap().keys().map(|k| k.as_str()).collect();
    // `type` and RED's 21 fields, less the four options left out (TOML has no null).
    assert_eq!(keys.len(), 18, "{keys:?}");
    assert_eq!(table["mark_method"].as_str(), Some("uniform"));
    assert_eq!(table["count_mode"].as_str(), Some("text"));
    assert_eq!(table["idle_rule"].as_str(), Some("figure2"));
}
