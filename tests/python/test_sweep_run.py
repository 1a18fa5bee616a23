"""Running sweeps: resume after SIGKILL, Dask cluster over TCP, failures, changed specs, plots.

These use the deterministic test runner (``aqmlab.sweeps.testing:run``), so they do not
depend on the simulator; ``test_sweep_sim.py`` runs the real simulator.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

# dask[distributed] runs the points; pyproject.toml must list it (until then, skip rather than break the suite)
pytest.importorskip(
    "dask.distributed", reason="dask[distributed] is not installed: pip install 'dask[distributed]'"
)

from aqmlab.sweeps import SweepMismatch, load, load_spec, plot, store, sweep
from aqmlab.sweeps.cli import start_method
from aqmlab.sweeps.testing import example_spec, to_toml

# process clusters (a point that kills its worker, a cluster over TCP...): many seconds a test
pytestmark = pytest.mark.slow

LOG_ENV = "AQMLAB_SWEEP_TEST_LOG"


def _comparable(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["wall_time"]).reset_index(drop=True)


def _logged_ids(spec, log: Path):
    """Point ids computed according to the test runner's log (one canonical scenario JSON a line)."""
    s = load_spec(spec)
    by_scenario = {
        json.dumps(s.scenario(p), sort_keys=True, separators=(",", ":")): p.id for p in s.points
    }
    if not log.exists():
        return []
    return [by_scenario[line] for line in log.read_text().splitlines() if line]


def _cli(*args):
    return [sys.executable, "-m", "aqmlab.sweeps.cli", *args]


# Worker processes start as the command lines start them (from a fork server where there is
# one): spawning each takes seconds on this machine, and forking this threaded process can
# deadlock (see sweeps.cli.start_method).
START = start_method()


@pytest.fixture
def threads():
    """A Dask client on an in-process cluster (2 single-thread workers): quick to start, for
    reference runs and bookkeeping tests; the tests of parallel processes use the default path."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        with Client(cluster) as client:
            yield client


def _session_processes(sid: int) -> set:
    """Live (not zombie) processes of session `sid`, from /proc."""
    found = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        state, _ppid, _pgrp, session = stat.rsplit(")", 1)[1].split()[:4]
        if int(session) == sid and state != "Z":
            found.add(int(d.name))
    return found


def test_sigkill_midway_then_resume_gives_the_uninterrupted_dataset(tmp_path, threads):
    """A sweep SIGKILLed midway leaves no process behind, and re-run equals an uninterrupted
    run; no finished point is recomputed."""
    spec = example_spec(sleep=0.15, counts=(1, 3))
    f = tmp_path / "sweep.toml"
    f.write_text(to_toml(spec))
    n = len(load_spec(spec).points)

    ref = sweep(str(f), out=tmp_path / "ref", scheduler=threads, progress=False)
    assert len(ref) == n and ref["error"].isna().all()

    out = tmp_path / "out"
    log1, log2 = tmp_path / "run1.log", tmp_path / "run2.log"
    env = dict(os.environ, **{LOG_ENV: str(log1)})
    proc = subprocess.Popen(
        _cli("sweep", str(f), "--out", str(out), "--jobs", "2", "--no-progress"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its session id (its pid) marks every process it starts
    )
    deadline = time.monotonic() + 60
    while len(store.finished(out)) < 5:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no points written"
        time.sleep(0.02)
    if sys.platform.startswith("linux"):
        assert _session_processes(proc.pid) - {proc.pid}, "the sweep should have workers"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    if sys.platform.startswith("linux"):
        # Every process the killed sweep started ends within seconds (workers die with it).
        deadline = time.monotonic() + 5
        while _session_processes(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _session_processes(proc.pid)
        for pid in left:  # no orphan outlives the test, whatever it asserts
            os.kill(pid, signal.SIGKILL)
        assert not left, f"processes of the killed sweep still running: {sorted(left)}"
    done_before = store.finished(out)
    assert 5 <= len(done_before) < n, "the kill should land midway"

    env[LOG_ENV] = str(log2)
    r = subprocess.run(
        _cli("sweep", str(f), "--out", str(out), "--jobs", "2", "--no-progress"),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    second = _logged_ids(spec, log2)
    assert not set(second) & done_before, "a point finished before the kill was computed again"
    assert sorted(second) == sorted(
        {p.id for p in load_spec(spec).points} - done_before
    )  # each missing one once
    pd.testing.assert_frame_equal(_comparable(load(out)), _comparable(ref))
    assert not list((out / "points").glob(".tmp-*"))


def test_dask_cluster_over_tcp_gives_the_same_rows_as_local(tmp_path):
    """A sweep on a LocalCluster (real scheduler and worker processes, TCP on loopback) equals the local run."""
    import dask
    from dask.distributed import LocalCluster

    spec = example_spec(sleep=0.0)
    local = sweep(spec, out=tmp_path / "local", jobs=2, progress=False, start_method=START)
    with dask.config.set(
        {"distributed.worker.multiprocessing-method": START}
    ):  # spawning takes seconds here
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            protocol="tcp",
            host="127.0.0.1",
            dashboard_address=None,
        )
    with cluster:
        addr = cluster.scheduler_address
        assert addr.startswith("tcp://127.0.0.1:")
        remote = sweep(spec, out=tmp_path / "remote", scheduler=addr, progress=False)
        # the workers that ran the points are the cluster's processes, not this one
        from dask.distributed import Client

        with Client(addr) as c:
            pids = set(c.run(os.getpid).values())
        assert os.getpid() not in pids and len(pids) == 2
    pd.testing.assert_frame_equal(_comparable(remote), _comparable(local))
    assert len(local) == len(load_spec(spec).points) and local["error"].isna().all()


def test_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path):
    """A point whose runner raises gets its error recorded; the other points complete; retried only on request."""
    spec = example_spec(fail_if={"flow[0].count": 3, "link[0].queue.max_p": 0.05})
    out = tmp_path / "out"
    df = sweep(spec, out=out, jobs=2, progress=False, start_method=START)
    n = len(load_spec(spec).points)
    assert len(df) == n
    bad = df[df["error"].notna()]
    assert len(bad) == 2  # two replications of (0.05, 3)
    assert (bad["link[0].queue.max_p"] == 0.05).all() and (bad["flow[0].count"] == 3).all()
    assert bad["error"].str.contains("RuntimeError: testing runner: asked to fail").all()
    assert bad["links.r1->r2.utilization"].isna().all()
    good = df[df["error"].isna()]
    assert len(good) == n - 2 and good["links.r1->r2.utilization"].notna().all()
    assert len(load(out, include_failed=False)) == n - 2
    # re-running computes nothing; --retry-failed computes only the failed points again
    again = sweep(spec, out=out, jobs=1, progress=False, start_method=START)
    assert again.attrs["sweep"]["computed"] == 0
    retried = sweep(spec, out=out, jobs=1, progress=False, retry_failed=True, start_method=START)
    assert retried.attrs["sweep"]["computed"] == 2


def test_invalid_axis_path_rejected_before_anything_runs(tmp_path):
    """An invalid axis path is refused with the path named, exit status 2, and no output written."""
    spec = example_spec()
    spec["axes"]["link[7].queue_ab.max_p"] = [0.1, 0.2]
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=r"axis 'link\[7\]\.queue_ab\.max_p': link has 1 entry"):
        sweep(spec, out=out, jobs=1, progress=False)
    assert not out.exists()
    f = tmp_path / "bad.toml"
    f.write_text(to_toml(spec))
    r = subprocess.run(
        _cli("sweep", str(f), "--out", str(out)), capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2
    assert "axis 'link[7].queue_ab.max_p': link has 1 entry" in r.stderr
    assert not out.exists()


def test_changed_spec_is_refused_or_handled_explicitly(tmp_path, threads):
    """A changed sweep is refused; --extend reuses the finished points still in it; --force-new moves the old aside."""
    out = tmp_path / "out"
    a = example_spec(max_p=(0.02, 0.05), counts=(1,), replications=1)
    sweep(a, out=out, scheduler=threads, progress=False)
    b = example_spec(max_p=(0.02, 0.05, 0.1), counts=(1,), replications=1)
    with pytest.raises(SweepMismatch, match="holds a different sweep"):
        sweep(b, out=out, scheduler=threads, progress=False)
    df = sweep(b, out=out, scheduler=threads, progress=False, extend=True)
    assert df.attrs["sweep"]["computed"] == 1 and list(df["link[0].queue.max_p"]) == [
        0.02,
        0.05,
        0.1,
    ]
    c = example_spec(max_p=(0.02,), counts=(1,), replications=1)
    c["base"]["duration"] = 99  # the base scenario changed: --extend is not enough
    with pytest.raises(SweepMismatch, match="different base scenario"):
        sweep(c, out=out, scheduler=threads, progress=False, extend=True)
    df = sweep(c, out=out, scheduler=threads, progress=False, force_new=True)
    assert len(df) == 1 and df.attrs["sweep"]["computed"] == 1
    moved = list(tmp_path.glob("out.superseded-*"))
    assert len(moved) == 1 and len(load(moved[0])) == 3


def test_plot_and_cli_plot_sweep(tmp_path, threads):
    """plot() returns a Figure from a DataFrame or directory; plot-sweep writes a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    out = tmp_path / "out"
    df = sweep(example_spec(), out=out, scheduler=threads, progress=False)
    fig = plot(
        df, x="mean_queue", y="utilization", hue="flow[0].count", connect="link[0].queue.max_p"
    )
    assert len(fig.axes[0].lines) >= 3
    from aqmlab.sweeps.cli import main

    rc = main(
        [
            "plot-sweep",
            str(out),
            "--x",
            "link[0].queue.max_p",
            "--y",
            "utilization",
            "--hue",
            "flow[0].count",
            "--logx",
        ]
    )
    assert rc == 0
    assert (out / "plot.png").stat().st_size > 1000


def test_python_api_without_out_returns_the_rows(threads):
    """sweep(dict) without out runs in a temporary dataset and returns the rows in point order."""
    df = sweep(example_spec(counts=(1,), replications=1), scheduler=threads, progress=False)
    assert list(df["point"]) == [0, 1, 2, 3]
    assert list(df.columns[:5]) == [
        "point",
        "point_id",
        "link[0].queue.max_p",
        "flow[0].count",
        "seed",
    ]
    assert list(df.columns[-2:]) == ["wall_time", "error"]
    assert df["link[0].queue.max_p"].tolist() == [0.02, 0.05, 0.1, 0.2] and df["seed"].eq(5).all()


def test_point_that_kills_its_worker_is_recorded_and_only_that_one(tmp_path):
    """A point that crashes its worker process is recorded as KilledWorker; the other points complete."""
    spec = example_spec(counts=(1, 3), replications=1)
    spec["base"]["testing"]["crash_if"] = {"flow[0].count": 3, "link[0].queue.max_p": 0.05}
    df = sweep(spec, out=tmp_path / "out", jobs=2, progress=False, start_method=START)
    bad = df[df["error"].notna()]
    assert len(bad) == 1 and bad["error"].str.startswith("KilledWorker").all()
    assert (bad["link[0].queue.max_p"] == 0.05).all() and (bad["flow[0].count"] == 3).all()
    assert df["error"].isna().sum() == len(df) - 1


def test_short_points_are_grouped_and_a_crash_in_a_group_blames_one_point(tmp_path):
    """Short points travel several to a task once they have been timed; the rows are the
    same as one point per task, and a point that kills its worker inside a group is the
    only one recorded as failed (the group is split and sent again point by point)."""
    counts = tuple(range(1, 16))
    spec = example_spec(sleep=0.01, counts=counts, replications=1)
    spec["base"]["testing"]["crash_if"] = {"flow[0].count": 14, "link[0].queue.max_p": 0.1}
    grouped = sweep(spec, out=tmp_path / "g", jobs=2, progress=False, start_method=START)
    single = sweep(spec, out=tmp_path / "s", jobs=2, progress=False, start_method=START, batch=1)
    assert grouped.attrs["sweep"]["max_batch"] > 1
    assert single.attrs["sweep"]["max_batch"] == 1
    ok = grouped["error"].isna()
    assert (~ok).sum() == 1 and grouped.loc[~ok, "flow[0].count"].eq(14).all(), grouped.loc[
        ~ok, ["point", "flow[0].count", "link[0].queue.max_p", "error"]
    ].to_string()
    assert grouped.loc[~ok, "error"].str.startswith("KilledWorker").all()
    pd.testing.assert_frame_equal(
        _comparable(grouped[ok]), _comparable(single[single["error"].isna()])
    )


def test_batch_must_be_positive():
    with pytest.raises(ValueError, match="batch"):
        sweep(example_spec(), batch=0, progress=False)
