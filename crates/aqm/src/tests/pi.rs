//! PI's behaviour derived from Hollot et al. 2001.

use super::*;

fn params(a: f64, b: f64, f: f64, q_ref: f64) -> PiParams {
    PiParams {
        a,
        b,
        sample_freq: f,
        q_ref,
        limit: Limit { packets: Some(800), bytes: None },
        ecn: false,
    }
}

/// The design rule of Section V, written out for the test: the controller zero cancels
/// the TCP pole, `z = 2N/(R^2 C)`, the loop crosses over there,
/// `K = w_g |j w_g R + 1| (2N)^2 / (R C)^3` with `w_g = z`, and the bilinear transform
/// at `T = 1/f` gives `a = K/z + K T/2`, `b = K/z - K T/2`.
fn design(n: f64, c: f64, r: f64, f: f64) -> (f64, f64) {
    let z = 2.0 * n / (r * r * c);
    let k = z * (1.0 + (z * r).powi(2)).sqrt() * (2.0 * n).powi(2) / (r * c).powi(3);
    let t = 1.0 / f;
    (k / z + k * t / 2.0, k / z - k * t / 2.0)
}

#[test]
fn difference_equation_is_the_papers() {
    let mut pi = Pi::new(params(2e-5, 1.5e-5, 100.0, 50.0), 1).unwrap();
    let qs = [0.0, 80.0, 120.0, 120.0, 60.0, 50.0, 10.0];
    let (mut p, mut q_old) = (0.0f64, 0.0f64);
    for q in qs {
        pi.sample(q);
        p = (p + 2e-5 * (q - 50.0) - 1.5e-5 * (q_old - 50.0)).clamp(0.0, 1.0);
        q_old = q;
        assert_eq!(pi.p, p);
    }
}

#[test]
fn samples_are_taken_at_multiples_of_t_from_the_queue_held_between_events() {
    // 10 Hz; 30 packets arrive at once at 0.05 s, then nothing: samples at 0.1, 0.2,
    // 0.3 s all see q = 30.
    let mut pi = Pi::new(params(1e-3, 5e-4, 10.0, 10.0), 1).unwrap();
    for i in 0..30 {
        pi.on_arrival(
            Time(50_000_000),
            &PacketInfo::new(1000, 0),
            Backlog { packets: i, bytes: 0 },
        );
    }
    pi.poll(Time(300_000_000));
    let mut p = 0.0f64;
    let mut q_old = 0.0;
    for _ in 0..3 {
        p = (p + 1e-3 * (30.0 - 10.0) - 5e-4 * (q_old - 10.0)).clamp(0.0, 1.0);
        q_old = 30.0;
    }
    assert!((pi.p - p).abs() < 1e-15, "{} vs {p}", pi.p);
    assert_eq!(pi.poll_at(), Time(400_000_000));
}

/// The fluid model of TCP behind the paper (Misra, Gong & Towsley 2000):
/// `W' = 1/R - W(t) W(t-R) p(t-R) / (2R)`, `q' = N W / R - C`, `R = q/C + Tp`, with the
/// PI controller sampling q at 1/T and closing the loop. Returns q over time (every ms).
fn closed_loop(n: f64, c: f64, tp: f64, pi: &mut Pi, secs: f64) -> Vec<f64> {
    let dt = 1e-3;
    let steps = (secs / dt) as usize;
    let every = (1.0 / pi.params.sample_freq / dt).round() as usize;
    let (mut w, mut q) = (1.0f64, 0.0f64);
    let mut hist_w = vec![w; steps];
    let mut hist_p = vec![0.0; steps];
    let mut out = Vec::with_capacity(steps);
    for k in 0..steps {
        if k % every == 0 {
            pi.sample(q);
        }
        let r = q / c + tp;
        let lag = (r / dt).round() as usize;
        let (w_d, p_d) = if k >= lag { (hist_w[k - lag], hist_p[k - lag]) } else { (1.0, 0.0) };
        let dw = 1.0 / r - w * w_d * p_d / (2.0 * r);
        let dq = n * w / r - c;
        w = (w + dw * dt).max(1.0);
        q = (q + dq * dt).max(0.0);
        hist_w[k] = w;
        hist_p[k] = pi.p;
        out.push(q);
    }
    out
}

#[test]
fn step_response_with_design_rule_gains_settles_to_q_ref() {
    // The paper's example network: N = 60 flows, C = 3750 packets/s, R+ = 0.246 s,
    // sampled at 160 Hz, q_ref = 200 packets (propagation 0.246 s less q_ref / C).
    let (n, c, r, f, q_ref) = (60.0, 3750.0, 0.246, 160.0, 200.0);
    let (a, b) = design(n, c, r, f);
    let mut pi = Pi::new(params(a, b, f, q_ref), 1).unwrap();
    let q = closed_loop(n, c, r - q_ref / c, &mut pi, 120.0);
    let tail = &q[q.len() - 20_000..];
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    let (lo, hi) = tail.iter().fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
    assert!((mean - q_ref).abs() < 0.01 * q_ref, "mean queue {mean}");
    assert!(hi - lo < 0.02 * q_ref, "still oscillating: [{lo}, {hi}]");
    // The equilibrium probability of the model: p0 = 2 N^2 / (R C)^2.
    let p0 = 2.0 * n * n / (r * c).powi(2);
    assert!((pi.p - p0).abs() < 0.02 * p0, "p {} vs {p0}", pi.p);
}

#[test]
fn invalid_parameters_name_the_field() {
    assert_eq!(Pi::new(params(0.0, 1e-5, 160.0, 10.0), 1).unwrap_err().param(), Some("a"));
    assert_eq!(Pi::new(params(1e-5, -1.0, 160.0, 10.0), 1).unwrap_err().param(), Some("b"));
    assert_eq!(Pi::new(params(1e-5, 1e-5, 0.0, 10.0), 1).unwrap_err().param(), Some("sample_freq"));
    assert_eq!(Pi::new(params(1e-5, 1e-5, 1.0, -1.0), 1).unwrap_err().param(), Some("q_ref"));
}
