//! Linux's long-term ("policer") bandwidth estimate for BBR v1 (`tcp_bbr.c`'s
//! `lt_bw`, `bbr_lt_bw_sampling`; not in draft-cardwell-iccrg-bbr-congestion-control-00):
//! two sampling intervals in a row, each of 4 to 16 rounds from a loss to a loss, with a
//! loss rate of at least 50/256 and delivery rates within 1/8 (or 4 kb/s) of each
//! other, are taken for a token-bucket policer; BBR then paces at their mean delivery
//! rate, with gain 1, for 48 rounds of ProbeBW.

/// The least rounds of a sampling interval (`bbr_lt_intvl_min_rtts`).
const INTVL_MIN_RTTS: u32 = 4;
/// A lossy interval: lost / delivered at least this over 256 (`bbr_lt_loss_thresh`).
const LOSS_THRESH: u64 = 50;
/// Two intervals' rates are consistent within 1/8 (`bbr_lt_bw_ratio`) ...
const BW_RATIO: f64 = 1.0 / 8.0;
/// ... or within 4 kb/s of payload (`bbr_lt_bw_diff`), bytes/s.
const BW_DIFF: f64 = 4000.0 / 8.0;
/// Rounds of ProbeBW at the long-term rate (`bbr_lt_bw_max_rtts`).
const MAX_RTTS: u32 = 48;

/// What the sampling step tells BBR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtEvent {
    None,
    /// The long-term rate is now in use (`bbr_lt_bw_interval_done`).
    Policed,
    /// Its 48 rounds are over: ProbeBW's gain cycling restarts.
    Expired,
}

/// The sender's counters a sampling step reads: packets delivered and lost so far
/// (`tp->delivered`, `tp->lost`) and when `delivered` last grew, ns
/// (`delivered_mstamp`).
#[derive(Clone, Copy, Debug)]
pub struct LtIo {
    pub delivered: u64,
    pub lost: u64,
    pub delivered_at: u64,
    /// Bytes of payload per packet (`mss_cache`).
    pub mss: f64,
}

/// One ACK's part of the sample (`struct rate_sample`) and BBR's round.
#[derive(Clone, Copy, Debug)]
pub struct LtSample {
    pub losses: u32,
    pub app_limited: bool,
    pub round_start: bool,
    pub probe_bw: bool,
}

/// The long-term estimate's state (`struct bbr`'s `lt_` fields).
#[derive(Clone, Debug, Default)]
pub struct LtBw {
    /// The long-term rate, packets/s (0: none yet).
    pub bw: f64,
    /// In use in place of the windowed maximum (`lt_use_bw`).
    pub use_bw: bool,
    sampling: bool,
    rtt_cnt: u32,
    /// The interval's start: `delivered_mstamp` in whole ms, `delivered`, `lost`.
    last_stamp_ms: u64,
    last_delivered: u64,
    last_lost: u64,
}

impl LtBw {
    /// A new interval starts now (`bbr_reset_lt_bw_sampling_interval`).
    fn reset_interval(&mut self, io: &LtIo) {
        self.last_stamp_ms = io.delivered_at / 1_000_000;
        self.last_delivered = io.delivered;
        self.last_lost = io.lost;
        self.rtt_cnt = 0;
    }

    /// Everything starts over (`bbr_reset_lt_bw_sampling`).
    pub fn reset(&mut self, io: &LtIo) {
        self.bw = 0.0;
        self.use_bw = false;
        self.sampling = false;
        self.reset_interval(io);
    }

    /// An interval ended at rate `bw` (packets/s): policed if the last one's rate was
    /// consistent with it (`bbr_lt_bw_interval_done`).
    fn interval_done(&mut self, bw: f64, io: &LtIo) -> LtEvent {
        if self.bw > 0.0 {
            let diff = (bw - self.bw).abs();
            // (`bbr_rate_bytes_per_sec(diff, BBR_UNIT)`: 1 % pacing margin included)
            if diff <= BW_RATIO * self.bw || diff * io.mss * 0.99 <= BW_DIFF {
                self.bw = (bw + self.bw) / 2.0;
                self.use_bw = true;
                self.rtt_cnt = 0;
                return LtEvent::Policed;
            }
        }
        self.bw = bw;
        self.reset_interval(io);
        LtEvent::None
    }

    /// An ACK's sampling step (`bbr_lt_bw_sampling`).
    pub fn sample(&mut self, rs: &LtSample, io: &LtIo) -> LtEvent {
        if self.use_bw {
            if rs.probe_bw && rs.round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= MAX_RTTS {
                    self.reset(io);
                    return LtEvent::Expired;
                }
            }
            return LtEvent::None;
        }
        // (the first loss starts sampling: a policer's tokens are spent by then)
        if !self.sampling {
            if rs.losses == 0 {
                return LtEvent::None;
            }
            self.reset_interval(io);
            self.sampling = true;
        }
        if rs.app_limited {
            self.reset(io);
            return LtEvent::None;
        }
        if rs.round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < INTVL_MIN_RTTS {
            return LtEvent::None;
        }
        if self.rtt_cnt > 4 * INTVL_MIN_RTTS {
            self.reset(io);
            return LtEvent::None;
        }
        if rs.losses == 0 {
            return LtEvent::None;
        }
        let lost = io.lost - self.last_lost;
        let delivered = io.delivered - self.last_delivered;
        if delivered == 0 || (lost << 8) < LOSS_THRESH * delivered {
            return LtEvent::None;
        }
        let ms = (io.delivered_at / 1_000_000).saturating_sub(self.last_stamp_ms);
        if ms < 1 {
            return LtEvent::None;
        }
        self.interval_done(delivered as f64 / (ms as f64 * 1e-3), io)
    }
}

impl super::Bbr {
    /// The counters a sampling step reads (`tp->lost` is BBR's count here).
    pub(super) fn lt_io(&self, delivered: u64, delivered_at: u64, mss: f64) -> LtIo {
        LtIo { delivered, lost: self.lost, delivered_at, mss }
    }

    /// A sampling step and what follows from it (`bbr_lt_bw_sampling`): gain 1 once
    /// policed; the gain cycle from a random phase once the long-term rate's 48 rounds
    /// are over (at `delivered_at`, ns).
    pub(super) fn lt_sample(&mut self, s: &LtSample, io: LtIo, delivered_at: u64) {
        match self.lt.sample(s, &io) {
            LtEvent::Policed => self.pacing_gain = 1.0,
            LtEvent::Expired => self.reset_probe_bw_mode(delivered_at),
            LtEvent::None => {}
        }
    }
}
