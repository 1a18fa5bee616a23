//! BBR v1 (`variant = "bbr"`) as Linux's `net/ipv4/tcp_bbr.c` has it, which
//! draft-cardwell-iccrg-bbr-congestion-control-00 (the "draft") describes: on each
//! ACK a model of the path (the bottleneck bandwidth `btl_bw` and the round-trip
//! propagation time `rt_prop`) is updated from the ACK's delivery-rate sample
//! (`rate`), and sets the pacing rate and the window.
//!
//! - **Bandwidth** (draft 4.1.1): the windowed maximum of the delivery rate over the
//!   last 10 packet-timed rounds (`bbr_bw_rtts`, Kathleen Nichols' filter, `minmax`);
//!   an application-limited sample counts only if it raises the estimate.
//! - **RTprop** (draft 4.1.2): the minimum RTT sample, replaced by any sample once it
//!   is 10 s old (`bbr_min_rtt_win_sec`); a sample equal to it restarts the 10 s
//!   (draft 4.1.2.3), or only a lower one (`strict_min_rtt`, tcp_bbr.c).
//! - **Startup** (draft 4.3.2): pacing and window gains `high_gain` (2/ln 2); the pipe
//!   is full once 3 rounds in a row (not application-limited) raised the bandwidth by
//!   less than 25 % (`bbr_check_full_bw_reached`). **Drain**: pacing gain
//!   `drain_gain` (ln 2 / 2) until the packets in the network at the next departure
//!   are at most one BDP (`bbr_check_drain`).
//! - **ProbeBW** (draft 4.3.3): pacing gains cycle through 5/4, 3/4 and six times 1,
//!   one phase per min RTT (5/4 also until the flight reaches 5/4 BDP or a loss, 3/4
//!   at most until it falls to 1 BDP); the first phase is drawn from the seeded
//!   generator as Linux does: any but the 3/4 phase. Window gain 2.
//! - **ProbeRTT** (draft 4.3.4): entered once RTprop is 10 s old; the window is 4
//!   packets for max(200 ms, one round) once the flight has fallen to 4, then RTprop's
//!   clock restarts and the previous window comes back.
//! - **The window** (`bbr_set_cwnd`): `cwnd_gain * BDP` plus the ACK-aggregation
//!   allowance (`extra_acked`, Linux's, off in the draft) plus 3 send quanta
//!   (`bbr_tso_segs_goal`: the packets of ~1 ms at the pacing rate, at least 2, or 1
//!   below 1.2 Mb/s, at most 64 KB), rounded up to even, +2 in the 5/4 phase; it
//!   grows by the packets each ACK delivers toward that target (and snaps down to it
//!   once the pipe was full), never below 4. In the first round of a recovery it
//!   follows packet conservation (`in flight + delivered`); losses take packets off
//!   it; the window before the recovery (or a timeout) comes back after it.
//! - **The pacing rate**: `pacing_gain * btl_bw` less 1 % (`bbr_pacing_margin_percent`);
//!   before the pipe is full it never falls; before an RTT sample it is `high_gain *
//!   cwnd / 1 ms`, then `high_gain * cwnd / srtt`.
//!
//! - **Policers** (`lt_bw`, Linux's, not in the draft; `bbr_lt.rs`): two lossy
//!   sampling intervals with consistent delivery rates set the estimate to their mean,
//!   paced at gain 1 for 48 rounds.
//!
//! Not modelled: the restart from idle (`CA_EVENT_TX_START`; the simulator's senders are
//! bulk, or application-limited ones whose samples are marked as such).

use rand::Rng;
use serde::Serialize;

use self::lt::{LtBw, LtSample};
use super::minmax::WindowedMax;
use super::rate::RateSample;
use crate::rng::SimRng;

#[path = "bbr_cwnd.rs"]
mod cwnd;
#[path = "bbr_lt.rs"]
mod lt;

/// Rounds of the bandwidth filter (`bbr_bw_rtts`).
pub const BW_ROUNDS: u64 = 10;
/// Age at which RTprop expires, ns (`bbr_min_rtt_win_sec`).
pub const RTPROP_WINDOW: u64 = 10_000_000_000;
/// Time at 4 packets in ProbeRTT, ns (`bbr_probe_rtt_mode_ms`).
pub const PROBE_RTT_TIME: u64 = 200_000_000;
/// The least window, and ProbeRTT's (`bbr_cwnd_min_target`).
pub const MIN_CWND: f64 = 4.0;
/// ProbeBW's pacing gains (`bbr_pacing_gain`).
pub const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Linux's TCP_INIT_CWND: the window before an RTT sample, and the packets delivered
/// before which Startup's window grows whatever its target.
const INIT_CWND: f64 = 10.0;

/// BBR's constants (keys `bbr_high_gain`, `bbr_drain_gain`, `bbr_extra_acked`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BbrParams {
    /// Startup's gains (the draft's 2/ln 2; Linux's 739/256).
    pub high_gain: f64,
    /// Drain's pacing gain (the draft's ln 2 / 2; Linux's 88/256).
    pub drain_gain: f64,
    /// The window's allowance for ACK aggregation (Linux since 4.20; not in the draft).
    pub extra_acked: bool,
    /// Only an RTT sample below RTprop restarts its 10 s (tcp_bbr.c's
    /// `bbr_update_min_rtt`: `rtt_us < min_rtt_us`); otherwise one equal to it does too
    /// (the draft's `BBRUpdateRTprop`: `packet.rtt <= BBR.RTprop`).
    pub strict_min_rtt: bool,
    /// Linux's long-term bandwidth estimate for policed paths (`lt_bw`; not in the draft).
    pub lt_bw: bool,
    /// The delivery-rate sample of an ACK comes from the packet it delivers that was
    /// sent last (Linux 6.x's `tcp_rate_skb_delivered`: `tcp_skb_sent_after`);
    /// otherwise from the one with the highest `delivered` (draft-cheng-iccrg-
    /// delivery-rate-estimation-00, and Linux until 2022).
    pub rate_newest_sent: bool,
}

impl Default for BbrParams {
    fn default() -> Self {
        let ln2 = std::f64::consts::LN_2;
        BbrParams {
            high_gain: 2.0 / ln2,
            drain_gain: ln2 / 2.0,
            extra_acked: false,
            strict_min_rtt: false,
            lt_bw: false,
            rate_newest_sent: false,
        }
    }
}

/// BBR's state machine (draft 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}

/// The sender's loss state as BBR reads it (Linux's `icsk_ca_state`, in its order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open,
    Recovery,
    /// After a retransmission timeout, until what was outstanding then is ACKed.
    Loss,
}

/// What BBR reads of the sender and sets on each ACK.
#[derive(Clone, Copy, Debug)]
pub struct Io {
    /// ns.
    pub now: u64,
    /// Packets in flight after the ACK (`tcp_packets_in_flight`).
    pub in_flight: u32,
    /// Packets delivered so far and when they last grew (ns).
    pub delivered: u64,
    pub delivered_at: u64,
    pub state: CaState,
    /// Smoothed RTT, s (0 before a sample).
    pub srtt: f64,
    /// The next departure time, ns (`tcp_wstamp_ns`).
    pub next_departure: u64,
    /// The receiver window, packets (`snd_cwnd_clamp`).
    pub clamp: f64,
    /// Bytes per packet of payload (the send quantum counts in these).
    pub mss: f64,
    /// Set: the window, the pacing rate (packets/s), ssthresh; the application-limited
    /// mark (ProbeRTT's, `tp->app_limited`; 0 = unchanged).
    pub cwnd: f64,
    pub pacing_rate: f64,
    pub ssthresh: f64,
    pub app_limited: u64,
}

/// BBR's state (`struct bbr`).
#[derive(Clone, Debug)]
pub struct Bbr {
    pub p: BbrParams,
    pub mode: Mode,
    bw: WindowedMax,
    /// Packet-timed rounds so far (`rtt_cnt`).
    pub rounds: u64,
    next_round_delivered: u64,
    round_start: bool,
    /// ProbeBW's phase and when it began (ns, a `delivered_mstamp`).
    pub cycle_idx: usize,
    cycle_stamp: u64,
    prev_state: CaState,
    packet_conservation: bool,
    /// A retransmission timeout's loss state is on (the sender ends it).
    pub in_loss: bool,
    /// RTprop, s (None before a sample), and when it was taken (ns).
    pub rt_prop: Option<f64>,
    rt_prop_stamp: u64,
    probe_rtt_done: Option<u64>,
    probe_rtt_round_done: bool,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pub full_bw_reached: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    has_seen_rtt: bool,
    /// The window saved at a recovery, a timeout or ProbeRTT.
    prior_cwnd: f64,
    ack_epoch_stamp: u64,
    ack_epoch_acked: u64,
    extra_acked: [f64; 2],
    extra_acked_rounds: u32,
    extra_acked_idx: usize,
    /// The long-term estimate, and the packets deemed lost so far (`tp->lost`).
    lt: LtBw,
    lost: u64,
    rng: SimRng,
}

impl Bbr {
    /// `bbr_init`, with the generator of the random gain-cycle phase.
    pub fn new(p: BbrParams, rng: SimRng) -> Bbr {
        Bbr {
            p,
            mode: Mode::Startup,
            bw: WindowedMax::default(),
            rounds: 0,
            next_round_delivered: 0,
            round_start: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            prev_state: CaState::Open,
            packet_conservation: false,
            in_loss: false,
            rt_prop: None,
            rt_prop_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            full_bw_reached: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            has_seen_rtt: false,
            prior_cwnd: 0.0,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0,
            extra_acked: [0.0; 2],
            extra_acked_rounds: 0,
            extra_acked_idx: 0,
            lt: LtBw::default(),
            lost: 0,
            rng,
        }
    }

    /// A new generator for the random gain-cycle phase.
    pub fn reseed(&mut self, rng: SimRng) {
        self.rng = rng;
    }

    /// The bottleneck bandwidth estimate, packets/s: the long-term one while in use
    /// (`bbr_bw`), else the windowed maximum.
    #[inline]
    pub fn btl_bw(&self) -> f64 {
        if self.lt.use_bw { self.lt.bw } else { self.bw.get() }
    }

    /// The windowed maximum of the delivery rate, packets/s (`bbr_max_bw`).
    #[inline]
    fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The connection starts at `now` (ns) with window `cwnd`: RTprop's clock and
    /// the aggregation epoch start; the initial pacing rate (`bbr_init`).
    pub fn start(&mut self, now: u64, cwnd: f64, srtt: f64) -> f64 {
        self.rt_prop_stamp = now;
        self.ack_epoch_stamp = now;
        self.initial_rate(cwnd, srtt)
    }

    /// The pacing rate before any ACK (`bbr_init_pacing_rate_from_rtt`).
    pub fn initial_rate(&mut self, cwnd: f64, srtt: f64) -> f64 {
        let rtt = if srtt > 0.0 {
            self.has_seen_rtt = true;
            srtt
        } else {
            0.001
        };
        self.to_rate(cwnd / rtt, self.p.high_gain)
    }

    /// A pacing rate for bandwidth `bw` and `gain`, 1 % below (`bbr_bw_to_pacing_rate`).
    fn to_rate(&self, bw: f64, gain: f64) -> f64 {
        bw * gain * 0.99
    }

    /// An ACK (`bbr_main`): the model, then the pacing rate and the window.
    pub fn on_ack(&mut self, rs: &RateSample, io: &mut Io) {
        self.lost += u64::from(rs.losses);
        self.update_bw(rs, io);
        self.update_ack_aggregation(rs, io);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, io) {
            self.advance_cycle_phase(io.delivered_at);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(io);
        self.update_rt_prop(rs, io);
        self.update_gains();
        let bw = self.btl_bw();
        self.set_pacing_rate(bw, self.pacing_gain, io);
        self.set_cwnd(rs, bw, io);
    }

    /// A round trip ends when a packet sent after the last one's end is delivered;
    /// the sample enters the bandwidth filter (`bbr_update_bw`).
    fn update_bw(&mut self, rs: &RateSample, io: &Io) {
        self.round_start = false;
        let Some(bw) = rs.rate() else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = io.delivered;
            self.rounds += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        if self.p.lt_bw {
            let s = LtSample {
                losses: rs.losses,
                app_limited: rs.is_app_limited,
                round_start: self.round_start,
                probe_bw: self.mode == Mode::ProbeBw,
            };
            self.lt_sample(&s, self.lt_io(io.delivered, io.delivered_at, io.mss), io.delivered_at);
        }
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(BW_ROUNDS, self.rounds, bw);
        }
    }

    /// The packets ACKed beyond what the bandwidth explains since the epoch began,
    /// the larger of the last two 5-round windows' maxima (`bbr_update_ack_aggregation`).
    fn update_ack_aggregation(&mut self, rs: &RateSample, io: &Io) {
        if !self.p.extra_acked || rs.acked_sacked == 0 || rs.rate().is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(0x1F);
            if self.extra_acked_rounds >= 5 {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0.0;
            }
        }
        let epoch = io.delivered_at.saturating_sub(self.ack_epoch_stamp) as f64 * 1e-9;
        let mut expected = (self.btl_bw() * epoch).floor() as u64;
        let acked = u64::from(rs.acked_sacked);
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= 1 << 20 {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = io.delivered_at;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(0xFFFFF);
        let extra = ((self.ack_epoch_acked - expected) as f64).min(io.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = slot.max(extra);
    }

    /// The window's allowance for ACK aggregation, at most 100 ms at the bandwidth.
    fn aggregation_cwnd(&self) -> f64 {
        if !self.p.extra_acked || !self.full_bw_reached {
            return 0.0;
        }
        let max = (self.btl_bw() * 0.1).floor();
        self.extra_acked[0].max(self.extra_acked[1]).min(max)
    }

    /// Does ProbeBW's phase end (`bbr_is_next_cycle_phase`)?
    fn is_next_cycle_phase(&self, rs: &RateSample, io: &Io) -> bool {
        // (in whole ns, as Linux compares whole us)
        let rt_prop = self.rt_prop.map_or(u64::MAX, |r| (r * 1e9).round() as u64);
        let full_length = io.delivered_at - self.cycle_stamp > rt_prop;
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight, io);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            return full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain, io));
        }
        full_length || inflight <= self.inflight(bw, 1.0, io)
    }

    /// The next phase, from `delivered_at` (ns).
    fn advance_cycle_phase(&mut self, delivered_at: u64) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = delivered_at;
    }

    /// Startup's exit test, once per round (`bbr_check_full_bw_reached`).
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * 1.25 {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= 3;
    }

    /// Startup to Drain once the pipe is full; Drain to ProbeBW once the queue it
    /// made is estimated gone (`bbr_check_drain`).
    fn check_drain(&mut self, io: &mut Io) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            io.ssthresh = self.inflight(self.max_bw(), 1.0, io);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(io.in_flight, io) <= self.inflight(self.max_bw(), 1.0, io)
        {
            self.reset_probe_bw_mode(io.delivered_at);
        }
    }

    /// ProbeBW from a random phase: Linux's `CYCLE_LEN - 1 - rand(7)` then one step,
    /// so any phase but the 3/4 one (`bbr_reset_probe_bw_mode`).
    fn reset_probe_bw_mode(&mut self, delivered_at: u64) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE.len() - 1 - self.rng.random_range(0..7);
        self.advance_cycle_phase(delivered_at);
    }

    fn reset_mode(&mut self, io: &Io) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(io.delivered_at);
        } else {
            self.mode = Mode::Startup;
        }
    }
}

impl Bbr {
    /// RTprop's filter and ProbeRTT (`bbr_update_min_rtt`). (Linux also keeps an
    /// expired minimum against a sample whose ACK may have been delayed, an ACK of
    /// less than one segment: the simulator's segments are whole.)
    fn update_rt_prop(&mut self, rs: &RateSample, io: &mut Io) {
        let expired = io.now > self.rt_prop_stamp + RTPROP_WINDOW;
        let strict = self.p.strict_min_rtt;
        if let Some(rtt) = rs.rtt
            && (self.rt_prop.is_none_or(|m| rtt < m || (!strict && rtt == m)) || expired)
        {
            self.rt_prop = Some(rtt);
            self.rt_prop_stamp = io.now;
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(io.cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // (the samples of ProbeRTT's low rate are application-limited)
        io.app_limited = (io.delivered + u64::from(io.in_flight)).max(1);
        match self.probe_rtt_done {
            None if f64::from(io.in_flight) <= MIN_CWND => {
                self.probe_rtt_done = Some(io.now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = io.delivered;
            }
            None => {}
            Some(_) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(io);
                }
            }
        }
    }

    /// ProbeRTT ends after its 200 ms and a round (`bbr_check_probe_rtt_done`).
    fn check_probe_rtt_done(&mut self, io: &mut Io) {
        if self.probe_rtt_done.is_none_or(|t| io.now <= t) {
            return;
        }
        self.rt_prop_stamp = io.now;
        io.cwnd = io.cwnd.max(self.prior_cwnd);
        self.reset_mode(io);
    }

    /// The gains of the mode (`bbr_update_gains`).
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.high_gain),
            Mode::Drain => (self.p.drain_gain, self.p.high_gain),
            Mode::ProbeBw => (if self.lt.use_bw { 1.0 } else { CYCLE[self.cycle_idx] }, 2.0),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// `bbr_set_pacing_rate`: it never falls before the pipe is full.
    fn set_pacing_rate(&mut self, bw: f64, gain: f64, io: &mut Io) {
        if !self.has_seen_rtt && io.srtt > 0.0 {
            io.pacing_rate = self.initial_rate(io.cwnd, io.srtt);
        }
        let rate = self.to_rate(bw, gain);
        if self.full_bw_reached || rate > io.pacing_rate {
            io.pacing_rate = rate;
        }
    }

    /// ceil(gain * bw * RTprop), packets; Linux's initial window before an RTT
    /// sample (`bbr_bdp`).
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.rt_prop {
            Some(r) => (bw * r * gain).ceil(),
            None => INIT_CWND,
        }
    }

    /// The send quantum, packets (`bbr_tso_segs_goal`): ~1 ms at the pacing rate
    /// (`sk_pacing_shift` 10), at most 64 KB less headers, at least 2 (1 below
    /// 1.2 Mb/s, `bbr_min_tso_segs`), at most 127.
    fn send_quantum(&self, io: &Io) -> f64 {
        let bytes = (io.pacing_rate * io.mss / 1024.0).min(65536.0 - 1.0 - 320.0);
        let least = if io.pacing_rate * io.mss < 1.2e6 / 8.0 { 1.0 } else { 2.0 };
        (bytes / io.mss).floor().max(least).min(127.0)
    }

    /// `bbr_quantization_budget`: 3 send quanta, even, +2 in the 5/4 phase.
    fn quantization_budget(&self, cwnd: f64, io: &Io) -> f64 {
        let cwnd = cwnd + 3.0 * self.send_quantum(io);
        let cwnd = 2.0 * (cwnd / 2.0).ceil();
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 { cwnd + 2.0 } else { cwnd }
    }

    /// The flight for `gain` BDPs (`bbr_inflight`).
    fn inflight(&self, bw: f64, gain: f64, io: &Io) -> f64 {
        self.quantization_budget(self.bdp(bw, gain), io)
    }

    /// The packets still in the network when the next packet departs: `inflight` less
    /// what the bandwidth delivers until then, plus a quantum while probing
    /// (`bbr_packets_in_net_at_edt`).
    fn packets_in_net_at_edt(&self, inflight: u32, io: &Io) -> f64 {
        let wait = io.next_departure.max(io.now) - io.now;
        let delivered = (self.btl_bw() * wait as f64 * 1e-9).floor();
        let mut at_edt = f64::from(inflight);
        if self.pacing_gain > 1.0 {
            at_edt += self.send_quantum(io);
        }
        (at_edt - delivered).max(0.0)
    }

    /// A retransmission timeout (`bbr_set_state(TCP_CA_Loss)`) that deems `lost`
    /// packets lost, `delivered` having been delivered (the last at `delivered_at`,
    /// ns): Startup's pipe estimate restarts; the long-term estimate takes it as a
    /// round's end with a loss.
    pub fn enter_loss(&mut self, lost: u32, delivered: u64, delivered_at: u64, mss: f64) {
        self.in_loss = true;
        self.prev_state = CaState::Loss;
        self.full_bw = 0.0;
        self.round_start = true;
        self.lost += u64::from(lost);
        if self.p.lt_bw {
            let s = LtSample { losses: 1, app_limited: false, round_start: true, probe_bw: false };
            let s = LtSample { probe_bw: self.mode == Mode::ProbeBw, ..s };
            self.lt_sample(&s, self.lt_io(delivered, delivered_at, mss), delivered_at);
        }
    }
}
