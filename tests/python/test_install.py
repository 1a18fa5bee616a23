"""One install carries everything: the wheel that `pip install .` builds, installed in a
fresh virtualenv and run outside the source tree with no cargo on the PATH, gives the
gateway (`aqmlab-gateway`, `python -m aqmlab.gateway`) and, as root, a working
`aqmlab testbed`.

The wheel is built once for the session (cargo reuses the build of the development
install, so this costs a link at most). The new virtualenv gets the wheel without its
dependencies, which it finds through a path file naming this interpreter's
site-packages: a plain path, so the development install's own hooks stay out, and
`aqmlab` comes from the wheel (checked below)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.install,
    pytest.mark.skipif(
        shutil.which("cargo") is None and not (ROOT / "target").exists(),
        reason="building the wheel needs cargo",
    ),
    # the first test builds the wheel (a release build: minutes on a loaded machine)
    pytest.mark.timeout(3600),
]


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """(venv directory, environment, working directory) of the installed wheel."""
    tmp = tmp_path_factory.mktemp("install")
    wheels = tmp / "wheels"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=3000,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = wheels.glob("aqmlab-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "aqmlab-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # No cargo, no source tree: a PATH of the venv and the system's directories only.
    dirs = [str(venv / "bin"), "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin"]
    dirs += ["/sbin", "/bin"]
    path = os.pathsep.join(d for d in dirs if not (Path(d) / "cargo").exists())
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CARGO_TARGET_DIR", "AQMLAB_GATEWAY")
    }
    env["PATH"] = path
    cwd = tmp / "elsewhere"
    cwd.mkdir()
    return venv, env, cwd


def _run(installed, *cmd, timeout=120):
    venv, env, cwd = installed
    return subprocess.run(
        list(cmd), capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
    )


def test_nothing_from_the_source_tree_or_cargo(installed):
    venv, env, _ = installed
    assert shutil.which("cargo", path=env["PATH"]) is None
    r = _run(
        installed,
        str(venv / "bin" / "python"),
        "-c",
        "import aqmlab.gateway as g, aqmlab._native as n; print(g.__file__); print(n.__file__)",
    )
    assert r.returncode == 0, r.stderr
    for line in r.stdout.split():
        assert Path(line).resolve().is_relative_to(venv.resolve()), line


def test_the_peer_harness_ships_and_runs_from_the_installed_package(installed):
    """`aqmlab bench --peers` needs the peer harness (its cases, the ns-2 Tcl and ns-3 C++
    programs): it is package data, found and run from the installed package."""
    venv = installed[0]
    code = "from aqmlab import bench_peers as b; print(b.peers_dir(required=True))"
    r = _run(installed, str(venv / "bin" / "python"), "-c", code)
    assert r.returncode == 0, r.stderr
    harness = Path(r.stdout.strip())
    assert harness.is_relative_to(venv.resolve()), harness
    for f in ("run", "scenarios.py", "ns2/dumbbell.tcl", "ns3/dumbbell.cc", "ns3/build.sh"):
        assert (harness / f).is_file(), f
    r = _run(installed, str(venv / "bin" / "python"), str(harness / "run"), "--list")
    assert r.returncode == 0 and "S1-n100-red" in r.stdout.split(), r.stderr
    if shutil.which("ns", path=installed[1]["PATH"]):
        args = ["bench", "--case", "15mbps", "--duration", "2s", "--flows", "10"]
        args += ["--peers", "ns2", "--peer-case", "S1-n5-red"]
        r = _run(installed, str(venv / "bin" / "aqmlab"), *args, timeout=600)
        assert r.returncode == 0, r.stderr
        assert re.search(r"aqmlab is x[0-9.]+ as fast as ns2", r.stdout), r.stdout


def test_the_gateway_command_is_installed(installed):
    venv = installed[0]
    r = _run(installed, str(venv / "bin" / "aqmlab-gateway"), "--help")
    assert r.returncode == 0, r.stderr
    assert "Usage: aqmlab-gateway" in r.stdout and "bench-pipeline" in r.stdout
    r = _run(installed, str(venv / "bin" / "aqmlab-gateway"), "--no-such-flag")
    assert r.returncode == 2 and "--no-such-flag" in r.stderr
    r = _run(
        installed,
        str(venv / "bin" / "python"),
        "-m",
        "aqmlab.gateway",
        "bench-pipeline",
        "--packets",
        "20000",
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["packets"] == 20000 and rep["forwarded"] > 0


TWO_FLOWS_RED = """
duration = 8
warmup = 2
seed = 1

[[link]]
a = "s1"
b = "r1"
rate = "1Gbps"
delay = "1ms"

[[link]]
a = "r1"
b = "r2"
rate = "10Mbps"
delay = "20ms"
queue = { type = "red", limit = 100, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1 }

[[link]]
a = "r2"
b = "k1"
rate = "1Gbps"
delay = "1ms"

[[flow]]
type = "tcp"
variant = "reno"
src = "s1"
dst = "k1"
count = 2
start = { uniform = [0, 1] }
packet_size = 1500
max_window = 100
"""


def test_the_installed_testbed_runs_a_two_flow_red_scenario(installed):
    from aqmlab.testbed.testing import skip_reason

    why = skip_reason()
    if why:
        pytest.skip(why)
    venv, _env, cwd = installed
    (cwd / "red2.toml").write_text(TWO_FLOWS_RED)
    r = _run(
        installed,
        str(venv / "bin" / "aqmlab"),
        "testbed",
        "red2.toml",
        "--out",
        "out",
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    s = json.loads((cwd / "out" / "summary.json").read_text())
    assert len(s["flows"]) == 2
    assert all(f["goodput_bps"] > 0 for f in s["flows"])
    link = s["links"]["r1->r2"]
    assert link["arrivals"] > 0 and link["utilization"] > 0.5
    assert "prediction" in s  # the installed simulator ran the same scenario


OWN_AQM = """
duration = 20
warmup = 5
[[link]]
a = "s"
b = "r"
rate = "100Mbps"
delay = "5ms"
[[link]]
a = "r"
b = "k"
rate = "5Mbps"
delay = "10ms"
queue = {queue}
[[flow]]
type = "tcp"
src = "s"
dst = "k"
count = 5
"""


def test_own_aqms_from_the_install(installed, plugins):
    """A Python class beside the scenario file and a plugin (built apart, with cargo)
    run from the installed package, outside the source tree and without cargo, and give
    the built-ins' results."""
    venv, env, cwd = installed
    shutil.copy(ROOT / "docs" / "examples" / "droptail_aqm.py", cwd / "droptail_aqm.py")
    red = "min_th = 5, max_th = 15, max_p = 0.1, limit = 40"
    queues = {
        "tail": '{ type = "droptail", limit = 20 }',
        "tail_py": '{ type = "python", class = "droptail_aqm:DropTail", limit = 20 }',
        "red": f'{{ type = "red", {red} }}',
        "red_plugin": f'{{ type = "plugin", path = "{plugins["red"]}", {red} }}',
    }
    links = {}
    for name, queue in queues.items():
        (cwd / f"{name}.toml").write_text(OWN_AQM.format(queue=queue))
        r = _run(installed, str(venv / "bin" / "aqmlab"), "run", f"{name}.toml", "--out", name)
        assert r.returncode == 0, r.stderr
        s = json.loads((cwd / name / "summary.json").read_text())
        links[name] = {k: v for k, v in s["links"]["r->k"].items() if k != "queue_type"}
    assert links["tail"] == links["tail_py"] and links["tail"]["overflow_drops"] > 0
    assert links["red"] == links["red_plugin"] and links["red"]["early_drops"] > 0
