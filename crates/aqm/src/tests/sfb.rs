//! SFB's behaviour derived from its definition (Feng et al. 2002 Section V, Linux
//! `sch_sfb`'s choices).

use super::*;

fn params() -> SfbParams {
    SfbParams {
        levels: 8,
        bins: 16,
        bin_size: 20,
        max: 25,
        increment: 0.001,
        decrement: 1.0 / 6000.0,
        penalty_rate: 10.0,
        penalty_burst: 20,
        limit: Limit { packets: Some(1000), bytes: None },
        ecn: true,
    }
}

fn pkt(flow: u32, ecn: bool) -> PacketInfo {
    PacketInfo { ecn_capable: ecn, ..PacketInfo::new(1000, flow) }
}

fn small() -> Backlog {
    Backlog { packets: 1, bytes: 1000 }
}

fn ms(m: u64) -> Time {
    Time(m * 1_000_000)
}

#[test]
fn a_bin_over_bin_size_steps_up_and_an_empty_bin_steps_down_per_arrival() {
    let mut q = Sfb::new(params(), 1).unwrap();
    let f = 3;
    let bins: Vec<usize> = (0..8).map(|l| q.bin(f, l)).collect();
    // 20 arrivals fill the flow's bins to bin_size without raising p_m (the count is
    // taken before the arrival joins); then each arrival raises every bin by increment.
    for _ in 0..20 {
        assert_eq!(q.on_arrival(ms(0), &pkt(f, true), small()), Verdict::Enqueue);
    }
    assert!(bins.iter().all(|&i| q.qlen(i) == 20 && q.p_m(i) == 0.0));
    for n in 1..=4 {
        q.on_arrival(ms(0), &pkt(f, true), small());
        for &i in &bins {
            assert!((q.p_m(i) - n as f64 * 0.001).abs() < 1e-12, "bin {i}: {}", q.p_m(i));
        }
    }
    // Drain the flow: its bins are empty, and each later arrival lowers them by decrement.
    for _ in 0..24 {
        q.on_removed(&pkt(f, true));
    }
    assert!(bins.iter().all(|&i| q.qlen(i) == 0));
    let before = q.p_m(bins[0]);
    q.on_arrival(ms(1), &pkt(f, true), small());
    assert!((q.p_m(bins[0]) - (before - 1.0 / 6000.0)).abs() < 1e-12);
}

#[test]
fn an_arrival_whose_bins_all_hold_max_is_dropped() {
    let mut q = Sfb::new(params(), 2).unwrap();
    let f = 7;
    let mut verdicts = Vec::new();
    for _ in 0..30 {
        verdicts.push(q.on_arrival(ms(0), &pkt(f, true), small()));
    }
    // With p_m at most 5 x 0.001 by then, the first max arrivals are marked or
    // enqueued (and counted in the bins); every later one finds all bins at max.
    let queued = verdicts.iter().filter(|v| !matches!(v, Verdict::Drop(_))).count();
    assert_eq!(queued, 25, "{verdicts:?}");
    assert!(verdicts[25..].iter().all(|v| *v == Verdict::Drop(DropReason::FlowLimit)));
    assert_eq!(q.drops.bucket, 5);
}

#[test]
fn the_signal_is_p_min_with_linux_heavy_marking_drops() {
    // Set every bin of flow 1 to p: p_min = p. Below 1/2 ECN-capable packets are
    // marked with p and never dropped; above, dropped with 2 (p - 1/2) and marked with
    // p - 2 (p - 1/2) = 1 - p.
    let n = 40_000u64;
    for p in [0.1, 0.3, 0.7, 0.9] {
        let mut q = Sfb::new(params(), 5).unwrap();
        let bins: Vec<usize> = (0..8).map(|l| q.bin(1, l)).collect();
        let (mut marks, mut drops) = (0u64, 0u64);
        for i in 0..n {
            for &b in &bins {
                q.set_p_m(b, p);
            }
            match q.on_arrival(Time(i), &pkt(1, true), small()) {
                Verdict::Mark => marks += 1,
                Verdict::Drop(_) => drops += 1,
                _ => {}
            }
            q.on_removed(&pkt(1, true));
        }
        let p_drop = if p > 0.5 { 2.0 * (p - 0.5) } else { 0.0 };
        let p_mark = p - p_drop;
        for (what, count, prob) in [("marks", marks, p_mark), ("drops", drops, p_drop)] {
            let sd = (n as f64 * prob * (1.0 - prob)).sqrt();
            let dev = (count as f64 - n as f64 * prob).abs();
            assert!(dev <= 4.42 * sd.max(1e-9), "p = {p}: {what} {count} of {n}, expected {prob}");
        }
    }
    // Not ECN-capable: dropped with p_min.
    let mut q = Sfb::new(params(), 6).unwrap();
    let drops = (0..n)
        .filter(|&i| {
            for l in 0..8 {
                let b = q.bin(2, l);
                q.set_p_m(b, 0.25);
            }
            let v = q.on_arrival(Time(i), &pkt(2, false), small());
            q.on_removed(&pkt(2, false));
            matches!(v, Verdict::Drop(_))
        })
        .count() as f64;
    let sd = (n as f64 * 0.25 * 0.75).sqrt();
    assert!((drops - 0.25 * n as f64).abs() <= 4.42 * sd, "{drops}");
}

#[test]
fn a_flow_with_p_min_one_is_held_to_the_penalty_rate() {
    let mut q = Sfb::new(params(), 3).unwrap();
    let pin = |q: &mut Sfb| {
        for l in 0..8 {
            let b = q.bin(9, l);
            q.set_p_m(b, 1.0);
        }
    };
    // One packet of the flow stays queued (its bins neither empty nor full: p_m stays
    // at 1). Then 1000 packets/s for 10 s, each leaving at once: the burst of 20
    // passes, then one packet per 1/penalty_rate s.
    assert_eq!(q.on_arrival(Time::ZERO, &pkt(9, true), small()), Verdict::Enqueue);
    pin(&mut q);
    let mut passed = 0u64;
    for i in 1..=10_000u64 {
        let v = q.on_arrival(Time(i * 1_000_000), &pkt(9, true), small());
        if v == Verdict::Enqueue {
            passed += 1;
            q.on_removed(&pkt(9, true));
        }
    }
    let expect = 20.0 + 10.0 * 10.0;
    assert!((passed as f64 - expect).abs() <= 2.0, "passed {passed}, expected about {expect}");
    assert_eq!(q.drops.penalty, 10_000 - passed);
    // penalty_rate = 0: nothing passes.
    let mut q = Sfb::new(SfbParams { penalty_rate: 0.0, penalty_burst: 0, ..params() }, 3).unwrap();
    q.on_arrival(Time::ZERO, &pkt(9, true), small());
    pin(&mut q);
    assert!(matches!(q.on_arrival(ms(0), &pkt(9, true), small()), Verdict::Drop(_)));
}

/// Flow 0 sends 4 packets per service slot and never backs off; flows 1..=8 each send
/// one packet every 16 slots (half the line together). One packet leaves per slot.
/// Returns the fraction of the responsive flows' packets lost over the last 10 000
/// slots, with SFB (`Some`) or with a drop-tail buffer of 1000 packets (`None`).
fn responsive_loss(mut sfb: Option<&mut Sfb>) -> f64 {
    use rand::seq::SliceRandom;
    let mut order = common::rng_from_seed(1);
    let mut fifo = std::collections::VecDeque::new();
    let (mut sent, mut lost) = (0u64, 0u64);
    for s in 0..60_000u64 {
        let now = Time(s * 1_000_000);
        let mut arrivals: Vec<u32> =
            std::iter::repeat_n(0u32, 4).chain((1..=8).filter(|_| s % 16 == 0)).collect();
        arrivals.shuffle(&mut order); // arrivals within a slot in random order
        for f in arrivals {
            let backlog = Backlog { packets: fifo.len() as u32, bytes: 1000 * fifo.len() as u64 };
            let ok = match sfb.as_deref_mut() {
                Some(q) => !matches!(q.on_arrival(now, &pkt(f, false), backlog), Verdict::Drop(_)),
                None => fifo.len() < 1000,
            };
            if ok {
                fifo.push_back(f);
            }
            if f != 0 && s >= 50_000 {
                sent += 1;
                lost += u64::from(!ok);
            }
        }
        if let Some(f) = fifo.pop_front()
            && let Some(q) = sfb.as_deref_mut()
        {
            q.on_removed(&pkt(f, false));
        }
    }
    lost as f64 / sent as f64
}

#[test]
fn a_non_responsive_flow_is_isolated_from_responsive_ones() {
    // Drop tail: the buffer stays full, one place frees per slot and goes to whichever
    // packet arrives first: the responsive flows lose most of what they send.
    let dt = responsive_loss(None);
    assert!(dt > 0.5, "drop tail: responsive loss {dt}");
    // SFB: flow 0 fills its bins and drives them up; a responsive flow keeps a bin of
    // its own at some level (checked below), whose p_m stays at 0, so it loses nothing
    // to the AQM.
    let mut q = Sfb::new(params(), 11).unwrap();
    let loss = responsive_loss(Some(&mut q));
    assert!(loss < 0.01, "SFB: responsive loss {loss}");
    assert!(q.p_min(0) > 0.5, "the non-responsive flow's bins are high: {}", q.p_min(0));
    for f in 1..=8u32 {
        assert!((0..8).any(|l| q.bin(f, l) != q.bin(0, l)), "flow {f} shares every bin");
        assert!(q.p_min(f) < 0.01, "flow {f}: p_min {}", q.p_min(f));
    }
}

#[test]
fn invalid_parameters_name_the_field() {
    let cases: [(SfbParams, &str); 6] = [
        (SfbParams { levels: 0, ..params() }, "levels"),
        (SfbParams { levels: 17, ..params() }, "levels"),
        (SfbParams { bins: 1, ..params() }, "bins"),
        (SfbParams { bin_size: 0, ..params() }, "bin_size"),
        (SfbParams { increment: 0.0, ..params() }, "increment"),
        (SfbParams { penalty_rate: -1.0, ..params() }, "penalty_rate"),
    ];
    for (p, field) in cases {
        assert_eq!(Sfb::new(p, 1).unwrap_err().param(), Some(field));
    }
}
