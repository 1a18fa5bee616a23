//! The simulator's debug checks of each link direction's state (its cached flags agree
//! with what they cache, and it holds nothing its queue's kind or its link's state
//! rules out) stay quiet through runs that take every path a packet can: links going
//! down and up, queues that hold their packets (over a device queue too), the lean
//! path, express hops and hosts, merging directions and two threads. The checks run
//! where the flags change (the build, each link event) and at the end of the run, in
//! debug builds, which is how this binary is built.

use super::*;

const RED: &str = r#"{ type = "red", limit = 40, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true, ecn = true }"#;
const TAIL: &str = r#"{ type = "droptail", limit = 25 }"#;

/// A dumbbell s1..s3 -> r1 -> r2 -> k1..k3 with `bottleneck` at r1 -> r2 (its link
/// with `link_keys` besides), `access` at the senders' links, TCP both ways (ECN on
/// some) and a Poisson flow; the bottleneck link goes down at 4 s and up at 5 s, and
/// s1's link down at 6 s and up at 6.5 s, if `events`. `keys` go first.
fn dumbbell(keys: &str, bottleneck: &str, link_keys: &str, access: &str, events: bool) -> String {
    let mut t = format!("{keys}\nduration = \"10s\"\nwarmup = \"2s\"\nseed = 11\n");
    t += &format!(
        "[[link]]\na = \"r1\"\nb = \"r2\"\nrate = \"6Mbps\"\ndelay = \"15ms\"\nqueue_ab = {bottleneck}\nqueue_ba = {TAIL}\n{link_keys}\n"
    );
    for i in 1..=3 {
        t += &format!(
            "[[link]]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"{i}ms\"\nqueue = {access}\n"
        );
        t += &format!(
            "[[link]]\na = \"r2\"\nb = \"k{i}\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
            2 * i
        );
        t += &format!(
            "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\ncount = 2\necn = {}\nstart = {{ uniform = [0, 1] }}\n",
            i == 2
        );
        t += &format!("[[flow]]\nsrc = \"k{i}\"\ndst = \"s{i}\"\nvariant = \"reno\"\n");
    }
    t += "[[flow]]\ntype = \"poisson\"\nsrc = \"s1\"\ndst = \"k2\"\nrate = \"0.5Mbps\"\n";
    if events {
        for (a, b, down, up) in [("r1", "r2", "4s", "5s"), ("s1", "r1", "6s", "6.5s")] {
            for (at, action) in [(down, "down"), (up, "up")] {
                t += &format!(
                    "[[event]]\nat = \"{at}\"\na = \"{a}\"\nb = \"{b}\"\naction = \"{action}\"\n"
                );
            }
        }
    }
    t
}

/// The speed mechanisms (express hops and hosts, merging directions, the lean path)
/// and two threads run with the checks on, and are in use: far fewer events than hop
/// by hop, and two threads where the machine has two cores.
#[test]
#[cfg_attr(not(debug_assertions), ignore = "the checks run in debug builds only")]
fn the_speed_mechanisms_run_with_the_checks_on() {
    let fast = run(&dumbbell("", RED, "", TAIL, false));
    let slow = run(&dumbbell("express_hops = false", RED, "", TAIL, false));
    assert!(fast.events * 10 < slow.events * 6, "{} events against {}", fast.events, slow.events);
    let two = scenario(&dumbbell("threads = 2", RED, "", TAIL, false));
    let mut sim = Sim::new(two, None).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(sim.threads(), cores.min(2));
    // (exact stops take the parts together and apart again)
    for k in 1..=9u64 {
        sim.run_until(aqm::Time(k * 1_000_000_000 + 7_000_000)).unwrap();
    }
    assert_eq!(sim.run().unwrap().links["r1->r2"].departures, fast.links["r1->r2"].departures);
}

/// Links going down and up (the lean path's flag off and back on the plain Drop
/// Tails), with queues that hold their packets (CoDel at the bottleneck; FQ-CoDel over
/// a device queue there, CoDel at the senders' links), run with the checks on; and the
/// same with every queue a qdisc. The bottleneck loses packets when it goes down.
#[test]
#[cfg_attr(not(debug_assertions), ignore = "the checks run in debug builds only")]
fn link_events_and_held_queues_run_with_the_checks_on() {
    let codel = r#"{ type = "codel", limit = 40 }"#;
    let fq = r#"{ type = "fq_codel", limit = 60 }"#;
    let mixed = run(&dumbbell("", codel, "", TAIL, true));
    let device = run(&dumbbell("", fq, "device_queue = 2", codel, true));
    let all_held = run(&dumbbell("qdisc_path = true", RED, "", TAIL, true));
    for (s, what) in [(&mixed, "mixed"), (&device, "device"), (&all_held, "qdisc path")] {
        let b = &s.links["r1->r2"];
        assert!(b.link_down_drops > 0 && b.departures > 1000, "{what}: {b:?}");
    }
    assert_eq!(device.links["r1->r2"].queue_type, "fq_codel");
    assert_eq!(device.links["s1->r1"].queue_type, "codel");
}
