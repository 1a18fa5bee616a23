//! Reductions: the slow-start threshold after a loss, an ECN echo or a timeout, and
//! the retransmission timeout itself.

use aqm::Time;

use super::rto::PeerRtt;
use super::{CubicTimeout, HyStart, Ledbat, LossSsthresh, Pkt, RecoveryWindow, RtoSack, TcpSender};

impl TcpSender {
    /// ssthresh after a loss: half the window (CUBIC: beta_cubic times it; LEDBAT:
    /// RFC 6817's `min(cwnd, max(cwnd / 2, MIN_CWND))`); with `loss_ssthresh = "pipe"`
    /// the Reno family takes half the packets in flight instead ([`Self::pipe_now`]).
    pub(super) fn halve(&mut self) {
        self.end_hystart();
        self.cwnd_cnt = 0;
        if let Some(pr) = self.prague.as_deref_mut() {
            // (Prague's classic response; its detection's gain follows ssthresh)
            pr.on_ssthresh(self.ssthresh);
        }
        let w = self.cwnd.min(self.p.max_window as f64);
        self.ssthresh = match (self.cubic.as_mut(), self.ledbat.is_some()) {
            (Some(c), _) => c.on_congestion(w),
            (None, true) => Ledbat::on_loss(w),
            (None, false) if self.p.rules.loss_ssthresh == LossSsthresh::Pipe => {
                (self.pipe_now() / 2.0).max(2.0)
            }
            (None, false) => (w / 2.0).floor().max(2.0),
        };
    }

    /// The packets in flight as ns-3 3.37 counts them when it reduces
    /// (`loss_ssthresh = "pipe"`): RFC 6675's pipe with SACK; without it the
    /// outstanding packets less the duplicate ACKs (ns-3 counts each as a SACKed
    /// packet, marks the head lost and adds one packet back).
    pub(super) fn pipe_now(&self) -> f64 {
        match self.sack.as_ref() {
            Some(sb) => sb.pipe(self.snd_max, self.p.dupack_threshold) as f64,
            None => (self.snd_max - self.snd_una).saturating_sub(self.dupacks) as f64,
        }
    }

    /// The retransmission timer fired (the caller checked the deadline; with RACK-TLP
    /// `on_timeout` picks the timer).
    pub(super) fn rto(&mut self, now: Time, out: &mut Vec<Pkt>, max: u32) {
        self.stats.timeouts += 1;
        self.cwnd_cnt = 0;
        if let Some(r) = self.rack.as_mut() {
            (r.reo_at, r.pto_at, r.tlp_end) = (None, None, None);
        }
        if self.in_recovery && self.p.rules.recovery_window == RecoveryWindow::Ns2 {
            // (ns-2's RenoTcpAgent::timeout zeroes dupwnd_ before TcpAgent::timeout
            // reduces: a timeout in fast recovery halves the window without its inflation)
            self.cwnd = self.ns2_base;
        }
        self.timeout_reduction();
        self.rto_una = self.snd_una;
        if let Some(sb) = self.sack.as_mut() {
            match self.p.rules.rto_sack {
                // RFC 2018 Section 8, RFC 6675 Section 5.1: forget the SACKs (the
                // receiver may have reneged); what later ACKs report is used again.
                RtoSack::Forget => sb.clear(),
                RtoSack::Keep => sb.keep_sacked(),
            }
        }
        self.cwnd = 1.0;
        self.back_off();
        self.snd_nxt = self.snd_una;
        self.in_recovery = false;
        self.prr = None;
        self.in_cwr = false;
        self.dupacks = 0;
        self.recover = self.snd_max;
        self.have_recover = true;
        self.rtt_seq = None;
        if let Some(h) = self.sent_times.as_mut() {
            h.forget(self.snd_max);
        }
        self.restart_timer(now);
        self.send_much(now, out, max);
    }

    /// The timer's backoff doubles (capped at `max_backoff`). ns-2's `rtt_backoff`:
    /// it doubles while below `max_backoff` (64) or while the timer is below `max_rto`,
    /// and past 8 srtt is folded into rttvar and forgotten.
    fn back_off(&mut self) {
        if let PeerRtt::Ns2(e) = &mut self.est {
            let timer = (self.rto * self.backoff as f64).min(self.p.max_rto);
            if self.backoff < self.p.max_backoff || timer < self.p.max_rto {
                self.backoff *= 2;
            }
            if self.backoff > 8 {
                e.clobber();
                (self.srtt, self.rttvar) = e.seconds(self.p.tick);
            }
        } else {
            self.backoff = (self.backoff * 2).min(self.p.max_backoff);
        }
        self.set_rto_span();
    }

    /// ssthresh at a timeout (and CUBIC's state, RFC 9438 Section 4.8). With
    /// `loss_ssthresh = "rfc"` a timeout during a loss episode (in fast recovery, or
    /// while the ACKs have not covered what was sent when the last reduction began)
    /// keeps the episode's ssthresh: RFC 5681 Section 3.1's rule for a repeated
    /// timeout, and the episode's flight size rather than a window that fast recovery
    /// inflated. Otherwise the window is reduced as at a loss (`"cwnd"`, `"pipe"`: as
    /// it stands, inflated or not).
    fn timeout_reduction(&mut self) {
        if self.bbr.is_some() {
            return self.bbr_timeout();
        }
        self.end_hystart();
        let w = self.cwnd.min(self.p.max_window as f64);
        let held = self.p.rules.loss_ssthresh == LossSsthresh::Rfc && self.in_episode();
        let linux_held = self.linux_keeps_ssthresh();
        match self.cubic.as_mut() {
            // (ns-3's reset takes the window without inflation, every time)
            Some(c) if c.r.timeout == CubicTimeout::Reset => {
                self.ssthresh = c.on_timeout(w, if self.in_recovery { self.ssthresh } else { w });
            }
            Some(c) if c.r.timeout == CubicTimeout::Linux => {
                if linux_held {
                    c.forget_w_max();
                    c.restart_after_timeout();
                } else {
                    self.ssthresh = c.on_timeout(w, w);
                }
                // (bictcp_hystart_reset: HyStart again from the packets sent next)
                if let Some(h) = self.hystart.as_mut() {
                    **h = HyStart::armed(self.snd_max);
                }
            }
            Some(c) if held => c.restart_after_timeout(),
            Some(c) => self.ssthresh = c.on_timeout(w, w),
            None if held => {}
            None => self.halve(),
        }
    }

    /// A loss, an ECN-Echo or a timeout ends HyStart++ (RFC 9406 Section 4.2: the
    /// reduction follows the sender's rules; Section 4.3: the first slow start only).
    #[inline]
    pub(super) fn end_hystart(&mut self) {
        if let Some(h) = self.hystart.as_mut() {
            h.done = true;
        }
    }

    /// Does Linux's `tcp_enter_loss` keep ssthresh at this timeout? It takes a new one
    /// only in the Open or Disorder state, once the ACKs have reached `high_seq`, or in
    /// the Loss state with `icsk_retransmits` zeroed (an ACK of new data since the last
    /// timeout); so it keeps it in fast recovery, in the round trip after an ECN
    /// reduction (CWR, until the ACKs go beyond what was sent when it began) and at a
    /// timeout that repeats one with `snd_una` where that one left it.
    pub(super) fn linux_keeps_ssthresh(&self) -> bool {
        let cwr = self.stats.ecn_reductions > 0 && self.snd_una <= self.ecn_recover;
        self.in_recovery || cwr || (self.in_episode() && self.snd_una == self.rto_una)
    }

    /// Is a loss episode under way: fast recovery, or the ACKs have not yet covered
    /// what was sent when the last reduction began?
    #[inline]
    pub(super) fn in_episode(&self) -> bool {
        self.in_recovery || (self.have_recover && self.snd_una < self.recover)
    }
}
