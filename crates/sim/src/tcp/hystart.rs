//! HyStart++ (RFC 9406): the first slow start ends early when the round trip grows,
//! through a conservative slow start (CSS) that can undo a spurious exit.
//!
//! Section 4.2 in packets: a round ends when the ACKs cover `windowEnd`, the highest
//! packet sent when the round began; each round keeps the minimum RTT of its ACKs. In
//! slow start each ACK of new data adds `min(N, L)` packets (N acknowledged, L = 8 for
//! a sender that does not pace); once a round has `N_RTT_SAMPLE` samples and the last
//! round's minimum is known, a minimum grown by `RttThresh = max(4 ms, min(last / 8,
//! 16 ms))` starts CSS, where each ACK adds a quarter as much. A round of CSS whose
//! minimum falls below the one that started it goes back to slow start; after
//! `CSS_ROUNDS` rounds (the partial round of the entry counting), ssthresh = cwnd and
//! congestion avoidance begins. A loss, an ECN-Echo or a timeout ends it all (the
//! sender's reduction follows its rules); HyStart++ runs only in the first slow start
//! (Section 4.3's SHOULD).
//!
//! The RTT samples are the sender's per-ACK ones (the send times of `rtt`, as with
//! `rtt_sampling = "ack"`), whatever `rtt_sampling` feeds the RTO estimator.

/// RFC 9406 Section 4.3's constants.
const MIN_RTT_THRESH: f64 = 0.004;
const MAX_RTT_THRESH: f64 = 0.016;
const MIN_RTT_DIVISOR: f64 = 8.0;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;
/// L, packets: the most an ACK may add in slow start without pacing.
const L: f64 = 8.0;

/// What an ACK in slow start did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Packets to add to cwnd.
    pub increase: f64,
    /// CSS is over: ssthresh = cwnd, congestion avoidance begins.
    pub exit: bool,
}

/// HyStart++'s state.
#[derive(Clone, Debug)]
pub struct HyStart {
    /// windowEnd: the round ends once an ACK covers it.
    window_end: u32,
    last_round_min: f64,
    current_round_min: f64,
    samples: u32,
    /// In CSS: cssBaselineMinRtt and the rounds ended since CSS began.
    css: Option<(f64, u32)>,
    /// The first slow start is over.
    pub done: bool,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart {
            window_end: 0,
            last_round_min: f64::INFINITY,
            current_round_min: f64::INFINITY,
            samples: 0,
            css: None,
            done: false,
        }
    }
}

impl HyStart {
    /// Armed again (Linux's `bictcp_hystart_reset` and `found = 0` at a timeout): a
    /// round that ends once the ACKs cover `snd_nxt`, no samples.
    pub fn armed(snd_nxt: u32) -> HyStart {
        HyStart { window_end: snd_nxt, ..HyStart::default() }
    }

    /// In CSS?
    pub fn in_css(&self) -> bool {
        self.css.is_some()
    }

    /// An ACK in slow start that acknowledges `newly` packets up to `ack`, with RTT
    /// sample `rtt` (s) if it gives one; `snd_nxt` is the next packet to send.
    pub fn on_ack(&mut self, ack: u32, newly: f64, rtt: Option<f64>, snd_nxt: u32) -> Step {
        let add = newly.min(L);
        let increase = if self.css.is_some() { add / CSS_GROWTH_DIVISOR } else { add };
        if let Some(r) = rtt {
            self.current_round_min = self.current_round_min.min(r);
            self.samples += 1;
        }
        let enough = self.samples >= N_RTT_SAMPLE;
        match self.css {
            None if enough && self.last_round_min.is_finite() => {
                let last = self.last_round_min;
                let thresh = (last / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if self.current_round_min >= last + thresh {
                    self.css = Some((self.current_round_min, 0));
                }
            }
            Some((baseline, _)) if enough && self.current_round_min < baseline => {
                // a spurious exit: back to slow start
                self.css = None;
            }
            _ => {}
        }
        let mut exit = false;
        if ack >= self.window_end {
            // the round ends; the next begins with what is sent from now on
            self.last_round_min = self.current_round_min;
            self.current_round_min = f64::INFINITY;
            self.samples = 0;
            self.window_end = snd_nxt;
            if let Some((_, rounds)) = self.css.as_mut() {
                *rounds += 1;
                exit = *rounds >= CSS_ROUNDS;
            }
        }
        if exit {
            self.done = true;
        }
        Step { increase, exit }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slow start adds min(N, 8) per ACK; a round whose minimum RTT is at least the last
    /// round's plus RttThresh = max(4 ms, min(100 ms / 8, 16 ms)) = 12.5 ms enters CSS
    /// at its eighth sample (112.4 ms does not); CSS adds a quarter; five rounds of CSS,
    /// the entry's partial round counting, end slow start.
    #[test]
    fn delay_increase_enters_css_and_css_ends_after_five_rounds() {
        for (second, css) in [(0.1124, false), (0.1125, true)] {
            let mut h = HyStart::default();
            let mut una = 0;
            // round 0 ends at the first ACK (windowEnd = SND.UNA = 0): 16 sent
            assert_eq!(h.on_ack(1, 20.0, Some(0.1), 16).increase, 8.0);
            una += 1;
            // round 1: 16 ACKs at 100 ms, the last covers windowEnd 16
            for _ in 0..15 {
                una += 1;
                assert_eq!(h.on_ack(una, 1.0, Some(0.1), 40), Step { increase: 1.0, exit: false });
            }
            assert_eq!((h.window_end, h.last_round_min), (40, 0.1));
            // round 2: the minimum grows
            for i in 0..8 {
                una += 1;
                let s = h.on_ack(una, 1.0, Some(second), 40);
                assert_eq!(s.increase, 1.0, "the ACK that enters CSS still adds a packet");
                assert_eq!(h.in_css(), css && i == 7, "sample {i} of {second}");
            }
            if !css {
                continue;
            }
            // CSS: a quarter per ACK; the partial round ends at 40, then four more
            while una < 40 {
                una += 1;
                assert_eq!(h.on_ack(una, 1.0, Some(second), 60).increase, 0.25);
            }
            let mut window_end = 60;
            for round in 2..=5 {
                let mut s = Step { increase: 0.0, exit: false };
                while una < window_end {
                    una += 1;
                    s = h.on_ack(una, 4.0, Some(second), window_end + 10);
                    assert_eq!(s.increase, 1.0);
                }
                assert_eq!(s.exit, round == 5, "round {round}");
                window_end += 10;
            }
            assert!(h.done);
        }
    }

    /// A CSS round whose minimum falls below the baseline that started CSS resumes slow
    /// start (the exit was spurious).
    #[test]
    fn rtt_back_below_baseline_resumes_slow_start() {
        let mut h = HyStart::default();
        h.on_ack(1, 1.0, Some(0.1), 10);
        for una in 2..=10 {
            h.on_ack(una, 1.0, Some(0.1), 20);
        }
        for una in 11..=18 {
            h.on_ack(una, 1.0, Some(0.12), 20);
        }
        assert!(h.in_css());
        for una in 19..=20 {
            h.on_ack(una, 1.0, Some(0.12), 30);
        }
        // the next round: eight samples at 101 ms, below the baseline of 120 ms
        for una in 21..=28 {
            h.on_ack(una, 1.0, Some(0.101), 30);
        }
        assert!(!h.in_css());
        assert_eq!(h.on_ack(29, 2.0, None, 30).increase, 2.0);
    }
}
