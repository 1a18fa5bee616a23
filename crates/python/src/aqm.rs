//! Bindings of the AQM library: one class, `Queue`, built from a configuration
//! dict (`{"type": "red", "min_th": 5, ...}`) as an `aqm::AnyQdisc` (every type: an
//! arrival-time discipline over a FIFO, or one that decides at dequeue or schedules);
//! `aqmlab.aqm` makes a class per type of the AQM registry from `queue_schema`.

use ::aqm::config::{BuildContext, QueueConfig};
use ::aqm::{AnyQdisc, DropReason, Fred, PacketInfo, Qdisc, SignalKind, Time, Verdict};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

use crate::errors::{aqm_error, config_error, guard};

/// A dropped packet as Python sees it: (size, flow, reason).
type Dropped = (u32, u32, &'static str);

/// A queue discipline holding its packets.
#[pyclass(module = "aqmlab._native", name = "Queue", subclass)]
pub struct PyQueue {
    q: AnyQdisc<PacketInfo>,
    config: QueueConfig,
    last_dropped: Vec<Dropped>,
    /// Packets discarded by the last dequeue.
    last_dequeue_dropped: Vec<Dropped>,
    /// Packets discarded by dequeues since construction.
    dequeue_drops: u64,
    /// The `now` of the last call that took one (times never go back).
    last_now: Option<f64>,
}

impl PyQueue {
    /// `now` read and checked: finite, >= 0, and not before the previous call's.
    fn time(&mut self, now: f64) -> PyResult<Time> {
        if !(now.is_finite() && now >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "now = {now} is invalid: allowed a finite time >= 0 (seconds)"
            )));
        }
        if let Some(prev) = self.last_now
            && now < prev
        {
            return Err(PyValueError::new_err(format!(
                "now = {now} is invalid: earlier than the previous call's now = {prev}; \
                 allowed a time >= {prev} (seconds)"
            )));
        }
        self.last_now = Some(now);
        Ok(Time::from_secs_f64(now))
    }

    /// The next packet at `now`, with the packets the qdisc discards on the way kept
    /// in `last_dequeue_dropped`.
    fn take(&mut self, now: f64) -> PyResult<Option<(u32, u32, bool)>> {
        let now = self.time(now)?;
        self.last_dequeue_dropped.clear();
        let dropped = &mut self.last_dequeue_dropped;
        let q = &mut self.q;
        let out =
            guard(
                || Ok(q.dequeue(now, &mut |p, r| dropped.push((p.size, p.flow, reason_str(r))))),
            )?;
        self.dequeue_drops += self.last_dequeue_dropped.len() as u64;
        Ok(out.map(|d| (d.pkt.size, d.pkt.flow, d.marked)))
    }

    /// The RED family's value named `name` (`avg`, `count`, `max_p`) of the discipline's
    /// state ([`Qdisc::inspect`]), if it is of the family (its signal an average queue).
    fn red_state(&self, name: &str) -> Option<f64> {
        if self.q.signal_kind() != SignalKind::AverageQueue {
            return None;
        }
        let mut found = None;
        self.q.inspect(&mut |k, v| {
            if k == name {
                found = Some(v);
            }
        });
        found
    }
}

/// A flag given by a caller: `True` or `False` (a NumPy bool too), nothing else.
fn flag(v: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    if v.is_instance_of::<PyBool>() || v.get_type().name()? == "bool" {
        return v.extract::<bool>();
    }
    Err(PyValueError::new_err(format!("{name} = {v} is invalid: allowed True or False")))
}

fn reason_str(r: DropReason) -> &'static str {
    match r {
        DropReason::Early => "early",
        DropReason::Forced => "forced",
        DropReason::Overflow => "overflow",
        DropReason::FlowLimit => "flow_limit",
    }
}

#[pymethods]
impl PyQueue {
    /// Build from a configuration dict with a `type` key.
    #[new]
    fn new(config: &Bound<'_, PyDict>) -> PyResult<Self> {
        let cfg: QueueConfig = crate::errors::queue_config_from_python(config.as_any())?;
        let q = guard(|| cfg.build_qdisc(&BuildContext::default()).map_err(aqm_error))?;
        Ok(PyQueue {
            q,
            config: cfg,
            last_dropped: Vec::new(),
            last_dequeue_dropped: Vec::new(),
            dequeue_drops: 0,
            last_now: None,
        })
    }

    /// Offer a packet at time `now` (seconds, never before the previous call's).
    /// Returns "enqueue", "mark", "drop_early" or "drop_forced" (an eviction of a
    /// queued packet to make room is a forced drop; `last_dropped` says which packet
    /// went). `ect1`: an ECT(1) packet of a scalable (L4S) sender, `ce`: a packet that
    /// arrives CE-marked by an upstream queue; both are ECN-capable (`ecn_capable`
    /// defaults to True with either, and may not be False). DualPI2 puts ECT(1) and CE
    /// packets in its L queue; the other disciplines see only `ecn_capable`.
    #[pyo3(signature = (now, size, flow, ecn_capable=None, ect1=None, ce=None))]
    fn enqueue(
        &mut self,
        now: f64,
        size: i64,
        flow: i64,
        ecn_capable: Option<&Bound<'_, PyAny>>,
        ect1: Option<&Bound<'_, PyAny>>,
        ce: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        let opt = |v: Option<&Bound<'_, PyAny>>, name| v.map(|v| flag(v, name)).transpose();
        let (ect1, ce) = (opt(ect1, "ect1")?.unwrap_or(false), opt(ce, "ce")?.unwrap_or(false));
        let ecn_capable = match opt(ecn_capable, "ecn_capable")? {
            Some(false) if ect1 || ce => {
                let which = if ect1 { "ect1" } else { "ce" };
                return Err(PyValueError::new_err(format!(
                    "ecn_capable = False is invalid with {which} = True: an ECT(1) or CE \
                     packet is ECN-capable (allowed: True or omitted)"
                )));
            }
            Some(v) => v,
            None => ect1 || ce,
        };
        if !(1..=u32::MAX as i64).contains(&size) {
            return Err(PyValueError::new_err(format!(
                "size = {size} is invalid: allowed 1..{} bytes",
                u32::MAX
            )));
        }
        if !(0..=u32::MAX as i64).contains(&flow) {
            return Err(PyValueError::new_err(format!(
                "flow = {flow} is invalid: allowed 0..{}",
                u32::MAX
            )));
        }
        let now = self.time(now)?;
        let pkt = PacketInfo { size: size as u32, flow: flow as u32, ecn_capable, ect1, ce };
        self.last_dropped.clear();
        let dropped = &mut self.last_dropped;
        let q = &mut self.q;
        let v = guard(|| {
            Ok(q.enqueue(now, pkt, &mut |p, r| dropped.push((p.size, p.flow, reason_str(r)))))
        })?;
        Ok(match v {
            Verdict::Evict { .. } => "drop_forced",
            v => v.as_str(),
        })
    }

    /// Take the next packet to send at time `now`: `(size, flow)` or None. Packets
    /// the discipline discards on the way (decisions at dequeue) are in
    /// `last_dequeue_dropped`.
    fn dequeue(&mut self, now: f64) -> PyResult<Option<(u32, u32)>> {
        Ok(self.take(now)?.map(|(size, flow, _)| (size, flow)))
    }

    /// As `dequeue`, with whether the packet leaves marked (ECN CE, at enqueue or at
    /// dequeue): `(size, flow, marked)` or None.
    fn dequeue_marked(&mut self, now: f64) -> PyResult<Option<(u32, u32, bool)>> {
        self.take(now)
    }

    /// Run periodic work (Adaptive RED's interval, PIE's update) due at `now`.
    /// Arrivals do it too for the RED family.
    fn poll(&mut self, now: f64) -> PyResult<()> {
        let now = self.time(now)?;
        let q = &mut self.q;
        guard(|| {
            q.poll(now);
            Ok(())
        })
    }

    /// When periodic work is next due (seconds), or None.
    #[getter]
    fn poll_at(&self) -> Option<f64> {
        self.q.poll_at().map(|t| t.as_secs_f64())
    }

    /// The discipline's main congestion signal: RED's average queue, PIE's drop
    /// probability, CoDel's drop count; 0 when it has none (`signal_kind` says which).
    #[getter]
    fn signal(&self) -> f64 {
        self.q.signal()
    }
    /// What `signal` measures: "average_queue", "probability", "drop_count" or "none".
    #[getter]
    fn signal_kind(&self) -> &'static str {
        self.q.signal_kind().as_str()
    }
    /// The discipline's state under its paper's names (RED's avg, count and max_p,
    /// BLUE's p_m, PIE's drop_prob, ...): a dict of floats.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let mut err = Ok(());
        self.q.inspect(&mut |k, v| {
            if err.is_ok() {
                err = d.set_item(k, v);
            }
        });
        err.map(|_| d)
    }

    /// Average queue size (packets, or bytes when measured in bytes) of the RED family,
    /// FRED and CHOKe (`state["avg"]`); 0 for the disciplines without one.
    #[getter]
    fn avg(&self) -> f64 {
        self.red_state("avg").unwrap_or(0.0)
    }
    /// RED's count (`state["count"]` of the RED family; 0 for the other disciplines).
    #[getter]
    fn count(&self) -> i64 {
        self.red_state("count").map_or(0, |c| c as i64)
    }
    /// The current max_p (`state["max_p"]` of the RED family; 0 for the other disciplines).
    #[getter]
    fn max_p(&self) -> f64 {
        self.red_state("max_p").unwrap_or(0.0)
    }
    #[getter]
    fn len_packets(&self) -> usize {
        self.q.backlog().packets as usize
    }
    #[getter]
    fn len_bytes(&self) -> u64 {
        self.q.backlog().bytes
    }
    /// Packets dropped by the last `enqueue`: list of `(size, flow, reason)`.
    #[getter]
    fn last_dropped(&self) -> Vec<Dropped> {
        self.last_dropped.clone()
    }
    /// Packets the discipline discarded during the last `dequeue` (or
    /// `dequeue_marked`): list of `(size, flow, reason)`.
    #[getter]
    fn last_dequeue_dropped(&self) -> Vec<Dropped> {
        self.last_dequeue_dropped.clone()
    }
    /// The configuration `type`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.q.kind()
    }
    /// The configuration as given, with defaults filled in.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize::pythonize(py, &self.config).map_err(config_error)
    }
    /// Counters: arrivals, enqueued, marks, early_drops, forced_drops, overflow_drops,
    /// departures, departed_bytes, and dequeue_drops (of the drops, those made at
    /// dequeue).
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.q.stats();
        let d = PyDict::new(py);
        d.set_item("arrivals", s.arrivals)?;
        d.set_item("enqueued", s.enqueued)?;
        d.set_item("marks", s.marks)?;
        d.set_item("early_drops", s.early_drops)?;
        d.set_item("forced_drops", s.forced_drops)?;
        d.set_item("overflow_drops", s.overflow_drops)?;
        d.set_item("departures", s.departures)?;
        d.set_item("departed_bytes", s.departed_bytes)?;
        d.set_item("dequeue_drops", self.dequeue_drops)?;
        Ok(d)
    }
    /// Flow's FRED state `(qlen, strike)`, or None when the flow has nothing buffered
    /// (or the discipline is not FRED).
    fn fred_flow(&self, flow: u32) -> Option<(f64, u32)> {
        self.q.downcast_ref::<Fred>().and_then(|f| f.flow_state(flow))
    }

    fn __len__(&self) -> usize {
        self.q.backlog().packets as usize
    }
    fn __repr__(&self) -> String {
        format!(
            "<aqmlab Queue {} len={} signal={:.3}>",
            self.q.kind(),
            self.q.backlog().packets,
            self.q.signal()
        )
    }
}

/// The queue `type` names.
#[pyfunction]
fn queue_types() -> Vec<&'static str> {
    ::aqm::config::QUEUE_TYPES.to_vec()
}

/// The built-in queue types as the AQM registry describes them (`aqm::registry::AQMS`),
/// in its order: a dict each with `type`, `class` (in `aqmlab.aqm`), `name`, `module`,
/// `holds_packets`, `doc` (the lines of its configuration's documentation) and
/// `params`, a list of dicts with `name`, `type` (the Python annotation), `doc` and
/// `default` (the value the reader fills in when the key is left out).
#[pyfunction]
fn queue_schema(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let mut out = Vec::new();
    for info in ::aqm::registry::AQMS {
        let default = QueueConfig::default_of(info.type_name).ok_or_else(|| {
            PyRuntimeError::new_err(format!("registry type {} has no default", info.type_name))
        })?;
        let defaults = pythonize::pythonize(py, &default).map_err(config_error)?;
        let d = PyDict::new(py);
        d.set_item("type", info.type_name)?;
        d.set_item("class", info.class)?;
        d.set_item("name", info.name)?;
        d.set_item("module", info.module)?;
        d.set_item("holds_packets", info.holds_packets)?;
        d.set_item("doc", info.doc.iter().map(|l| l.trim()).collect::<Vec<_>>())?;
        let params = PyList::empty(py);
        for p in (info.params)() {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("type", &p.py_type)?;
            pd.set_item("doc", &p.doc)?;
            pd.set_item("default", defaults.get_item(p.name).ok())?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        out.push(d);
    }
    Ok(out)
}

/// A quantity in SI units read by the one unit grammar (`aqm::units`): `value` a
/// number (passed through) or a string with a unit, `dimension` "time", "rate" or
/// "size"; a string that does not parse is a ValueError naming `name`.
#[pyfunction]
#[pyo3(signature = (value, dimension, name))]
fn parse_quantity(value: &Bound<'_, PyAny>, dimension: &str, name: &str) -> PyResult<f64> {
    use ::aqm::units::{Dimension, Quantity};
    let dim = Dimension::from_name(dimension).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "dimension = {dimension:?} is invalid: allowed \"time\", \"rate\" or \"size\""
        ))
    })?;
    let q = if value.is_instance_of::<pyo3::types::PyBool>() {
        None
    } else if let Ok(s) = value.extract::<String>() {
        Some(Quantity::Text(s))
    } else {
        value.extract::<f64>().ok().map(Quantity::Number)
    };
    let Some(q) = q else {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{name} = {value} is invalid: allowed a number or a string with a unit"
        )));
    };
    q.value(name, dim).map_err(crate::errors::aqm_error)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyQueue>()?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(queue_types, m)?)?;
    m.add_function(wrap_pyfunction!(queue_schema, m)?)?;
    Ok(())
}
