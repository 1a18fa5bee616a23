//! Integration tests of the simulator (one binary, one module per theme).

use sim::{Scenario, Sim, Summary};

mod features;
mod fuzz;

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"))
}

fn run(toml: &str) -> Summary {
    sim::run(scenario(toml), None).unwrap()
}

/// A source, a router and a sink: s1 -100Mb/s 1ms- r1 -10Mb/s 20ms- k1.
fn path(queue: &str, flows: &str, duration: &str, warmup: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "{warmup}"
[[link]]
a = "s1"
b = "r1"
rate = "100Mbps"
delay = "1ms"
queue = {{ type = "droptail", limit = 1000 }}
[[link]]
a = "r1"
b = "k1"
rate = "10Mbps"
delay = "20ms"
queue = {queue}
{flows}
"#
    )
}

mod basics {
    use super::*;

    /// One TCP flow over an idle path fills the bottleneck and loses nothing.
    #[test]
    fn one_tcp_flow_fills_the_link() {
        let s = run(&path(
            r#"{ type = "droptail", limit = 300 }"#,
            "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\nssthresh = 16",
            "20s",
            "5s",
        ));
        let l = &s.links["r1->k1"];
        assert!(l.utilization > 0.99, "utilization {}", l.utilization);
        assert_eq!(l.drops, 0);
        let f = &s.flows[0];
        assert!((f.goodput_bps - 10e6).abs() / 10e6 < 0.01, "goodput {}", f.goodput_bps);
        assert!((f.throughput_bps - 10e6).abs() / 10e6 < 0.01, "throughput {}", f.throughput_bps);
        assert_eq!(f.timeouts, 0);
    }

    /// cwnd doubles every round trip up to ssthresh, then grows by about one packet per round trip.
    #[test]
    fn cwnd_slow_start_then_linear() {
        let sc = scenario(&path(
            r#"{ type = "droptail", limit = 300 }"#,
            "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\nssthresh = 16\ninit_cwnd = 1",
            "3s",
            "0s",
        ));
        let mut sim = Sim::new(sc, None).unwrap();
        let mut samples = Vec::new();
        for k in 1..=3000u64 {
            sim.run_until(aqm::Time(k * 1_000_000)).unwrap();
            samples.push((k as f64 * 1e-3, sim.cwnd(0).unwrap()));
        }
        // Base RTT: 2 * (1 + 20) ms plus transmission times, about 43 ms.
        let at = |t: f64| samples.iter().find(|(x, _)| *x >= t).unwrap().1;
        // Slow start: 1, 2, 4, 8, 16 after about four round trips.
        let t16 = samples.iter().find(|(_, c)| *c >= 16.0).unwrap().0;
        assert!(t16 > 3.0 * 0.043 && t16 < 4.0 * 0.043 + 0.01, "cwnd reached 16 at {t16}");
        assert!(at(0.05) <= 2.0 + 1e-9, "cwnd after one RTT: {}", at(0.05));
        // Congestion avoidance: about one packet per RTT (RTT grows a little with cwnd).
        let gained = at(t16 + 1.0) - 16.0;
        assert!(gained > 18.0 && gained < 24.0, "gained {gained} packets in 1 s (~23 RTTs)");
    }

    /// A CBR flow below capacity loses nothing and gets its rate.
    #[test]
    fn cbr_below_capacity() {
        let s = run(&path(
            r#"{ type = "droptail", limit = 50 }"#,
            "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"5Mbps\"\npacket_size = 500",
            "10s",
            "1s",
        ));
        let f = &s.flows[0];
        assert_eq!(f.drops, 0);
        assert!((f.goodput_bps - 5e6).abs() / 5e6 < 0.001, "goodput {}", f.goodput_bps);
        assert!((s.links["r1->k1"].utilization - 0.5).abs() < 0.001);
        assert!(s.links["r1->k1"].mean_queue < 1e-9, "a CBR flow below capacity never waits");
    }

    /// Every packet offered to a queue departs, is dropped or is still waiting.
    #[test]
    fn packet_conservation_at_every_queue() {
        for q in [
            r#"{ type = "droptail", limit = 20 }"#,
            r#"{ type = "droptail", limit = 20, drop_front = true }"#,
            r#"{ type = "randomdrop", limit = 20 }"#,
            r#"{ type = "red", limit = 30, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }"#,
            r#"{ type = "ared", limit = 60 }"#,
            r#"{ type = "droptail", limit_bytes = 15000 }"#,
        ] {
            let flows = "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 200\ncount = 5\nstart = { uniform = [0, 1] }\n\
                         [[flow]]\ntype = \"poisson\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"3Mbps\"\n\
                         [[flow]]\ntype = \"cbr\"\nsrc = \"k1\"\ndst = \"s1\"\nrate = \"9.9Mbps\"";
            let s = run(&path(q, flows, "10s", "0s"));
            let mut total_drops = 0;
            for (name, l) in &s.links {
                assert_eq!(
                    l.arrivals,
                    l.departures + l.drops + l.queued_at_end,
                    "{q}: {name}: {l:?}"
                );
                total_drops += l.drops;
            }
            assert!(total_drops > 0, "{q}: the test needs drops");
            let flow_drops: u64 = s.flows.iter().map(|f| f.drops).sum();
            assert!(flow_drops <= total_drops, "{q}");
        }
    }
}

mod recovery {
    use super::*;

    fn losses(variant: &str, drops: &str) -> sim::FlowSummary {
        let flows = format!(
            "[[flow]]\ntype = \"tcp\"\nvariant = \"{variant}\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 40\npackets = 400\ndrop = [{drops}]"
        );
        let s = run(&path(r#"{ type = "droptail", limit = 1000 }"#, &flows, "20s", "0s"));
        let f = s.flows[0].clone();
        assert!(f.completion_time.is_some(), "{variant} [{drops}]: transfer not finished: {f:?}");
        assert_eq!(
            f.goodput_bps * 20.0 / 8.0,
            400.0 * 1000.0,
            "{variant}: every packet delivered once"
        );
        f
    }

    /// NewReno recovers from 1, 2 and 3 losses in a window with one fast retransmit and no timeout.
    #[test]
    fn newreno_recovers_without_timeouts() {
        for d in ["100", "100, 103", "100, 103, 106"] {
            let f = losses("newreno", d);
            assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "newreno [{d}]: {f:?}");
        }
    }

    /// Reno recovers from one loss by fast retransmit; with several losses in a window
    /// its first partial ACK ends recovery and the rest waits for a timeout.
    #[test]
    fn reno_times_out_on_multiple_losses() {
        let f = losses("reno", "100");
        assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "{f:?}");
        for d in ["100, 103", "100, 103, 106"] {
            let f = losses("reno", d);
            assert_eq!(f.timeouts, 1, "reno [{d}]: {f:?}");
        }
    }

    /// Tahoe answers any number of losses in a window with one fast retransmit and go-back-N slow start.
    #[test]
    fn tahoe_go_back_n() {
        for d in ["100", "100, 103", "100, 103, 106"] {
            let f = losses("tahoe", d);
            assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "tahoe [{d}]: {f:?}");
            assert!(f.retransmits >= 1);
        }
    }

    /// While a link is down the retransmission timeout doubles at each expiry (Karn/Jacobson backoff).
    #[test]
    fn rto_backoff_doubles() {
        let mut toml = path(
            r#"{ type = "droptail", limit = 100 }"#,
            "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 20",
            "200s",
            "0s",
        );
        toml.push_str("[[event]]\nat = \"2s\"\na = \"r1\"\nb = \"k1\"\naction = \"down\"\n");
        let mut sim = Sim::new(scenario(&toml), None).unwrap();
        sim.run().unwrap();
        let t: Vec<f64> = sim.timeout_times(0).iter().map(|t| t.as_secs_f64()).collect();
        assert!(t.len() >= 6, "{t:?}");
        let gaps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
        for g in gaps.windows(2).take(4) {
            assert!((g[1] / g[0] - 2.0).abs() < 0.01, "gaps {gaps:?}");
        }
        // Capped at 64 times the base RTO.
        let last = *gaps.last().unwrap();
        let first = gaps[0] / 2.0;
        assert!(last <= 64.0 * first * 1.01 + 1e-9, "gaps {gaps:?}");
    }
}

mod routing {
    use super::*;

    /// A link outage moves traffic onto the lower-precedence alternate path and back.
    #[test]
    fn outage_reroutes_and_restores() {
        let s = run(r#"
duration = "15s"
[[link]]
a = "s"
b = "r1"
rate = "10Mbps"
delay = "1ms"
[[link]]
a = "r1"
b = "r2"
rate = "10Mbps"
delay = "10ms"
[[link]]
a = "r1"
b = "r3"
rate = "10Mbps"
delay = "10ms"
cost = 2
[[link]]
a = "r3"
b = "r2"
rate = "10Mbps"
delay = "10ms"
cost = 2
[[link]]
a = "r2"
b = "k"
rate = "10Mbps"
delay = "1ms"
[[flow]]
type = "cbr"
src = "s"
dst = "k"
rate = "1Mbps"
[[event]]
at = "5s"
a = "r1"
b = "r2"
action = "down"
[[event]]
at = "10s"
a = "r2"
b = "r1"
action = "up"
"#);
        let per_s = 1e6 / 8000.0;
        let alt = s.links["r1->r3"].arrivals as f64;
        let primary = s.links["r1->r2"].arrivals as f64;
        assert!((alt - 5.0 * per_s).abs() <= 2.0, "alternate carried {alt}");
        assert!((primary - 10.0 * per_s).abs() <= 3.0, "primary carried {primary}");
        let f = &s.flows[0];
        // Only the packets on the primary link when it failed are lost.
        assert!(f.drops <= 3, "{f:?}");
        assert_eq!(s.links["r1->r2"].link_down_drops, f.drops);
    }
}

mod determinism {
    use super::*;

    fn mixed(seed: u64) -> Summary {
        let flows = "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 50\ncount = 4\nstart = { uniform = [0, 2] }\n\
                     [[flow]]\ntype = \"poisson\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"2Mbps\"";
        let mut t = path(
            r#"{ type = "red", limit = 60, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }"#,
            flows,
            "10s",
            "2s",
        );
        t.push_str(&format!("seed = {seed}\n"));
        // seed must be a top-level key: put it first.
        let t = format!("seed = {seed}\n{}", t.replace(&format!("seed = {seed}\n"), ""));
        let mut s = run(&t);
        s.wall_seconds = 0.0;
        s
    }

    /// The same seed gives an identical summary; another seed gives a different one.
    #[test]
    fn same_seed_same_summary() {
        assert_eq!(mixed(7), mixed(7));
        assert_ne!(mixed(7).flows, mixed(8).flows);
    }

    /// Adding a flow does not change another flow's random numbers (its start time here).
    #[test]
    fn streams_are_per_flow() {
        let a = scenario(&path(
            r#"{ type = "droptail" , limit = 10}"#,
            "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nstart = { uniform = [0, 5] }",
            "10s",
            "0s",
        ));
        let b = scenario(&path(
            r#"{ type = "droptail", limit = 10 }"#,
            "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nstart = { uniform = [0, 5] }\n[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nstart = { uniform = [0, 5] }",
            "10s",
            "0s",
        ));
        assert_eq!(a.flows[0].start, b.flows[0].start);
        assert_ne!(b.flows[0].start, b.flows[1].start);
    }
}

mod ecn {
    use super::*;

    /// With ECN, RED marks instead of dropping and the senders back off without losses.
    #[test]
    fn red_marks_ecn_flows() {
        let flows = "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 200\ncount = 4\necn = true";
        let s = run(&path(
            r#"{ type = "red", limit = 300, min_th = 5, max_th = 30, w_q = 0.002, max_p = 0.1, ecn = true, gentle = true }"#,
            flows,
            "20s",
            "5s",
        ));
        let l = &s.links["r1->k1"];
        assert!(l.marks > 10, "{l:?}");
        assert_eq!(l.drops, 0, "{l:?}");
        assert!(l.utilization > 0.9);
        assert!(l.mean_avg > 5.0 && l.mean_avg < 30.0, "{l:?}");
    }
}

mod errors {
    use super::*;

    fn err(toml: &str) -> String {
        match Scenario::from_toml_str(toml) {
            Ok(_) => panic!("accepted: {toml}"),
            Err(e) => e.to_string(),
        }
    }

    const LINK: &str =
        "duration = 10\n[[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n";

    /// Invalid scenarios are rejected with the path of the field and what is allowed.
    #[test]
    fn messages_name_the_field() {
        let e = err(&format!("{LINK}[[flow]]\nsrc = \"a\"\ndst = \"zz\""));
        assert!(e.starts_with("flow[0].dst") && e.contains("\"b\"") || e.contains("a, b"), "{e}");
        let e = err("duration = 10\n[[link]]\na = \"a\"\nb = \"b\"\nrate = -5\ndelay = \"1ms\"");
        assert!(e.starts_with("link[0].rate") && e.contains("> 0"), "{e}");
        let e = err(&format!("{LINK}[[flow]]\nsrc = \"a\"\ndst = \"b\"\nmax_windw = 3"));
        assert!(e.starts_with("flow[0].max_windw") && e.contains("max_window"), "{e}");
        let e =
            err("duration = 10\n[[link]]\na = \"a\"\nb = \"b\"\nrate = 1e6\ndelay = 0\nfoo = 1");
        assert!(e.starts_with("link[0].foo: unknown field") && e.contains("queue_ab"), "{e}");
        let e = err(&format!(
            "{LINK}[[link]]\na = \"b\"\nb = \"c\"\nrate = 1e6\ndelay = 0\n[[link]]\na = \"c\"\nb = \"d\"\nrate = 1e6\ndelay = 0\n\
             queue_ab = {{ type = \"red\", limit = 100, min_th = 50, max_th = 20 }}"
        ));
        assert!(e.starts_with("link[2].queue_ab.min_th") && e.contains("< max_th"), "{e}");
        let e = err(&format!("{LINK}queue = {{ type = \"red\", limit = 100, min_tj = 5 }}"));
        assert!(
            e.starts_with("link[0].queue.min_tj: unknown field") && e.contains("max_th"),
            "{e}"
        );
        let e = err(&format!("{LINK}queue = {{ type = \"sfq\" }}"));
        assert!(e.starts_with("link[0].queue.type") && e.contains("droptail"), "{e}");
        let e = err(&format!(
            "{LINK}[[link]]\na = \"c\"\nb = \"d\"\nrate = 1e6\ndelay = 0\n[[flow]]\nsrc = \"a\"\ndst = \"d\""
        ));
        assert!(e.starts_with("flow[0]") && e.contains("no route"), "{e}");
        let e = err(&format!(
            "{LINK}[[flow]]\ntype = \"cbr\"\nsrc = \"a\"\ndst = \"b\"\nrate = \"10 parsecs\""
        ));
        assert!(e.starts_with("flow[0].rate") && e.contains("15Mbps"), "{e}");
        let e = err(&format!("warmup = 20\n{LINK}"));
        assert!(e.starts_with("warmup"), "{e}");
        let e = err(&format!(
            "{LINK}[[flow]]\ntype = \"tcp\"\nvariant = \"vegas\"\nsrc = \"a\"\ndst = \"b\""
        ));
        assert!(e.starts_with("flow[0].variant") && e.contains("newreno"), "{e}");
        let e = err(&format!("threads = 3\n{LINK}"));
        assert!(e.starts_with("threads") && e.contains("1 or 2"), "{e}");
    }

    /// Each scenario of the corpus (`invalid_scenarios.toml`) is rejected with the path
    /// the corpus gives: unknown keys at every level, wrong types, out-of-range numbers,
    /// bad enums and units, missing keys, keys of another flow type, bad names.
    #[test]
    fn corpus_errors_name_their_path() {
        #[derive(serde::Deserialize)]
        struct Case {
            path: String,
            toml: String,
        }
        #[derive(serde::Deserialize)]
        struct Corpus {
            case: Vec<Case>,
        }
        let text = include_str!("invalid_scenarios.toml");
        let corpus: Corpus = toml::from_str(text).unwrap();
        assert!(corpus.case.len() >= 60);
        let link = "[[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"";
        for c in corpus.case {
            let e = err(&c.toml.replace("{LINK}", link));
            let rest = e.strip_prefix(c.path.as_str()).unwrap_or("");
            assert!(rest.starts_with(": ") || rest.starts_with(" = "), "{}: {e}", c.path);
        }
    }
}

mod sources {
    use super::*;

    fn one(flow: &str) -> Summary {
        run(&path(
            r#"{ type = "droptail", limit = 10000 }"#,
            &format!("[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\n{flow}"),
            "200s",
            "0s",
        ))
    }

    /// Poisson and batch-Poisson sources deliver their mean rate.
    #[test]
    fn poisson_and_batch_rates() {
        let p = &one("type = \"poisson\"\nrate = \"2Mbps\"").flows[0];
        assert!((p.goodput_bps - 2e6).abs() / 2e6 < 0.02, "{p:?}");
        let b = one("type = \"batch_poisson\"\nrate = \"2Mbps\"\nbatch = 10");
        let f = &b.flows[0];
        assert!((f.goodput_bps - 2e6).abs() / 2e6 < 0.06, "{f:?}");
        assert_eq!(f.sent % 10, 0, "whole batches");
        // Batches queue behind each other: a batch of 10 waits longer than Poisson singles.
        assert!(
            b.links["s1->r1"].mean_delay
                > one("type = \"poisson\"\nrate = \"2Mbps\"").links["s1->r1"].mean_delay
        );
    }

    /// A Pareto ON/OFF source sends at its peak rate for a fraction on/(on+off) of the time.
    #[test]
    fn pareto_onoff_mean_rate() {
        let f = &one("type = \"pareto_onoff\"\nrate = \"4Mbps\"\non_time = \"0.5s\"\noff_time = \"1.5s\"\nshape = 1.5").flows[0];
        let want = 4e6 * 0.5 / 2.0;
        assert!((f.goodput_bps - want).abs() / want < 0.25, "{f:?}");
    }

    /// A TELNET source writes one packet per exponential interval of mean `interval`.
    #[test]
    fn telnet_packet_rate() {
        let f = &one("type = \"telnet\"\ninterval = \"0.1s\"\npacket_size = 100").flows[0];
        let pkts = f.delivered as f64;
        assert!((pkts - 2000.0).abs() < 150.0, "{f:?}");
        assert_eq!(f.timeouts, 0);
    }

    /// A CBR source with a packet-preparation delay U[0, t] keeps its mean rate.
    #[test]
    fn prep_delay_keeps_rate() {
        let f = &one("type = \"cbr\"\nrate = \"1Mbps\"\nprep_delay = \"4ms\"").flows[0];
        let want = 1e6 * 8.0 / (8.0 + 0.002 * 1e6 / 1000.0 * 8.0 / 8.0 * 1.0);
        assert!((f.goodput_bps - want).abs() / want < 0.01, "{f:?} vs {want}");
    }

    /// A finite transfer of N packets delivers N packets and stops.
    #[test]
    fn finite_transfer() {
        let f = &one("type = \"tcp\"\npackets = 500\nmax_window = 30").flows[0];
        assert_eq!(f.delivered, 500);
        assert!(f.completion_time.unwrap() < 5.0, "{f:?}");
    }
}

mod tcp_options {
    use super::*;

    /// With delayed ACKs the receiver sends about one ACK per two data packets.
    #[test]
    fn delayed_acks_halve_the_acks() {
        let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\ndelayed_ack = true";
        let s = run(&path(r#"{ type = "droptail", limit = 1000 }"#, flows, "20s", "5s"));
        let data = s.links["r1->k1"].arrivals as f64;
        let acks = s.links["k1->r1"].arrivals as f64;
        assert!((acks / data - 0.5).abs() < 0.02, "{acks} ACKs for {data} packets");
        assert!(s.links["r1->k1"].utilization > 0.99);
    }

    /// Lin & Morris's NewReno (11.2) recovers from three losses in a window without a timeout.
    #[test]
    fn lin_morris_newreno() {
        let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 40\npackets = 400\nnewreno = \"lin_morris\"\ndrop = [100, 103, 106]";
        let s = run(&path(r#"{ type = "droptail", limit = 1000 }"#, flows, "20s", "0s"));
        let f = &s.flows[0];
        assert_eq!((f.timeouts, f.delivered), (0, 400), "{f:?}");
    }

    /// With a window of 3 a single loss needs a timeout, unless the 11.3 tiny-window rule is on.
    #[test]
    fn tiny_window_avoids_timeout() {
        let run_with = |tiny: bool| {
            let flows = format!(
                "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 3\npackets = 100\ndrop = [50]\ntiny_window = {tiny}"
            );
            run(&path(r#"{ type = "droptail", limit = 1000 }"#, &flows, "30s", "0s")).flows[0]
                .clone()
        };
        let plain = run_with(false);
        let tiny = run_with(true);
        assert_eq!((plain.timeouts, plain.delivered), (1, 100), "{plain:?}");
        assert_eq!((tiny.timeouts, tiny.fast_retransmits, tiny.delivered), (0, 1, 100), "{tiny:?}");
    }
}

mod web {
    use super::*;

    /// Web mice: Poisson arrivals of Pareto-sized transfers complete on a pool of connections.
    #[test]
    fn web_mice_transfers_complete() {
        let flows = "[[flow]]\ntype = \"web\"\nsrc = \"s1\"\ndst = \"k1\"\narrival_rate = 20\nmean_packets = 12\nshape = 1.2\nmax_transfers = 50\nmax_window = 64";
        let s = run(&path(
            r#"{ type = "red", limit = 100, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }"#,
            flows,
            "100s",
            "10s",
        ));
        assert_eq!(s.flows.len(), 50);
        let transfers: u64 = s.flows.iter().map(|f| f.transfers).sum();
        // About 20 per second over 90 s.
        assert!((transfers as f64 - 1800.0).abs() < 200.0, "{transfers}");
        assert_eq!(s.flows[0].rejected, 0);
        let fct: f64 =
            s.flows.iter().filter_map(|f| f.mean_fct.map(|m| m * f.transfers as f64)).sum::<f64>()
                / transfers as f64;
        assert!(fct > 0.04 && fct < 2.0, "mean completion time {fct}");
        // Offered load ~ 20 * 12 * 8000 b/s = 1.9 Mb/s (heavy-tailed: loose bounds).
        let load = s.links["r1->k1"].throughput_bps;
        assert!(load > 0.8e6 && load < 4e6, "{load}");
    }
}

mod express {
    use super::*;

    /// A parking lot s1..s3 -> r1 -> r2 -> r3 -> k1..k3 with RED at the shared hops,
    /// TCP both ways and open-loop traffic: chains of single-feeder directions.
    fn parking_lot(express: bool, queue: &str) -> String {
        let mut t =
            format!("duration = \"30s\"\nwarmup = \"5s\"\nseed = 3\nexpress_hops = {express}\n");
        for (a, b, rate, delay) in [("r1", "r2", "10Mbps", "10ms"), ("r2", "r3", "8Mbps", "5ms")] {
            t += &format!(
                "[[link]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\nqueue = {queue}\n"
            );
        }
        for i in 1..=3 {
            t += &format!(
                "[[link]]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"{i}ms\"\n"
            );
            t += &format!(
                "[[link]]\na = \"r3\"\nb = \"k{i}\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
                2 * i
            );
            t += &format!(
                "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\ncount = 4\nstart = {{ uniform = [0, 1] }}\n"
            );
            t += &format!(
                "[[flow]]\nsrc = \"k{i}\"\ndst = \"s{i}\"\nvariant = \"reno\"\ncount = 2\n"
            );
        }
        t += "[[flow]]\ntype = \"poisson\"\nsrc = \"s1\"\ndst = \"k3\"\nrate = \"1Mbps\"\n";
        t += "[[flow]]\ntype = \"tcp\"\nsrc = \"s2\"\ndst = \"r2\"\n";
        t
    }

    /// Equal summaries, naming the first link or flow that differs.
    fn same(a: &Summary, b: &Summary, what: &str) {
        for (name, l) in &a.links {
            assert_eq!(Some(l), b.links.get(name), "{what}: link {name}");
        }
        for (x, y) in a.flows.iter().zip(&b.flows) {
            assert_eq!(x, y, "{what}: flow {}", x.id);
        }
        assert_eq!(a, b, "{what}");
    }

    fn summary(toml: &str) -> Summary {
        let mut s = run(toml);
        s.wall_seconds = 0.0;
        s.events = 0;
        s
    }

    /// Handing packets to a single-feeder next hop at once changes nothing in the
    /// results, and saves events.
    #[test]
    fn same_summary_as_hop_by_hop() {
        for queue in [
            r#"{ type = "red", limit = 60, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true }"#,
            r#"{ type = "droptail", limit = 30 }"#,
            r#"{ type = "fred", limit = 60, min_th = 5, max_th = 15 }"#,
        ] {
            let fast = run(&parking_lot(true, queue));
            let slow = run(&parking_lot(false, queue));
            assert!(
                fast.events < slow.events,
                "{queue}: {} events vs {}",
                fast.events,
                slow.events
            );
            same(&summary(&parking_lot(true, queue)), &summary(&parking_lot(false, queue)), queue);
        }
    }

    /// A dumbbell where every flow has hosts of its own, so that senders and receivers
    /// take their packets at once: TCP variants with retransmission timers that race
    /// the ACKs (a small minimum RTO, a short buffer), ECN, finite transfers, delayed
    /// ACKs, a preparation delay, a stop time, telnet, and open-loop flows; the window
    /// starts while ACKs are in flight.
    fn dumbbell(express: bool, queue: &str) -> String {
        let mut t =
            format!("duration = \"20s\"\nwarmup = \"3.3s\"\nseed = 5\nexpress_hops = {express}\n");
        t += &format!(
            "[[link]]\na = \"r1\"\nb = \"r2\"\nrate = \"6Mbps\"\ndelay = \"15ms\"\nqueue_ab = {queue}\nqueue_ba = {{ type = \"droptail\", limit = 25 }}\n"
        );
        let flows = [
            "variant = \"newreno\"\nmin_rto = 0.05\ntick = 0.001",
            "variant = \"reno\"\nmin_rto = 0.05\ntick = 0.001\necn = true",
            "variant = \"tahoe\"\nmin_rto = 0.05\ntick = 0.001",
            "variant = \"newreno\"\npackets = 300",
            "variant = \"newreno\"\ndelayed_ack = true",
            "variant = \"reno\"\nprep_delay = 0.002",
            "variant = \"newreno\"\nstop = \"12s\"\necn = true",
            "type = \"telnet\"\ninterval = 0.05",
            "type = \"cbr\"\nrate = \"0.5Mbps\"",
            "type = \"pareto_onoff\"\nrate = \"1Mbps\"\non_time = 0.5\noff_time = 0.5\nshape = 1.5",
        ];
        for (i, f) in flows.iter().enumerate() {
            t += &format!(
                "[[link]]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
                1 + 3 * i
            );
            t += &format!(
                "[[link]]\na = \"r2\"\nb = \"k{i}\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
                2 + i
            );
            t += &format!(
                "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\nstart = {{ uniform = [0, 2] }}\n{f}\n"
            );
        }
        t
    }

    /// Hosts that take their packets at once (the clock moved to the arrival) give the
    /// summary of the hop-by-hop run, with far fewer events.
    #[test]
    fn hosts_taking_packets_at_once_change_nothing() {
        for queue in [
            r#"{ type = "red", limit = 40, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true, ecn = true }"#,
            r#"{ type = "droptail", limit = 12 }"#,
        ] {
            let (fast, slow) = (run(&dumbbell(true, queue)), run(&dumbbell(false, queue)));
            assert!(
                slow.flows.iter().map(|f| f.timeouts).sum::<u64>() > 0,
                "{queue}: the timers must race the ACKs"
            );
            assert!(
                fast.events * 10 < slow.events * 6,
                "{queue}: {} events vs {}",
                fast.events,
                slow.events
            );
            same(&summary(&dumbbell(true, queue)), &summary(&dumbbell(false, queue)), queue);
        }
        // One flow whose every hop has a single feeder: a host's turn must not run into
        // the other host's (its packets would enter its first link out of order).
        let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\nmin_rto = 0.05";
        let one = |express: bool| {
            let t = path(r#"{ type = "droptail", limit = 20 }"#, flows, "20s", "5s");
            summary(&format!("express_hops = {express}\n{t}"))
        };
        same(&one(true), &one(false), "single path");
    }

    /// A direction fed by several directions (the bottleneck, fed by the access links;
    /// the reverse bottleneck, fed by the ACKs' access links) takes its arrivals from an
    /// inbox in batches, a lookahead ahead of the clock: long-lived TCP flows then cost
    /// less than one event per bottleneck packet (the two deliveries into the merging
    /// directions cost one each without it), with the summary of the hop-by-hop run.
    #[test]
    fn merging_directions_take_their_arrivals_in_batches() {
        let t = |express: bool| {
            let mut t = format!(
                "duration = \"30s\"\nwarmup = \"10s\"\nseed = 4\nexpress_hops = {express}\n"
            );
            t += "[[link]]\na = \"r1\"\nb = \"r2\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\n";
            t += "queue_ab = { type = \"red\", limit = 100, min_th = 10, max_th = 30, w_q = 0.002, max_p = 0.1, gentle = true }\n";
            for i in 0..20 {
                t += &format!(
                    "[[link]]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
                    5 + i
                );
                t += &format!(
                    "[[link]]\na = \"r2\"\nb = \"k{i}\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
                    5 + 2 * i
                );
                t += &format!(
                    "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\nmax_window = 100\nstart = {{ uniform = [0, 1] }}\n"
                );
            }
            t
        };
        let (merged, hop) = (run(&t(true)), run(&t(false)));
        let packets = hop.links["r1->r2"].departures;
        assert!(packets > 10_000, "{packets}");
        // (events count the whole run, departures the last two thirds)
        assert!(merged.events * 2 < packets * 3, "{} events for {packets} packets", merged.events);
        same(&summary(&t(true)), &summary(&t(false)), "merging");
    }

    /// Between two calls of `run_until`, hosts never act past the time run to and no
    /// queue takes an arrival past it: the windows and the queues seen along the way
    /// are those of the hop-by-hop run.
    #[test]
    fn state_between_steps_is_that_of_the_hop_by_hop_run() {
        let q = r#"{ type = "droptail", limit = 12 }"#;
        let mut a = Sim::new(scenario(&dumbbell(true, q)), None).unwrap();
        let mut b = Sim::new(scenario(&dumbbell(false, q)), None).unwrap();
        let stops = (1..=4000u64).map(|k| aqm::Time(k * 2_500_000 + k % 7 * 130_000));
        same_state_at_stops(&mut a, &mut b, stops, 8);
    }

    /// Run `a` and `b` to each of `stops` (exact stops) and compare, at each, the
    /// windows of flows `0..flows`, and the queue lengths and the arrival and drop
    /// counters of every direction.
    fn same_state_at_stops(
        a: &mut Sim,
        b: &mut Sim,
        stops: impl Iterator<Item = aqm::Time>,
        flows: usize,
    ) {
        for t in stops {
            a.run_until(t).unwrap();
            b.run_until(t).unwrap();
            for f in 0..flows {
                assert_eq!(a.cwnd(f), b.cwnd(f), "flow {f} at {t:?}");
            }
            for d in 0..2 * a.scenario().links.len() {
                let (x, y) = (a.dir_monitor(d), b.dir_monitor(d));
                assert_eq!(a.queue_len(d), b.queue_len(d), "direction {d} at {t:?}");
                assert_eq!(
                    (x.arrivals(), x.early_drops, x.forced_drops),
                    (y.arrivals(), y.early_drops, y.forced_drops),
                    "direction {d} at {t:?}"
                );
            }
        }
    }

    /// Stepping for a progress bar (`run_until_ahead`) neither changes the results nor
    /// costs the early hand-overs: the events are those of a run in one go. Exact
    /// steps hand nothing on across a stop, which costs a few events.
    #[test]
    fn progress_steps_keep_the_savings() {
        let q = r#"{ type = "red", limit = 40, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true, ecn = true }"#;
        let one_go = run(&dumbbell(true, q));
        let stepped = |ahead: bool| {
            let mut s = Sim::new(scenario(&dumbbell(true, q)), None).unwrap();
            for k in 1..=200u64 {
                let t = aqm::Time(k * 100_000_000);
                if ahead { s.run_until_ahead(t).unwrap() } else { s.run_until(t).unwrap() }
            }
            s.summary()
        };
        let (ahead, exact) = (stepped(true), stepped(false));
        assert_eq!(ahead.events, one_go.events);
        // Exact stops cost the packets in flight across each stop one event per hop,
        // and no more: the ones held back are handed on as soon as the horizon moves.
        assert!(exact.events > one_go.events, "{} vs {}", exact.events, one_go.events);
        assert!(exact.events * 10 < one_go.events * 11, "{} vs {}", exact.events, one_go.events);
        for s in [ahead, exact] {
            let mut s = s;
            s.wall_seconds = 0.0;
            s.events = 0;
            same(&s, &summary(&dumbbell(true, q)), "stepped");
        }
    }

    /// The lean path (a packet that finds a plain Drop Tail idle and empty) gives the
    /// accounting of the general one: with TCP and open-loop flows both ways, small
    /// buffers in packets and in bytes (a packet larger than the byte limit is
    /// dropped even by an empty buffer), and a link that goes down and comes back
    /// (express hops are off with link events; the lean path is not).
    #[test]
    fn lean_path_changes_nothing() {
        let t = |express: bool| {
            let mut t = format!(
                "duration = \"12s\"\nwarmup = \"2s\"\nseed = 9\nexpress_hops = {express}\n"
            );
            for (a, b, rate, cost, queue) in [
                ("s", "r1", "20Mbps", 1, r#"{ type = "droptail", limit = 3 }"#),
                ("r1", "r2", "4Mbps", 1, r#"{ type = "droptail", limit = 6 }"#),
                ("r1", "r3", "4Mbps", 2, r#"{ type = "droptail", limit = 8 }"#),
                (
                    "r3",
                    "r2",
                    "4Mbps",
                    2,
                    r#"{ type = "red", limit = 30, min_th = 3, max_th = 9, w_q = 0.01, max_p = 0.1 }"#,
                ),
                ("r2", "k", "20Mbps", 1, r#"{ type = "droptail", limit_bytes = 4000 }"#),
            ] {
                t += &format!(
                    "[[link]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"5ms\"\ncost = {cost}\nqueue = {queue}\n"
                );
            }
            t += "[[flow]]\nsrc = \"s\"\ndst = \"k\"\ncount = 5\nstart = { uniform = [0, 1] }\n";
            t += "[[flow]]\nsrc = \"k\"\ndst = \"s\"\nvariant = \"reno\"\ncount = 2\n";
            t += "[[flow]]\ntype = \"poisson\"\nsrc = \"s\"\ndst = \"k\"\nrate = \"0.5Mbps\"\npacket_size = 1500\nsize_distribution = \"exponential\"\n";
            t += "[[event]]\nat = \"4s\"\na = \"r1\"\nb = \"r2\"\naction = \"down\"\n";
            t += "[[event]]\nat = \"8s\"\na = \"r1\"\nb = \"r2\"\naction = \"up\"\n";
            t
        };
        let (lean, general) = (summary(&t(true)), summary(&t(false)));
        assert!(
            general.links["r1->r2"].drops > 0 && general.links["r1->r2"].link_down_drops > 0,
            "{:?}",
            general.links["r1->r2"]
        );
        assert!(general.links["s->r1"].drops > 0, "the access buffer must overflow too");
        assert!(general.links["r2->k"].drops > 0, "packets larger than the byte limit are dropped");
        same(&lean, &general, "lean path");
    }

    /// Two threads (each part of a network that splits at its merging directions on
    /// its own thread) give the results of one, bit for bit: on the dumbbell of every
    /// kind of flow, with RED and ECN and with Drop Tail, with flows both ways, and
    /// under exact steps, where the state at each stop is that of one thread.
    #[test]
    fn two_threads_give_the_results_of_one() {
        let two = |t: &str| format!("threads = 2\n{t}");
        for queue in [
            r#"{ type = "red", limit = 40, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true, ecn = true }"#,
            r#"{ type = "droptail", limit = 12 }"#,
        ] {
            let t = dumbbell(true, queue);
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            assert_eq!(Sim::new(scenario(&two(&t)), None).unwrap().threads(), cores.min(2));
            same(&summary(&two(&t)), &summary(&t), queue);
            // Flows both ways: senders and receivers on each side.
            let both = format!(
                "{t}[[flow]]\nsrc = \"k1\"\ndst = \"s2\"\n[[flow]]\nsrc = \"k3\"\ndst = \"s0\"\nvariant = \"reno\"\ndelayed_ack = true\n[[flow]]\ntype = \"poisson\"\nsrc = \"k4\"\ndst = \"s5\"\nrate = \"0.5Mbps\"\n"
            );
            same(&summary(&two(&both)), &summary(&both), "both ways");
        }
        let q = r#"{ type = "droptail", limit = 12 }"#;
        let mut a = Sim::new(scenario(&two(&dumbbell(true, q))), None).unwrap();
        let mut b = Sim::new(scenario(&dumbbell(true, q)), None).unwrap();
        // (300 stops, up to 18 s of the 20)
        let stops = (1..=300u64).map(|k| aqm::Time(k * 60_000_000 + k % 7 * 1_300_000));
        same_state_at_stops(&mut a, &mut b, stops, 10);
        let (mut x, mut y) = (a.summary(), b.summary());
        (x.wall_seconds, x.events, y.wall_seconds, y.events) = (0.0, 0, 0.0, 0);
        same(&x, &y, "stepped");
        // Progress steps keep the parts apart in between; an exact stop in the middle
        // takes them together.
        let mut c = Sim::new(scenario(&two(&dumbbell(true, q))), None).unwrap();
        for k in 1..=200u64 {
            c.run_until_ahead(aqm::Time(k * 100_000_000)).unwrap();
            if k == 77 {
                c.run_until(aqm::Time(k * 100_000_000 + 3_000_000)).unwrap();
            }
        }
        assert!(c.is_finished());
        let mut z = c.summary();
        (z.wall_seconds, z.events) = (0.0, 0);
        same(&z, &summary(&dumbbell(true, q)), "progress steps");
    }

    /// One thread where the network does not split at an inbox (a single path), with
    /// link events, and when one thread is asked for.
    #[test]
    fn two_threads_only_where_the_network_splits() {
        let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100";
        let t = path(r#"{ type = "droptail", limit = 20 }"#, flows, "5s", "1s");
        assert_eq!(Sim::new(scenario(&format!("threads = 2\n{t}")), None).unwrap().threads(), 1);
        let q = r#"{ type = "droptail", limit = 12 }"#;
        let ev = "[[event]]\nat = \"4s\"\na = \"r1\"\nb = \"r2\"\naction = \"down\"\n";
        assert_eq!(
            Sim::new(scenario(&format!("threads = 2\n{}{ev}", dumbbell(true, q))), None)
                .unwrap()
                .threads(),
            1
        );
        assert_eq!(
            Sim::new(scenario(&format!("threads = 1\n{}", dumbbell(true, q))), None)
                .unwrap()
                .threads(),
            1
        );
    }

    /// A direction that may discard a packet it already accepted (Random Drop) keeps
    /// one event per hop: its packets are not handed on early.
    #[test]
    fn evicting_queues_are_not_expressed() {
        let q = r#"{ type = "randomdrop", limit = 20 }"#;
        same(&summary(&parking_lot(true, q)), &summary(&parking_lot(false, q)), q);
    }
}

mod newreno_timer {
    use super::*;

    /// A window that loses many packets: the Impatient timer ends the recovery with
    /// one timeout, the Slow-but-Steady timer retransmits one hole per round trip.
    fn many_losses(timer: &str) -> sim::FlowSummary {
        let drops: Vec<String> = (100..160).step_by(2).map(|p| p.to_string()).collect();
        let flows = format!(
            "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 200\nssthresh = 100\nnewreno_timer = \"{timer}\"\ndrop = [{}]",
            drops.join(", ")
        );
        run(&path(r#"{ type = "droptail", limit = 1000 }"#, &flows, "20s", "0s")).flows[0].clone()
    }

    #[test]
    fn impatient_times_out_steady_does_not() {
        let imp = many_losses("impatient");
        let steady = many_losses("steady");
        assert_eq!(steady.timeouts, 0, "steady: {steady:?}");
        assert!(imp.timeouts >= 1, "impatient: {imp:?}");
        // 30 holes: steady needs ~30 round trips (~1.3 s) in recovery, impatient ends sooner.
        assert!(
            imp.goodput_bps > steady.goodput_bps,
            "impatient {} vs steady {}",
            imp.goodput_bps,
            steady.goodput_bps
        );
    }

    #[test]
    fn unknown_timer_is_rejected_with_its_path() {
        let e = Scenario::from_toml_str(&path(
            r#"{ type = "droptail", limit = 10 }"#,
            "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nnewreno_timer = \"slow\"",
            "1s",
            "0s",
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("flow[0].newreno_timer") && e.contains("impatient"), "{e}");
    }
}

/// The keys of ns-3 3.37's CUBIC rules reach the senders: with whole-segment growth,
/// ns-3's slow start and timeout every window the sender holds is a whole number of
/// packets, and the run differs from the RFC's.
mod cubic_rules {
    use super::*;

    fn cubic(keys: &str) -> sim::FlowSummary {
        let flows = format!(
            "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"cubic\"\nmax_window = 200\n{keys}"
        );
        run(&path(r#"{ type = "droptail", limit = 30 }"#, &flows, "20s", "10s")).flows[0].clone()
    }

    #[test]
    fn ns3_rules_keep_whole_windows() {
        let ns3 = cubic(
            "cubic_reno_friendly = false\ncubic_growth = \"segments\"\n\
             cubic_slow_start = \"acked\"\ncubic_timeout = \"reset\"\nrto_backoff = \"ack\"",
        );
        let rfc = cubic("");
        assert!(ns3.fast_retransmits > 0, "{ns3:?}");
        assert_eq!(ns3.cwnd.fract(), 0.0, "{ns3:?}");
        assert_eq!(ns3.ssthresh.fract(), 0.0, "{ns3:?}");
        assert_ne!(ns3.mean_cwnd, rfc.mean_cwnd);
    }
}

mod qdisc_path {
    use super::*;

    /// A parking lot (as in `express`) with open-loop and TCP traffic both ways, ECN
    /// flows among them, a link going down and up if `events`.
    fn lot(qdisc: bool, queue: &str, events: bool) -> String {
        let mut t =
            format!("duration = \"20s\"\nwarmup = \"3.3s\"\nseed = 7\nqdisc_path = {qdisc}\n");
        for (a, b, rate, delay) in [("r1", "r2", "10Mbps", "10ms"), ("r2", "r3", "8Mbps", "5ms")] {
            t += &format!(
                "[[link]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\nqueue = {queue}\n"
            );
        }
        for i in 1..=3 {
            t += &format!(
                "[[link]]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"{i}ms\"\n"
            );
            t += &format!(
                "[[link]]\na = \"r3\"\nb = \"k{i}\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
                2 * i
            );
            t += &format!(
                "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\ncount = 3\necn = {}\nstart = {{ uniform = [0, 1] }}\n",
                i == 2
            );
            t += &format!(
                "[[flow]]\nsrc = \"k{i}\"\ndst = \"s{i}\"\nvariant = \"reno\"\ncount = 2\n"
            );
        }
        t += "[[flow]]\ntype = \"poisson\"\nsrc = \"s1\"\ndst = \"k3\"\nrate = \"1Mbps\"\n";
        if events {
            t += "[[event]]\nat = \"7s\"\na = \"r2\"\nb = \"r3\"\naction = \"down\"\n";
            t += "[[event]]\nat = \"7.5s\"\na = \"r2\"\nb = \"r3\"\naction = \"up\"\n";
        }
        t
    }

    fn summary(toml: &str) -> Summary {
        let mut s = run(toml);
        s.wall_seconds = 0.0;
        s.events = 0;
        s
    }

    fn same(a: &Summary, b: &Summary, what: &str) {
        for (name, l) in &a.links {
            assert_eq!(Some(l), b.links.get(name), "{what}: link {name}");
        }
        for (x, y) in a.flows.iter().zip(&b.flows) {
            assert_eq!(x, y, "{what}: flow {}", x.id);
        }
        assert_eq!(a, b, "{what}");
    }

    const QUEUES: [&str; 7] = [
        r#"{ type = "red", limit = 40, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true, ecn = true }"#,
        r#"{ type = "droptail", limit = 25 }"#,
        r#"{ type = "droptail", limit_bytes = 20000, drop_front = true }"#,
        r#"{ type = "randomdrop", limit = 25 }"#,
        r#"{ type = "ared", limit = 60, ecn = true }"#,
        r#"{ type = "feng_ared", limit = 60, min_th = 5, max_th = 20 }"#,
        r#"{ type = "fred", limit = 40, min_th = 5, max_th = 15 }"#,
    ];

    /// Every arrival-time discipline run as a qdisc (a `Fifo`, dequeued when the line
    /// frees, with the speed mechanisms off) gives the FIFO path's summary bit for bit:
    /// drops, marks, waiting times, averages, per-flow counters.
    #[test]
    fn fifo_qdiscs_give_the_fifo_paths_results() {
        for queue in QUEUES {
            let fifo = summary(&lot(false, queue, false));
            let held = summary(&lot(true, queue, false));
            let l = &fifo.links["r2->r3"];
            assert!(l.drops + l.marks > 0, "{queue}: the bottleneck must act: {l:?}");
            same(&fifo, &held, queue);
        }
        let red = QUEUES[0];
        assert!(summary(&lot(false, red, false)).links["r2->r3"].marks > 0);
    }

    /// The same with a link going down and up (what the qdisc holds is lost). Not for
    /// FRED: the qdisc path empties a qdisc by dequeueing (FRED then counts those
    /// packets as departed where the FIFO path reports them discarded).
    #[test]
    fn link_events_lose_the_same_packets() {
        for queue in [QUEUES[0], QUEUES[1], QUEUES[4]] {
            let fifo = summary(&lot(false, queue, true));
            assert!(fifo.links["r2->r3"].link_down_drops > 0, "{queue}");
            same(&fifo, &summary(&lot(true, queue, true)), queue);
        }
    }

    /// The queue at every stop of `run_until` and the final summary are those of the
    /// FIFO path; the qdisc path takes more events (one per transmission).
    #[test]
    fn stops_see_the_same_queue() {
        let queue = QUEUES[0];
        let mut a = Sim::new(scenario(&lot(false, queue, false)), None).unwrap();
        let mut b = Sim::new(scenario(&lot(true, queue, false)), None).unwrap();
        let mut seen = 0;
        for k in 1..=2000u64 {
            let t = aqm::Time(k * 10_000_000 + k % 7);
            a.run_until(t).unwrap();
            b.run_until(t).unwrap();
            for d in 0..4 {
                assert_eq!(a.queue_len(d), b.queue_len(d), "direction {d} at {t:?}");
                seen += a.queue_len(d) as u64;
            }
        }
        assert!(seen > 0);
        assert!(b.events() > a.events());
    }

    /// Traced directions: the packet and queue traces of both paths have the same
    /// lines (the FIFO path writes a waiting packet's departure when it learns of it,
    /// at the next arrival, so its lines are not all in time order).
    #[test]
    fn traces_are_the_same() {
        let dir = std::env::temp_dir().join(format!("aqmlab-qdisc-trace-{}", std::process::id()));
        let mut files = Vec::new();
        for qdisc in [false, true] {
            let out = dir.join(qdisc.to_string());
            std::fs::create_dir_all(&out).unwrap();
            let mut t = lot(qdisc, QUEUES[0], false);
            t +=
                "[trace]\nqueue = [\"r1->r2\"]\ninterval = 0\npackets = [\"r1->r2\", \"r2->r3\"]\n";
            sim::run(scenario(&t), Some(&out)).unwrap();
            let mut names: Vec<_> =
                std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().path()).collect();
            names.sort();
            let lines = |p: &std::path::PathBuf| {
                let mut v: Vec<String> =
                    std::fs::read_to_string(p).unwrap().lines().map(str::to_string).collect();
                v.sort();
                v
            };
            files.push(names.iter().map(lines).collect::<Vec<_>>());
        }
        std::fs::remove_dir_all(&dir).ok();
        assert!(files[0].len() >= 2 && files[0].iter().all(|f| f.len() > 1000));
        for (a, b) in files[0].iter().zip(&files[1]) {
            assert!(a == b, "traces differ");
        }
    }
}

mod limits {
    use super::*;
    use sim::SimError;
    use sim::scenario::FlowKind;

    /// A CBR source at `rate` into a Drop Tail queue of `limit` packets on a 10 Mb/s line.
    fn flood(rate: &str, limit: u64) -> String {
        path(
            &format!("{{ type = \"droptail\", limit = {limit} }}"),
            &format!("[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"{rate}\""),
            "20s",
            "0s",
        )
    }

    /// A source whose spacing rounds to zero after validation (only possible by editing
    /// a validated scenario) stops the run with an error naming the flow, not a spin.
    #[test]
    fn no_progress_at_one_instant_is_an_error_naming_the_flow() {
        let mut sc = scenario(&flood("1Mbps", 100));
        sc.flows[0].kind = FlowKind::Cbr { interval: 0.0, batch: 1 };
        let mut s = Sim::new(sc, None).unwrap();
        let bound = s.progress_bound();
        let e = s.run().map(|_| ()).unwrap_err();
        let SimError::Stopped(m) = &e else { panic!("{e:?}") };
        assert!(m.contains("no progress") && m.contains("sends of flow 0"), "{m}");
        assert!(m.contains(&bound.to_string()), "{m}");
        // at most the bound plus one checkpoint's worth of events, and the tally
        assert!(s.events() <= bound + (1 << 16) + 4096 + 10, "{}", s.events());
        assert!(s.events() > bound);
        // the run stays stopped
        assert_eq!(s.run_until(aqm::Time(1)).unwrap_err(), e);
    }

    /// Many flows starting at one instant are far inside the progress bound.
    #[test]
    fn a_crowded_instant_is_not_a_stall() {
        let flows =
            "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"1kbps\"\ncount = 5000";
        let s = sim::run(
            scenario(&path("{ type = \"droptail\", limit = 100 }", flows, "0.5s", "0s")),
            None,
        );
        assert!(s.is_ok(), "{s:?}");
    }

    /// A Drop Tail queue of 10^9 packets is refused before the run: it could hold more
    /// than half the machine's memory. The error names the queue's limit.
    #[test]
    fn a_queue_beyond_the_memory_budget_is_refused() {
        let e = Scenario::from_toml_str(&flood("1Gbps", 1_000_000_000)).unwrap_err().to_string();
        assert!(e.starts_with("link[1].queue.limit: ") && e.contains("max_memory"), "{e}");
        assert!(e.contains("link[1].queue of r1->k1 (1000000000 packets"), "{e}");
        // the same scenario with a budget that fits is accepted
        let ok = format!("max_memory = \"200GB\"\n{}", flood("1Gbps", 1_000_000_000));
        assert!(Scenario::from_toml_str(&ok).is_ok());
    }

    /// At run time, packets held beyond the budget stop the run cleanly, naming the
    /// direction that holds them; memory stays near the budget.
    #[test]
    fn a_run_that_outgrows_its_budget_stops() {
        let mut sc = scenario(&format!("max_memory = \"2GB\"\n{}", flood("1Gbps", 10_000_000)));
        // (bypass the estimate, as if it were wrong: the guard must hold on its own)
        sc.max_memory = Some(4_000_000);
        let mut s = Sim::new(sc, None).unwrap();
        let e = s.run().map(|_| ()).unwrap_err();
        let SimError::Stopped(m) = &e else { panic!("{e:?}") };
        assert!(
            m.starts_with("max_memory") && m.contains("r1->k1") && m.contains("link[1].queue"),
            "{m}"
        );
        let held = s.in_flight(2);
        // stopped within one checkpoint of the budget (80 B a packet)
        assert!(held as u64 * 80 > 4_000_000 && held < 4_000_000 / 80 + (1 << 16), "{held}");
    }

    /// Two threads: a guard's error in one part stops both and comes back as the error.
    #[test]
    fn a_guard_stops_a_two_thread_run() {
        let toml = r#"
duration = "20s"
threads = 2
[[link]]
a = "s1"
b = "r1"
rate = "1Gbps"
delay = "1ms"
queue = { type = "droptail", limit = 10000000 }
[[link]]
a = "s2"
b = "r1"
rate = "1Gbps"
delay = "1ms"
queue = { type = "droptail", limit = 10000000 }
[[link]]
a = "r1"
b = "k1"
rate = "10Mbps"
delay = "20ms"
queue = { type = "droptail", limit = 10000000 }
[[flow]]
type = "cbr"
src = "s1"
dst = "k1"
rate = "500Mbps"
[[flow]]
type = "cbr"
src = "s2"
dst = "k1"
rate = "500Mbps"
"#;
        let mut sc = scenario(toml);
        sc.max_memory = Some(4_000_000);
        let mut s = Sim::new(sc, None).unwrap();
        assert_eq!(s.threads(), 2);
        let e = s.run().map(|_| ()).unwrap_err();
        assert!(matches!(&e, SimError::Stopped(m) if m.starts_with("max_memory")), "{e:?}");
        assert_eq!(s.run().map(|_| ()).unwrap_err(), e);
    }
}

mod codel {
    use super::*;

    /// `scenarios/NAME.toml` with its duration and warm-up shortened.
    fn short(name: &str) -> Scenario {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
        let text = text
            .replace("duration = \"60s\"", "duration = \"12s\"")
            .replace("warmup = \"20s\"", "warmup = \"4s\"");
        scenario(&text)
    }

    /// The dumbbell with CoDel or FQ-CoDel at the bottleneck validates and runs; the
    /// bottleneck's drops are all CoDel's (none from the buffer), the same seed gives the
    /// same summary, and the standing delay is CoDel's business: the median waiting
    /// time at the bottleneck stays below RED's in the same dumbbell.
    #[test]
    fn dumbbell_scenarios_run_codel_and_fq_codel() {
        let red = sim::run(short("dumbbell_10mbps"), None).unwrap();
        for (name, kind) in
            [("dumbbell_10mbps_codel", "codel"), ("dumbbell_10mbps_fq_codel", "fq_codel")]
        {
            let mut a = sim::run(short(name), None).unwrap();
            let mut b = sim::run(short(name), None).unwrap();
            let l = &a.links["r1->r2"];
            assert_eq!(l.queue_type, kind);
            assert!(l.drops > 0 && l.drops == l.forced_drops, "{name}: {l:?}");
            assert!(l.delay_p50 < red.links["r1->r2"].delay_p50, "{name}: {l:?}");
            for s in [&mut a, &mut b] {
                s.wall_seconds = 0.0;
                s.events = 0;
            }
            assert_eq!(a, b, "{name}");
        }
    }

    /// The memory budget counts what a packet-holding queue may hold: a CoDel buffer
    /// of 10^9 packets is refused before the run, naming its limit.
    #[test]
    fn a_codel_queue_beyond_the_memory_budget_is_refused() {
        let flood = "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"1Gbps\"";
        let big = path("{ type = \"codel\", limit = 1000000000 }", flood, "20s", "0s");
        let e = Scenario::from_toml_str(&big).unwrap_err().to_string();
        assert!(e.starts_with("link[1].queue.limit: ") && e.contains("max_memory"), "{e}");
        let small = path("{ type = \"codel\", limit = 1000 }", flood, "20s", "0s");
        assert!(Scenario::from_toml_str(&small).is_ok());
    }
}

/// CUBIC, DCTCP, SACK, limited transmit and the initial window, each against the
/// property its RFC states.
mod modern_tcp {
    use super::*;

    /// s1 -1 Gb/s 1 ms- r1 -`rate` `delay`- k1, with `queue` at r1 -> k1.
    fn line(rate: &str, delay: &str, queue: &str, flow: &str, duration: &str) -> String {
        format!(
            r#"
duration = "{duration}"
warmup = "0s"
[[link]]
a = "s1"
b = "r1"
rate = "1Gbps"
delay = "1ms"
queue = {{ type = "droptail", limit = 10000 }}
[[link]]
a = "r1"
b = "k1"
rate = "{rate}"
delay = "{delay}"
queue_ab = {queue}
[[flow]]
src = "s1"
dst = "k1"
{flow}
"#
        )
    }

    /// Step the simulation by 1 ms to `until` (s), calling `f` with the time and sender.
    fn watch(sim: &mut Sim, until: f64, mut f: impl FnMut(f64, &sim::tcp::TcpSender)) {
        let mut k = (sim.now().0 / 1_000_000) + 1;
        while (k as f64) * 1e-3 <= until {
            sim.run_until(aqm::Time(k * 1_000_000)).unwrap();
            f(k as f64 * 1e-3, sim.tcp_sender(0).unwrap());
            k += 1;
        }
    }

    /// After a single loss CUBIC's window follows W_cubic(t) = C (t - K)^3 + W_max
    /// (RFC 9438 Figure 1) with W_max the window at the loss, cwnd_epoch = 0.7 W_max
    /// and K = cbrt((W_max - cwnd_epoch) / C) (Figure 2), t from the start of the
    /// congestion avoidance stage. 100 Mb/s, RTT 98 ms: the window (~500) stays below
    /// the bandwidth-delay product (1225), so no other loss and a constant RTT; the
    /// Reno-friendly estimate (+0.53 per RTT) stays far below W_cubic.
    #[test]
    fn cubic_window_follows_w_cubic_after_a_loss() {
        let toml = line(
            "100Mbps",
            "48ms",
            r#"{ type = "droptail", limit = 10000 }"#,
            "variant = \"cubic\"\nmax_window = 5000\nssthresh = 500\ndrop = [4000]",
            "12s",
        );
        let mut sim = Sim::new(scenario(&toml), None).unwrap();
        let (mut w_loss, mut prev) = (None, 0.0);
        let mut epoch_start = None;
        let mut samples = Vec::new();
        watch(&mut sim, 12.0, |t, s| {
            if w_loss.is_none() && s.stats.fast_retransmits == 1 {
                w_loss = Some(prev);
            }
            prev = s.cwnd;
            // the stage starts at the first ACK that grows the window after recovery
            if w_loss.is_some() && epoch_start.is_none() && !s.in_recovery && s.cwnd > s.ssthresh {
                epoch_start = Some(t);
            }
            samples.push((t, s.cwnd, s.ssthresh));
        });
        let s = sim.tcp_sender(0).unwrap();
        assert_eq!((s.stats.fast_retransmits, s.stats.timeouts, s.stats.retransmits), (1, 0, 1));
        let (w_max, t0) = (w_loss.unwrap(), epoch_start.unwrap());
        assert!(w_max > 480.0 && w_max < 520.0, "window at the loss {w_max}");
        let (c, beta) = (0.4, 0.7);
        let epoch = beta * w_max;
        let k = ((w_max - epoch) / c).cbrt();
        let cub = s.cubic().unwrap();
        assert!((cub.w_max - w_max).abs() < 0.05, "W_max {} observed {w_max}", cub.w_max);
        let (t_epoch, cwnd_epoch, k_state) = cub.epoch.unwrap();
        assert!((cwnd_epoch - epoch).abs() < 0.05 && (k_state - k).abs() < 1e-3, "{cub:?}");
        assert!(t0 - t_epoch >= 0.0 && t0 - t_epoch <= 1e-3, "stage start {t_epoch}, seen {t0}");
        let at = |t: f64| samples.iter().find(|x| x.0 >= t).unwrap();
        assert!((at(t0).2 - epoch).abs() < 0.05, "ssthresh {} = 0.7 W_max", at(t0).2);
        // the concave region, the plateau at K (7.2 s), the convex region
        let pts: Vec<(f64, f64, f64)> = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
            .iter()
            .map(|&dt| (dt, at(t0 + dt).1, c * (dt - k).powi(3) + w_max))
            .collect();
        for &(dt, cwnd, w) in &pts {
            assert!((cwnd - w).abs() < 0.005 * w, "t {dt}: cwnd {cwnd}, W_cubic {w}: {pts:?}");
        }
    }

    /// DCTCP's alpha tracks the fraction of its packets marked by a queue that marks
    /// every arrival finding 20 or more packets waiting (RED with w_q = 1 and max_p =
    /// 1 as a step at K = 20), and the flow keeps the link busy without a loss.
    #[test]
    fn dctcp_alpha_tracks_the_marked_fraction() {
        let toml = line(
            "10Mbps",
            "20ms",
            r#"{ type = "red", limit = 1000, min_th = 19, max_th = 20, w_q = 1, max_p = 1, gentle = true, ecn = true }"#,
            "variant = \"dctcp\"\nmax_window = 1000",
            "40s",
        )
        .replace("warmup = \"0s\"", "warmup = \"10s\"");
        let mut sim = Sim::new(scenario(&toml), None).unwrap();
        let (mut sum, mut n) = (0.0, 0);
        watch(&mut sim, 40.0, |t, s| {
            if t > 10.0 && ((t * 1000.0).round() as u64).is_multiple_of(10) {
                sum += s.dctcp().unwrap().alpha;
                n += 1;
            }
        });
        let summary = sim.run().unwrap();
        let f = &summary.flows[0];
        let frac = f.marks as f64 / f.arrivals as f64;
        let alpha = sum / n as f64;
        assert!(frac > 0.02 && f.drops == 0 && f.timeouts == 0, "{f:?}");
        assert!((alpha - frac).abs() < 0.2 * frac, "mean alpha {alpha}, marked fraction {frac}");
        assert!(summary.links["r1->k1"].utilization > 0.99);
    }

    /// The recovery from `drops` in one window: its length in round trips (the srtt at
    /// its start), the retransmissions sent in its first round trip, and the sender's
    /// counters.
    fn recovery(keys: &str, drops: &str) -> (f64, u64, sim::FlowSummary) {
        let toml = path(
            r#"{ type = "droptail", limit = 1000 }"#,
            &format!(
                "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 40\npackets = 600\ndrop = [{drops}]\n{keys}"
            ),
            "20s",
            "0s",
        );
        let mut sim = Sim::new(scenario(&toml), None).unwrap();
        let (mut began, mut ended, mut rtt, mut first) = (None, None, 0.0, None);
        watch(&mut sim, 5.0, |t, s| {
            if s.in_recovery && began.is_none() {
                (began, rtt) = (Some(t), s.srtt);
            }
            if began.is_some_and(|b| t >= b + rtt) && first.is_none() {
                first = Some(s.stats.retransmits);
            }
            if !s.in_recovery && began.is_some() && ended.is_none() {
                ended = Some(t);
            }
        });
        let f = sim.run().unwrap().flows[0].clone();
        assert_eq!(f.goodput_bps * 20.0 / 8.0, 600.0 * 1000.0, "{keys}: every packet delivered");
        ((ended.unwrap() - began.unwrap()) / rtt, first.unwrap(), f)
    }

    /// Four losses in one window: SACK (RFC 6675) retransmits all four in the first
    /// round trip of the recovery and ends it in the second, with no timeout; NewReno
    /// retransmits one per round trip and needs four.
    #[test]
    fn sack_repairs_several_losses_in_one_round_trip() {
        let drops = "200, 203, 206, 209";
        for v in ["reno", "newreno", "cubic", "dctcp"] {
            let (rtts, first, f) = recovery(&format!("variant = \"{v}\"\nsack = true"), drops);
            assert_eq!((f.fast_retransmits, f.retransmits, f.timeouts), (1, 4, 0), "{v}: {f:?}");
            assert_eq!(first, 4, "{v} with SACK: retransmissions in the first round trip");
            assert!(rtts < 2.0, "{v} with SACK: recovery took {rtts} round trips");
        }
        let (rtts, first, f) = recovery("newreno_timer = \"steady\"", drops);
        assert_eq!((f.fast_retransmits, f.retransmits, f.timeouts), (1, 4, 0), "{f:?}");
        assert_eq!(first, 1, "NewReno: retransmissions in the first round trip");
        assert!(rtts > 3.5 && rtts < 4.5, "NewReno: recovery took {rtts} round trips");
    }

    /// The initial window: 10 packets go out before the first ACK can return with
    /// `initial_window = 10`; `"rfc6928"` and `"rfc3390"` follow the RFCs' byte rules
    /// with MSS = packet size - 40.
    #[test]
    fn initial_window_sends_in_the_first_round_trip() {
        let first = |keys: &str| {
            let toml = path(
                r#"{ type = "droptail", limit = 1000 }"#,
                &format!("[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\n{keys}"),
                "1s",
                "0s",
            );
            let mut sim = Sim::new(scenario(&toml), None).unwrap();
            // the base RTT is 42 ms plus transmissions
            sim.run_until(aqm::Time(40_000_000)).unwrap();
            sim.tcp_sender(0).unwrap().stats.sent
        };
        assert_eq!(first(""), 2, "the default stays 2");
        assert_eq!(first("initial_window = 10"), 10);
        for size in [576.0, 1000.0, 1500.0, 9000.0] {
            let mss: f64 = size - 40.0;
            let iw10 = ((10.0 * mss).min((2.0 * mss).max(14600.0)) / mss).floor() as u64;
            let iw4 = ((4.0 * mss).min((2.0 * mss).max(4380.0)) / mss).floor() as u64;
            let keys = |r: &str| format!("packet_size = {size}\ninitial_window = \"{r}\"");
            assert_eq!(first(&keys("rfc6928")), iw10, "{size} B");
            assert_eq!(first(&keys("rfc3390")), iw4, "{size} B");
        }
    }

    /// The new keys at their defaults change nothing.
    #[test]
    fn defaults_change_nothing() {
        let run_with = |keys: &str| {
            run(&path(
                r#"{ type = "red", limit = 100, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }"#,
                &format!(
                    "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 100\ncount = 5\nstart = {{ uniform = [0, 1] }}\n{keys}"
                ),
                "30s",
                "10s",
            ))
        };
        let keys = "sack = false\nsack_blocks = 3\nlimited_transmit = false\nect1 = false\ninitial_window = 2\ndctcp_g = 0.0625";
        let (mut a, mut b) = (run_with(""), run_with(keys));
        (a.wall_seconds, b.wall_seconds) = (0.0, 0.0);
        assert_eq!(a, b);
    }
}

/// The TCP extensions under the simulator's fast paths: the same results hop by hop
/// and on two threads (SACK's log is shared by a flow's two ends, which may run on
/// different threads).
mod modern_tcp_paths {
    use super::*;

    fn dumbbell(express: bool, threads: u32, queue: &str) -> String {
        let mut t = format!(
            "duration = \"15s\"\nwarmup = \"3s\"\nseed = 9\nexpress_hops = {express}\nthreads = {threads}\n"
        );
        t += &format!(
            "[[link]]\na = \"r1\"\nb = \"r2\"\nrate = \"8Mbps\"\ndelay = \"10ms\"\nqueue_ab = {queue}\nqueue_ba = {{ type = \"droptail\", limit = 25 }}\n"
        );
        let flows = [
            "variant = \"cubic\"\nsack = true",
            "variant = \"dctcp\"\nect1 = true\ndelayed_ack = true",
            "variant = \"newreno\"\nsack = true\nlimited_transmit = true\ninitial_window = 10",
            "variant = \"reno\"\nsack = true\ndelayed_ack = true",
            "variant = \"cubic\"\nlimited_transmit = true\necn = true",
            "variant = \"dctcp\"\nsack = true",
            "variant = \"newreno\"\nsack = true\nprep_delay = 0.002",
        ];
        for (i, f) in flows.iter().enumerate() {
            t += &format!(
                "[[link]]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n[[link]]\na = \"r2\"\nb = \"k{i}\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
                1 + 3 * i,
                2 + i
            );
            t += &format!(
                "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\nmax_window = 200\nstart = {{ uniform = [0, 1] }}\n{f}\n"
            );
        }
        t
    }

    fn summary(toml: &str) -> Summary {
        let mut s = run(toml);
        (s.wall_seconds, s.events) = (0.0, 0);
        s
    }

    #[test]
    fn same_results_hop_by_hop_and_on_two_threads() {
        for queue in [
            r#"{ type = "red", limit = 60, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true, ecn = true }"#,
            r#"{ type = "droptail", limit = 20 }"#,
        ] {
            let base = summary(&dumbbell(true, 1, queue));
            assert!(base.flows.iter().all(|f| f.goodput_bps > 0.0), "{base:?}");
            assert!(base.flows.iter().any(|f| f.retransmits > 0), "{queue}: no loss to recover");
            assert_eq!(base, summary(&dumbbell(false, 1, queue)), "{queue}: hop by hop");
            assert_eq!(base, summary(&dumbbell(true, 2, queue)), "{queue}: two threads");
        }
    }
}

mod held_queues {
    use super::*;

    fn codel_run(queue: &str, ecn: bool) -> Summary {
        let flows = format!(
            "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_window = 300\ncount = 6\necn = {ecn}"
        );
        run(&path(queue, &flows, "20s", "0s"))
    }

    /// A queue that decides at dequeue (CoDel) runs in the simulator: every arrival is
    /// accounted for (sent, dropped at either end, or still held at the end), its
    /// drops at dequeue keep the waiting time near its target where Drop Tail's buffer
    /// fills, and with ECN it marks ECN-capable packets instead of dropping them.
    #[test]
    fn codel_runs_through_the_qdisc_path() {
        let tail = codel_run(r#"{ type = "droptail", limit = 300 }"#, false);
        let codel = codel_run(r#"{ type = "codel", limit = 300 }"#, false);
        for s in [&tail, &codel] {
            let l = &s.links["r1->k1"];
            assert_eq!(l.arrivals, l.departures + l.drops + l.queued_at_end, "{l:?}");
        }
        let (t, c) = (&tail.links["r1->k1"], &codel.links["r1->k1"]);
        assert_eq!(c.queue_type, "codel");
        assert!(c.drops > 0 && c.utilization > 0.9, "{c:?}");
        assert!(c.mean_delay < 0.02 && c.mean_delay * 5.0 < t.mean_delay, "{c:?} {t:?}");
        let ecn = codel_run(r#"{ type = "codel", limit = 300, ecn = true }"#, true);
        let e = &ecn.links["r1->k1"];
        // (only the buffer drops: the start-up overshoot fills it)
        assert!(e.marks > 0 && e.drops == e.overflow_drops, "{e:?}");
        let flow_marks: u64 = ecn.flows.iter().map(|f| f.marks).sum();
        assert_eq!(flow_marks, e.marks);
        assert!(e.mean_delay < 0.02, "{e:?}");
    }
}
