//! Integer time: nanoseconds since an arbitrary origin.
//!
//! Nothing in this crate reads a clock; every time-dependent call takes `now: Time`.

use std::ops::{Add, AddAssign, Sub};

/// A point in time, in nanoseconds since the origin of the caller's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    /// Time from seconds (rounded to the nearest nanosecond, saturating at 0).
    pub fn from_secs_f64(s: f64) -> Time {
        Time(secs_to_nanos(s))
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub fn from_secs_f64(s: f64) -> Duration {
        Duration(secs_to_nanos(s))
    }
    pub fn from_millis(ms: u64) -> Duration {
        Duration(ms * 1_000_000)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
}

fn secs_to_nanos(s: f64) -> u64 {
    if s.is_nan() || s <= 0.0 { 0 } else { (s * 1e9).round().min(u64::MAX as f64) as u64 }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Duration;
    fn sub(self, t: Time) -> Duration {
        self.saturating_since(t)
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}
