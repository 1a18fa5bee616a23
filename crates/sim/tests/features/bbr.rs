//! BBR (`variant = "bbr"`) and pacing: the physics the literature reports, over seeds.
//!
//! The path: s1 -1 Gb/s 1 ms- r1 -R 19 ms- k1, a base RTT of 40 ms (plus transmission
//! times), 1000-byte packets: one BDP is R * 0.040 / 8000 packets, 500 at 100 Mb/s,
//! 100 at 20 Mb/s.

use super::*;

const SEEDS: [u64; 4] = [1, 2, 3, 4];

/// The path at `mbps` with a Drop Tail buffer of `limit` packets at r1 -> k1.
fn fat_path(mbps: u32, limit: u32, flows: &str, seed: u64, span: (&str, &str)) -> String {
    let (duration, warmup) = span;
    format!(
        r#"
duration = "{duration}"
warmup = "{warmup}"
seed = {seed}
[[link]]
a = "s1"
b = "r1"
rate = "1Gbps"
delay = "1ms"
queue = {{ type = "droptail", limit = 100000 }}
[[link]]
a = "r1"
b = "k1"
rate = "{mbps}Mbps"
delay = "19ms"
queue = {{ type = "droptail", limit = {limit} }}
{flows}
"#
    )
}

const BBR: &str = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"bbr\"\nsack = true\n";

/// One BBR flow fills the 100 Mb/s path with a 1-BDP buffer (500 packets):
/// utilization at least 0.95 over 40 s, for every seed (the seed draws the gain
/// cycle's first phase). (A ProbeRTT costs 200 ms at 4 packets in flight every 10 s,
/// some 2.5 %: under the draft's rule, the default, a flow alone that drains the queue
/// in each cycle's 3/4 phase sees its minimum RTT again before RTprop expires and never
/// enters it; under tcp_bbr.c's, only a lower sample counts: the next test.)
#[test]
fn alone_it_fills_a_one_bdp_path() {
    for seed in SEEDS {
        let s = run(&fat_path(100, 500, BBR, seed, ("45s", "5s")));
        let b = &s.links["r1->k1"];
        let f = &s.flows[0];
        eprintln!(
            "seed {seed}: utilization {:.4} drops {} mean queue {:.1} mode {:?} bw {:?} rt_prop {:?}",
            b.utilization,
            b.drops,
            b.mean_queue,
            f.bbr.as_ref().map(|b| &b.bbr_mode),
            f.bbr.as_ref().map(|b| b.bbr_btl_bw_bps),
            f.bbr.as_ref().map(|b| b.bbr_rt_prop)
        );
        assert!(b.utilization >= 0.95, "seed {seed}: utilization {}", b.utilization);
    }
}

/// The modes a run of `toml` goes through, with the time each begins (s), from its
/// `bbr.csv` trace.
fn modes(toml: &str, tag: &str) -> Vec<(f64, String)> {
    let dir = std::env::temp_dir().join(format!("aqmlab-bbr-{tag}-{}", std::process::id()));
    sim::run(scenario(&format!("{toml}\n[trace]\ncwnd = true\n")), Some(&dir)).unwrap();
    let text = std::fs::read_to_string(dir.join("bbr.csv")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let mut out: Vec<(f64, String)> = Vec::new();
    for r in text.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()) {
        if out.last().is_none_or(|(_, m)| m != r[2]) {
            out.push((r[0].parse().unwrap(), r[2].to_string()));
        }
    }
    out
}

/// Under tcp_bbr.c's RTprop rule (`bbr_min_rtt_strict`, the `linux` profile's) a
/// sample equal to the minimum does not restart its 10 s (`bbr_min_rtt_win_sec`), so a
/// flow alone, which sees no lower RTT once it has measured the path, enters ProbeRTT
/// every 10 s or so of sending: at least 3 times in 35 s; each at least 10 s after
/// the flow started or the last one ended (Linux restarts the window as ProbeRTT
/// ends, `bbr_check_probe_rtt_done`), and lasting 200 ms plus at most two rounds (one
/// to bring the flight to 4 packets, one after the 200 ms). The path: 20 Mb/s, 80 ms,
/// 1500-byte packets, a 1-BDP buffer (133 packets), Linux's TCP (the profile), where
/// the 3/4 phase brings the RTT back to exactly its minimum (under the draft's rule
/// each such sample restarts the 10 s: no ProbeRTT at all in that run).
#[test]
fn alone_it_probes_rtt_every_ten_seconds_under_linux_rules() {
    let path = |seed: u64| {
        format!(
            r#"profile = "linux"
duration = "35s"
seed = {seed}
[[link]]
a = "s1"
b = "r1"
rate = "1Gbps"
delay = "0ms"
[[link]]
a = "r1"
b = "k1"
rate = "20Mbps"
delay = "40ms"
queue = {{ type = "droptail", limit = 133 }}
[[flow]]
src = "s1"
dst = "k1"
variant = "bbr"
packet_size = 1500
"#
        )
    };
    for seed in [1, 2] {
        let m = modes(&path(seed), &format!("{seed}"));
        let probes: Vec<usize> = (0..m.len()).filter(|&i| m[i].1 == "probe_rtt").collect();
        assert!(probes.len() >= 3, "seed {seed}: {m:?}");
        // (the first minimum is one of the first RTT samples, after time 0)
        let mut last_end = 0.0;
        for &i in &probes {
            let (start, end) = (m[i].0, m[i + 1].0);
            assert!((0.2..=0.2 + 2.0 * 0.081).contains(&(end - start)), "seed {seed}: {m:?}");
            assert!(start - last_end >= 10.0 - 1e-9, "seed {seed}: {m:?}");
            last_end = end;
        }
    }
}

const CUBIC: &str = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"cubic\"\nsack = true\nstart = { uniform = [0, 1] }\n";

/// BBR's share of the bottleneck's departures beside one CUBIC flow on the 20 Mb/s
/// path (BDP 100 packets) with a buffer of `x` BDPs, for each seed.
fn shares(x: f64) -> Vec<f64> {
    let limit = (x * 100.0) as u32;
    let flows = format!("{BBR}start = {{ uniform = [0, 1] }}\n{CUBIC}");
    SEEDS
        .iter()
        .map(|&seed| {
            let s = run(&fat_path(20, limit, &flows, seed, ("200s", "50s")));
            let (b, c) = (s.flows[0].throughput_bps, s.flows[1].throughput_bps);
            let util = s.links["r1->k1"].utilization;
            eprintln!("x {x} seed {seed}: BBR {:.3} of {:.4}", b / (b + c), util);
            b / (b + c)
        })
        .collect()
}

/// Beside CUBIC in a shallow buffer (0.5 BDP) BBR takes most of the link: CUBIC
/// halves its window at each of the losses BBR's probing causes, BBR does not (it
/// keeps pacing at its bandwidth estimate, Cardwell et al. 2016; Ware et al. 2019,
/// Section 4: the in-flight cap exceeds the BDP plus the buffer, so the model gives
/// BBR all of the link but its ProbeRTT time).
#[test]
fn beside_cubic_in_a_shallow_buffer_it_takes_most() {
    for (seed, share) in SEEDS.iter().zip(shares(0.5)) {
        assert!(share > 0.5, "seed {seed}: BBR's share {share}");
    }
}

/// In a deep buffer BBR is limited by its in-flight cap, 2 x btl_bw x RTprop, with
/// RTprop measured over a queue CUBIC keeps full: Ware et al., "Modeling BBR's
/// interactions with loss-based congestion control" (IMC 2019), eq. (9)-(11): with
/// N BBR flows, a buffer of q packets = X BDPs, capacity c packets/s and base RTT l,
/// the loss-based flows' share is p = 1/2 - 1/(2X) - 4N/q, and BBR's fraction over a
/// time d is (1 - p)(d - T)/d, T = (q/c + 0.2 s + l) d/10 the time spent in ProbeRTT.
/// At 20 Mb/s (c = 2500), l = 40 ms, N = 1: X = 4 (q = 400) gives 0.635 x 0.96 =
/// 0.610, X = 8 (q = 800) 0.5675 x 0.944 = 0.536. The model takes BBR at its cap all
/// the time, with the largest estimates the cap can have (btl_bw its whole share,
/// RTprop over CUBIC's whole queue share); so BBR's share is at most the model's (0.02
/// allowed for the max filter's overshoot of the share), well below the whole (at
/// most 0.75), and BBR is not starved (at least 0.25, half of an even split: a loose
/// bound, not the paper's).
#[test]
fn beside_cubic_in_a_deep_buffer_it_keeps_below_the_model() {
    let (c, l, n) = (2500.0, 0.040, 1.0);
    for x in [4.0, 8.0] {
        let q = x * c * l;
        let p = 0.5 - 1.0 / (2.0 * x) - 4.0 * n / q;
        let probe = (q / c + 0.2 + l) / 10.0;
        let model = (1.0 - p) * (1.0 - probe);
        for (seed, share) in SEEDS.iter().zip(shares(x)) {
            eprintln!("X {x} seed {seed}: {share:.3}, model {model:.3}");
            assert!(share <= model + 0.02, "X {x} seed {seed}: {share} vs {model}");
            assert!((0.25..=0.75).contains(&share), "X {x} seed {seed}: {share}");
        }
    }
}

/// Under `profile = "linux"` a BBR flow takes tcp_bbr.c's fixed-point gains (739/256,
/// 88/256), its ACK-aggregation allowance, RTprop rule and long-term estimate,
/// tcp_rate.c's choice of the sample's packet, and the profile's SACK; a CUBIC flow of the
/// same scenario gets none of BBR's keys; a flow without the profile, the draft's
/// 2/ln 2 and ln 2 / 2.
#[test]
fn the_linux_profile_gives_bbr_linux_values() {
    let flows = "[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\nvariant = \"bbr\"\n[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\n";
    let toml = format!("profile = \"linux\"\n{}", fat_path(20, 100, flows, 1, ("1s", "0s")));
    let n = scenario(&toml).normalized().unwrap();
    let tcp = |i: usize| n.flows[i].tcp.clone().unwrap();
    let b = tcp(0).bbr.unwrap();
    assert_eq!((b.high_gain, b.drain_gain, b.extra_acked), (739.0 / 256.0, 88.0 / 256.0, true));
    assert!(b.strict_min_rtt, "only a lower RTT sample restarts RTprop's 10 s");
    assert!(b.lt_bw, "the long-term (policer) estimate");
    assert!(b.rate_newest_sent, "tcp_rate.c's sample from the packet sent last");
    assert!(tcp(0).sack && tcp(0).pacing.is_some(), "BBR paces, with the profile's SACK");
    assert_eq!(tcp(1).bbr, None);
    let n = scenario(&fat_path(20, 100, BBR, 1, ("1s", "0s"))).normalized().unwrap();
    let b = n.flows[0].tcp.clone().unwrap().bbr.unwrap();
    let ln2 = std::f64::consts::LN_2;
    assert_eq!((b.high_gain, b.drain_gain, b.extra_acked), (2.0 / ln2, ln2 / 2.0, false));
    assert!(!b.strict_min_rtt, "the draft's rule: an equal sample restarts it too");
    assert!(!b.lt_bw, "the draft has no long-term estimate");
    assert!(!b.rate_newest_sent, "draft -00's sample: the highest delivered count");
}

/// Bad input names the flow and the key: BBR without SACK, BBR with pacing forced
/// off, an unknown variant; and a BBR run with every profile finishes (no hang).
#[test]
fn bad_input_names_the_flow_and_key() {
    let flow = |extra: &str| format!("[[flow]]\nsrc = \"s1\"\ndst = \"k1\"\n{extra}");
    for (extra, key) in [
        ("variant = \"bbr\"\n", "flow[0].sack"),
        ("variant = \"bbr\"\nsack = true\npacing = false\n", "flow[0].pacing"),
        ("variant = \"bbr2\"\n", "flow[0].variant"),
    ] {
        let toml = fat_path(20, 100, &flow(extra), 1, ("1s", "0s"));
        let Err(e) = Scenario::from_toml_str(&toml) else { panic!("{extra}: accepted") };
        let e = e.to_string();
        assert!(e.starts_with(key), "{extra}: {e}");
    }
    for profile in ["rfc", "ns2", "ns3", "linux"] {
        let toml = format!(
            "profile = \"{profile}\"\n{}",
            // (ns2's receiver window of 20 packets would be the limit)
            fat_path(
                20,
                100,
                &flow("variant = \"bbr\"\nsack = true\nmax_window = 1000\n"),
                1,
                ("5s", "0s")
            )
        );
        let s = run(&toml);
        assert!(s.flows[0].goodput_bps > 0.5 * 20e6, "{profile}: {}", s.flows[0].goodput_bps);
    }
}
