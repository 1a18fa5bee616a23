//! `device_queue`: packets a link direction's device holds below its queue.

use super::*;

fn summary(toml: &str) -> Summary {
    let mut s = run(toml);
    (s.wall_seconds, s.events) = (0.0, 0);
    s
}

/// `path` with `device_queue = n` on the bottleneck link `r1 - k1`.
fn with_device(queue: &str, flows: &str, n: u32, duration: &str) -> String {
    path(queue, flows, duration, "0s").replacen(
        "delay = \"20ms\"\n",
        &format!("delay = \"20ms\"\ndevice_queue = {n}\n"),
        1,
    )
}

/// The bottleneck `r1->k1` of a run of `flows` for `duration` with a Drop Tail queue of
/// 25 packets and no device queue, and with one of 24 above a one-packet device queue;
/// both runs' summaries.
fn tail_with_and_without_device(flows: &str, duration: &str) -> [Summary; 2] {
    [(25, 0), (24, 1)].map(|(limit, n)| {
        let queue = format!("{{ type = \"droptail\", limit = {limit} }}");
        summary(&with_device(&queue, flows, n, duration))
    })
}

/// A Drop Tail queue of `limit - 1` above a one-packet device queue holds what one of
/// `limit` holds: the same packets leave at the same times, the same are dropped, and
/// the waiting, measured from the arrival at the queue to the start of transmission,
/// counts the time in the device queue.
#[test]
fn a_device_queue_adds_one_packet_to_the_buffer() {
    let flows = "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\ncount = 4\n\
                 [[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\nrate = \"4Mbps\"\n";
    let [plain, device] = tail_with_and_without_device(flows, "20s");
    let (a, b) = (&plain.links["r1->k1"], &device.links["r1->k1"]);
    assert!(a.drops > 0, "the buffer must overflow: {a:?}");
    assert_eq!(
        (a.arrivals, a.departures, a.drops, a.mean_delay, a.mean_queue),
        (b.arrivals, b.departures, b.drops, b.mean_delay, b.mean_queue)
    );
    assert_eq!(plain.flows, device.flows);
}

/// CoDel measures a packet's sojourn in the queue, not in the device queue below it. A
/// CBR source at exactly the line rate (1500-byte packets every 1.2 ms at 10 Mb/s)
/// behind a burst of five packets keeps four waiting: each of its packets waits 6 ms
/// in all, one transmission time of which in a one-packet device queue. With a target
/// of 5.4 ms, CoDel drops without the device queue (6 ms, above the target for more
/// than an interval) and never with it (4.8 ms in the queue).
#[test]
fn codel_sojourn_excludes_the_device_queue() {
    let flows = "[[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\npacket_size = 1500\ninterval = \"1.2ms\"\n\
                 [[flow]]\ntype = \"cbr\"\nsrc = \"s1\"\ndst = \"k1\"\npacket_size = 1500\nbatch = 5\n\
                 interval = \"100s\"\nstart = \"0.1ms\"\n";
    let queue = r#"{ type = "codel", limit = 100, target = "5.4ms", interval = "100ms" }"#;
    let runs: Vec<_> = [0, 1].map(|n| summary(&with_device(queue, flows, n, "2s"))).into();
    let [a, b] = [&runs[0].links["r1->k1"], &runs[1].links["r1->k1"]];
    let tx = 1500.0 * 8.0 / 10e6;
    assert!(a.drops > 0, "{a:?}");
    assert_eq!(b.drops, 0, "{b:?}");
    // the waiting (arrival at the queue to transmission) counts the device queue: five
    // transmission times with it; without it four once CoDel's drop has shortened the
    // queue by one
    assert!((b.delay_p50 - 5.0 * tx).abs() < tx / 2.0, "{b:?}");
    assert!((a.delay_p50 - 4.0 * tx).abs() < tx / 2.0, "{a:?}");
}

/// A link going down loses the packets of its device queue with those of its queue:
/// with a Drop Tail queue of `limit - 1` above one device slot, the same packets as
/// a queue of `limit` (four TCP flows, the link down for 0.5 s).
#[test]
fn a_link_going_down_loses_the_device_queue() {
    let flows = "[[flow]]\ntype = \"tcp\"\nsrc = \"s1\"\ndst = \"k1\"\ncount = 4\n\
                 [[event]]\nat = \"3s\"\na = \"r1\"\nb = \"k1\"\naction = \"down\"\n\
                 [[event]]\nat = \"3.5s\"\na = \"r1\"\nb = \"k1\"\naction = \"up\"\n";
    let [plain, device] = tail_with_and_without_device(flows, "6s");
    let (a, b) = (&plain.links["r1->k1"], &device.links["r1->k1"]);
    assert!(a.link_down_drops > 1, "{a:?}");
    assert_eq!(
        (a.arrivals, a.departures, a.drops, a.link_down_drops, a.queued_at_end),
        (b.arrivals, b.departures, b.drops, b.link_down_drops, b.queued_at_end)
    );
    assert_eq!(plain.flows, device.flows);
}
