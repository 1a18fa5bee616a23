//! The retransmission timer (`rto_estimator`): RFC 6298's numbers and rules, ns-2
//! 2.35's fixed-point estimator and Linux's, each against values worked out by hand
//! from the RFC's text or the peer's source (tcp.cc, tcp_input.c).

use super::*;

/// A sender with a window of one packet, so that every ACK ends one timed segment:
/// the round trips `rtts` (seconds) one after another, from time 0. Returns the
/// connection and the time of the last ACK.
fn fed(p: TcpParams, rtts: &[f64]) -> ((TcpSender, TcpReceiver), Time) {
    let p = TcpParams { init_cwnd: 1.0, max_window: 1, ..p };
    let mut conn = connection(p, 0, 0, 1);
    let mut out = Vec::new();
    conn.0.start(Time::ZERO, &mut out, u32::MAX);
    let mut next = seqs(&mut out);
    let mut t = 0.0;
    for &r in rtts {
        t += r;
        next = deliver(&mut conn, &next, secs(t));
    }
    (conn, secs(t))
}

fn secs(s: f64) -> Time {
    Time((s * 1e9).round() as u64)
}

/// The timer's length from `now`.
fn timer(s: &TcpSender, now: Time) -> f64 {
    (s.rtx_deadline.expect("data outstanding") - now).as_secs_f64()
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// RFC 6298 (2.1) RTO 1 s before a sample, (2.4) rounded up to 1 s, (2.5) a maximum
/// of at least 60 s: the defaults, and a first packet's timer.
#[test]
fn rfc6298_defaults() {
    let p = TcpParams::default();
    assert_eq!(p.rules.rto_estimator, RtoEstimator::Rfc6298);
    assert_eq!((p.initial_rto, p.min_rto), (1.0, 1.0));
    assert!(p.max_rto >= 60.0);
    let (c, now) = fed(params(Variant::NewReno), &[]);
    assert!(near(timer(&c.0, now), 1.0));
}

/// RFC 6298 (2.2), (2.3): samples 0.10, 0.30, 0.05 s (whole ticks of G = 10 ms) give
/// SRTT 0.1, RTTVAR 0.05, RTO 0.1 + max(G, 0.2) = 0.3; then RTTVAR 3/4 0.05 + 1/4 0.2
/// = 0.0875, SRTT 7/8 0.1 + 1/8 0.3 = 0.125, RTO 0.475; then RTTVAR 0.084375, SRTT
/// 0.115625, RTO 0.453125 (with `min_rto` out of the way); (2.4) with the default
/// `min_rto` each is rounded up to 1 s.
#[test]
fn rfc6298_estimator() {
    let want = [(0.1, 0.05, 0.3), (0.125, 0.0875, 0.475), (0.115625, 0.084375, 0.453125)];
    let rtts = [0.10, 0.30, 0.05];
    for (i, &(srtt, rttvar, rto)) in want.iter().enumerate() {
        let p = TcpParams { min_rto: 0.001, ..params(Variant::NewReno) };
        let (c, now) = fed(p, &rtts[..=i]);
        let s = &c.0;
        assert!(
            near(s.srtt, srtt) && near(s.rttvar, rttvar),
            "sample {i}: {} {}",
            s.srtt,
            s.rttvar
        );
        assert!(near(s.rto, rto) && near(timer(s, now), rto), "sample {i}: rto {}", s.rto);
        let (c, now) = fed(params(Variant::NewReno), &rtts[..=i]);
        assert!(near(c.0.rto, 1.0) && near(timer(&c.0, now), 1.0), "sample {i}: rounded up to 1 s");
    }
}

/// RFC 6298 (2.3) with the clock granularity G: constant samples drive RTTVAR to 0
/// (RTTVAR = 0.05 (3/4)^(n-1) after n samples of 0.1 s), and RTO = SRTT + max(G, 4
/// RTTVAR) stops at SRTT + G = 0.11 s once 4 RTTVAR < G (n >= 12).
#[test]
fn rfc6298_clock_granularity() {
    let p = TcpParams { min_rto: 0.001, ..params(Variant::NewReno) };
    let (c, _) = fed(p, &[0.1; 20]);
    let rttvar = 0.05 * 0.75f64.powi(19);
    assert!(near(c.0.srtt, 0.1) && near(c.0.rttvar, rttvar), "{} {}", c.0.srtt, c.0.rttvar);
    assert!(near(c.0.rto, 0.1 + 0.01), "rto {}", c.0.rto);
}

/// RFC 6298 (5.5) each expiry doubles the RTO, (2.5) up to the maximum (60 s): 1, 2,
/// 4, 8, 16, 32, then 60, 60.
#[test]
fn rfc6298_backoff() {
    let (mut c, _) = fed(params(Variant::NewReno), &[]);
    let mut out = Vec::new();
    let mut now = 1.0;
    for want in [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0] {
        c.0.on_timeout(secs(now), &mut out, u32::MAX);
        assert_eq!(seqs(&mut out), vec![0], "the first packet again");
        assert!(near(timer(&c.0, secs(now)), want), "after {now} s: {}", timer(&c.0, secs(now)));
        now += want;
    }
}

/// Karn's algorithm (RFC 6298 Section 3 and (5.x)): the ACK of a retransmitted packet
/// gives no sample and the backed-off RTO stays; the next new packet's ACK gives one
/// and the RTO is computed from it again.
#[test]
fn karn() {
    let (mut c, _) = fed(params(Variant::NewReno), &[]);
    let mut out = Vec::new();
    c.0.on_timeout(secs(1.0), &mut out, u32::MAX); // packet 0 again, RTO 2 s
    assert_eq!(seqs(&mut out), vec![0]);
    let sent = deliver(&mut c, &[0], secs(1.1));
    assert_eq!(sent, vec![1]);
    assert_eq!(c.0.srtt, 0.0, "no sample from a retransmitted packet");
    assert!(near(timer(&c.0, secs(1.1)), 2.0), "the backed-off RTO kept");
    deliver(&mut c, &[1], secs(1.2));
    assert!(near(c.0.srtt, 0.1), "packet 1's round trip");
    assert!(near(timer(&c.0, secs(1.2)), 1.0), "max(1 s, 0.1 + 0.2): the backoff ended");
}

/// ns-2 2.35's `rtt_update` (tcp.cc), in ticks: `int((tao + fmod(sendtime, tick)) /
/// tick)`, at least 1; then, in its fixed point (8 srtt, 4 rttvar), samples of 10, 30
/// and 5 ticks give t_srtt 80 / 100 / 93, t_rttvar 20 / 35 / 34 and `t_rtxcur_` =
/// ((t_rttvar << 3) + t_srtt) >> 3 = 30 / 47 / 45 ticks (RFC 6298's arithmetic would
/// give 30 / 47.5 / 45.3).
#[test]
fn ns2_rtt_update() {
    assert_eq!(Ns2Rtt::ticks(0.105, 0.0, 0.01), 10);
    assert_eq!(Ns2Rtt::ticks(0.105, 1.006, 0.01), 11, "the send time's phase: 0.006");
    assert_eq!(Ns2Rtt::ticks(0.001, 2.0, 0.01), 1, "at least one tick");
    let mut e = Ns2Rtt::default();
    let mut got = Vec::new();
    for t in [10, 30, 5] {
        got.push((e.update(t), e.t_srtt, e.t_rttvar));
    }
    assert_eq!(got, vec![(30, 80, 20), (47, 100, 35), (45, 93, 34)]);
    e.clobber(); // rtt_backoff past 8: t_rttvar += t_srtt >> 3, t_srtt = 0
    assert_eq!((e.t_srtt, e.t_rttvar), (0, 34 + 11));
    assert_eq!(e.update(20), 20 + 4 * 10, "the next sample starts afresh: rttvar = 20 / 2");
}

fn ns2() -> TcpParams {
    let p = TcpParams { min_rto: 0.2, initial_rto: 3.0, ..params(Variant::NewReno) };
    ruled(p, |r| r.rto_estimator = RtoEstimator::Ns2)
}

/// ns-2's timer (`rtt_timeout`, `rtt_backoff`): 3 s before a sample (`rtxcur_init_`);
/// after round trips of 0.3 s (30 ticks whatever the phase of the send times: 0.3 /
/// 0.01 + phase < 31) `t_rtxcur_` is 30 + 4 x 15 = 90 ticks; each timeout doubles
/// while the backoff is below 64 or the timer below `maxrto_` (60 s), so 0.9 x 2^k up
/// to 57.6 s (backoff 64), then 60 s (backoff 128), where it stays. Past a backoff of
/// 8 srtt (30 ticks) went into t_rttvar (60 + 30 = 90: rttvar 22.5 ticks as ns-2
/// traces it) and is forgotten.
#[test]
fn ns2_timer() {
    let (c, now) = fed(ns2(), &[]);
    assert!(near(timer(&c.0, now), 3.0));
    let (mut c, now) = fed(ns2(), &[0.3]);
    assert!(near(c.0.rto, 0.9), "rto {}", c.0.rto);
    assert!(near(timer(&c.0, now), 0.9));
    let mut out = Vec::new();
    let mut t = now.as_secs_f64() + 0.9;
    let mut seen = Vec::new();
    for _ in 0..9 {
        c.0.on_timeout(secs(t), &mut out, u32::MAX);
        let left = timer(&c.0, secs(t));
        seen.push((c.0.backoff, (left * 1e6).round() / 1e6));
        t += left;
    }
    let want = [2, 4, 8, 16, 32, 64, 128, 128, 128].map(|b| (b, (0.9 * b as f64).min(60.0)));
    assert_eq!(seen, want.to_vec());
    assert!(near(c.0.srtt, 0.0) && near(c.0.rttvar, 0.225), "{} {}", c.0.srtt, c.0.rttvar);
}

/// ns-2's smallest timers: a round trip under a tick counts as one (t_srtt 8, t_rttvar
/// 2, `t_rtxcur_` (16 + 8) >> 3 = 3 ticks); and `rtt_timeout` never runs a timer
/// shorter than two ticks.
#[test]
fn ns2_two_ticks() {
    let p = TcpParams { min_rto: 0.001, ..ns2() };
    let (c, now) = fed(p, &[0.0001]);
    assert!(near(c.0.rto, 0.03) && near(timer(&c.0, now), 0.03), "rto {}", c.0.rto);
    let p = TcpParams { min_rto: 0.001, tick: 0.1, ..ns2() };
    let mut s = connection(p, 0, 0, 1).0;
    s.rto = 0.05;
    s.set_rto_span();
    let mut out = Vec::new();
    s.start(Time::ZERO, &mut out, u32::MAX);
    assert!(near(timer(&s, Time::ZERO), 0.2), "two ticks of 100 ms");
}

/// Linux's `tcp_rtt_estimator` (tcp_input.c), microseconds, `tcp_rto_min` 200 ms,
/// worked by hand: 100 000 gives srtt 8 x 100 000, mdev 200 000, rttvar 200 000, RTO
/// 300 000; 50 000 in the same round trip: m = -50 000, m = 50 000 - 50 000 = 0, mdev
/// stays, RTO 93 750 + 200 000; 300 000 in the next: m = 206 250, m - 50 000 = 156 250,
/// mdev 356 250 = mdev_max = rttvar, srtt 956 250 / 8, RTO 119 531 + 356 250; 100 000
/// in the next: m = -19 531, m = 19 531 - 89 062 < 0 kept, mdev 286 719, rttvar moves
/// down by (356 250 - 286 719) >> 2 = 17 382 to 338 868, RTO 117 089 + 338 868.
#[test]
fn linux_rtt_estimator() {
    let mut e = LinuxRtt::default();
    let rto_min = 200_000;
    assert_eq!(e.update(100_000, 1, 5, rto_min), 300_000);
    assert_eq!(e.update(50_000, 2, 6, rto_min), 93_750 + 200_000);
    assert_eq!(e.update(300_000, 6, 9, rto_min), 119_531 + 356_250);
    assert_eq!((e.mdev, e.mdev_max, e.rtt_seq), (356_250, rto_min, 9));
    assert_eq!(e.update(100_000, 10, 12, rto_min), 117_089 + 338_868);
}

/// Linux's RTO in jiffies (`usecs_to_jiffies` rounds up), at 250 Hz: 293 750 us is
/// 74 jiffies, 0.296 s; before a sample `TCP_TIMEOUT_INIT`, 1 s.
#[test]
fn linux_jiffies() {
    let p = TcpParams { min_rto: 0.2, tick: 0.004, ..params(Variant::NewReno) };
    let p = ruled(p, |r| {
        r.rto_estimator = RtoEstimator::Linux;
        r.rtt_sampling = RttSampling::Ack;
    });
    let (c, now) = fed(p.clone(), &[]);
    assert!(near(timer(&c.0, now), 1.0));
    let (c, now) = fed(p, &[0.1, 0.05]);
    assert!(near(c.0.rto, 0.296) && near(timer(&c.0, now), 0.296), "rto {}", c.0.rto);
}
