"""A Python class in sweeps: `aqmlab sweep` on the embedded cluster of worker processes
(the module found beside the base scenario, the workers finding it through the
PYTHONPATH the sweep gives them), and `aqmlab.sweep` on a Dask LocalCluster of
processes started beforehand, whose workers receive the module as a remote cluster's
would (`Client.upload_file`). In both the Python Drop Tail gives, point for point, the
figures of the built-in `droptail` (docs/own-aqm.md)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from aqmlab import cli, sweeps
from aqmlab.base import load_toml

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
DUMBBELL = ROOT / "python" / "aqmlab" / "scenarios" / "dumbbell_10mbps.toml"
METRICS = ["links.r1->r2.drops", "links.r1->r2.mean_queue", "flows.goodput_bps.sum"]
FIGURES = ["links.r1->r2.drops", "links.r1->r2.mean_queue", "flows.goodput_bps.sum"]


def scenario(where: Path, name: str, module: str) -> Path:
    """dumbbell_10mbps for 20 s, its bottleneck a built-in Drop Tail (`name.toml`) and
    the Python one of docs/examples as `module` (`name_py.toml`), beside `where`."""
    shutil.copy(EXAMPLES / "droptail_aqm.py", where / f"{module}.py")
    text = DUMBBELL.read_text().replace('duration = "60s"', 'duration = "20s"')
    text = text.replace('warmup = "20s"', 'warmup = "5s"')
    builtin = text.replace(
        'queue_ab = { type = "red", limit = 250, min_th = 25, max_th = 75, w_q = 0.002, '
        "max_p = 0.1, gentle = true }",
        'queue_ab = { type = "droptail", limit = 250 }',
    )
    assert builtin != text
    (where / f"{name}.toml").write_text(builtin)
    python = builtin.replace(
        'queue_ab = { type = "droptail", limit = 250 }',
        f'queue_ab = {{ type = "python", class = "{module}:DropTail", limit = 250 }}',
    )
    (where / f"{name}_py.toml").write_text(python)
    assert load_toml(python)["link"][0]["queue_ab"]["type"] == "python"
    return where


def spec_text(base: str) -> str:
    metrics = ", ".join(f'"{m}"' for m in METRICS)
    return (
        f'base = "{base}"\nmetrics = [{metrics}]\n'
        '[axes]\n"link[0].queue_ab.limit" = [20, 60]\n"seed" = [1, 2]\n'
    )


def same_points(a, b) -> None:
    """The sweeps' figures equal point for point (limit, seed), exactly."""
    key = ["link[0].queue_ab.limit", "seed"]
    a = a.sort_values(key).reset_index(drop=True)
    b = b.sort_values(key).reset_index(drop=True)
    assert len(a) == len(b) == 4
    assert a["error"].isna().all() and b["error"].isna().all(), (a["error"], b["error"])
    for c in FIGURES + key:
        assert list(a[c]) == list(b[c]), c
    assert a["links.r1->r2.drops"].sum() > 0


def test_local_sweep_finds_the_class_beside_its_scenario(tmp_path, monkeypatch):
    """`aqmlab sweep` (2 worker processes): the module is neither on this process's
    path nor the workers' but beside the base scenario."""
    monkeypatch.setenv("PYTHONPATH", "")
    scenario(tmp_path, "tail", "beside_tail_aqm")
    for name in ("tail", "tail_py"):
        (tmp_path / f"{name}_sweep.toml").write_text(spec_text(f"{name}.toml"))
    try:
        for name in ("tail", "tail_py"):
            args = ["sweep", str(tmp_path / f"{name}_sweep.toml"), "--out", str(tmp_path / name)]
            assert cli.main(args + ["--jobs", "2", "--no-progress"]) == 0
    finally:
        sys.modules.pop("beside_tail_aqm", None)
    same_points(sweeps.load(tmp_path / "tail"), sweeps.load(tmp_path / "tail_py"))


def test_sweep_on_a_dask_cluster_whose_workers_import_the_module(tmp_path, monkeypatch):
    """A LocalCluster of 2 processes started before the module exists: the client
    uploads it (as to a remote cluster) and the workers import it for each point."""
    from dask.distributed import Client, LocalCluster

    monkeypatch.setenv("PYTHONPATH", "")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
        with Client(cluster) as client:
            where = scenario(tmp_path, "tail", "uploaded_tail_aqm")
            monkeypatch.syspath_prepend(str(where))
            client.upload_file(str(where / "uploaded_tail_aqm.py"))
            try:
                got = {
                    name: sweeps.sweep(
                        load_toml(spec_text(str(where / f"{name}.toml"))),
                        scheduler=client,
                        progress=False,
                    )
                    for name in ("tail", "tail_py")
                }
            finally:
                sys.modules.pop("uploaded_tail_aqm", None)
    same_points(got["tail"], got["tail_py"])
