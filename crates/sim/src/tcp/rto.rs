//! How the retransmission timeout follows from the RTT samples (`rto_estimator`): RFC
//! 6298 (the default), ns-2 2.35's fixed-point estimator or Linux's. The sender
//! (`ack`, `loss`) keeps srtt, rttvar and the RTO in seconds for everyone else (the
//! summary, CUBIC, RACK-TLP); the peers' estimators keep their own state here, in their
//! own units, so that their rounding is theirs.

use serde::Serialize;

/// Which estimator turns RTT samples into the retransmission timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298 Section 2: the first sample R gives SRTT = R, RTTVAR = R/2 (2.2); each
    /// later one RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, then SRTT = 7/8 SRTT + 1/8 R
    /// (2.3); RTO = SRTT + max(G, 4 RTTVAR) with G the clock granularity `tick`,
    /// rounded up to 1 s (`min_rto`, 2.4) and at most `max_rto` (at least 60 s, 2.5);
    /// before a sample, 1 s (`initial_rto`, 2.1). The clock measures the samples in
    /// ticks (rounded, at least one); with `rtt_sampling = "ack"` at full resolution
    /// (ns-3 3.37's `RttMeanDeviation`).
    #[default]
    Rfc6298,
    /// ns-2 2.35's `TcpAgent` (tcp.cc, without timestamps): a sample is the number of
    /// tick boundaries the timed segment's round trip crossed (`rtt_update`:
    /// `int((tao + fmod(sendtime + boot_time_, tcpTick_)) / tcpTick_)`, at least 1); srtt and
    /// rttvar are kept as 8 srtt and 4 rttvar in whole ticks (`T_SRTT_BITS` 3,
    /// `T_RTTVAR_BITS` 2) and the RTO is `t_rtxcur_ = (srtt + 4 rttvar)` ticks,
    /// truncated (`rttvar_exp_` 2), no G term; the timer runs
    /// `max(t_rtxcur_, minrto_) * backoff`, at most `maxrto_` and at least two ticks
    /// (`rtt_timeout`); a timeout doubles the backoff while it is below 64 or the timer
    /// below `maxrto_`, and past 8 folds srtt into rttvar and forgets it
    /// (`rtt_backoff`). The measurement starts on a new segment and ends at its ACK;
    /// only a timeout or a fast retransmit (`reset_rtx_timer`) cancels it, not the
    /// retransmissions of NewReno's partial ACKs.
    Ns2,
    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto` (net/ipv4/tcp_input.c), in
    /// microseconds: srtt with gain 1/8; the mean deviation mdev with gain 1/4, 1/32
    /// when the sample is below srtt; `rttvar`, never below the largest mdev of the
    /// last round trip nor below `min_rto` (`tcp_rto_min`), moving a quarter of the way
    /// down to it once per round trip; RTO = srtt + rttvar in jiffies (`tick` = 1/HZ,
    /// rounded up: `usecs_to_jiffies`), at most `max_rto` (`TCP_RTO_MAX`); before a
    /// sample `initial_rto` (`TCP_TIMEOUT_INIT`, 1 s).
    Linux,
}

/// ns-2 2.35's estimator in its fixed point: `t_srtt` is 8 srtt and `t_rttvar` 4
/// rttvar, both in ticks (tcp.cc `rtt_update`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Rtt {
    pub t_srtt: i32,
    pub t_rttvar: i32,
}

impl Ns2Rtt {
    /// The ticks of a round trip of `tao` seconds of a segment sent at `sent` (the
    /// agent's clock, its phase `boot_time_` included): `int((tao + fmod(sent, tick))
    /// / tick)`, at least 1.
    pub fn ticks(tao: f64, sent: f64, tick: f64) -> i32 {
        (((tao + sent.rem_euclid(tick)) / tick) as i32).max(1)
    }

    /// `rtt_update` with a sample of `t` ticks; returns `t_rtxcur_` in ticks.
    pub fn update(&mut self, t: i32) -> i32 {
        if self.t_srtt != 0 {
            let mut delta = t - (self.t_srtt >> 3);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs() - (self.t_rttvar >> 2);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t << 3;
            self.t_rttvar = t << 1;
        }
        ((self.t_rttvar << 3) + self.t_srtt) >> 3
    }

    /// `rtt_backoff` past a backoff of 8: rttvar takes srtt, and srtt is forgotten (the
    /// next sample starts afresh).
    pub fn clobber(&mut self) {
        self.t_rttvar += self.t_srtt >> 3;
        self.t_srtt = 0;
    }

    /// srtt and rttvar in seconds (as ns-2 traces them).
    pub fn seconds(&self, tick: f64) -> (f64, f64) {
        ((self.t_srtt >> 3) as f64 * tick, self.t_rttvar as f64 * tick / 4.0)
    }
}

/// Linux's estimator (`struct tcp_sock`): `srtt` is 8 srtt and `mdev` 4 mdev,
/// microseconds; `rtt_seq` the sequence that ends the round trip being watched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinuxRtt {
    pub srtt: i64,
    pub mdev: i64,
    pub mdev_max: i64,
    pub rttvar: i64,
    pub rtt_seq: u32,
}

impl LinuxRtt {
    /// `tcp_rtt_estimator` with a sample of `m` microseconds, `snd_una` and `snd_nxt`
    /// as the ACK leaves them and `rto_min` microseconds; returns srtt + rttvar, the
    /// RTO before its conversion to jiffies.
    pub fn update(&mut self, m: i64, snd_una: u32, snd_nxt: u32, rto_min: i64) -> i64 {
        let mut m = m;
        let mut srtt = self.srtt;
        if srtt != 0 {
            m -= srtt >> 3;
            srtt += m;
            if m < 0 {
                m = -m - (self.mdev >> 2);
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= self.mdev >> 2;
            }
            self.mdev += m;
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = rto_min;
            }
        } else {
            srtt = m << 3;
            self.mdev = m << 1;
            self.rttvar = self.mdev.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        }
        self.srtt = srtt.max(1);
        (self.srtt >> 3) + self.rttvar
    }
}

/// The peers' estimator state of a sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PeerRtt {
    /// RFC 6298's, kept by the sender in seconds.
    #[default]
    Rfc,
    Ns2(Ns2Rtt),
    Linux(LinuxRtt),
}

impl PeerRtt {
    pub fn new(e: RtoEstimator) -> PeerRtt {
        match e {
            RtoEstimator::Rfc6298 => PeerRtt::Rfc,
            RtoEstimator::Ns2 => PeerRtt::Ns2(Ns2Rtt::default()),
            RtoEstimator::Linux => PeerRtt::Linux(LinuxRtt::default()),
        }
    }
}

/// A clock phase in [0, 1) of flow `flow`, ns-2's `boot_time_` (drawn per agent, here
/// from the flow's number, so that the flows' clocks tick at different instants and a
/// run does not depend on anything else).
pub fn clock_phase(flow: u32) -> f64 {
    // SplitMix64's finalizer
    let mut z = (flow as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}
