//! A windowed maximum in constant space: Kathleen Nichols' algorithm as Linux's
//! `lib/win_minmax.c` has it (BBR's bandwidth filter). Three samples are kept: the
//! best in the window and the best in its later quarters and halves, so that when the
//! best one ages out (older than `win` in the caller's time unit, here BBR's rounds)
//! the next best takes its place.

/// One sample: time `t` (any monotone unit) and value `v`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    pub t: u64,
    pub v: f64,
}

/// The running maximum over a window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    /// The maximum (0 before any sample).
    #[inline]
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Forget everything: the maximum is `v` at `t` (`minmax_reset`).
    pub fn reset(&mut self, t: u64, v: f64) -> f64 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// Take the measurement `v` at `t` with a window of `win` (`minmax_running_max`):
    /// a new best, or a window with nothing younger than `win`, restarts the filter.
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let val = Sample { t, v };
        if v >= self.s[0].v || t - self.s[2].t > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// Age the samples (`minmax_subwin_update`): the best drops out once older than
    /// `win`; the second and third are refreshed after a quarter and a half window.
    fn subwin_update(&mut self, win: u64, val: Sample) -> f64 {
        let dt = val.t - self.s[0].t;
        if dt > win {
            // the best is too old: the second takes its place (and the third the
            // second's, if that is too old as well)
            self.s = [self.s[1], self.s[2], val];
            if val.t - self.s[0].t > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // a quarter of the window passed with no second choice: take one
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // half the window passed with no third choice: take one
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample stays the maximum while it is at most `win` rounds old and no larger
    /// one comes (BBR's 10-round window, draft -00 Section 4.1.1.4: "the last 10
    /// round trips"); one round later the best of the younger samples takes over.
    #[test]
    fn a_sample_lasts_win_rounds() {
        let mut m = WindowedMax::default();
        m.update(10, 0, 100.0);
        for t in 1..=10 {
            assert_eq!(m.update(10, t, 50.0 + t as f64), 100.0, "round {t}");
        }
        // round 11: 100 is 11 rounds old; the maximum of rounds 1 to 11 is round 10's
        assert_eq!(m.update(10, 11, 40.0), 60.0);
    }

    /// A larger sample replaces the maximum at once; a window with no sample younger
    /// than `win` restarts from the new one.
    #[test]
    fn larger_samples_and_stale_windows_restart() {
        let mut m = WindowedMax::default();
        assert_eq!(m.update(10, 0, 5.0), 5.0);
        assert_eq!(m.update(10, 1, 7.0), 7.0);
        assert_eq!(m.update(10, 30, 1.0), 1.0, "nothing within 10 rounds of 30");
    }
}
