//! Start-up times (RFC 7928 Section 2.2): from a flow's (or a web transfer's) start
//! to the arrival of its first data packet at the receiver; and the web pools'
//! 95th-percentile completion time.

use super::*;

/// The time a lone packet of `size` bytes takes along [`path`] (100 Mb/s and 1 ms,
/// then 10 Mb/s and 20 ms), s: transmission and propagation, no queue.
fn lone(size: f64) -> f64 {
    let ns = |bits: f64, rate: f64| (bits / rate * 1e9).round() * 1e-9;
    ns(size * 8.0, 100e6) + 1e-3 + ns(size * 8.0, 10e6) + 20e-3
}

/// A TCP flow's start-up time is the lone packet's trip when nothing queues before
/// it; a flow starting behind a busy queue waits longer; a flow whose data never
/// arrives has none, and open-loop flows have none.
#[test]
fn startup_time_of_tcp_flows() {
    let flows = r#"
[[flow]]
src = "s1"
dst = "k1"
start = "0.5s"
packets = 30
[[flow]]
src = "s1"
dst = "k1"
start = "0.5s"
max_window = 200
[[flow]]
type = "cbr"
src = "s1"
dst = "k1"
rate = "9Mbps"
start = "2s"
[[flow]]
src = "s1"
dst = "k1"
start = "4s"
[[flow]]
src = "s1"
dst = "k1"
start = "20s"
"#;
    let s = run(&path(r#"{ type = "droptail", limit = 200 }"#, flows, "10s", "0s"));
    let f = &s.flows;
    // flows 0 and 1 start together: one packet goes first, the other waits behind it
    // on the 10 Mb/s line (the 100 Mb/s access link serves them back to back)
    let (a, b) = (f[0].startup_time.unwrap(), f[1].startup_time.unwrap());
    let first = a.min(b);
    assert!((first - lone(1000.0)).abs() < 1e-9, "{first} {}", lone(1000.0));
    assert!(a.max(b) > first + 7.9e-4 && a.max(b) < first + 2e-3, "{a} {b}");
    assert_eq!(f[2].startup_time, None, "open loop");
    // flow 3 starts behind the queue the CBR source and the bulk flow keep
    assert!(f[3].startup_time.unwrap() > lone(1000.0) + 0.005, "{:?}", f[3].startup_time);
    assert_eq!(f[4].startup_time, None, "starts after the end");
    assert!(f.iter().all(|f| f.mean_startup.is_none() && f.fct_p95.is_none()));
    // a link down from the start until after the end: nothing arrives
    let down = format!("{flows}[[event]]\nat = 0\na = \"r1\"\nb = \"k1\"\naction = \"down\"\n");
    let s = run(&path(r#"{ type = "droptail", limit = 200 }"#, &down, "10s", "0s"));
    assert!(s.flows.iter().all(|f| f.startup_time.is_none()));
}

/// Per transfer of `size` packets (from the packet traces): when it started (its first
/// packet offered to `s1->r1`: the sender sends at once) and when its last ACK reached
/// the sender (the ACK naming `size` leaving `r1->s1`, plus that line's 40-byte
/// transmission and 1 ms), s; transfers not completed by the end are left out.
fn transfers(toml: &str, size: u64) -> (Summary, Vec<(f64, f64)>) {
    let dir = std::env::temp_dir().join(format!("aqmlab-fct-{}", std::process::id()));
    let t = format!("{toml}\n[trace]\npackets = [\"s1->r1\", \"r1->s1\"]\n");
    let s = sim::run(scenario(&t), Some(&dir)).unwrap();
    let text = std::fs::read_to_string(dir.join("packets.csv")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    // per connection, its transfers: (start, end)
    let mut per: std::collections::BTreeMap<u64, Vec<(f64, Option<f64>)>> = Default::default();
    let back = 40.0 * 8.0 / 100e6 + 1e-3;
    for r in text.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()) {
        let (t, flow, seq): (f64, u64, u64) =
            (r[0].parse().unwrap(), r[3].parse().unwrap(), r[4].parse().unwrap());
        let v = per.entry(flow).or_default();
        match (r[1], r[2], r[6]) {
            ("s1->r1", "a", "0") if seq == 0 => v.push((t, None)),
            ("r1->s1", "d", "1") if seq == size => v.last_mut().unwrap().1 = Some(t + back),
            _ => {}
        }
    }
    let done = per.into_values().flatten().filter_map(|(t0, end)| end.map(|e| (t0, e)));
    let done = done.filter(|&(_, end)| end <= s.duration).collect();
    (s, done)
}

/// Web pools: `mean_startup` per connection and `fct_p95` per pool, against the
/// completion times read off the packet traces; one-packet transfers on an idle path
/// start up in the lone packet's trip.
#[test]
fn web_startup_and_fct_p95() {
    let web = "[[flow]]\ntype = \"web\"\nsrc = \"s1\"\ndst = \"k1\"\nmax_transfers = 30\n\
               max_window = 100\nsize_distribution = \"fixed\"\n";
    let q = r#"{ type = "droptail", limit = 10000 }"#;
    // 30 transfers of 20 packets a second: 7.2 Mb/s on 10 Mb/s, completion times
    // spread by the queue the transfers build (no loss)
    let busy = format!("{web}mean_packets = 20\narrival_rate = 30\n");
    let (s, done) = transfers(&path(q, &busy, "30s", "0s"), 20);
    let n: u64 = s.flows.iter().map(|f| f.transfers).sum();
    assert_eq!(n as usize, done.len());
    assert!(n > 700, "{n}");
    assert!(s.flows.iter().all(|f| f.drops == 0 && f.retransmits == 0));
    let mut fct: Vec<f64> = done.iter().map(|(a, b)| b - a).collect();
    fct.sort_by(f64::total_cmp);
    let h = 0.95 * (fct.len() - 1) as f64;
    let (lo, w) = (h.floor() as usize, h - h.floor());
    let want = fct[lo] + w * (fct[(lo + 1).min(fct.len() - 1)] - fct[lo]);
    let got = s.flows[0].fct_p95.unwrap();
    assert!((got - want).abs() < 1e-6, "{got} {want}");
    assert!(s.flows[1..].iter().all(|f| f.fct_p95.is_none()));
    let mean_fct: f64 = fct.iter().sum::<f64>() / fct.len() as f64;
    let pooled: f64 =
        s.flows.iter().filter_map(|f| f.mean_fct.map(|m| m * f.transfers as f64)).sum();
    assert!((pooled / n as f64 - mean_fct).abs() < 1e-6);
    for f in s.flows.iter().filter(|f| f.transfers > 0) {
        let st = f.mean_startup.unwrap();
        assert!(st >= lone(1000.0) - 1e-9 && st < f.mean_fct.unwrap(), "{f:?}");
        assert_eq!(f.startup_time, None);
    }
    // one-packet transfers: start-up is the lone trip (or a packet time more when one
    // is on the line), completion the trip and the ACK's way back
    let one = format!("{web}mean_packets = 1\narrival_rate = 8\n");
    let s = run(&path(q, &one, "30s", "0s"));
    let back = lone(40.0);
    for f in s.flows.iter().filter(|f| f.transfers > 0) {
        let (st, fct) = (f.mean_startup.unwrap(), f.mean_fct.unwrap());
        assert!(st >= lone(1000.0) - 1e-9 && st < lone(1000.0) + 8e-4, "{st}");
        assert!((fct - st - back).abs() < 1e-6, "{fct} {st} {back}");
    }
}
