//! BBR's window (`tcp_bbr.c`'s `bbr_set_cwnd` and what it calls): the target from the
//! model, the ACK-aggregation allowance and the send quanta; packet conservation in the
//! first round of a recovery, and the window restored after it.

use super::{Bbr, CaState, INIT_CWND, Io, MIN_CWND, Mode, RateSample};

impl Bbr {
    /// The window (`bbr_set_cwnd`).
    pub(super) fn set_cwnd(&mut self, rs: &RateSample, bw: f64, io: &mut Io) {
        let acked = f64::from(rs.acked_sacked);
        if acked > 0.0 {
            let (conserving, mut cwnd) = self.recover_or_restore(rs, acked, io);
            if !conserving {
                let target = self.bdp(bw, self.cwnd_gain) + self.aggregation_cwnd();
                let target = self.quantization_budget(target, io);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || (io.delivered as f64) < INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_CWND);
            }
            io.cwnd = cwnd;
        }
        io.cwnd = io.cwnd.min(io.clamp);
        if self.mode == Mode::ProbeRtt {
            io.cwnd = io.cwnd.min(MIN_CWND);
        }
    }

    /// Losses take packets off the window; the first round of a recovery conserves
    /// packets; the end of a recovery or timeout restores the window saved
    /// (`bbr_set_cwnd_to_recover_or_restore`). Returns (conserving, window).
    fn recover_or_restore(&mut self, rs: &RateSample, acked: f64, io: &Io) -> (bool, f64) {
        let mut cwnd = io.cwnd;
        let flight = f64::from(io.in_flight);
        if rs.losses > 0 {
            cwnd = (cwnd - f64::from(rs.losses)).max(1.0);
        }
        let (prev, state) = (self.prev_state, io.state);
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_round_delivered = io.delivered;
            cwnd = flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = state;
        if self.packet_conservation {
            return (true, cwnd.max(flight + acked));
        }
        (false, cwnd)
    }

    /// Keep the window to restore after a recovery, a timeout or ProbeRTT
    /// (`bbr_save_cwnd`, called as `bbr_ssthresh`).
    pub fn save_cwnd(&mut self, cwnd: f64) {
        if self.prev_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }
}
