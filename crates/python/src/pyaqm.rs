//! Python classes as AQMs: the `python` queue type of `aqm::external`.
//!
//! `queue = { type = "python", class = "my_aqm:MyAqm", ...params }`: the class is
//! imported when the configuration is read ([`PythonKind::probe`]), made with the
//! other keys as keyword arguments for each queue, and asked
//! `enqueue(now, pkt, q) -> "enqueue" | "drop" | "mark"` at each arrival and, if it
//! has one, `dequeue(now, pkt, q) -> "send" | "drop" | "mark"` for the packet at the
//! head each time the line is free. `now` and `pkt.enqueued_at` are integer
//! nanoseconds (the simulator's clock, exact); `pkt` and `q` are one object each per
//! queue, updated before each call. A call that raises or answers anything else stops
//! the run ([`Failure`]) naming the class, the method, the time and the flow.

use ::aqm::common::{AqmRng, rng_from_seed, uniform01};
use ::aqm::config::{BuildContext, DEFAULT_LINK_RATE_BPS, Value};
use ::aqm::external::{DequeueVerdict, ExternalAqm, ExternalConfig, ExternalKind, Failure};
use ::aqm::{AqmError, Backlog, DropReason, Limit, PacketInfo, SignalKind, Time, Verdict};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

/// What the class sees of a packet.
#[pyclass(module = "aqmlab._native", name = "AqmPacket")]
pub struct PyAqmPacket {
    /// Size on the wire, bytes.
    #[pyo3(get)]
    size: u32,
    /// The flow's number.
    #[pyo3(get)]
    flow: u32,
    /// "not-ect", "ect0", "ect1" or "ce".
    #[pyo3(get)]
    ecn: Py<PyString>,
    /// When it was enqueued (ns), at dequeue; None at enqueue.
    #[pyo3(get)]
    enqueued_at: Option<u64>,
}

/// The queue as the class sees it, with the run's generator.
#[pyclass(module = "aqmlab._native", name = "AqmQueueView")]
pub struct PyAqmQueue {
    /// Packets waiting (before the arrival at enqueue; counting the head at dequeue).
    #[pyo3(get)]
    packets: u32,
    /// Bytes waiting.
    #[pyo3(get)]
    bytes: u64,
    /// Rate of the link the queue feeds, b/s.
    #[pyo3(get)]
    link_rate_bps: f64,
    /// The queue's seeded generator.
    #[pyo3(get)]
    rng: Py<PyAqmRng>,
}

/// A seeded generator owned by the run: the stream the built-in AQMs draw from for the
/// same queue seed (`aqm::common::AqmRng`).
#[pyclass(module = "aqmlab._native", name = "AqmRng")]
pub struct PyAqmRng {
    rng: AqmRng,
}

#[pymethods]
impl PyAqmRng {
    /// A uniform number in [0, 1), the draw of the built-in RED, BLUE, PIE, ...
    fn random(&mut self) -> f64 {
        uniform01(&mut self.rng)
    }
}

/// The strings the class answers and the ECN codepoints, interned once per queue.
struct Words {
    enqueue: Py<PyString>,
    drop: Py<PyString>,
    mark: Py<PyString>,
    send: Py<PyString>,
    ecn: [Py<PyString>; 4],
}

impl Words {
    fn new(py: Python<'_>) -> Words {
        let w = |s| PyString::intern(py, s).unbind();
        Words {
            enqueue: w("enqueue"),
            drop: w("drop"),
            mark: w("mark"),
            send: w("send"),
            ecn: [w("not-ect"), w("ect0"), w("ect1"), w("ce")],
        }
    }
    fn share(&self, py: Python<'_>) -> Words {
        Words {
            enqueue: self.enqueue.clone_ref(py),
            drop: self.drop.clone_ref(py),
            mark: self.mark.clone_ref(py),
            send: self.send.clone_ref(py),
            ecn: self.ecn.each_ref().map(|s| s.clone_ref(py)),
        }
    }
}

/// The ECN codepoint's index in [`Words::ecn`].
fn ecn_index(p: &PacketInfo) -> usize {
    if p.ce {
        3
    } else if p.ect1 {
        2
    } else if p.ecn_capable {
        1
    } else {
        0
    }
}

/// An instance of the class, for one queue.
pub struct PyAqm {
    name: String,
    enqueue: Py<PyAny>,
    dequeue: Option<Py<PyAny>>,
    signal: Option<Py<PyAny>>,
    signal_kind: SignalKind,
    stats: Option<Py<PyAny>>,
    pkt: Py<PyAqmPacket>,
    q: Py<PyAqmQueue>,
    /// The arguments `(now, pkt, q)`, one tuple reused from call to call (see
    /// [`PyAqm::args`]).
    args: Py<PyTuple>,
    words: Words,
    limit: Limit,
}

impl std::fmt::Debug for PyAqm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyAqm({})", self.name)
    }
}

/// The answers allowed from `enqueue`, in words.
const ENQUEUE_ANSWERS: &str = "\"enqueue\", \"drop\" or \"mark\" (or \"drop_early\", \
                               \"drop_forced\", \"drop_overflow\" to say why)";

impl PyAqm {
    /// Call `method` (named `name`) with `(now, pkt, q)` after updating `pkt` and `q`.
    #[allow(clippy::too_many_arguments)]
    fn call<'py>(
        &self,
        py: Python<'py>,
        method: &Py<PyAny>,
        name: &str,
        now: Time,
        pkt: &PacketInfo,
        backlog: Backlog,
        enqueued_at: Option<Time>,
    ) -> Bound<'py, PyAny> {
        {
            let mut p = self.pkt.bind(py).borrow_mut();
            p.size = pkt.size;
            p.flow = pkt.flow;
            p.ecn = self.words.ecn[ecn_index(pkt)].clone_ref(py);
            p.enqueued_at = enqueued_at.map(|t| t.0);
            let mut q = self.q.bind(py).borrow_mut();
            q.packets = backlog.packets;
            q.bytes = backlog.bytes;
        }
        match self.args(py, now).and_then(|args| method.bind(py).call1(&args)) {
            Ok(r) => r,
            Err(e) => self.fail(py, name, now, Some(pkt.flow), e),
        }
    }

    /// The arguments `(now, pkt, q)`: the queue's tuple with `now` put in while nothing
    /// else refers to it (a method taking `*args` may keep it), else a new one. (A new
    /// tuple per call cost a tenth of a Python RED's run: its allocation, and the
    /// garbage collections that allocating containers sets off.)
    fn args<'py>(&self, py: Python<'py>, now: Time) -> PyResult<Bound<'py, PyTuple>> {
        let args = self.args.bind(py);
        let now = now.0.into_pyobject(py)?;
        // SAFETY: `args` is a live object (its reference count is read).
        if unsafe { pyo3::ffi::Py_REFCNT(args.as_ptr()) } == 1 {
            // SAFETY: `args` is a tuple of length 3 that nothing else refers to, which
            // PyTuple_SetItem may change; it takes the reference to `now` and releases
            // the one to the item it replaces.
            let r = unsafe { pyo3::ffi::PyTuple_SetItem(args.as_ptr(), 0, now.into_ptr()) };
            if r != 0 {
                return Err(PyErr::fetch(py));
            }
            return Ok(args.clone());
        }
        let (pkt, q) = (self.pkt.bind(py).as_any(), self.q.bind(py).as_any());
        PyTuple::new(py, [now.as_any(), pkt, q])
    }

    /// Stop the run: `method` raised `e`.
    fn fail(&self, py: Python<'_>, method: &str, now: Time, flow: Option<u32>, e: PyErr) -> ! {
        let mut f = Failure::new(&self.name, method, now, flow, &format!("raised {e}"));
        let _ = py;
        f.cause = Some(Box::new(e));
        f.raise()
    }

    /// Stop the run: `method` answered `r`, not one of `allowed`.
    fn bad_answer(
        &self,
        method: &str,
        now: Time,
        flow: u32,
        r: &Bound<'_, PyAny>,
        allowed: &str,
    ) -> ! {
        let shown = r.repr().map_or_else(|_| "?".to_string(), |s| s.to_string());
        let shown: String = shown.chars().take(80).collect();
        let problem = format!("returned {shown}; allowed {allowed}");
        Failure::new(&self.name, method, now, Some(flow), &problem).raise()
    }

    /// The string `r` if it is one.
    fn word<'a>(r: &'a Bound<'_, PyAny>) -> Option<std::borrow::Cow<'a, str>> {
        r.cast::<PyString>().ok().and_then(|s| s.to_cow().ok())
    }

    /// A mark of a packet that is not ECN-capable stops the run.
    fn check_mark(&self, method: &str, now: Time, pkt: &PacketInfo) {
        if !pkt.ecn_capable {
            let problem = "returned \"mark\" for a packet that is not ECN-capable \
                           (pkt.ecn == \"not-ect\"); drop it instead";
            Failure::new(&self.name, method, now, Some(pkt.flow), problem).raise()
        }
    }
}

impl ExternalAqm for PyAqm {
    fn kind(&self) -> &'static str {
        "python"
    }

    fn on_arrival(&mut self, now: Time, pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        Python::attach(|py| {
            let r = self.call(py, &self.enqueue, "enqueue", now, pkt, backlog, None);
            let w = &self.words;
            if r.is(w.enqueue.bind(py)) {
                return Verdict::Enqueue;
            }
            if r.is(w.drop.bind(py)) {
                return Verdict::Drop(DropReason::Early);
            }
            let verdict = match Self::word(&r).as_deref() {
                Some("enqueue") => Verdict::Enqueue,
                Some("drop" | "drop_early") => Verdict::Drop(DropReason::Early),
                Some("drop_forced") => Verdict::Drop(DropReason::Forced),
                Some("drop_overflow") => Verdict::Drop(DropReason::Overflow),
                Some("mark") => Verdict::Mark,
                _ => self.bad_answer("enqueue", now, pkt.flow, &r, ENQUEUE_ANSWERS),
            };
            if verdict == Verdict::Mark {
                self.check_mark("enqueue", now, pkt);
            }
            verdict
        })
    }

    fn decides_at_dequeue(&self) -> bool {
        self.dequeue.is_some()
    }

    fn on_dequeue(
        &mut self,
        now: Time,
        pkt: &PacketInfo,
        enqueued_at: Time,
        backlog: Backlog,
    ) -> DequeueVerdict {
        let Some(dequeue) = self.dequeue.as_ref() else { return DequeueVerdict::Send };
        Python::attach(|py| {
            let r = self.call(py, dequeue, "dequeue", now, pkt, backlog, Some(enqueued_at));
            let w = &self.words;
            if r.is(w.send.bind(py)) {
                return DequeueVerdict::Send;
            }
            let v = match Self::word(&r).as_deref() {
                Some("send") => DequeueVerdict::Send,
                Some("drop") => DequeueVerdict::Drop,
                Some("mark") => DequeueVerdict::Mark,
                _ => {
                    self.bad_answer("dequeue", now, pkt.flow, &r, "\"send\", \"drop\" or \"mark\"")
                }
            };
            if v == DequeueVerdict::Mark {
                self.check_mark("dequeue", now, pkt);
            }
            v
        })
    }

    fn limit(&self) -> Limit {
        self.limit
    }

    fn signal(&self) -> f64 {
        let Some(signal) = self.signal.as_ref() else { return 0.0 };
        Python::attach(|py| match signal.bind(py).call0().and_then(|v| v.extract::<f64>()) {
            Ok(v) => v,
            Err(e) => self.fail(py, "signal", Time(0), None, e),
        })
    }

    fn signal_kind(&self) -> SignalKind {
        self.signal_kind
    }

    fn stats(&self) -> Vec<(String, f64)> {
        let Some(stats) = self.stats.as_ref() else { return Vec::new() };
        Python::attach(|py| {
            let r = stats.bind(py).call0().and_then(|v| {
                v.extract::<Vec<(String, f64)>>().or_else(|_| {
                    let d = v.cast::<PyDict>().map_err(PyErr::from)?;
                    d.iter()
                        .map(|(k, v)| Ok((k.extract::<String>()?, v.extract::<f64>()?)))
                        .collect()
                })
            });
            match r {
                Ok(v) => v,
                Err(e) => self.fail(py, "stats", Time(0), None, e),
            }
        })
    }

    fn share(&self) -> Box<dyn ExternalAqm> {
        Python::attach(|py| {
            let c = |o: &Option<Py<PyAny>>| o.as_ref().map(|o| o.clone_ref(py));
            Box::new(PyAqm {
                name: self.name.clone(),
                enqueue: self.enqueue.clone_ref(py),
                dequeue: c(&self.dequeue),
                signal: c(&self.signal),
                signal_kind: self.signal_kind,
                stats: c(&self.stats),
                pkt: self.pkt.clone_ref(py),
                q: self.q.clone_ref(py),
                // (its own tuple: one shared by two handles could never be reused)
                args: new_args(py, &self.pkt, &self.q).unwrap_or_else(|_| self.args.clone_ref(py)),
                words: self.words.share(py),
                limit: self.limit,
            }) as Box<dyn ExternalAqm>
        })
    }
}

/// A tuple `(0, pkt, q)`, the arguments of the calls of one queue (see [`PyAqm::args`]).
fn new_args(py: Python<'_>, pkt: &Py<PyAqmPacket>, q: &Py<PyAqmQueue>) -> PyResult<Py<PyTuple>> {
    let zero = 0u64.into_pyobject(py)?;
    Ok(PyTuple::new(py, [zero.as_any(), pkt.bind(py).as_any(), q.bind(py).as_any()])?.unbind())
}

/// The `python` queue type.
pub struct PythonKind;

/// A configuration error at the `class` key.
fn class_error(message: String) -> AqmError {
    AqmError::config("class", message)
}

/// The class `target` ("module:Class") names, imported, with an `enqueue`.
fn import_class<'py>(py: Python<'py>, target: &str) -> Result<Bound<'py, PyAny>, AqmError> {
    use pyo3::exceptions::PyModuleNotFoundError;
    let Some((module, class)) = target.split_once(':') else {
        return Err(AqmError::invalid(
            "class",
            format!("{target:?}"),
            "\"module:Class\", a module beside the scenario file or on sys.path and a class in it",
        ));
    };
    let m = PyModule::import(py, module).map_err(|e| {
        let missing = e.is_instance_of::<PyModuleNotFoundError>(py)
            && e.value(py)
                .getattr("name")
                .ok()
                .and_then(|n| n.extract::<String>().ok())
                .is_some_and(|n| module == n || module.starts_with(&format!("{n}.")));
        if missing {
            class_error(format!(
                "{target}: no module `{module}` beside the scenario file or on sys.path"
            ))
        } else {
            class_error(format!("{target}: importing `{module}` raised {e}"))
        }
    })?;
    let cls = m
        .getattr(class)
        .map_err(|_| class_error(format!("{target}: module `{module}` has no `{class}`")))?;
    if !cls.is_callable() {
        return Err(class_error(format!("{target}: `{class}` is not a class")));
    }
    let has = |name: &str| cls.getattr(name).is_ok_and(|m| m.is_callable());
    if !has("enqueue") {
        return Err(class_error(format!(
            "{target}: the class has no method enqueue(self, now, pkt, q), which every AQM needs"
        )));
    }
    Ok(cls)
}

/// A parameter as a Python value.
fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::UInt(u) => u.into_pyobject(py)?.into_any(),
        Value::Float(x) => x.into_pyobject(py)?.into_any(),
        Value::Str(s) => PyString::new(py, s).into_any(),
        Value::Null | Value::List | Value::Table => py.None().into_bound(py),
    })
}

/// What the instance's optional `signal_kind` says its `signal()` measures (default:
/// an average queue).
fn signal_kind_of(obj: &Bound<'_, PyAny>, target: &str) -> Result<SignalKind, AqmError> {
    let Ok(k) = obj.getattr("signal_kind") else { return Ok(SignalKind::AverageQueue) };
    let k: String = k.extract().unwrap_or_default();
    [SignalKind::AverageQueue, SignalKind::Probability, SignalKind::DropCount, SignalKind::None]
        .into_iter()
        .find(|s| s.as_str() == k)
        .ok_or_else(|| {
            class_error(format!(
                "{target}: signal_kind = {k:?}; allowed \"average_queue\", \"probability\", \
                 \"drop_count\" or \"none\""
            ))
        })
}

impl ExternalKind for PythonKind {
    fn name(&self) -> &'static str {
        "python"
    }
    fn target_key(&self) -> &'static str {
        "class"
    }
    fn probe(&self, cfg: &ExternalConfig) -> Result<bool, AqmError> {
        Python::attach(|py| {
            let cls = import_class(py, &cfg.target)?;
            Ok(cls.getattr("dequeue").is_ok_and(|m| m.is_callable()))
        })
    }
    fn build(
        &self,
        cfg: &ExternalConfig,
        ctx: &BuildContext,
    ) -> Result<Box<dyn ExternalAqm>, AqmError> {
        let seed = cfg.seed(ctx)?;
        let limit = cfg.limit()?;
        let target = &cfg.target;
        let py_err = |e: PyErr| class_error(format!("{target}: {e}"));
        Python::attach(|py| {
            let cls = import_class(py, target)?;
            let kwargs = PyDict::new(py);
            for (k, v) in &cfg.params {
                kwargs.set_item(k, value_to_py(py, v).map_err(py_err)?).map_err(py_err)?;
            }
            let obj = cls
                .call((), Some(&kwargs))
                .map_err(|e| class_error(format!("{target}(**params) raised {e}")))?;
            let method = |name: &str| obj.getattr(name).ok().filter(|m| m.is_callable());
            let enqueue = method("enqueue")
                .ok_or_else(|| class_error(format!("{target}: no method enqueue")))?;
            let signal = method("signal");
            let signal_kind =
                if signal.is_some() { signal_kind_of(&obj, target)? } else { SignalKind::None };
            let words = Words::new(py);
            let rng = Py::new(py, PyAqmRng { rng: rng_from_seed(seed) }).map_err(py_err)?;
            let link_rate_bps = ctx.link_rate_bps.unwrap_or(DEFAULT_LINK_RATE_BPS);
            let q = PyAqmQueue { packets: 0, bytes: 0, link_rate_bps, rng };
            let pkt = PyAqmPacket {
                size: 0,
                flow: 0,
                ecn: words.ecn[0].clone_ref(py),
                enqueued_at: None,
            };
            let pkt = Py::new(py, pkt).map_err(py_err)?;
            let q = Py::new(py, q).map_err(py_err)?;
            Ok(Box::new(PyAqm {
                name: target.clone(),
                enqueue: enqueue.unbind(),
                dequeue: if cfg.holds_packets {
                    method("dequeue").map(Bound::unbind)
                } else {
                    None
                },
                signal: signal.map(Bound::unbind),
                signal_kind,
                stats: method("stats").map(Bound::unbind),
                args: new_args(py, &pkt, &q).map_err(py_err)?,
                pkt,
                q,
                words,
                limit,
            }) as Box<dyn ExternalAqm>)
        })
    }
}

/// Register the `python` queue type, the classes the class sees, and the `plugin` type.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    static KIND: PythonKind = PythonKind;
    ::aqm::external::register(&KIND);
    ::aqm::plugin::host::register();
    m.add_class::<PyAqmPacket>()?;
    m.add_class::<PyAqmQueue>()?;
    m.add_class::<PyAqmRng>()?;
    m.add("ExternalAqmError", m.py().get_type::<crate::errors::ExternalAqmError>())?;
    Ok(())
}
