//! Profiles (`profile = "ns2"` at the top of a scenario, on a flow, on a queue table):
//! a key written wins over the table's profile, which wins over the scenario's, which
//! wins over the defaults; the summary records what each filled.

use super::*;

/// The queue `q` of a path's bottleneck as a table of its configuration.
fn queue_of(sc: &Scenario) -> toml::Table {
    toml::Table::try_from(&sc.links[1].queue_ab).expect("a queue configuration")
}

/// The bottleneck queue and the flows of `path`, with `top` before them.
fn profiled(top: &str, queue: &str, flows: &str) -> Scenario {
    scenario(&format!("{top}\n{}", path(queue, flows, "1s", "0s")))
}

/// A key written wins over the flow's profile, which wins over the scenario's; a key
/// that only the scenario's profile sets still reaches a flow with a profile of its
/// own; a flow without a profile takes the scenario's.
#[test]
fn precedence_flow_key_then_flow_profile_then_scenario_profile() {
    let flows = r#"
[[flow]]
src = "s1"
dst = "k1"
[[flow]]
src = "s1"
dst = "k1"
profile = "linux"
[[flow]]
src = "s1"
dst = "k1"
profile = "linux"
max_window = 500
min_rto = 0.3
"#;
    let sc = profiled(r#"profile = "ns2""#, r#"{ type = "droptail", limit = 50 }"#, flows);
    let [a, b, c] = [&sc.flows[0], &sc.flows[1], &sc.flows[2]];
    // ns-2: window_ 20, windowInit_ 2, packetSize_ 1000 + 40 bytes of headers
    assert_eq!((a.tcp.max_window, a.tcp.init_cwnd, a.packet_size), (20, 2.0, 1040));
    assert_eq!(a.tcp.rules.loss_ssthresh, sim::tcp::LossSsthresh::Cwnd);
    // linux: IW10, SACK, CUBIC; the window from ns2, which linux does not set
    assert_eq!((b.tcp.init_cwnd, b.tcp.sack, b.tcp.variant), (10.0, true, sim::Variant::Cubic));
    assert_eq!((b.tcp.max_window, b.tcp.min_rto), (20, 0.2));
    assert!(b.tcp.rules.prr && b.tcp.rules.rack && b.tcp.rules.hystart);
    // (linux sets loss_ssthresh nowhere: ns2's "cwnd" fills it)
    assert_eq!(b.tcp.rules.loss_ssthresh, sim::tcp::LossSsthresh::Cwnd);
    assert_eq!((c.tcp.max_window, c.tcp.min_rto, c.tcp.init_cwnd), (500, 0.3, 10.0));
}

/// A queue table's profile and the scenario's fill the queue keys of its type; a key
/// written wins; queues of other types take none.
#[test]
fn queue_profiles_fill_their_types_keys() {
    let red = r#"{ type = "red", limit = 100, min_th = 5, max_th = 15, profile = "ns2", gentle = false }"#;
    let q = queue_of(&profiled("", red, ""));
    assert_eq!(q["min_backlog"].as_integer(), Some(2));
    assert_eq!(q["mark_method"].as_str(), Some("ns2_wait"));
    // (not ns-2's byte counting: aqmlab's keys of that name take thresholds in bytes)
    assert_eq!(q["queue_in_bytes"].as_bool(), Some(false));
    assert_eq!(q["gentle"].as_bool(), Some(false), "written");
    assert!(!q.contains_key("adapt_rule"), "an Adaptive RED key");
    // Adaptive RED takes RED's keys and its own (two groups of the profile)
    let ared = r#"{ type = "ared", limit = 100, min_th = 20, max_th = 80, profile = "ns2" }"#;
    let q = queue_of(&profiled("", ared, ""));
    assert_eq!((q["adapt_rule"].as_str(), q["idle_rule"].as_str()), (Some("ns2"), Some("ns2")));
    let pie = r#"{ type = "pie", limit = 100 }"#;
    let q = queue_of(&profiled(r#"profile = "ns3""#, pie, ""));
    assert_eq!(q["burst_reset"].as_str(), Some("quiet"));
    assert_eq!(q["derandomize"].as_bool(), Some(false));
    let q = queue_of(&profiled(r#"profile = "ns2""#, pie, ""));
    assert_eq!(q["burst_reset"].as_str(), Some("rfc"), "ns2 sets no PIE key");
    // ns-3's device queue on every link
    let sc = profiled(r#"profile = "ns3""#, pie, "");
    assert!(sc.links.iter().all(|l| l.device_queue == 1));
}

/// The record: the scenario's profile first (rfc when none is named), then each table
/// a profile filled, with the keys and values it filled there.
#[test]
fn summary_records_each_profile_and_its_keys() {
    let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 50\n";
    let sc = profiled("", r#"{ type = "droptail", limit = 50 }"#, flows);
    assert_eq!(sc.profiles.len(), 1);
    assert_eq!(
        (sc.profiles[0].scope.as_str(), sc.profiles[0].profile.as_str()),
        ("scenario", "rfc")
    );
    let red = r#"{ type = "red", limit = 100, profile = "ns2" }"#;
    let s = run(&format!("profile = \"ns3\"\n{}", path(red, flows, "1s", "0s")));
    let scopes: Vec<(&str, &str)> =
        s.profiles.iter().map(|u| (u.scope.as_str(), u.profile.as_str())).collect();
    assert_eq!(scopes[0], ("scenario", "ns3"));
    assert!(scopes.contains(&("flow[0]", "ns3")) && scopes.contains(&("link[1].queue", "ns2")));
    let f = s.profiles.iter().find(|u| u.scope == "flow[0]").unwrap();
    assert_eq!(f.keys["loss_ssthresh"].as_str(), Some("pipe"));
    assert!(!f.keys.contains_key("max_window"), "written in the file");
    let q = s.profiles.iter().find(|u| u.scope == "link[1].queue").unwrap();
    assert_eq!(q.keys["min_backlog"].as_integer(), Some(2));
}

/// A flow that turns SACK off under `linux` gets neither PRR nor RACK (both need it) and
/// restarts its timer on every partial ACK, as Linux re-arms it on every ACK of new data
/// (Slow-but-Steady); a flow that gives `initial_window` does not get the profile's
/// `init_cwnd`.
#[test]
fn keys_that_need_others() {
    let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nsack = false\ninitial_window = 4\n";
    let sc = profiled(r#"profile = "linux""#, r#"{ type = "droptail", limit = 50 }"#, flows);
    let t = &sc.flows[0].tcp;
    assert!(!t.sack && !t.rules.prr && !t.rules.rack && t.rules.hystart);
    assert_eq!(t.rules.newreno_timer, sim::tcp::NewRenoTimer::SlowButSteady);
    assert_eq!(t.init_cwnd, 4.0);
}

/// Every profile applies to every queue type and flow type without an error (its keys
/// are keys those tables take, with values they allow).
#[test]
fn every_profile_fits_every_table() {
    let types = ["droptail", "red", "ared", "feng_ared", "codel", "fq_codel", "pie", "fq_pie"];
    let flows = r#"
[[flow]]
src = "s1"
dst = "k1"
[[flow]]
type = "telnet"
src = "s1"
dst = "k1"
[[flow]]
type = "web"
src = "s1"
dst = "k1"
[[flow]]
type = "cbr"
src = "s1"
dst = "k1"
rate = "1Mbps"
"#;
    for p in sim::profile::PROFILES {
        for ty in types {
            let q = format!("{{ type = \"{ty}\", limit = 100 }}");
            let top = format!("profile = \"{}\"", p.name);
            let sc = Scenario::from_toml_str(&format!("{top}\n{}", path(&q, flows, "1s", "0s")));
            assert!(sc.is_ok(), "{} on {ty}: {}", p.name, sc.err().map(|e| e.to_string()).unwrap());
        }
    }
}

/// A profile that does not exist is refused with its path and the allowed names.
#[test]
fn unknown_profile_is_refused() {
    let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nprofile = \"ns4\"\n";
    let e =
        Scenario::from_toml_str(&path(r#"{ type = "droptail", limit = 50 }"#, flows, "1s", "0s"))
            .unwrap_err()
            .to_string();
    assert!(e.starts_with("flow[0].profile") && e.contains("rfc, ns2, ns3, linux"), "{e}");
    let e = Scenario::from_toml_str(&format!(
        "profile = 3\n{}",
        path("{ type = \"droptail\" }", "", "1s", "0s")
    ))
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("profile"), "{e}");
}
