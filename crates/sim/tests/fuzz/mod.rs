//! Property-based fuzzing of the scenario reader and the queue configurations: valid
//! scenarios (the shipped ones, cut to a short run) and queue tables are mutated
//! (wrong types, extreme numbers, unknown and missing keys, duplicated tables), and
//! every case must either run or be refused with an error whose message starts with
//! the path of a field. Each case runs on a thread of its own with a wall-time limit,
//! so that a hang fails the test instead of stalling it.

use std::sync::mpsc;
use std::time::Duration;

use aqm::config::BuildContext;
use aqm::{PacketInfo, QueueDiscipline, Time};
use proptest::prelude::*;
use sim::{Scenario, Sim, SimError};
use toml::{Table, Value};

/// Seconds a case may take (far above what any needs, on a shared machine).
const LIMIT: Duration = Duration::from_secs(120);

const SEEDS: [&str; 6] = [
    include_str!("../../../../scenarios/dumbbell_10mbps.toml"),
    include_str!("../../../../scenarios/floyd1993_fig3.toml"),
    include_str!("../../../../scenarios/floyd1993_fig5.toml"),
    include_str!("../../../../scenarios/floyd1993_fig12.toml"),
    include_str!("../../../../scenarios/floyd1993_sectionx.toml"),
    include_str!("../../../../scenarios/bonald2000_tcp.toml"),
];

/// Seed `i`, cut to 50 ms with no warm-up.
fn seed(i: usize) -> Table {
    let mut t: Table = toml::from_str(SEEDS[i % SEEDS.len()]).unwrap();
    t.insert("duration".into(), Value::String("50ms".into()));
    t.insert("warmup".into(), Value::Integer(0));
    t
}

fn extremes() -> Vec<Value> {
    let f = Value::Float;
    vec![
        Value::Integer(0),
        Value::Integer(-1),
        Value::Integer(i64::MAX),
        Value::Integer(i64::MIN),
        Value::Integer(1 << 31),
        f(0.0),
        f(-0.0),
        f(f64::NAN),
        f(f64::INFINITY),
        f(f64::NEG_INFINITY),
        f(2f64.powi(63)),
        f(1e308),
        f(-1e308),
        f(5e-324),
        f(1e-12),
        f(4.6e9),
        Value::String("1e9Gbps".into()),
        Value::String("0.1ns".into()),
        Value::String("1e308s".into()),
        Value::String("-5ms".into()),
        Value::String("x".into()),
        Value::Boolean(true),
        Value::Array(vec![]),
        Value::Table(Table::new()),
    ]
}

/// Every (path of indices) to a value of the tree, as a list of steps.
fn slots(v: &Value, here: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                here.push(k.clone());
                out.push(here.clone());
                slots(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(format!("#{i}"));
                out.push(here.clone());
                slots(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

/// The parent container of the value at `path`, and its last step.
fn parent<'a>(root: &'a mut Value, path: &[String]) -> (&'a mut Value, String) {
    let mut v = root;
    for s in &path[..path.len() - 1] {
        v = match (v, s.strip_prefix('#')) {
            (Value::Array(a), Some(i)) => &mut a[i.parse::<usize>().unwrap()],
            (Value::Table(t), None) => t.get_mut(s).unwrap(),
            _ => unreachable!(),
        };
    }
    (v, path[path.len() - 1].clone())
}

/// Apply the mutation `(pick, op, value)` to `root`.
fn mutate(root: &mut Value, pick: usize, op: u8, value: usize) {
    let mut all = Vec::new();
    slots(root, &mut Vec::new(), &mut all);
    let ex = extremes();
    let new = ex[value % ex.len()].clone();
    if all.is_empty() || op % 6 == 5 {
        // an unknown key, at the top or in a table
        let keys = ["foo", "", "rate ", "limitt", "Type"];
        if let Value::Table(t) = root {
            t.insert(keys[value % keys.len()].to_string(), new);
        }
        return;
    }
    let path = &all[pick % all.len()];
    let (c, last) = parent(root, path);
    match (c, last.strip_prefix('#'), op % 6) {
        (Value::Table(t), None, 0..=2) => {
            t.insert(last, new);
        }
        (Value::Array(a), Some(i), 0..=2) => a[i.parse::<usize>().unwrap()] = new,
        (Value::Table(t), None, 3) => {
            t.remove(&last);
        }
        (Value::Array(a), Some(i), 3) => {
            a.remove(i.parse::<usize>().unwrap());
        }
        // a duplicated entry (a [[link]], [[flow]] or a list item) or table
        (Value::Array(a), Some(i), _) => {
            let x = a[i.parse::<usize>().unwrap()].clone();
            a.push(x);
        }
        (Value::Table(t), None, _) => {
            let x = t[&last].clone();
            t.insert(last, Value::Array(vec![x.clone(), x]));
        }
        _ => {}
    }
}

/// Cut a duration that a mutation made long but valid back to 50 ms (a long run is
/// no hang; an invalid duration stays, to be refused).
fn cut_duration(v: &mut Value) {
    let Value::Table(t) = v else { return };
    let secs = match t.get("duration") {
        Some(Value::Integer(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(Value::String(s)) => aqm::Quantity::Text(s.clone()).secs("duration").unwrap_or(0.0),
        _ => return,
    };
    if secs > 0.05 && secs <= 4.6e9 {
        t.insert("duration".into(), Value::String("50ms".into()));
    }
}

/// Does `m` start with a field path (`flow[0].rate = `, `link[1]."rate ": `)?
fn names_a_path(m: &str) -> bool {
    let end = [" = ", ": "].iter().filter_map(|s| m.find(s)).min();
    let Some(end) = end else { return false };
    let p = &m[..end];
    !p.is_empty()
        && p.split('.').all(|seg| {
            let name = seg.split('[').next().unwrap_or("");
            let quoted = name.len() >= 2 && name.starts_with('"') && name.ends_with('"');
            quoted || (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        })
}

/// Run `f` on a thread of its own; fail if it takes longer than LIMIT.
fn within_limit<T: Send + 'static>(what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(LIMIT) {
        Ok(r) => r,
        Err(e) => panic!("no answer within {LIMIT:?} ({e}): {what}"),
    }
}

/// The outcome of a mutated scenario: "ran" or "refused", or a panic describing a failure.
fn scenario_case(v: Value) -> &'static str {
    let shown = format!("{v}");
    within_limit(shown.clone(), move || match Scenario::from_value(&v) {
        Err(SimError::Scenario(m)) if names_a_path(&m) => "refused",
        Err(e) => panic!("refused without a path: {e}\n{shown}"),
        Ok(sc) => match Sim::new(sc, None).and_then(|mut s| s.run()) {
            Ok(_) => "ran",
            Err(SimError::Stopped(_)) => "refused",
            Err(SimError::Scenario(m)) if names_a_path(&m) => "refused",
            Err(e) => panic!("failed: {e}\n{shown}"),
        },
    })
}

fn mutations() -> impl Strategy<Value = Vec<(usize, u8, usize)>> {
    prop::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        // (the same cases in every run)
        rng_seed: proptest::test_runner::RngSeed::Fixed(17),
        ..ProptestConfig::default()
    })]

    /// A mutated scenario runs (50 ms) or is refused with the path of a field.
    #[test]
    fn a_mutated_scenario_runs_or_is_refused(i in 0usize..SEEDS.len(), m in mutations()) {
        let mut v = Value::Table(seed(i));
        for (pick, op, value) in m {
            mutate(&mut v, pick, op, value);
        }
        cut_duration(&mut v);
        scenario_case(v);
    }

    /// A mutated queue table builds (and decides on packets) or is refused naming a key.
    #[test]
    fn a_mutated_queue_builds_or_is_refused(t in 0usize..6, m in mutations(), now in any::<f64>()) {
        let kinds = ["droptail", "randomdrop", "red", "ared", "feng_ared", "fred"];
        let mut q = Table::new();
        q.insert("type".into(), Value::String(kinds[t].into()));
        q.insert("limit".into(), Value::Integer(100));
        q.insert("min_th".into(), Value::Integer(5));
        let mut v = Value::Table(q);
        for (pick, op, value) in m {
            mutate(&mut v, pick, op, value);
        }
        let shown = format!("{v}");
        within_limit(shown.clone(), move || {
            match aqm::config::parse_queue(v, "link[0].queue") {
                Err(e) => assert!(names_a_path(&e.to_string()), "{e}\n{shown}"),
                Ok(c) => match c.build(&BuildContext { link_rate_bps: Some(1e7), seed: Some(1) }) {
                    Err(e) => {
                        let m = e.at("link[0].queue").to_string();
                        assert!(names_a_path(&m), "{m}\n{shown}");
                    }
                    Ok(mut a) => {
                        let pkt = PacketInfo { size: 1000, flow: 1, ecn_capable: true, ect1: false, ce: false };
                        let t = Time::from_secs_f64(if now.is_finite() { now.abs() } else { 0.0 });
                        let mut backlog = aqm::Backlog::default();
                        for k in 0..100u64 {
                            let _ = a.on_arrival(t + aqm::Duration(k * 1000), &pkt, backlog);
                            backlog.packets = (k % 20) as u32;
                            backlog.bytes = 1000 * backlog.packets as u64;
                        }
                    }
                },
            }
        });
    }
}

#[test]
fn mutations_reach_both_outcomes() {
    let (mut ran, mut refused) = (0, 0);
    for i in 0..60usize {
        let mut v = Value::Table(seed(i));
        mutate(&mut v, i * 7919, (i % 3) as u8, i);
        cut_duration(&mut v);
        match scenario_case(v) {
            "ran" => ran += 1,
            _ => refused += 1,
        }
    }
    assert!(ran > 0 && refused > 0, "ran {ran}, refused {refused}");
}

#[test]
fn the_path_check_wants_a_path() {
    assert!(names_a_path("flow[0].rate = 1e308 is invalid"));
    assert!(names_a_path("link[1].\"rate \": unknown field"));
    assert!(!names_a_path("scenario went wrong"));
    assert!(!names_a_path("a b: c"));
    assert!(!names_a_path(": empty"));
}
