//! Adaptive RED (Floyd, Gummadi & Shenker 2001) and Feng et al.'s original Adaptive RED.

use crate::common::*;
use aqm::config::{BuildContext, QueueConfig};
use aqm::{
    AdaptRule, AdaptiveRed, AnyAqm, AredAdaptation, Duration, FengAdaptation, FengAdaptiveRed,
    QueueDiscipline, Time, Verdict,
};

fn ared(initial_max_p: f64) -> AdaptiveRed {
    let mut p = params(20.0, 80.0, initial_max_p);
    p.gentle = true;
    AdaptiveRed::new(p, AredAdaptation::default(), 1).unwrap()
}

/// Hold the queue (and, with w_q = 1, avg) at `q` and let `secs` of adaptation happen.
fn hold(a: &mut AdaptiveRed, q: u32, from: f64, secs: f64) -> f64 {
    let mut t = from;
    while t < from + secs {
        a.on_arrival(Time::from_secs_f64(t), &pkt(1000), backlog(q));
        t += 0.01;
    }
    t
}

// Fig. 10: above the target band max_p grows by alpha = min(0.01, max_p/4) per interval; below it shrinks by beta = 0.9.
#[test]
fn aimd_rule_of_fig10() {
    // target band: [20 + 0.4*60, 20 + 0.6*60] = [44, 56]
    let mut a = ared(0.1);
    assert_eq!(a.target(), (44.0, 56.0));
    a.on_arrival(Time::from_secs_f64(0.01), &pkt(1000), backlog(70));
    let mut expect = 0.1;
    for k in 1..=5 {
        a.poll(Time::from_secs_f64(0.5 * k as f64));
        expect += (expect / 4.0f64).min(0.01);
        assert!((a.core.max_p - expect).abs() < 1e-12, "step {k}: {} vs {expect}", a.core.max_p);
    }
    // now below the band
    a.on_arrival(Time::from_secs_f64(2.6), &pkt(1000), backlog(30));
    for k in 6..=10 {
        a.poll(Time::from_secs_f64(0.5 * k as f64));
        expect *= 0.9;
        assert!((a.core.max_p - expect).abs() < 1e-12);
    }
    // inside the band: no change
    a.on_arrival(Time::from_secs_f64(5.1), &pkt(1000), backlog(50));
    let before = a.core.max_p;
    a.poll(Time::from_secs_f64(6.0));
    assert_eq!(a.core.max_p, before);
}

// max_p stays within [0.01, 0.5] however long the congestion lasts.
#[test]
fn max_p_stays_in_bounds() {
    let mut a = ared(0.1);
    let t = hold(&mut a, 200, 0.0, 100.0);
    assert_eq!(a.core.max_p, 0.5);
    hold(&mut a, 0, t, 100.0);
    hold(&mut a, 1, t + 100.0, 100.0);
    assert_eq!(a.core.max_p, 0.01);
}

// It takes at least 0.49/alpha (alpha <= 0.01) = 49 intervals for max_p to rise from 0.01 to 0.5 (Section 4.2).
#[test]
fn rise_takes_at_least_049_over_alpha_intervals() {
    let mut a = ared(0.01);
    a.on_arrival(Time::from_secs_f64(0.001), &pkt(1000), backlog(100));
    let mut intervals = 0;
    while a.core.max_p < 0.5 {
        intervals += 1;
        a.poll(Time::from_secs_f64(0.5 * intervals as f64));
        assert!(intervals < 10_000);
    }
    assert!(intervals as f64 >= 0.49 / 0.01, "{intervals} intervals");
    // and the fall takes at least log(0.02)/log(0.9) = 37.1 intervals
    a.on_arrival(Time::from_secs_f64(0.5 * intervals as f64 + 0.001), &pkt(1000), backlog(0));
    a.on_arrival(Time::from_secs_f64(0.5 * intervals as f64 + 0.002), &pkt(1000), backlog(1));
    let start = intervals;
    while a.core.max_p > 0.01 {
        intervals += 1;
        a.poll(Time::from_secs_f64(0.5 * intervals as f64));
    }
    assert!((intervals - start) as f64 >= (0.02f64).ln() / (0.9f64).ln());
}

// Catching up at an arrival gives the same max_p as polling at every interval.
#[test]
fn arrivals_catch_up_like_polling() {
    let mut polled = ared(0.1);
    let mut lazy = ared(0.1);
    polled.on_arrival(Time::from_secs_f64(0.1), &pkt(1000), backlog(70));
    lazy.on_arrival(Time::from_secs_f64(0.1), &pkt(1000), backlog(70));
    for k in 1..=7 {
        polled.poll(Time::from_secs_f64(0.5 * k as f64));
    }
    lazy.on_arrival(Time::from_secs_f64(3.6), &pkt(1000), backlog(70));
    polled.on_arrival(Time::from_secs_f64(3.6), &pkt(1000), backlog(70));
    assert_eq!(polled.core.max_p, lazy.core.max_p);
    assert_eq!(lazy.poll_at(), Time::from_secs_f64(4.0));
}

// The gentle ramp starts from the current max_p, so the drop curve stays continuous at max_th after max_p moves.
#[test]
fn gentle_curve_continuous_after_adaptation() {
    let mut a = ared(0.1);
    hold(&mut a, 70, 0.0, 5.0);
    let mp = a.core.max_p;
    assert!(mp > 0.1);
    a.core.avg = 80.0 - 1e-9;
    let below = a.core.p_b(1000);
    a.core.avg = 80.0;
    let at = a.core.p_b(1000);
    assert!((below - mp).abs() < 1e-6 && (at - mp).abs() < 1e-12, "{below} {at} {mp}");
}

// Automatic parameters: w_q = 1 - exp(-1/C), min_th = max(5, delay_target C / 2), max_th = 3 min_th.
#[test]
fn automatic_parameters_from_link_rate() {
    for &rate in &[1.5e6, 10e6, 100e6, 1e9] {
        let cfg: QueueConfig = serde_json_like(rate);
        let q = cfg.build(&BuildContext::default()).unwrap();
        let AnyAqm::AdaptiveRed(a) = q else { panic!() };
        let c = rate / (8.0 * 500.0);
        assert!((a.core.params.w_q - (1.0 - (-1.0 / c).exp())).abs() < 1e-15);
        let min_th = (0.005 * c / 2.0).max(5.0);
        assert!((a.core.params.min_th - min_th).abs() < 1e-9);
        assert!((a.core.params.max_th - 3.0 * min_th).abs() < 1e-9);
    }
    // 10 Mb/s: the formula gives 6.25 packets (the paper's text says 12.5 = delay_target * C, without the /2).
    assert_eq!(aqm::ared::auto_min_th(10e6, 500, 0.005), 6.25);
}

fn serde_json_like(rate: f64) -> QueueConfig {
    QueueConfig::AdaptiveRed(aqm::config::AredConfig {
        min_th: None,
        max_th: None,
        w_q: None,
        red: aqm::config::RedFields {
            max_p: 0.1,
            limit: Some(1000),
            limit_bytes: None,
            gentle: true,
            ecn: false,
            byte_mode: false,
            queue_in_bytes: false,
            mark_method: aqm::MarkMethod::Uniform,
            count_mode: aqm::CountMode::Text,
            efficient: false,
            drop_front: false,
            min_backlog: 0,
            idle_rule: aqm::IdleRule::Figure2,
            mean_pkt_size: 500,
            max_pkt_size: 1500,
            link_rate_bps: Some(rate.into()),
            idle_pkt_time: None,
            seed: None,
        },
        interval: 0.5.into(),
        target_delay: 0.005.into(),
        alpha: None,
        beta: 0.9,
        max_p_min: 0.01,
        max_p_max: 0.5,
        adapt_rule: aqm::AdaptRule::Figure10,
    })
}

// Invalid adaptation parameters are named.
#[test]
fn invalid_adaptation_named() {
    let p = params(20.0, 80.0, 0.1);
    let bad = AredAdaptation { beta: 1.2, ..Default::default() };
    assert_eq!(AdaptiveRed::new(p.clone(), bad, 1).unwrap_err().param(), Some("beta"));
    let bad = AredAdaptation { interval: Duration(0), ..Default::default() };
    assert_eq!(AdaptiveRed::new(p.clone(), bad, 1).unwrap_err().param(), Some("interval"));
    let mut p2 = p.clone();
    p2.max_p = 0.9;
    assert_eq!(
        AdaptiveRed::new(p2, AredAdaptation::default(), 1).unwrap_err().param(),
        Some("max_p")
    );
}

// Feng et al.: max_p / 3 when avg goes below min_th, x 2 when it goes above max_th, once per crossing.
#[test]
fn feng_multiplicative_on_crossings() {
    let mut f =
        FengAdaptiveRed::new(params(20.0, 80.0, 0.1), FengAdaptation::default(), 1).unwrap();
    f.on_arrival(Time(1), &pkt(1000), backlog(10));
    assert!((f.core.max_p - 0.1 / 3.0).abs() < 1e-12);
    f.on_arrival(Time(2), &pkt(1000), backlog(10));
    assert!((f.core.max_p - 0.1 / 3.0).abs() < 1e-12, "no second decrease while still below");
    f.on_arrival(Time(3), &pkt(1000), backlog(90));
    assert!((f.core.max_p - 0.2 / 3.0).abs() < 1e-12);
    let v = f.on_arrival(Time(4), &pkt(1000), backlog(90));
    assert!((f.core.max_p - 0.2 / 3.0).abs() < 1e-12);
    assert_eq!(v, Verdict::Drop(aqm::DropReason::Forced));
    f.on_arrival(Time(5), &pkt(1000), backlog(50));
    f.on_arrival(Time(6), &pkt(1000), backlog(90));
    assert!((f.core.max_p - 0.4 / 3.0).abs() < 1e-12);
}

/// Catching up on adaptation boundaries ends at any time, even the clock's end, with an
/// alpha so small or a beta so near 1 that every one of ~10^19 boundaries changes max_p.
#[test]
fn catching_up_ends_at_any_time_with_any_alpha_and_beta() {
    for (alpha, beta, q) in [(Some(1e-15), 0.9, 1000u32), (None, 1.0 - 1e-15, 0)] {
        let mut p = params(20.0, 80.0, 0.1);
        p.gentle = true;
        p.w_q = 1.0;
        let adaptation =
            AredAdaptation { alpha, beta, interval: Duration(1), ..Default::default() };
        let mut a = AdaptiveRed::new(p, adaptation, 1).unwrap();
        a.on_arrival(Time(0), &pkt(1000), backlog(q));
        let p0 = a.core.max_p;
        let t0 = std::time::Instant::now();
        a.on_arrival(Time(u64::MAX / 2), &pkt(1000), backlog(q));
        a.poll(Time::MAX);
        assert!(t0.elapsed().as_secs_f64() < 10.0);
        assert!(if q > 0 { a.core.max_p > p0 } else { a.core.max_p < p0 }, "{}", a.core.max_p);
        assert_eq!(a.poll_at(), Time::MAX);
    }
}

/// `adapt_rule = "ns2"`, ns-2 2.35's `red.cc`: `estimator()` calls `updateMaxP` at an
/// arrival once `now > lastset + interval_`, `lastset` moving only with max_p; neither step
/// is clamped; the gentle ramp keeps the initial max_p's `v_c`, `v_d`. The expected max_p
/// is red.cc's arithmetic replayed on the same arrivals.
#[test]
fn ns2_adapt_rule() {
    let ns2 = |max_p: f64| {
        let mut p = params(20.0, 80.0, max_p);
        p.gentle = true;
        let rule = AredAdaptation { rule: AdaptRule::Ns2, ..Default::default() };
        AdaptiveRed::new(p, rule, 1).unwrap()
    };
    // updateMaxP with th_min 20, th_max 80, bottom_ 0.01, top_ 0.5, alpha_ 0.01, beta_ 0.9
    let update_max_p = |cur: f64, ave: f64| -> f64 {
        let part = 0.4 * (80.0 - 20.0);
        if ave < 20.0 + part && cur > 0.01 {
            cur * 0.9
        } else if ave > 80.0 - part && 0.5 > cur {
            cur + if 0.01 > 0.25 * cur { 0.25 * cur } else { 0.01 }
        } else {
            cur
        }
    };
    // An arrival every 7 ms seeing (w_q 1: avg =) 70 packets until 3 s, 50 (inside the
    // band) until 6 s, 70 until 8 s, then 30.
    let queue = |ms: u64| match ms {
        0..3_000 => 70,
        3_000..6_000 => 50,
        6_000..8_000 => 70,
        _ => 30,
    };
    let mut a = ns2(0.1);
    let (mut cur, mut lastset, mut steps) = (0.1, 0u64, vec![]);
    let mut t = 0u64;
    while t < 40_000_000_000 {
        let q = queue(t / 1_000_000);
        a.on_arrival(Time(t), &pkt(1000), backlog(q));
        if t > lastset + 500_000_000 {
            let new = update_max_p(cur, q as f64);
            if new != cur {
                (cur, lastset) = (new, t);
                steps.push(t);
            }
        }
        assert_eq!(a.core.max_p, cur, "at {t} ns");
        t += 7_000_000;
    }
    // The first step is the first arrival after 0.5 s (0.504 s); after the band the first
    // arrival outside it steps at once (6.006 s; Fig. 10 waits for the boundary at 6.5 s).
    assert_eq!(steps[0], 72 * 7_000_000);
    assert!(steps.contains(&(858 * 7_000_000)), "{steps:?}");
    // Below the band max_p falls past bottom_ (Fig. 10 stops at 0.01).
    assert!(cur < 0.01 && cur > 0.009, "{cur}");
    // The gentle ramp of the initial max_p: p = v_c ave + v_d.
    a.core.avg = 90.0;
    let (v_c, v_d) = ((1.0 - 0.1) / 80.0, 2.0 * 0.1 - 1.0);
    assert!((a.core.p_b(1000) - (v_c * 90.0 + v_d)).abs() < 1e-12);
    // No timer: only arrivals move max_p.
    assert_eq!(QueueDiscipline::poll_at(&a), None);
    // Above the band max_p passes top_ by one alpha, then stays.
    let mut a = ns2(0.495);
    a.on_arrival(Time::from_secs_f64(0.6), &pkt(1000), backlog(70));
    assert_eq!(a.core.max_p, 0.495 + 0.01);
    a.on_arrival(Time::from_secs_f64(1.2), &pkt(1000), backlog(70));
    assert_eq!(a.core.max_p, 0.495 + 0.01);
}
