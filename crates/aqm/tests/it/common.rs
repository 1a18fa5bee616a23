//! Helpers shared by the integration tests.
#![allow(dead_code)]

use aqm::common::Limit;
use aqm::{Backlog, CountMode, IdleRule, MarkMethod, PacketInfo, Red, RedParams, Time, Verdict};
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// RED parameters with a big buffer, w_q = 1 (avg = the queue an arrival sees).
pub fn params(min_th: f64, max_th: f64, max_p: f64) -> RedParams {
    RedParams {
        min_th,
        max_th,
        w_q: 1.0,
        max_p,
        limit: Limit { packets: Some(1_000_000), bytes: None },
        gentle: false,
        ecn: false,
        byte_mode: false,
        queue_in_bytes: false,
        mark_method: MarkMethod::Uniform,
        count_mode: CountMode::Text,
        efficient: false,
        drop_front: false,
        min_backlog: 0,
        idle_rule: IdleRule::Figure2,
        idle_pkt_time: 0.0004,
        max_pkt_size: 1500,
        mean_pkt_size: 500,
    }
}

pub fn pkt(size: u32) -> PacketInfo {
    PacketInfo { size, flow: 0, ecn_capable: false, ect1: false, ce: false }
}

pub fn backlog(packets: u32) -> Backlog {
    Backlog { packets, bytes: packets as u64 * 1000 }
}

/// Gaps (in arrivals) between successive early marks/drops at a constant queue `q`.
pub fn gaps(red: &mut Red, q: u32, n_marks: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(n_marks);
    let mut since = 0u64;
    let mut t = 0u64;
    // The first gap starts from the first arrival in the ramp, not from a mark: skip it.
    let mut first = true;
    while out.len() < n_marks {
        t += 1;
        since += 1;
        let v = red.on_arrival(Time(t * 1000), &pkt(1000), backlog(q));
        if matches!(v, Verdict::Drop(_) | Verdict::Mark) {
            if !first {
                out.push(since);
            }
            first = false;
            since = 0;
        }
    }
    out
}

/// Pearson chi-square p-value of `counts` against `expected` (same length).
pub fn chi_square_p(counts: &[f64], expected: &[f64]) -> f64 {
    assert_eq!(counts.len(), expected.len());
    let stat: f64 = counts.iter().zip(expected).map(|(o, e)| (o - e).powi(2) / e).sum();
    let dof = (counts.len() - 1) as f64;
    1.0 - ChiSquared::new(dof).unwrap().cdf(stat)
}

pub fn mean(xs: &[u64]) -> f64 {
    xs.iter().sum::<u64>() as f64 / xs.len() as f64
}

/// Floyd & Jacobson eq. (2): avg after the queue grows from 0 to L over L arrivals.
pub fn eq2(w_q: f64, l: u32) -> f64 {
    let l = l as f64;
    l + 1.0 + ((1.0 - w_q).powf(l + 1.0) - 1.0) / w_q
}
