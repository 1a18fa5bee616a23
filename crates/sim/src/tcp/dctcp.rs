//! DCTCP's sender side (RFC 8257 Section 3.3), in packets: the fraction of marked
//! packets per window of data, its moving average `alpha`, and the window reduction.
//! (The receiver's ECN echo is in `receiver`.)
//!
//! Readings of the RFC that the code takes: `alpha` starts at 1 (the conservative
//! start the RFC recommends); `WindowEnd` starts at 0, so the first ACK of new data
//! closes the first observation window; an ACK counts the packets it newly
//! acknowledges (a duplicate ACK counts none); the reduction, at most once per window
//! of data as in RFC 3168, sets `ssthresh = max(cwnd (1 - alpha / 2), 2)` and
//! `cwnd = ssthresh`.

/// DCTCP's state.
#[derive(Clone, Debug)]
pub struct Dctcp {
    /// g, the weight of a new observation (1/16).
    pub g: f64,
    /// DCTCP.Alpha, the estimate of the fraction of marked packets.
    pub alpha: f64,
    /// DCTCP.WindowEnd: the observation window ends once snd_una passes it.
    pub window_end: u32,
    /// DCTCP.BytesAcked and DCTCP.BytesMarked, in packets.
    pub acked: u64,
    pub marked: u64,
    /// Completed observation windows (for tests and traces).
    pub windows: u64,
}

impl Dctcp {
    pub fn new(g: f64) -> Dctcp {
        Dctcp { g, alpha: 1.0, window_end: 0, acked: 0, marked: 0, windows: 0 }
    }

    /// An ACK newly acknowledging `newly` packets, with ECE or not; `una` and `nxt` are
    /// the sender's snd_una after the ACK and its snd_max (RFC 8257 Section 3.3 steps
    /// 1 to 8).
    pub fn on_ack(&mut self, newly: u32, ece: bool, una: u32, nxt: u32) {
        self.acked += newly as u64;
        if ece {
            self.marked += newly as u64;
        }
        if una <= self.window_end {
            return;
        }
        let m = if self.acked > 0 { self.marked as f64 / self.acked as f64 } else { 0.0 };
        self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
        self.window_end = nxt;
        self.acked = 0;
        self.marked = 0;
        self.windows += 1;
    }

    /// The window after a reduction from `cwnd` (Section 3.3).
    pub fn reduced(&self, cwnd: f64) -> f64 {
        (cwnd * (1.0 - self.alpha / 2.0)).max(2.0)
    }
}
