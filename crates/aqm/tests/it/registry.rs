//! The registry of built-in AQMs: every line is a configuration type the reader takes,
//! builds and describes, each key documented.

use std::collections::BTreeSet;

use aqm::config::{BuildContext, QUEUE_TYPES, QueueConfig, parse_queue};
use aqm::registry::AQMS;
use aqm::{PacketInfo, Qdisc};

/// A table of `kind` with a buffer where the type needs one.
fn table(kind: &str) -> toml::Value {
    toml::from_str(&format!("type = \"{kind}\"\nlimit = 30")).unwrap()
}

/// Each line's type is a `type` name, in the table's order, and builds as what it says.
#[test]
fn every_line_builds_as_its_kind() {
    let names: Vec<&str> = AQMS.iter().map(|a| a.type_name).collect();
    assert_eq!(names, QUEUE_TYPES);
    let ctx = BuildContext::default();
    for a in AQMS {
        let cfg = parse_queue(table(a.type_name), "q").unwrap();
        assert_eq!((cfg.kind(), cfg.holds_packets()), (a.type_name, a.holds_packets));
        let q = cfg.build_qdisc::<PacketInfo>(&ctx).unwrap();
        assert_eq!(q.kind(), a.type_name);
        assert_eq!(q.limit().packets, Some(30), "{}", a.type_name);
        match cfg.build(&ctx) {
            Ok(d) => assert!(!a.holds_packets && d.kind() == a.type_name),
            Err(e) => assert!(a.holds_packets && e.to_string().contains("build_qdisc"), "{e}"),
        }
        assert!(!a.doc.is_empty() && !a.class.is_empty() && !a.name.is_empty(), "{a:?}");
        assert!(a.class.chars().next().is_some_and(|c| c.is_ascii_uppercase()), "{a:?}");
    }
}

/// Every key is described once, with a doc comment and a Python type, and the keys
/// described are those the configuration writes back (the ones without a value aside).
#[test]
fn every_key_is_described_and_read() {
    for a in AQMS {
        let params = (a.params)();
        let names: Vec<&str> = params.iter().map(|p| p.name).collect();
        let unique: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(unique.len(), names.len(), "{}: {names:?}", a.type_name);
        for p in &params {
            assert!(!p.doc.is_empty(), "{}.{} has no doc comment", a.type_name, p.name);
            assert!(!p.py_type.is_empty());
        }
        let default = QueueConfig::default_of(a.type_name).unwrap();
        let written = toml::Value::try_from(&default).unwrap();
        let written = written.as_table().unwrap();
        let keys: Vec<&str> = written.keys().map(|k| k.as_str()).filter(|k| *k != "type").collect();
        assert!(keys.iter().all(|k| unique.contains(k)), "{}: {keys:?}", a.type_name);
        // Each key written back reads into the same configuration.
        for (k, v) in written.iter().filter(|(k, _)| *k != "type") {
            let mut t = toml::map::Map::new();
            t.insert("type".into(), a.type_name.into());
            t.insert(k.clone(), v.clone());
            let read = parse_queue(toml::Value::Table(t), "q").unwrap();
            assert_eq!(read, default, "{}.{k}", a.type_name);
        }
    }
}

/// The Python annotations of the enums list their variants as the reader takes them.
#[test]
fn enum_keys_are_literals_of_their_variants() {
    let red = AQMS.iter().find(|a| a.type_name == "red").unwrap();
    let params = (red.params)();
    let ty = |n: &str| params.iter().find(|p| p.name == n).unwrap().py_type.clone();
    assert_eq!(ty("mark_method"), r#"Literal["uniform", "geometric", "ns2_wait"]"#);
    assert_eq!(ty("count_mode"), r#"Literal["text", "figure2"]"#);
    assert_eq!(
        (ty("limit"), ty("w_q"), ty("gentle")),
        ("Optional[int]".into(), "float".into(), "bool".into())
    );
    assert_eq!(ty("link_rate_bps"), "Optional[Union[float, str]]");
}
