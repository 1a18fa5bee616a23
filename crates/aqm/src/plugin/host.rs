//! Loading plugins: the `plugin` queue type of [`crate::external`]. A library is opened
//! once per path ([`libloading`]) and stays loaded; its [`Api`] is checked (the ABI and
//! this crate's version, both named when they differ) before anything else is called.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{ABI, AQM_VERSION, Api, Handle, OK, Params, RawError, RawPacket, SYMBOL};
use crate::common::Limit;
use crate::config::{BuildContext, DEFAULT_LINK_RATE_BPS};
use crate::error::{AqmError, Result};
use crate::external::{ExternalAqm, ExternalConfig, ExternalKind, Failure};
use crate::packet::{Backlog, PacketInfo, Verdict};
use crate::queue::SignalKind;
use crate::time::Time;

/// The `plugin` queue type; [`register`] makes it available.
pub struct PluginKind;

/// Register the `plugin` queue type (see [`crate::external::register`]).
pub fn register() {
    static KIND: PluginKind = PluginKind;
    crate::external::register(&KIND);
}

/// The libraries loaded so far, by canonical path.
static LOADED: Mutex<Vec<(PathBuf, &'static Api)>> = Mutex::new(Vec::new());

fn path_error(message: String) -> AqmError {
    AqmError::config("path", message)
}

/// The checked entry points of the plugin at `target` (a path, relative to the working
/// directory), loading it the first time.
pub fn load(target: &str) -> Result<&'static Api> {
    let canon =
        Path::new(target).canonicalize().map_err(|e| path_error(format!("{target}: {e}")))?;
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, api)) = loaded.iter().find(|(p, _)| *p == canon) {
        return Ok(api);
    }
    // SAFETY: loading runs the library's initialisers: the user asked for this library.
    let lib = unsafe { libloading::Library::new(&canon) }.map_err(|e| {
        path_error(format!("{target} is not a plugin: it does not load as a shared library ({e})"))
    })?;
    // SAFETY: the symbol's type is the one `export_aqm!` gives it.
    let entry =
        unsafe { lib.get::<unsafe extern "C" fn() -> *const Api>(SYMBOL) }.map_err(|_| {
            path_error(format!(
                "{target} is not an aqmlab plugin: it exports no `aqmlab_plugin` (a crate exports \
             its AQM with aqm::export_aqm!)"
            ))
        })?;
    // SAFETY: `abi` and `version` lead the table in every ABI.
    let api: &'static Api = unsafe { &*entry() };
    let version = unsafe { api.version.as_str() };
    if api.abi != ABI || version != AQM_VERSION {
        return Err(path_error(format!(
            "{target} was built against aqm {version} (plugin ABI {}); this aqmlab has aqm \
             {AQM_VERSION} (plugin ABI {ABI}): rebuild the plugin against this version",
            api.abi
        )));
    }
    // (never unloaded: its code may run until the process ends)
    std::mem::forget(lib);
    loaded.push((canon, api));
    Ok(api)
}

impl ExternalKind for PluginKind {
    fn name(&self) -> &'static str {
        "plugin"
    }
    fn target_key(&self) -> &'static str {
        "path"
    }
    fn probe(&self, cfg: &ExternalConfig) -> Result<bool> {
        load(&cfg.target).map(|_| false)
    }
    fn build(&self, cfg: &ExternalConfig, ctx: &BuildContext) -> Result<Box<dyn ExternalAqm>> {
        let api = load(&cfg.target)?;
        let text = Params::new(cfg.params.clone()).encode()?;
        let rate = ctx.link_rate_bps.unwrap_or(DEFAULT_LINK_RATE_BPS);
        let mut p = Plugin::new(cfg.target.clone(), api, std::ptr::null_mut());
        let mut h: Handle = std::ptr::null_mut();
        let mut err = p.error_buffer();
        // SAFETY: the table was checked; the text, `h` and `err` outlive the call.
        let rc =
            unsafe { (api.new)(super::RawText::of(&text), rate, cfg.seed(ctx)?, &mut h, &mut err) };
        let msg = p.message(&err);
        match rc {
            OK => {
                p.h = h;
                p.signal_kind = p.query_signal().1;
                Ok(Box::new(p))
            }
            super::INVALID => Err(AqmError::config("", msg)),
            _ => Err(path_error(format!("{}: new panicked: {msg}", cfg.target))),
        }
    }
}

/// An instance of a plugin's AQM.
#[derive(Debug)]
struct Plugin {
    name: String,
    api: &'static Api,
    h: Handle,
    buf: Vec<u8>,
    signal_kind: SignalKind,
}

// SAFETY: the instance is the plugin's `PluginAqm` (`Send`), used by one owner at a
// time; the `&self` entry points only read it.
unsafe impl Send for Plugin {}
unsafe impl Sync for Plugin {}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Api(abi {})", self.abi)
    }
}

impl Plugin {
    fn new(name: String, api: &'static Api, h: Handle) -> Plugin {
        Plugin { name, api, h, buf: vec![0; 1024], signal_kind: SignalKind::None }
    }
    fn error_buffer(&mut self) -> RawError {
        RawError { buf: self.buf.as_mut_ptr(), cap: self.buf.len(), len: 0 }
    }
    fn message(&self, err: &RawError) -> String {
        String::from_utf8_lossy(&self.buf[..err.len.min(self.buf.len())]).into_owned()
    }
    /// Stop the run: `method` panicked (or answered what no verdict is).
    fn fail(&self, method: &str, now: Time, flow: Option<u32>, problem: &str) -> ! {
        Failure::new(&format!("plugin {}", self.name), method, now, flow, problem).raise()
    }
    fn query_signal(&self) -> (f64, SignalKind) {
        let (mut v, mut k) = (0.0, 0);
        // SAFETY: a live handle of this table.
        if unsafe { (self.api.signal)(self.h, &mut v, &mut k) } != OK {
            self.fail("signal", Time(0), None, "panicked");
        }
        (v, super::signal_kind(k))
    }
}

impl Drop for Plugin {
    fn drop(&mut self) {
        if !self.h.is_null() {
            // SAFETY: a live handle of this table, freed once.
            unsafe { (self.api.free)(self.h) }
        }
    }
}

impl ExternalAqm for Plugin {
    fn kind(&self) -> &'static str {
        "plugin"
    }
    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        let mut v = 0;
        let mut err = self.error_buffer();
        let raw = RawPacket::of(pkt);
        // SAFETY: a live handle of this table; `v` and `err` outlive the call.
        let rc = unsafe {
            (self.api.on_arrival)(
                self.h,
                now.0,
                raw,
                backlog.packets,
                backlog.bytes,
                &mut v,
                &mut err,
            )
        };
        if rc != OK {
            self.fail(
                "on_arrival",
                now,
                Some(pkt.flow),
                &format!("panicked: {}", self.message(&err)),
            );
        }
        super::decode(v).unwrap_or_else(|| {
            self.fail("on_arrival", now, Some(pkt.flow), &format!("answered no verdict ({v})"))
        })
    }
    fn on_removed(&mut self, now: Time, pkt: &PacketInfo, after: Backlog, departed: bool) {
        let mut err = self.error_buffer();
        let raw = RawPacket::of(pkt);
        let d = u32::from(departed);
        // SAFETY: as in `on_arrival`.
        let rc = unsafe {
            (self.api.on_removed)(self.h, now.0, raw, after.packets, after.bytes, d, &mut err)
        };
        if rc != OK {
            self.fail(
                "on_removed",
                now,
                Some(pkt.flow),
                &format!("panicked: {}", self.message(&err)),
            );
        }
    }
    fn limit(&self) -> Limit {
        let (mut p, mut b) = (u64::MAX, u64::MAX);
        // SAFETY: a live handle of this table.
        if unsafe { (self.api.limit)(self.h, &mut p, &mut b) } != OK {
            self.fail("limit", Time(0), None, "panicked");
        }
        let packets = (p != u64::MAX).then(|| p.min(u64::from(u32::MAX)) as u32);
        Limit { packets, bytes: (b != u64::MAX).then_some(b) }
    }
    fn poll_at(&self) -> Option<Time> {
        let mut at = 0;
        // SAFETY: a live handle of this table.
        match unsafe { (self.api.poll_at)(self.h, &mut at) } {
            1 => Some(Time(at)),
            0 => None,
            _ => self.fail("poll_at", Time(0), None, "panicked"),
        }
    }
    fn poll(&mut self, now: Time) {
        let mut err = self.error_buffer();
        // SAFETY: a live handle of this table.
        if unsafe { (self.api.poll)(self.h, now.0, &mut err) } != OK {
            self.fail("poll", now, None, &format!("panicked: {}", self.message(&err)));
        }
    }
    fn signal(&self) -> f64 {
        self.query_signal().0
    }
    fn signal_kind(&self) -> SignalKind {
        self.signal_kind
    }
    fn share(&self) -> Box<dyn ExternalAqm> {
        let mut h: Handle = std::ptr::null_mut();
        // SAFETY: a live handle of this table.
        if unsafe { (self.api.clone)(self.h, &mut h) } != OK {
            self.fail("clone", Time(0), None, "panicked");
        }
        let mut p = Plugin::new(self.name.clone(), self.api, h);
        p.signal_kind = self.signal_kind;
        Box::new(p)
    }
}
