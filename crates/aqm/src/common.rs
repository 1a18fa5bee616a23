//! Small pieces shared by the RED family: the buffer limit, the EWMA with idle-time
//! aging, the linear drop ramp, and the ways of turning p_b into a mark decision.

use crate::config::fields::param_enum;
use crate::error::{AqmError, Result, check};
use crate::packet::{Backlog, PacketInfo};
use crate::time::Time;
use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// The seeded generator every random algorithm owns (one stream per queue).
pub type AqmRng = Pcg64Mcg;

pub fn rng_from_seed(seed: u64) -> AqmRng {
    use rand::SeedableRng;
    AqmRng::seed_from_u64(seed)
}

/// The physical buffer: at most `packets` waiting packets and at most `bytes`
/// waiting bytes (either may be absent, not both). Always enforced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limit {
    /// Packets, or `None` for no packet limit.
    pub packets: Option<u32>,
    /// Bytes, or `None` for no byte limit.
    pub bytes: Option<u64>,
}

impl Limit {
    pub fn new(packets: Option<u64>, bytes: Option<u64>) -> Result<Limit> {
        if packets.is_none() && bytes.is_none() {
            return Err(AqmError::invalid(
                "limit",
                "none",
                "a buffer size: limit (packets) >= 1 or limit_bytes >= 1",
            ));
        }
        let packets = match packets {
            Some(p) => {
                check::positive_int("limit", p)?;
                if p > u32::MAX as u64 {
                    return Err(AqmError::invalid("limit", p, format!("<= {}", u32::MAX)));
                }
                Some(p as u32)
            }
            None => None,
        };
        if let Some(b) = bytes {
            check::positive_int("limit_bytes", b)?;
        }
        Ok(Limit { packets, bytes })
    }

    /// Would accepting `pkt` on top of `backlog` exceed the buffer?
    #[inline]
    pub fn overflows(&self, backlog: Backlog, pkt: &PacketInfo) -> bool {
        self.packets.is_some_and(|p| backlog.packets >= p)
            || self.bytes.is_some_and(|b| backlog.bytes + pkt.size as u64 > b)
    }
}

/// EWMA of the queue size, eq. (1) of Floyd & Jacobson: `avg <- (1 - w_q) avg + w_q q`.
#[inline]
pub fn ewma(avg: f64, q: f64, w_q: f64) -> f64 {
    avg + w_q * (q - avg)
}

/// Idle-time aging (Floyd & Jacobson Fig. 2 and Section XI): after an idle period,
/// `avg <- (1 - w_q)^m avg` with `m = idle / s`, the number of small packets of
/// transmission time `s` the line could have sent while idle. `m` is kept real
/// (the paper's formula); ns-2 truncates it to an integer.
#[inline]
pub fn idle_decay(avg: f64, w_q: f64, idle_secs: f64, s_secs: f64) -> f64 {
    if avg == 0.0 || idle_secs <= 0.0 {
        return avg;
    }
    let m = idle_secs / s_secs;
    avg * (1.0 - w_q).powf(m)
}

/// When the queue went idle (q_time of Fig. 2); `None` while it holds packets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IdleSince(pub Option<Time>);

/// When RED's idle period starts and how an arrival to the empty queue ages the
/// average (Fig. 2's `q_time` and Section XI's `m`). Written `"figure2"` or `"ns2"` in a
/// configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleRule {
    /// Fig. 2: idle from the moment the queue becomes empty (its last packet goes to the
    /// link); an arrival to the empty queue sets `avg <- (1 - w_q)^m avg` with
    /// `m = idle / s`, real-valued.
    Figure2,
    /// ns-2 2.35's `red.cc`: idle only once the link has sent the last packet
    /// (`Queue::resume` calls `deque()` on the empty queue, which sets `idletime_`); an
    /// arrival then runs `estimator(q, m + 1, ...)`: `m = int(ptc * idle)` steps of
    /// `(1 - w_q)` and one EWMA step with the queue it finds (empty). An arrival to an
    /// empty queue while the last packet is still on the wire takes the EWMA step alone.
    Ns2,
}

param_enum!(IdleRule);

/// The linear ramp of Section IV: `p_b = max_p (avg - min_th) / (max_th - min_th)`.
#[inline]
pub fn ramp(avg: f64, min_th: f64, max_th: f64, max_p: f64) -> f64 {
    max_p * (avg - min_th) / (max_th - min_th)
}

/// The gentle ramp (Floyd 2000, ARED paper Section 4.1): from `max_p` at `max_th`
/// to 1 at `2 max_th`. Uses the *current* `max_p`, so the drop curve stays
/// continuous at `max_th` when an adaptive variant moves `max_p` (ns-2 and ns-3 fix
/// the slope from the initial `max_p`, which makes the curve jump).
#[inline]
pub fn gentle_ramp(avg: f64, max_th: f64, max_p: f64) -> f64 {
    max_p + (1.0 - max_p) * (avg - max_th) / max_th
}

/// How p_b becomes the per-packet marking probability p_a (Section VII). Written
/// `"uniform"`, `"geometric"` or `"ns2_wait"` in a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkMethod {
    /// Method 2: `p_a = p_b / (1 - count p_b)`; inter-mark gaps uniform.
    Uniform,
    /// Method 1: `p_a = p_b`; inter-mark gaps geometric.
    Geometric,
    /// ns-2's `wait_` option: no mark before `1/p_b` arrivals, then
    /// `p_a = p_b / (2 - count p_b)`: gaps uniform on [1/p_b, 2/p_b].
    Ns2Wait,
}

param_enum!(MarkMethod);

impl MarkMethod {
    /// p_a from p_b and `count` (unmarked arrivals counted as the chosen count
    /// convention says). Always in [0, 1]: `p_b / (1 - count p_b)` is clamped to 1
    /// once `count p_b >= 1` (INET never clamps and goes negative there).
    #[inline]
    pub fn p_a(self, p_b: f64, count: i64) -> f64 {
        let cp = count as f64 * p_b;
        let p = match self {
            MarkMethod::Geometric => p_b,
            MarkMethod::Uniform => {
                if cp < 1.0 {
                    p_b / (1.0 - cp)
                } else {
                    1.0
                }
            }
            MarkMethod::Ns2Wait => {
                if cp < 1.0 {
                    0.0
                } else if cp < 2.0 {
                    p_b / (2.0 - cp)
                } else {
                    1.0
                }
            }
        };
        p.clamp(0.0, 1.0)
    }
}

/// Draw a uniform number in [0, 1).
#[inline]
pub fn uniform01(rng: &mut AqmRng) -> f64 {
    rng.random::<f64>()
}
