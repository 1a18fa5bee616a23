//! PIE's behaviour derived from RFC 8033.

use super::*;
use crate::common::Limit;
use crate::time::Duration;

fn params(mode: DelayMode) -> PieParams {
    PieParams {
        target: Duration::from_millis(15),
        tupdate: Duration::from_millis(15),
        alpha: 0.125,
        beta: 1.25,
        max_burst: Duration::from_millis(150),
        ecn: false,
        mark_ecn_th: 0.1,
        limit: Limit { packets: Some(1000), bytes: None },
        delay_mode: mode,
        dq_threshold: 16384,
        mean_pkt_size: 1500,
        derandomize: true,
        burst_reset: BurstReset::Rfc,
    }
}

/// The RFC's update written out independently: Section 4.2's equation and table, the
/// Section 5.5 cap, the decay when the delay stayed 0, the bounds.
fn rfc_update(p: f64, qdelay: f64, old: f64) -> f64 {
    let (alpha, beta, target) = (0.125, 1.25, 0.015);
    let raw = alpha * (qdelay - target) + beta * (qdelay - old);
    let factor = if p < 1e-6 {
        1.0 / 2048.0
    } else if p < 1e-5 {
        1.0 / 512.0
    } else if p < 1e-4 {
        1.0 / 128.0
    } else if p < 1e-3 {
        1.0 / 32.0
    } else if p < 1e-2 {
        1.0 / 8.0
    } else if p < 0.1 {
        0.5
    } else {
        1.0
    };
    let mut step = raw * factor;
    if p >= 0.1 && step > 0.02 {
        step = 0.02;
    }
    let mut next = p + step;
    if qdelay == 0.0 && old == 0.0 {
        next *= 0.98;
    }
    next.clamp(0.0, 1.0)
}

/// A synthetic delay trace: rising past the target, holding, falling to zero.
fn trace() -> Vec<f64> {
    let mut d = Vec::new();
    for i in 0..40 {
        d.push(0.001 * i as f64);
    }
    d.extend(std::iter::repeat_n(0.040, 200));
    for i in 0..60 {
        d.push((0.040 - 0.001 * i as f64).max(0.0));
    }
    d.extend(std::iter::repeat_n(0.0, 50));
    d
}

#[test]
fn probability_follows_rfc_equations_on_a_delay_trace() {
    let mut core = PieCore::new(params(DelayMode::RateEstimator)).unwrap();
    let (mut p, mut old) = (0.0, 0.0);
    let mut max_p: f64 = 0.0;
    for (k, &q) in trace().iter().enumerate() {
        core.update_from_delay(q);
        p = rfc_update(p, q, old);
        old = q;
        assert!((core.drop_prob - p).abs() <= 1e-12, "step {k}: {} vs {p}", core.drop_prob);
        max_p = max_p.max(p);
    }
    // The trace drives p up while the delay is above target and back towards 0 after.
    assert!(max_p > 0.1, "{max_p}");
    assert!(core.drop_prob < max_p / 2.0);
}

#[test]
fn auto_scaling_divides_the_step_by_the_table_factor() {
    // For a drop_prob in each range, one update with a delay 10 ms above target (and
    // unchanged) moves p by alpha * 0.010 times the range's factor.
    let ranges = [
        (5e-7, 2048.0),
        (5e-6, 512.0),
        (5e-5, 128.0),
        (5e-4, 32.0),
        (5e-3, 8.0),
        (5e-2, 2.0),
        (0.15, 1.0),
    ];
    for (p0, div) in ranges {
        let mut core = PieCore::new(params(DelayMode::RateEstimator)).unwrap();
        core.drop_prob = p0;
        core.qdelay_old = 0.025;
        core.update_from_delay(0.025);
        let expected = p0 + 0.125 * 0.010 / div;
        assert!((core.drop_prob - expected).abs() < 1e-15, "{p0}: {}", core.drop_prob);
    }
    // Above 10%, a step is capped at 2% (Section 5.5).
    let mut core = PieCore::new(params(DelayMode::RateEstimator)).unwrap();
    core.drop_prob = 0.3;
    core.update_from_delay(0.5);
    assert!((core.drop_prob - 0.32).abs() < 1e-12);
}

fn ecn_pkt() -> PacketInfo {
    PacketInfo { size: 1500, flow: 0, ecn_capable: true, ect1: false, ce: false }
}

/// A PIE with drop_prob `p`, no burst allowance left, a delay above target and 20
/// packets waiting, so that every arrival meets the random decision.
fn congested(p: f64, ecn: bool) -> Pie<PacketInfo> {
    let mut pr = params(DelayMode::Timestamp);
    pr.ecn = ecn;
    pr.derandomize = false;
    pr.tupdate = Duration(u64::MAX / 4);
    let mut q = Pie::new(pr, 7).unwrap();
    for _ in 0..20 {
        q.enqueue(Time::ZERO, ecn_pkt(), &mut |_, _| {});
    }
    let c = q.core_mut();
    c.burst_allowance = Duration::ZERO;
    c.drop_prob = p;
    c.qdelay_old = 0.1;
    q
}

#[test]
fn ecn_marks_up_to_ten_percent_then_drops() {
    for (p, marks) in [(0.08, true), (0.1, true), (0.12, false)] {
        let mut q = congested(p, true);
        let (mut n_mark, mut n_drop) = (0, 0);
        for i in 0..4000 {
            // A packet leaves for every packet accepted: the queue stays at 20.
            match q.enqueue(Time(i), ecn_pkt(), &mut |_, _| {}) {
                Verdict::Mark => n_mark += 1,
                Verdict::Drop(DropReason::Early) => {
                    n_drop += 1;
                    continue;
                }
                _ => {}
            }
            q.dequeue(Time(i), &mut |_, _| {});
        }
        if marks {
            assert!(n_mark > 0 && n_drop == 0, "p={p}: {n_mark} marks {n_drop} drops");
        } else {
            assert!(n_drop > 0 && n_mark == 0, "p={p}: {n_mark} marks {n_drop} drops");
        }
        // Either way the signal is given at rate p: within 5 binomial sd of 4000 p.
        let n = (n_mark + n_drop) as f64;
        let sd = (4000.0 * p * (1.0 - p)).sqrt();
        assert!((n - 4000.0 * p).abs() < 5.0 * sd, "p={p}: {n}");
    }
}

#[test]
fn burst_allowance_protects_a_burst_then_runs_out() {
    // A queue held at 100 ms of delay (timestamp mode): for max_burst = 150 ms, i.e.
    // ten updates, no arrival is dropped; the allowance then reaches 0 and, the
    // probability having grown, drops follow.
    let mut q: Pie<PacketInfo> = Pie::new(params(DelayMode::Timestamp), 3).unwrap();
    let ms = |m: u64| Time(m * 1_000_000);
    let mut first_drop = None;
    for t in 0..2000u64 {
        let now = ms(t);
        let v = q.enqueue(now, PacketInfo::new(1500, 0), &mut |_, _| {});
        if matches!(v, Verdict::Drop(_)) && first_drop.is_none() {
            first_drop = Some(t);
        }
        // Keep about 100 packets waiting: send one per arrival once 100 wait.
        if q.backlog().packets > 100 {
            q.dequeue(now, &mut |_, _| {});
        }
    }
    let updates_before = q.core().params.max_burst.0 / q.core().params.tupdate.0;
    let first = first_drop.expect("PIE never dropped");
    assert!(first >= 15 * updates_before, "dropped at {first} ms, inside the burst allowance");
    assert_eq!(q.core().burst_allowance, Duration::ZERO);
}

/// `burst_reset`: RFC 8033 Section 4.4 gives the allowance back at the first update
/// that finds the probability at 0 and both delays under half the target, and updates
/// the probability while the allowance lasts; `"quiet"` (ns-3 3.37) holds the
/// probability at 0 while it lasts and gives it back, by the next arrival, only after
/// 1.5 s of such updates in a row.
#[test]
fn burst_reset_rfc_or_quiet() {
    let per_allowance = 10; // updates one allowance lasts: 150 ms / 15 ms
    let quiet_limit = 100; // ns-3's BURST_RESET_TIMEOUT / T_UPDATE = 1.5 s / 15 ms
    for mode in [BurstReset::Rfc, BurstReset::Quiet] {
        let mut core =
            PieCore::new(PieParams { burst_reset: mode, ..params(DelayMode::Timestamp) }).unwrap();
        let mut rng = crate::common::rng_from_seed(1);
        // 30 ms of delay through the first allowance: the RFC's probability grows
        for _ in 0..per_allowance - 1 {
            core.update_from_delay(0.030);
        }
        match mode {
            BurstReset::Rfc => assert!(core.drop_prob > 0.0),
            BurstReset::Quiet => assert_eq!(core.drop_prob, 0.0),
        }
        core.update_from_delay(0.030);
        assert_eq!(core.burst_allowance, Duration::ZERO, "{mode:?}");
        // ns-3 gives a second allowance at the first arrival after the first
        let _ = core.drop_early(1 << 20, &mut rng);
        let second = core.burst_allowance;
        match mode {
            BurstReset::Rfc => assert_eq!(second, Duration::ZERO),
            BurstReset::Quiet => assert_eq!(second, core.params.max_burst),
        }
        for _ in 0..per_allowance {
            core.update_from_delay(0.030);
        }
        assert!(core.drop_prob > 0.0 || mode == BurstReset::Quiet, "{mode:?}");
        // the delay falls to 0 until the probability is 0
        let mut n = 0;
        while core.drop_prob > 0.0 || n < 2 {
            core.update_from_delay(0.0);
            n += 1;
            assert!(n < 100_000);
        }
        // now quiet: the RFC has given the allowance back at once, ns-3 has not
        match mode {
            BurstReset::Rfc => assert_eq!(core.burst_allowance, core.params.max_burst),
            BurstReset::Quiet => {
                assert_eq!(core.burst_allowance, Duration::ZERO);
                // (the update that ended the allowance counted as the first quiet one,
                // or the fall to 0 did: either way 1.5 s more of quiet updates)
                for _ in 0..quiet_limit + 1 {
                    let _ = core.drop_early(1 << 20, &mut rng);
                    assert_eq!(core.burst_allowance, Duration::ZERO, "given back too early");
                    core.update_from_delay(0.0);
                }
                let _ = core.drop_early(1 << 20, &mut rng);
                assert_eq!(core.burst_allowance, core.params.max_burst, "not given back");
            }
        }
    }
}

#[test]
fn rate_estimator_measures_the_departure_rate() {
    // 1500-byte packets leaving every 1.2 ms (10 Mb/s) with 60 waiting. A measurement
    // starts at a departure with DQ_THRESHOLD bytes waiting and ends at the departure
    // that brings the count to DQ_THRESHOLD: n = ceil(16384 / 1500) = 11 packets later,
    // so dq_time = 11 gaps, and every measurement gives the same; the estimate is
    // backlog * dq_time / DQ_THRESHOLD (Section 4.3), which exceeds backlog / rate by
    // the ratio 11 * 1500 / 16384 of the bytes counted to DQ_THRESHOLD.
    let mut q: Pie<PacketInfo> = Pie::new(params(DelayMode::RateEstimator), 1).unwrap();
    for _ in 0..60 {
        q.enqueue(Time::ZERO, PacketInfo::new(1500, 0), &mut |_, _| {});
    }
    let gap = 1_200_000u64;
    for k in 1..=200u64 {
        q.dequeue(Time(k * gap), &mut |_, _| {});
        q.enqueue(Time(k * gap), PacketInfo::new(1500, 0), &mut |_, _| {});
    }
    let n = 16384u64.div_ceil(1500) as f64;
    let dq_time = n * gap as f64 * 1e-9;
    let expected = q.backlog().bytes as f64 * dq_time / 16384.0;
    let got = q.core().current_qdelay(q.backlog().bytes);
    assert!((got - expected).abs() / expected < 1e-9, "{got} vs {expected}");
    let true_delay = q.backlog().bytes as f64 * gap as f64 * 1e-9 / 1500.0;
    assert!((got / true_delay - n * 1500.0 / 16384.0).abs() < 1e-9);
}

#[test]
fn timestamp_mode_takes_the_sojourn_time() {
    let mut q: Pie<PacketInfo> = Pie::new(params(DelayMode::Timestamp), 1).unwrap();
    for i in 0..5 {
        q.enqueue(Time(i * 1_000_000), PacketInfo::new(1000, 0), &mut |_, _| {});
    }
    q.dequeue(Time(30_000_000), &mut |_, _| {});
    assert!((q.core().qdelay - 0.030).abs() < 1e-12);
    let mut last = None;
    while let Some(d) = q.dequeue(Time(31_000_000), &mut |_, _| {}) {
        last = Some(d);
    }
    assert!(last.is_some());
    assert_eq!(q.core().qdelay, 0.0, "a departure that empties the queue reads 0");
}

#[test]
fn stats_account_for_every_arrival() {
    let mut pr = params(DelayMode::Timestamp);
    pr.limit = Limit { packets: Some(30), bytes: None };
    pr.max_burst = Duration::ZERO;
    let mut q: Pie<PacketInfo> = Pie::new(pr, 5).unwrap();
    for i in 0..20_000u64 {
        q.enqueue(Time(i * 500_000), PacketInfo::new(1000, (i % 3) as u32), &mut |_, _| {});
        if i % 2 == 0 {
            q.dequeue(Time(i * 500_000), &mut |_, _| {});
        }
    }
    let s = *q.stats();
    assert_eq!(s.arrivals, s.enqueued + s.drops());
    assert_eq!(s.enqueued, s.departures + q.backlog().packets as u64);
    assert!(s.early_drops > 0 && s.overflow_drops > 0, "{s:?}");
}

#[test]
fn invalid_parameters_name_the_field() {
    let mut pr = params(DelayMode::RateEstimator);
    pr.dq_threshold = 1 << 17;
    assert_eq!(PieCore::new(pr).unwrap_err().param(), Some("dq_threshold"));
    let mut pr = params(DelayMode::RateEstimator);
    pr.alpha = -1.0;
    assert_eq!(PieCore::new(pr).unwrap_err().param(), Some("alpha"));
    let mut pr = params(DelayMode::RateEstimator);
    pr.tupdate = Duration::ZERO;
    assert_eq!(PieCore::new(pr).unwrap_err().param(), Some("tupdate"));
}

#[test]
fn a_caller_that_never_polls_gets_the_same_answers() {
    let run = |poll: bool| {
        let mut q: Pie<PacketInfo> = Pie::new(params(DelayMode::RateEstimator), 4).unwrap();
        let mut out = Vec::new();
        for i in 0..30_000u64 {
            let now = Time(i * 600_000);
            if poll {
                while q.poll_at().unwrap() <= now {
                    let at = q.poll_at().unwrap();
                    q.poll(at);
                }
            }
            out.push(q.enqueue(now, PacketInfo::new(1500, (i % 4) as u32), &mut |_, _| {}));
            if i % 2 == 0 {
                q.dequeue(now, &mut |_, _| {});
            }
        }
        (out, q.core().drop_prob, *q.stats())
    };
    let (a, pa, sa) = run(true);
    let (b, pb, sb) = run(false);
    assert_eq!((pa, sa), (pb, sb));
    assert_eq!(a, b);
    assert!(sa.early_drops > 0, "{sa:?}");
}
