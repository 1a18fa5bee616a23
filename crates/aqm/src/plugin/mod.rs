//! Rust AQMs built outside the tree, as shared libraries ("plugins").
//!
//! A plugin is a crate of its own (`cargo new --lib`, `crate-type = ["cdylib"]`) that
//! depends on this crate, implements [`QueueDiscipline`] and [`PluginAqm`] (its
//! constructor from the queue's table) for its type and exports it with
//! [`export_aqm!`](crate::export_aqm). aqmlab loads it for
//! `queue = { type = "plugin", path = "target/release/libmy_aqm.so", ...params }`.
//!
//! The boundary is C's ([`Api`], a table of `extern "C"` functions, `#[repr(C)]` data),
//! so a plugin and aqmlab need not be built by the same compiler; they must agree on
//! this crate's version and on [`ABI`], which the loader checks first, naming both
//! versions when they differ. Every entry point catches a panic and hands back its
//! message: a plugin that panics stops the run with an error, never a crash.

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::config::BuildContext;
use crate::error::Result;
use crate::packet::{Backlog, DropReason, PacketInfo, Verdict};
use crate::queue::{QueueDiscipline, SignalKind};
use crate::time::Time;

#[cfg(feature = "plugin-host")]
pub mod host;
mod params;

pub use params::Params;

/// The version of the boundary ([`Api`]'s layout and meaning).
pub const ABI: u32 = 1;
/// The version of this crate, which a plugin and its host must share.
pub const AQM_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The symbol a plugin exports: `extern "C" fn() -> *const Api`.
pub const SYMBOL: &[u8] = b"aqmlab_plugin\0";

/// What a plugin's AQM adds to [`QueueDiscipline`]: its construction from the queue's
/// table (every key but `type` and `path`), with the link's rate and the queue's seed in
/// `ctx` (draw from [`crate::common::rng_from_seed`] with it for the stream the
/// built-ins use).
pub trait PluginAqm: QueueDiscipline + Clone + Send + 'static {
    fn new(params: &Params, ctx: &BuildContext) -> Result<Self>;
}

/// A packet across the boundary.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RawPacket {
    pub size: u32,
    pub flow: u32,
    /// Bit 0: ECN-capable, bit 1: ECT(1), bit 2: CE.
    pub ecn: u32,
}

impl RawPacket {
    pub fn of(p: &PacketInfo) -> RawPacket {
        let ecn = u32::from(p.ecn_capable) | u32::from(p.ect1) << 1 | u32::from(p.ce) << 2;
        RawPacket { size: p.size, flow: p.flow, ecn }
    }
    pub fn info(self) -> PacketInfo {
        PacketInfo {
            size: self.size,
            flow: self.flow,
            ecn_capable: self.ecn & 1 != 0,
            ect1: self.ecn & 2 != 0,
            ce: self.ecn & 4 != 0,
        }
    }
}

/// Bytes handed across the boundary (UTF-8 text).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RawText {
    pub ptr: *const u8,
    pub len: usize,
}

impl RawText {
    pub fn of(s: &str) -> RawText {
        RawText { ptr: s.as_ptr(), len: s.len() }
    }
    /// # Safety
    /// `ptr` must point to `len` readable bytes for the lifetime `'a`.
    pub unsafe fn as_str<'a>(self) -> &'a str {
        let b = unsafe { std::slice::from_raw_parts(self.ptr, self.len) };
        std::str::from_utf8(b).unwrap_or("(not UTF-8)")
    }
}

/// A buffer the host lends for an error message.
#[repr(C)]
#[derive(Debug)]
pub struct RawError {
    pub buf: *mut u8,
    pub cap: usize,
    pub len: usize,
}

impl RawError {
    /// Write `msg` (cut to the capacity, at a character boundary).
    fn write(&mut self, msg: &str) {
        let mut n = msg.len().min(self.cap);
        while !msg.is_char_boundary(n) {
            n -= 1;
        }
        // SAFETY: the host lends `cap` writable bytes at `buf`.
        unsafe { std::ptr::copy_nonoverlapping(msg.as_ptr(), self.buf, n) };
        self.len = n;
    }
}

/// What every entry point answers: `OK`, `PANIC` (the message in the error buffer) or,
/// from `new`, `INVALID` (a configuration error's message).
pub const OK: i32 = 0;
pub const PANIC: i32 = -1;
pub const INVALID: i32 = -2;

/// An instance, opaque to the host.
pub type Handle = *mut c_void;

/// The table of entry points a plugin exports. `abi` and `version` come first and stay
/// there in every ABI, so that any host can read them.
#[repr(C)]
pub struct Api {
    pub abi: u32,
    pub version: RawText,
    /// `(params, link_rate_bps, seed, out, err)`: build an instance into `out`.
    pub new: unsafe extern "C" fn(RawText, f64, u64, *mut Handle, *mut RawError) -> i32,
    /// `(h, now, pkt, backlog_packets, backlog_bytes, verdict, err)`: [`encode`]d verdict.
    pub on_arrival:
        unsafe extern "C" fn(Handle, u64, RawPacket, u32, u64, *mut u64, *mut RawError) -> i32,
    /// `(h, now, pkt, after_packets, after_bytes, departed, err)`.
    pub on_removed:
        unsafe extern "C" fn(Handle, u64, RawPacket, u32, u64, u32, *mut RawError) -> i32,
    /// `(h, packets, bytes)`: the buffer, `u64::MAX` for none.
    pub limit: unsafe extern "C" fn(Handle, *mut u64, *mut u64) -> i32,
    /// `(h, at)`: 1 with `at` set if it needs a poll, 0 if not.
    pub poll_at: unsafe extern "C" fn(Handle, *mut u64) -> i32,
    pub poll: unsafe extern "C" fn(Handle, u64, *mut RawError) -> i32,
    /// `(h, value, kind)`: the signal and [`signal_code`] of its kind.
    pub signal: unsafe extern "C" fn(Handle, *mut f64, *mut u32) -> i32,
    /// A copy of the instance (its state and its generator).
    pub clone: unsafe extern "C" fn(Handle, *mut Handle) -> i32,
    pub free: unsafe extern "C" fn(Handle),
}

// SAFETY: the table holds only function pointers and a pointer to static text.
unsafe impl Sync for Api {}
unsafe impl Send for Api {}

/// A verdict as a number: the low byte its kind, the high 32 bits an eviction's victim.
pub fn encode(v: Verdict) -> u64 {
    match v {
        Verdict::Enqueue => 0,
        Verdict::Mark => 1,
        Verdict::Drop(DropReason::Early) => 2,
        Verdict::Drop(DropReason::Forced) => 3,
        Verdict::Drop(DropReason::Overflow) => 4,
        Verdict::Drop(DropReason::FlowLimit) => 5,
        Verdict::Evict { victim } => 6 | u64::from(victim) << 32,
    }
}

/// [`encode`] undone; `None` for a number no verdict gives.
pub fn decode(v: u64) -> Option<Verdict> {
    Some(match v & 0xff {
        0 => Verdict::Enqueue,
        1 => Verdict::Mark,
        2 => Verdict::Drop(DropReason::Early),
        3 => Verdict::Drop(DropReason::Forced),
        4 => Verdict::Drop(DropReason::Overflow),
        5 => Verdict::Drop(DropReason::FlowLimit),
        6 => Verdict::Evict { victim: (v >> 32) as u32 },
        _ => return None,
    })
}

/// A signal kind as a number, and back.
pub fn signal_code(k: SignalKind) -> u32 {
    match k {
        SignalKind::None => 0,
        SignalKind::AverageQueue => 1,
        SignalKind::Probability => 2,
        SignalKind::DropCount => 3,
    }
}

pub fn signal_kind(c: u32) -> SignalKind {
    match c {
        1 => SignalKind::AverageQueue,
        2 => SignalKind::Probability,
        3 => SignalKind::DropCount,
        _ => SignalKind::None,
    }
}

/// Run `f`; a panic's message goes to `err` and the answer is [`PANIC`].
fn guarded(err: *mut RawError, f: impl FnOnce() -> i32) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            if !err.is_null() {
                // SAFETY: the host passes a valid, exclusive error buffer.
                unsafe { (*err).write(&msg) };
            }
            PANIC
        }
    }
}

/// The instance behind a handle.
///
/// # Safety
/// `h` must come from this plugin's `new` or `clone` for type `T`, not yet freed.
unsafe fn aqm<'a, T>(h: Handle) -> &'a mut T {
    unsafe { &mut *(h as *mut T) }
}

unsafe extern "C" fn new<T: PluginAqm>(
    params: RawText,
    rate: f64,
    seed: u64,
    out: *mut Handle,
    err: *mut RawError,
) -> i32 {
    guarded(err, || {
        // SAFETY: the host passes its text and a valid `out` and `err`.
        let text = unsafe { params.as_str() };
        let ctx = BuildContext { link_rate_bps: Some(rate), seed: Some(seed) };
        match Params::decode(text).and_then(|p| T::new(&p, &ctx)) {
            Ok(a) => {
                unsafe { *out = Box::into_raw(Box::new(a)) as Handle };
                OK
            }
            Err(e) => {
                unsafe { (*err).write(&e.to_string()) };
                INVALID
            }
        }
    })
}

unsafe extern "C" fn on_arrival<T: PluginAqm>(
    h: Handle,
    now: u64,
    pkt: RawPacket,
    packets: u32,
    bytes: u64,
    verdict: *mut u64,
    err: *mut RawError,
) -> i32 {
    guarded(err, || {
        let v =
            unsafe { aqm::<T>(h) }.on_arrival(Time(now), &pkt.info(), Backlog { packets, bytes });
        unsafe { *verdict = encode(v) };
        OK
    })
}

unsafe extern "C" fn on_removed<T: PluginAqm>(
    h: Handle,
    now: u64,
    pkt: RawPacket,
    packets: u32,
    bytes: u64,
    departed: u32,
    err: *mut RawError,
) -> i32 {
    guarded(err, || {
        let after = Backlog { packets, bytes };
        unsafe { aqm::<T>(h) }.on_removed(Time(now), &pkt.info(), after, departed != 0);
        OK
    })
}

unsafe extern "C" fn limit<T: PluginAqm>(h: Handle, packets: *mut u64, bytes: *mut u64) -> i32 {
    guarded(std::ptr::null_mut(), || {
        let l = unsafe { aqm::<T>(h) }.limit();
        unsafe {
            *packets = l.packets.map_or(u64::MAX, u64::from);
            *bytes = l.bytes.unwrap_or(u64::MAX);
        }
        OK
    })
}

unsafe extern "C" fn poll_at<T: PluginAqm>(h: Handle, at: *mut u64) -> i32 {
    guarded(std::ptr::null_mut(), || match unsafe { aqm::<T>(h) }.poll_at() {
        Some(t) => {
            unsafe { *at = t.0 };
            1
        }
        None => 0,
    })
}

unsafe extern "C" fn poll<T: PluginAqm>(h: Handle, now: u64, err: *mut RawError) -> i32 {
    guarded(err, || {
        unsafe { aqm::<T>(h) }.poll(Time(now));
        OK
    })
}

unsafe extern "C" fn signal<T: PluginAqm>(h: Handle, value: *mut f64, kind: *mut u32) -> i32 {
    guarded(std::ptr::null_mut(), || {
        let a = unsafe { aqm::<T>(h) };
        unsafe {
            *value = a.signal();
            *kind = signal_code(a.signal_kind());
        }
        OK
    })
}

unsafe extern "C" fn clone<T: PluginAqm>(h: Handle, out: *mut Handle) -> i32 {
    guarded(std::ptr::null_mut(), || {
        let c = unsafe { aqm::<T>(h) }.clone();
        unsafe { *out = Box::into_raw(Box::new(c)) as Handle };
        OK
    })
}

unsafe extern "C" fn free<T: PluginAqm>(h: Handle) {
    if !h.is_null() {
        drop(unsafe { Box::from_raw(h as *mut T) });
    }
}

/// The entry points of type `T` ([`export_aqm!`](crate::export_aqm) exports them).
pub fn api<T: PluginAqm>() -> &'static Api {
    Box::leak(Box::new(Api {
        abi: ABI,
        version: RawText::of(AQM_VERSION),
        new: new::<T>,
        on_arrival: on_arrival::<T>,
        on_removed: on_removed::<T>,
        limit: limit::<T>,
        poll_at: poll_at::<T>,
        poll: poll::<T>,
        signal: signal::<T>,
        clone: clone::<T>,
        free: free::<T>,
    }))
}

/// Export `$ty` (a [`PluginAqm`]) as the AQM of this shared library.
#[macro_export]
macro_rules! export_aqm {
    ($ty:ty) => {
        /// The AQM of this plugin, for aqmlab.
        #[unsafe(no_mangle)]
        pub extern "C" fn aqmlab_plugin() -> *const $crate::plugin::Api {
            static API: ::std::sync::OnceLock<&'static $crate::plugin::Api> =
                ::std::sync::OnceLock::new();
            *API.get_or_init(|| $crate::plugin::api::<$ty>())
        }
    };
}
