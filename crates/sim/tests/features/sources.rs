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

/// The transfer sizes of web flow rows: the runs of sequence numbers from 0 in the
/// data packets each connection sends into `s1->r1` (a lossless path: no
/// retransmission), per connection in order.
fn transfer_sizes(web: &str, tag: &str) -> (Summary, Vec<u64>) {
    let dir = std::env::temp_dir().join(format!("aqmlab-web-{tag}-{}", std::process::id()));
    let t = path(r#"{ type = "droptail", limit = 10000 }"#, web, "40s", "0s")
        + "[trace]\npackets = [\"s1->r1\"]\n";
    let s = sim::run(scenario(&t), Some(&dir)).unwrap();
    let text = std::fs::read_to_string(dir.join("packets.csv")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let mut last: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
    for r in text.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()) {
        if r[2] != "a" || r[6] == "1" {
            continue;
        }
        let (flow, seq): (u64, u64) = (r[3].parse().unwrap(), r[4].parse().unwrap());
        let sizes = last.entry(flow).or_default();
        if seq == 0 {
            sizes.push(1);
        } else {
            let n = sizes.last_mut().unwrap();
            assert_eq!(seq, *n, "flow {flow}: packets in order, none twice");
            *n += 1;
        }
    }
    (s, last.into_values().flatten().collect())
}

const WEB: &str = "[[flow]]\ntype = \"web\"\nsrc = \"s1\"\ndst = \"k1\"\narrival_rate = 5\n\
                   max_transfers = 20\nmax_window = 100\nstop = \"30s\"\n";

/// `size_distribution = "fixed"`: every transfer is exactly `mean_packets` packets;
/// the default draws Pareto sizes of that mean.
#[test]
fn web_fixed_sizes() {
    let (s, sizes) = transfer_sizes(
        &format!("{WEB}mean_packets = 10\nsize_distribution = \"fixed\"\n"),
        "fixed",
    );
    let done: u64 = s.flows.iter().map(|f| f.transfers).sum();
    // about 5 per second for 30 s, all completed by the end
    assert!((100..=200).contains(&sizes.len()), "{}", sizes.len());
    assert_eq!(done, sizes.len() as u64);
    assert!(sizes.iter().all(|&n| n == 10), "{sizes:?}");
    assert!(s.flows.iter().all(|f| f.retransmits == 0 && f.drops == 0));
    let (_, pareto) = transfer_sizes(&format!("{WEB}mean_packets = 10\n"), "pareto");
    let (lo, hi) = (pareto.iter().min().unwrap(), pareto.iter().max().unwrap());
    // Pareto shape 1.2, mean 10: scale 10 * 0.2 / 1.2 = 1.67 packets, so sizes of 2
    // packets (P = 1 - (1.67/2.5)^1.2 = 0.38) and above 30 (P = (1.67/29.5)^1.2 = 0.03)
    // are both met in ~150 draws
    assert!(*lo <= 2 && *hi > 30, "{lo} {hi}");
}

#[test]
fn web_fixed_sizes_are_whole_packets() {
    let q = r#"{ type = "droptail", limit = 100 }"#;
    let bad = [
        ("mean_packets = 10.5\nsize_distribution = \"fixed\"\n", "flow[0].mean_packets"),
        ("size_distribution = \"exponential\"\n", "flow[0].size_distribution"),
    ];
    for (keys, at) in bad {
        let e = Scenario::from_toml_str(&path(q, &format!("{WEB}{keys}"), "5s", "0s"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(at), "{e}");
    }
}
