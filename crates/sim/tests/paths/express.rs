//! The speed mechanisms (express hops and hosts, merging directions, the lean path, two
//! threads) against the hop-by-hop run (`express_hops = false`), field by field.

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
        t +=
            &format!("[[link]]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"{i}ms\"\n");
        t += &format!(
            "[[link]]\na = \"r3\"\nb = \"k{i}\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
            2 * i
        );
        t += &format!(
            "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\ncount = 4\nstart = {{ uniform = [0, 1] }}\n"
        );
        t += &format!("[[flow]]\nsrc = \"k{i}\"\ndst = \"s{i}\"\nvariant = \"reno\"\ncount = 2\n");
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
        assert!(fast.events < slow.events, "{queue}: {} events vs {}", fast.events, slow.events);
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
/// directions cost one each without it), with the summary of the hop-by-hop run. At
/// 10 Mb/s the inbox's buckets are half a span wide, at 400 Mb/s as long as the
/// bottleneck takes to send 32 packets (a sixteenth of the span here).
#[test]
fn merging_directions_take_their_arrivals_in_batches() {
    for (rate, duration, window) in [("10Mbps", 30, 100), ("400Mbps", 4, 1000)] {
        merging_directions_at(rate, duration, window);
    }
}

fn merging_directions_at(rate: &str, duration: u32, window: u32) {
    let t = |express: bool| {
        let mut t = format!(
            "duration = \"{duration}s\"\nwarmup = \"{}s\"\nseed = 4\nexpress_hops = {express}\n",
            duration / 3
        );
        t += &format!("[[link]]\na = \"r1\"\nb = \"r2\"\nrate = \"{rate}\"\ndelay = \"20ms\"\n");
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
                "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\nmax_window = {window}\nstart = {{ uniform = [0, 1] }}\n"
            );
        }
        t
    };
    let (merged, hop) = (run(&t(true)), run(&t(false)));
    let packets = hop.links["r1->r2"].departures;
    assert!(packets > 10_000, "{rate}: {packets}");
    // (events count the whole run, departures the last two thirds)
    assert!(merged.events * 2 < packets * 3, "{rate}: {} events, {packets} packets", merged.events);
    same(&summary(&t(true)), &summary(&t(false)), &format!("merging at {rate}"));
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
        let mut t =
            format!("duration = \"12s\"\nwarmup = \"2s\"\nseed = 9\nexpress_hops = {express}\n");
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

/// Two threads that fall back to one thread (where two are slower) and back again,
/// many times in a run, give the results of one thread, bit for bit: run whole and in
/// progress steps, with flows both ways.
#[test]
fn two_threads_falling_back_to_one_give_the_results_of_one() {
    let q = r#"{ type = "red", limit = 40, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true, ecn = true }"#;
    let t = format!(
        "{}[[flow]]\nsrc = \"k1\"\ndst = \"s2\"\n[[flow]]\nsrc = \"k3\"\ndst = \"s0\"\n",
        dumbbell(true, q)
    );
    let one = summary(&t);
    let two = format!("threads = 2\n{t}");
    if Sim::new(scenario(&two), None).unwrap().threads() < 2 {
        return; // (one core: no second thread to fall back from)
    }
    for steps in [1u64, 200] {
        let mut sim = Sim::new(scenario(&two), None).unwrap();
        sim.pace_eagerly();
        let end = sim.scenario().duration.0;
        for k in 1..=steps {
            sim.run_until_ahead(aqm::Time(end * k / steps)).unwrap();
        }
        assert!(sim.is_finished());
        assert!(sim.fallbacks() > 2, "{steps} steps: {} fall-backs", sim.fallbacks());
        let mut s = sim.summary();
        (s.wall_seconds, s.events) = (0.0, 0);
        same(&s, &one, &format!("{steps} steps"));
    }
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
        Sim::new(scenario(&format!("threads = 1\n{}", dumbbell(true, q))), None).unwrap().threads(),
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
