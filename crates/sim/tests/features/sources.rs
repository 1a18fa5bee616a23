//! Open-loop CBR batches and fixed-size web transfers.

use super::*;

/// The arrivals (`a` rows: time in ns, seq) of `flow` at the direction `s1->r1`, the
/// first hop of every flow of [`path`].
fn arrivals(flow: &str, duration: &str, tag: &str) -> Vec<(u64, u64)> {
    let dir = std::env::temp_dir().join(format!("aqmlab-src-{tag}-{}", std::process::id()));
    let t = path(r#"{ type = "droptail", limit = 1000 }"#, flow, duration, "0s")
        + "[trace]\npackets = [\"s1->r1\"]\n";
    sim::run(scenario(&t), Some(&dir)).unwrap();
    let text = std::fs::read_to_string(dir.join("packets.csv")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    (text.lines().skip(1))
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[2] == "a")
        .map(|r| ((r[0].parse::<f64>().unwrap() * 1e9).round() as u64, r[4].parse().unwrap()))
        .collect()
}

/// Groups of equal arrival times: (time, packets).
fn groups(a: &[(u64, u64)]) -> Vec<(u64, usize)> {
    let mut g: Vec<(u64, usize)> = Vec::new();
    for &(t, _) in a {
        match g.last_mut() {
            Some((u, n)) if *u == t => *n += 1,
            _ => g.push((t, 1)),
        }
    }
    g
}

/// `batch = B` with `rate`: B back-to-back packets every B x size x 8 / rate, numbered
/// in order; the mean rate is `rate`.
#[test]
fn cbr_batches_keep_the_mean_rate() {
    let (b, size, rate) = (5u64, 1000u64, 2e6);
    let flow = format!(
        "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"2Mbps\"\nbatch = {b}\n\
         packet_size = {size}\nstart = \"0.1s\"\n"
    );
    let a = arrivals(&flow, "2s", "rate");
    let spacing = (b * size * 8) as f64 / rate; // 0.02 s
    let g = groups(&a);
    // batches at 0.1 s + k spacing up to the end of the run (2 s): k = 0 ..= 95
    let n = ((2.0 - 0.1) / spacing).floor() as usize + 1;
    assert_eq!(g.len(), n);
    for (k, &(t, count)) in g.iter().enumerate() {
        assert_eq!(count as u64, b, "batch {k}");
        let want = aqm::Time::from_secs_f64(0.1).0 + k as u64 * aqm::Time::from_secs_f64(spacing).0;
        assert_eq!(t, want, "batch {k}");
    }
    assert!(a.iter().enumerate().all(|(i, &(_, seq))| seq == i as u64));
    let s = run(&path(r#"{ type = "droptail", limit = 1000 }"#, &flow, "20.1s", "0.1s"));
    let got = s.flows[0].goodput_bps;
    // 20 s of batches: the window [0.1, 20.1] holds 1000 or 1001 of them
    assert!((got - rate).abs() <= (b * size * 8) as f64 / 20.0 + 1e-9, "{got}");
}

/// `batch = B` with `interval`: B packets every `interval` (the video frames of RFC
/// 7928's scenario 7.2: 7 packets every 40 ms).
#[test]
fn cbr_batches_every_interval() {
    let flow = "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\ninterval = \"40ms\"\n\
                batch = 7\npacket_size = 1500\n";
    let g = groups(&arrivals(flow, "1s", "interval"));
    assert_eq!(g.len(), 26); // 0, 40 ms, ..., 1 s
    for (k, &(t, n)) in g.iter().enumerate() {
        assert_eq!((t, n), (k as u64 * 40_000_000, 7));
    }
}

/// `batch = 1` is the CBR of before; a batch is refused outside [1, 2^20].
#[test]
fn cbr_batch_one_is_plain_cbr() {
    let one = "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"3Mbps\"\n";
    let q = r#"{ type = "droptail", limit = 20 }"#;
    let a = run(&path(q, one, "5s", "1s"));
    let b = run(&path(q, &format!("{one}batch = 1\n"), "5s", "1s"));
    assert_eq!((&a.flows, &a.links), (&b.flows, &b.links));
    for bad in ["0", "2000000"] {
        let t = path(q, &format!("{one}batch = {bad}\n"), "5s", "1s");
        let e = Scenario::from_toml_str(&t).unwrap_err().to_string();
        assert!(e.contains("flow[0].batch") && e.contains("[1, 1048576]"), "{e}");
    }
}
