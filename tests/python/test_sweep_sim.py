"""Sweeps of the real packet-level simulator (skipped if aqmlab.sim is not available)."""

import pandas as pd
import pytest

# dask[distributed] runs the points; pyproject.toml must list it (until then, skip rather than break the suite)
pytest.importorskip(
    "dask.distributed", reason="dask[distributed] is not installed: pip install 'dask[distributed]'"
)

from aqmlab.sweeps import load, sweep
from aqmlab.sweeps.cli import start_method

# process clusters, whole sweeps: many seconds a test
pytestmark = pytest.mark.slow

sim = pytest.importorskip("aqmlab.sim")

BASE = {
    "duration": "4s",
    "warmup": "1s",
    "seed": 1,
    "bottleneck": "r1->r2",
    "link": [
        {
            "a": "r1",
            "b": "r2",
            "rate": "10Mbps",
            "delay": "10ms",
            "queue_ab": {
                "type": "red",
                "limit": 100,
                "min_th": 5,
                "max_th": 15,
                "max_p": 0.1,
                "gentle": True,
            },
            "queue_ba": {"type": "droptail", "limit": 100},
        },
        {"a": "s", "b": "r1", "rate": "100Mbps", "delay": "5ms"},
        {"a": "r2", "b": "k", "rate": "100Mbps", "delay": "5ms"},
    ],
    "flow": [{"type": "tcp", "src": "s", "dst": "k", "count": 4, "start": {"uniform": [0, 0.5]}}],
}


def _spec(**kw):
    d = {
        "base": BASE,
        "axes": {"link[0].queue_ab.max_p": [0.02, 0.2], "flow[0].count": [2, 8]},
        "replications": 2,
    }
    d.update(kw)
    return d


def test_simulator_sweep_local_matches_an_in_process_cluster(tmp_path):
    """The simulator swept on local processes gives plausible, seed-dependent metrics, identical on a rerun elsewhere."""
    from dask.distributed import Client, LocalCluster

    df = sweep(_spec(), out=tmp_path / "a", jobs=2, progress=False, start_method=start_method())
    assert len(df) == 8 and df["error"].isna().all()
    u = df["links.r1->r2.utilization"]
    assert ((u > 0.3) & (u <= 1.0)).all()
    assert (
        "flows.goodput_bps.sum" in df and "flows.goodput_bps.jain" in df
    )  # the default metric set
    busy = df[df["flow[0].count"] == 8]  # with 8 flows the queue builds up: replications differ
    assert busy.groupby("link[0].queue_ab.max_p")["links.r1->r2.mean_queue"].nunique().min() == 2
    with (
        LocalCluster(n_workers=1, processes=False, dashboard_address=None) as c,
        Client(c) as client,
    ):
        again = sweep(_spec(), out=tmp_path / "b", scheduler=client, progress=False)
    pd.testing.assert_frame_equal(df.drop(columns=["wall_time"]), again.drop(columns=["wall_time"]))
    pd.testing.assert_frame_equal(load(tmp_path / "a"), df)


def test_invalid_values_are_rejected_by_the_simulator_before_running(tmp_path):
    """A value the simulator refuses (or a misspelt new key) is rejected before anything runs, naming the field."""
    with pytest.raises(ValueError, match=r"link\[0\]\.queue_ab\.max_p = 2 is invalid"):
        sweep(
            _spec(axes={"link[0].queue_ab.max_p": [0.1, 2.0]}), out=tmp_path / "x", progress=False
        )
    with pytest.raises(ValueError, match=r"flow\[0\]\.cont: unknown field"):
        sweep(_spec(axes={"flow[0].cont": [1, 2]}), out=tmp_path / "y", progress=False)
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
