//! Linux's growth of the Reno family's window (`reno_growth = "segments"`):
//! `tcp_reno_cong_avoid` in tcp_cong.c, which Linux's reno and dctcp use.

use super::TcpSender;

impl TcpSender {
    /// An ACK of new data that acknowledges `acked` packets, outside HyStart++:
    /// `tcp_slow_start` while cwnd is below ssthresh (cwnd = min(cwnd + acked,
    /// ssthresh), the rest of `acked` left over), then `tcp_cong_avoid_ai(tp, cwnd,
    /// acked)` with what is left: the counter `snd_cwnd_cnt` gathers the packets
    /// acknowledged, and each cwnd of them adds one packet. Windows are whole packets
    /// (a fractional ssthresh counts as its integer part, as Linux's are integers).
    pub(super) fn reno_segments(&mut self, acked: u32) {
        let mut cwnd = self.cwnd.floor().max(1.0) as u32;
        let mut acked = acked;
        let ssthresh = self.ssthresh.floor();
        if f64::from(cwnd) < ssthresh {
            let grown = (f64::from(cwnd) + f64::from(acked)).min(ssthresh) as u32;
            acked -= grown - cwnd;
            cwnd = grown;
        }
        if acked > 0 {
            // (credits gathered at a larger window are applied gently: one packet)
            if self.cwnd_cnt >= cwnd {
                self.cwnd_cnt = 0;
                cwnd += 1;
            }
            self.cwnd_cnt += acked;
            let w = cwnd;
            if self.cwnd_cnt >= w {
                let delta = self.cwnd_cnt / w;
                self.cwnd_cnt -= delta * w;
                cwnd += delta;
            }
        }
        self.cwnd = f64::from(cwnd);
    }
}
