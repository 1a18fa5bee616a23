//! The qdisc path (`qdisc_path = true`) gives the FIFO path's results bit for bit.

use super::*;

/// A parking lot (as in `express`) with open-loop and TCP traffic both ways, ECN
/// flows among them, a link going down and up if `events`.
fn lot(qdisc: bool, queue: &str, events: bool) -> String {
    let mut t = format!("duration = \"20s\"\nwarmup = \"3.3s\"\nseed = 7\nqdisc_path = {qdisc}\n");
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
            "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\ncount = 3\necn = {}\nstart = {{ uniform = [0, 1] }}\n",
            i == 2
        );
        t += &format!("[[flow]]\nsrc = \"k{i}\"\ndst = \"s{i}\"\nvariant = \"reno\"\ncount = 2\n");
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
        t += "[trace]\nqueue = [\"r1->r2\"]\ninterval = 0\npackets = [\"r1->r2\", \"r2->r3\"]\n";
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
