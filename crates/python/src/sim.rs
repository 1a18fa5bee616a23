//! Bindings of the simulator (crates/sim): conversions and error mapping only.
//!
//! A scenario crosses the boundary once, as a dict with the TOML structure; the run
//! happens in Rust with the GIL released, in chunks so that Python can show progress;
//! the summary comes back as plain Python data (dicts, lists, numbers).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{check_shape, guard, panic_error};
use crate::parquet::write_batch;
use crate::records;

fn sim_error(e: ::sim::SimError) -> PyErr {
    match e {
        ::sim::SimError::Scenario(m) => PyValueError::new_err(m),
        ::sim::SimError::Io(_) => PyRuntimeError::new_err(e.to_string()),
        // (a guard stopped the run: the scenario must change)
        ::sim::SimError::Stopped(_) => PyValueError::new_err(e.to_string()),
    }
}

/// A scenario from a dict with the structure of a scenario file, or from the TOML text
/// of one (a `str`); with the text, the top-level keys of `changes` are set over the
/// file's and those of `defaults` where the file has none (as `Scenario.replace`).
fn scenario_from(
    obj: &Bound<'_, PyAny>,
    changes: Option<&Bound<'_, PyDict>>,
    defaults: Option<&Bound<'_, PyDict>>,
) -> PyResult<::sim::Scenario> {
    if let Ok(text) = obj.extract::<String>() {
        // (the message of a syntax error as `sim::Scenario::from_toml_str` words it)
        let mut table: toml::Table = guard(|| {
            toml::from_str(&text).map_err(|e| PyValueError::new_err(format!("TOML syntax: {e}")))
        })?;
        for (keys, over) in [(changes, true), (defaults, false)] {
            for (k, v) in keys.into_iter().flat_map(|d| d.iter()) {
                let k: String = k.extract()?;
                check_shape(&v, &k)?;
                let v: toml::Value = pythonize::depythonize(&v).map_err(|e| {
                    PyValueError::new_err(format!("{k}: {e} (allowed: a TOML value)"))
                })?;
                if over || !table.contains_key(&k) {
                    table.insert(k, v);
                }
            }
        }
        return guard(|| {
            ::sim::Scenario::from_value(&toml::Value::Table(table)).map_err(sim_error)
        });
    }
    if changes.is_some() || defaults.is_some() {
        return Err(PyValueError::new_err(
            "changes, defaults: taken with a scenario's TOML text only (a dict is changed as such)",
        ));
    }
    let dict = obj.cast::<PyDict>().map_err(|_| {
        PyValueError::new_err(
            "scenario: expected a dict with the structure of a scenario file, or its TOML text",
        )
    })?;
    check_shape(dict.as_any(), "scenario")?;
    guard(|| {
        let mut de = pythonize::Depythonizer::from_object(dict.as_any());
        ::sim::Scenario::from_deserializer(&mut de).map_err(sim_error)
    })
}

/// Check a scenario dict; raises ValueError naming the offending field.
#[pyfunction]
fn sim_validate(scenario: &Bound<'_, PyAny>) -> PyResult<()> {
    scenario_from(scenario, None, None).map(|_| ())
}

/// The validated scenario as plain data: every quantity in SI units, flows expanded,
/// directions named, routes computed (see `sim::scenario::Normalized`).
#[pyfunction]
fn sim_normalize<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let sc = scenario_from(scenario, None, None)?;
    let n = guard(|| sc.normalized().map_err(sim_error))?;
    pythonize::pythonize(py, &n).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// The behaviour profiles (`sim::profile`), `rfc` first: each a dict with `name`,
/// `about`, and the keys it sets for TCP flows (`tcp`), queues by type (`queue`) and
/// links (`link`), each key with its `value` and `why` (the peer's name for it).
#[pyfunction]
fn sim_profiles(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    pythonize::pythonize(py, &sim::profile::tables())
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Read and validate a TOML scenario file; returns nothing, raises ValueError.
#[pyfunction]
fn sim_validate_toml(text: &str) -> PyResult<()> {
    guard(|| ::sim::Scenario::from_toml_str(text).map(|_| ()).map_err(sim_error))
}

/// A simulation built from a scenario dict, or from a scenario file's TOML text with
/// top-level keys set over it (`changes`) or where it has none (`defaults`).
/// `trace_dir` receives the traces the scenario asks for (CSV / pcap files).
#[pyclass(module = "aqmlab._native", name = "Simulation")]
pub struct PySimulation {
    sim: Option<::sim::Sim>,
    duration: f64,
    /// A queue of the scenario is a Python class.
    python: bool,
    /// The summary, once taken at the run's end (the same each time after).
    last: Option<::sim::Summary>,
}

#[pymethods]
impl PySimulation {
    #[new]
    #[pyo3(signature = (scenario, trace_dir=None, changes=None, defaults=None))]
    fn new(
        scenario: &Bound<'_, PyAny>,
        trace_dir: Option<String>,
        changes: Option<&Bound<'_, PyDict>>,
        defaults: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let sc = scenario_from(scenario, changes, defaults)?;
        let duration = sc.duration.as_secs_f64();
        let python = sc
            .links
            .iter()
            .any(|l| [&l.queue_ab, &l.queue_ba].iter().any(|q| q.kind() == "python"));
        let sim = guard(|| {
            ::sim::Sim::new(sc, trace_dir.as_deref().map(std::path::Path::new)).map_err(sim_error)
        })?;
        Ok(PySimulation { sim: Some(sim), duration, python, last: None })
    }

    /// Run up to `t` seconds (clamped to the duration), without the GIL. With
    /// `exact=False` (for a progress bar), packets may be handed on early past `t`, so
    /// the state at `t` may already hold later arrivals; the final summary is the same.
    #[pyo3(signature = (t, exact=true))]
    fn run_until(&mut self, py: Python<'_>, t: f64, exact: bool) -> PyResult<()> {
        if !(t.is_finite() && t >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "t = {t} is invalid: allowed a time >= 0 (seconds)"
            )));
        }
        let Some(sim) = self.sim.as_mut() else {
            return Err(PyRuntimeError::new_err("this simulation failed earlier and cannot go on"));
        };
        let mut run = || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if exact {
                    sim.run_until(::aqm::Time::from_secs_f64(t))
                } else {
                    sim.run_until_ahead(::aqm::Time::from_secs_f64(t))
                }
            }))
        };
        // (a run with a Python AQM keeps the GIL: its class is called for each packet)
        let r = if self.python { run() } else { py.detach(run) };
        match r {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                self.sim = None;
                Err(sim_error(e))
            }
            Err(p) => {
                self.sim = None;
                Err(panic_error(p))
            }
        }
    }

    /// Seconds simulated so far.
    #[getter]
    fn now(&self) -> f64 {
        self.sim.as_ref().map_or(0.0, |s| s.now().as_secs_f64())
    }

    #[getter]
    fn duration(&self) -> f64 {
        self.duration
    }

    /// Events processed so far.
    #[getter]
    fn events(&self) -> u64 {
        self.sim.as_ref().map_or(0, |s| s.events())
    }

    /// Threads the run uses: 2 if the scenario asks for two (`threads = 2`) and the
    /// network splits at its merging directions, else 1.
    #[getter]
    fn threads(&self) -> usize {
        self.sim.as_ref().map_or(1, |s| s.threads())
    }

    #[getter]
    fn finished(&self) -> bool {
        self.sim.as_ref().is_some_and(|s| s.is_finished())
    }

    /// The summary as a dict (complete once the run reached its duration; from then
    /// on the same each time, its wall time taken when first asked).
    fn summary<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.current_summary()?;
        pythonize::pythonize(py, &*s).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// Write summary.json, flows.parquet and links.parquet into the directory `dir`
    /// from the summary held here: the bytes `aqmlab.sim.Result.to_dir` writes from
    /// [`summary`]'s dict, without building it (`large_strings`: the string columns
    /// as large_string, as pandas 3 writes them). Returns False, having written
    /// nothing, where a table's column types are pandas' to decide (see
    /// `crate::records`) or the summary holds what Python's `json` is left to write.
    fn write_files(&mut self, py: Python<'_>, dir: PathBuf, large_strings: bool) -> PyResult<bool> {
        let s = self.current_summary()?;
        py.detach(|| guard(|| write_summary_files(&s, &dir, large_strings)))
    }
}

impl PySimulation {
    /// The summary so far; once the run reached its duration, the one taken then (its
    /// wall time included), so that the files and what is printed agree.
    fn current_summary(&mut self) -> PyResult<Cow<'_, ::sim::Summary>> {
        if self.last.is_none() {
            let Some(sim) = self.sim.as_mut() else {
                return Err(PyRuntimeError::new_err("this simulation failed earlier"));
            };
            let s = guard(|| {
                sim.settle();
                Ok(sim.summary())
            })?;
            if !sim.is_finished() {
                return Ok(Cow::Owned(s));
            }
            self.last = Some(s);
        }
        Ok(Cow::Borrowed(self.last.as_ref().expect("taken above")))
    }
}

/// The files of [`PySimulation::write_files`].
fn write_summary_files(s: &::sim::Summary, dir: &Path, large_strings: bool) -> PyResult<bool> {
    let Ok(tree) = crate::tree::to_tree(s) else { return Ok(false) };
    let names = records::link_names(&tree);
    let tables = records::flow_records(&tree).zip(records::link_records(&tree, &names));
    let Some((flows, links)) = tables else { return Ok(false) };
    let flows = records::record_batch(&flows, &[], None, large_strings);
    let links = records::record_batch(&links, &["drop_run_hist"], Some("link"), large_strings);
    let Some((flows, links)) = flows.zip(links) else { return Ok(false) };
    let path = dir.join("summary.json");
    std::fs::write(&path, crate::pyjson::tree_text(&tree))
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
    write_batch(&dir.join("flows.parquet"), &flows)?;
    write_batch(&dir.join("links.parquet"), &links)?;
    Ok(true)
}

/// Add the simulator's classes and functions to `aqmlab._native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySimulation>()?;
    m.add_function(wrap_pyfunction!(sim_validate, m)?)?;
    m.add_function(wrap_pyfunction!(sim_validate_toml, m)?)?;
    m.add_function(wrap_pyfunction!(sim_normalize, m)?)?;
    m.add_function(wrap_pyfunction!(sim_profiles, m)?)?;
    Ok(())
}
