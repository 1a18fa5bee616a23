//! Bindings of the AQM library: one class, `Queue`, built from a configuration
//! dict (`{"type": "red", "min_th": 5, ...}`); `aqmlab.aqm` gives it per-discipline
//! constructors with documented signatures.

use ::aqm::config::{BuildContext, QueueConfig};
use ::aqm::{AnyAqm, DropReason, PacketInfo, Queue, QueueDiscipline, Time, Verdict};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{aqm_error, config_error, guard};

fn time(now: f64) -> PyResult<Time> {
    if now.is_finite() && now >= 0.0 {
        Ok(Time::from_secs_f64(now))
    } else {
        Err(PyValueError::new_err(format!(
            "now = {now} is invalid: allowed a finite time >= 0 (seconds)"
        )))
    }
}

/// A queue discipline with its FIFO buffer.
#[pyclass(module = "aqmlab._native", name = "Queue", subclass)]
pub struct PyQueue {
    q: Queue<PacketInfo, AnyAqm>,
    config: QueueConfig,
    last_dropped: Vec<(u32, u32, &'static str)>,
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
        let disc = guard(|| cfg.build(&BuildContext::default()).map_err(aqm_error))?;
        Ok(PyQueue { q: Queue::new(disc), config: cfg, last_dropped: Vec::new() })
    }

    /// Offer a packet at time `now` (seconds). Returns "enqueue", "mark",
    /// "drop_early" or "drop_forced" (an eviction of a queued packet to make room
    /// is a forced drop; `last_dropped` says which packet went).
    #[pyo3(signature = (now, size, flow, ecn_capable=false))]
    fn enqueue(
        &mut self,
        now: f64,
        size: i64,
        flow: i64,
        ecn_capable: bool,
    ) -> PyResult<&'static str> {
        let now = time(now)?;
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
        let pkt = PacketInfo { size: size as u32, flow: flow as u32, ecn_capable, ect1: false };
        self.last_dropped.clear();
        let dropped = &mut self.last_dropped;
        let q = &mut self.q;
        let v =
            guard(
                || Ok(q.enqueue(now, pkt, |p, r| dropped.push((p.size, p.flow, reason_str(r))))),
            )?;
        Ok(match v {
            Verdict::Evict { .. } => "drop_forced",
            v => v.as_str(),
        })
    }

    /// Take the packet at the head at time `now`: `(size, flow)` or None.
    fn dequeue(&mut self, now: f64) -> PyResult<Option<(u32, u32)>> {
        let now = time(now)?;
        let q = &mut self.q;
        guard(|| Ok(q.dequeue(now).map(|p| (p.size, p.flow))))
    }

    /// Run periodic work (Adaptive RED's interval) due at `now`. Arrivals do it too.
    fn poll(&mut self, now: f64) -> PyResult<()> {
        let now = time(now)?;
        self.q.poll(now);
        Ok(())
    }

    /// When periodic work is next due (seconds), or None.
    #[getter]
    fn poll_at(&self) -> Option<f64> {
        self.q.poll_at().map(|t| t.as_secs_f64())
    }

    /// Average queue size (packets, or bytes when measured in bytes).
    #[getter]
    fn avg(&self) -> f64 {
        self.q.discipline().avg()
    }
    /// RED's count.
    #[getter]
    fn count(&self) -> i64 {
        self.q.discipline().count()
    }
    /// The current max_p.
    #[getter]
    fn max_p(&self) -> f64 {
        self.q.discipline().max_p()
    }
    #[getter]
    fn len_packets(&self) -> usize {
        self.q.len_packets()
    }
    #[getter]
    fn len_bytes(&self) -> u64 {
        self.q.len_bytes()
    }
    /// Packets dropped by the last `enqueue`: list of `(size, flow, reason)`.
    #[getter]
    fn last_dropped(&self) -> Vec<(u32, u32, &'static str)> {
        self.last_dropped.clone()
    }
    /// The configuration `type`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.q.discipline().kind()
    }
    /// The configuration as given, with defaults filled in.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize::pythonize(py, &self.config).map_err(config_error)
    }
    /// Counters: arrivals, enqueued, marks, early_drops, forced_drops, overflow_drops, departures.
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
        Ok(d)
    }
    /// Flow's FRED state `(qlen, strike)`, or None when the flow has nothing buffered
    /// (or the discipline is not FRED).
    fn fred_flow(&self, flow: u32) -> Option<(f64, u32)> {
        match self.q.discipline() {
            AnyAqm::Fred(f) => f.flow_state(flow),
            _ => None,
        }
    }

    fn __len__(&self) -> usize {
        self.q.len_packets()
    }
    fn __repr__(&self) -> String {
        format!(
            "<aqmlab Queue {} len={} avg={:.3}>",
            self.q.discipline().kind(),
            self.q.len_packets(),
            self.q.discipline().avg()
        )
    }
}

/// The queue `type` names.
#[pyfunction]
fn queue_types() -> Vec<&'static str> {
    ::aqm::config::QUEUE_TYPES.to_vec()
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
    Ok(())
}
