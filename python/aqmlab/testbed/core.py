"""The testbed: namespaces, veth pairs, the gateway, Linux flows, and the summary.

```text
 aqmlab-<pid>-a            aqmlab-<pid>-gw                 aqmlab-<pid>-b
 ┌─────────────────┐ veth ┌──────────────────────────┐ veth ┌─────────────────┐
 │ eth0 10.199.1.x ├──────┤ gwa  aqmlab-gateway  gwb ├──────┤ eth0 10.199.2.x │
 │ iperf3 clients  │      │ rate, delay, aqm queue   │      │ iperf3 servers  │
 └─────────────────┘      └──────────────────────────┘      └─────────────────┘
```
Both ends are in one IP subnet (10.199.0.0/16, fd00:199::/64); the gateway is a
layer-2-transparent middlebox (ARP crosses it at once; everything IP goes through the
emulated link).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from . import netns as nsmod
from . import scenario as scmod

GATEWAY_ENV = "AQMLAB_GATEWAY"
_REPO = Path(__file__).resolve().parents[3]


def repo_root() -> Path:
    return _REPO


_BUILT: Optional[str] = None


def gateway_binary(build: bool = True) -> str:
    """The `aqmlab-gateway` binary: ``$AQMLAB_GATEWAY``, else the release build under
    ``$CARGO_TARGET_DIR`` or the repository's ``target/``, (re)built with cargo when cargo
    is installed (a no-op when up to date, so a stale binary is never used)."""
    env = os.environ.get(GATEWAY_ENV)
    if env:
        if not os.access(env, os.X_OK):
            raise RuntimeError(f"{GATEWAY_ENV}={env}: not an executable file")
        return env
    target = Path(os.environ.get("CARGO_TARGET_DIR") or (_REPO / "target"))
    exe = target / "release" / "aqmlab-gateway"
    if exe.exists() and (not build or shutil.which("cargo") is None):
        return str(exe)
    if not build:
        raise RuntimeError(
            f"aqmlab-gateway not built ({exe} missing); set {GATEWAY_ENV} or build it"
        )
    if shutil.which("cargo") is None:
        raise RuntimeError(f"aqmlab-gateway is not built and cargo is missing; set {GATEWAY_ENV}")
    manifest = _REPO / "crates" / "gateway" / "Cargo.toml"
    global _BUILT
    if _BUILT is None:
        subprocess.run(
            [
                "cargo",
                "build",
                "--release",
                "--manifest-path",
                str(manifest),
                "--bin",
                "aqmlab-gateway",
            ],
            check=True,
            env={**os.environ, "CARGO_TARGET_DIR": str(target)},
        )
        _BUILT = str(exe)
    return _BUILT


def ensure_tools() -> None:
    """Install iperf3 and ethtool from Debian's packages when missing (the project's
    set-up step for the testbed; needs root and apt-get)."""
    missing = [t for t in ("iperf3", "ethtool") if shutil.which(t) is None]
    if not missing:
        return
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        raise RuntimeError(
            f"missing {', '.join(missing)}: install them (apt-get install -y {' '.join(missing)})"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=False, env=env, capture_output=True)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq"] + missing, check=True, env=env, capture_output=True
    )


def _jq(d: Dict[str, Any]) -> str:
    return json.dumps(d, separators=(",", ":"))


class Testbed:
    """Namespaces a / gw / b joined by veth pairs, hosts' addresses, and a running
    gateway; a context manager that tears everything down on exit (and on SIGTERM,
    which it turns into SystemExit while it runs in the main thread).

    `hosts` gives the number of addresses on each side; `gateway_args` are the
    gateway's flags after the interfaces (rate, delay, queues, window).
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        out_dir: Path,
        gateway_args: Sequence[str],
        hosts: Dict[str, int],
        *,
        gateway: Optional[str] = None,
        cc: str = "reno",
        ecn: bool = False,
    ):
        self.out = Path(out_dir)
        self.gateway_args = list(gateway_args)
        self.hosts = hosts
        self.gateway_bin = gateway or gateway_binary()
        self.cc = cc
        self.ecn = ecn
        self.ns = nsmod.Netns(["a", "gw", "b"])
        self.gw: Optional[subprocess.Popen] = None
        self.procs: List[subprocess.Popen] = []
        self.stats_path = self.out / "gateway.json"
        self.t0 = 0.0
        self._old_term = None

    # -- set-up ----------------------------------------------------------------
    def __enter__(self) -> "Testbed":
        nsmod.require_privileges()
        ensure_tools()
        self.out.mkdir(parents=True, exist_ok=True)
        if threading.current_thread() is threading.main_thread():
            self._old_term = signal.signal(signal.SIGTERM, _raise_exit)
        try:
            nsmod.cleanup_stale()
            self._build()
            self._start_gateway()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _build(self) -> None:
        ns = self.ns
        ns.create()
        for k in ("all", "default"):
            ns.sysctl("gw", f"net.ipv6.conf.{k}.disable_ipv6", 1)
        ns.veth("gw", "gwa", "a", "eth0")
        ns.veth("gw", "gwb", "b", "eth0")
        for role, ifn in (("gw", "gwa"), ("gw", "gwb"), ("a", "eth0"), ("b", "eth0")):
            ns.offloads_off(role, ifn)
            nsmod.sh(["ip", "link", "set", ifn, "up"], ns=ns[role])
        for side in ("a", "b"):
            for i in range(max(1, self.hosts.get(side, 1))):
                nsmod.sh(
                    ["ip", "addr", "add", scmod.host_address(side, i) + "/16", "dev", "eth0"],
                    ns=ns[side],
                )
                nsmod.sh(
                    [
                        "ip",
                        "addr",
                        "add",
                        scmod.host_address6(side, i) + "/64",
                        "dev",
                        "eth0",
                        "nodad",
                    ],
                    ns=ns[side],
                )
            # The namespace's default; iperf3 also sets it per socket (-C), which is what
            # counts when a namespace may not default to an algorithm outside
            # net.ipv4.tcp_allowed_congestion_control.
            try:
                ns.sysctl(side, "net.ipv4.tcp_congestion_control", self.cc)
            except RuntimeError:
                pass
            ns.sysctl(side, "net.ipv4.tcp_ecn", 1 if self.ecn else 0)
            ns.sysctl(side, "net.ipv4.tcp_no_metrics_save", 1)

    def _start_gateway(self) -> None:
        ready = self.out / "gateway.ready"
        for p in (ready, self.stats_path):
            if p.exists():
                p.unlink()
        cmd = [
            "ip",
            "netns",
            "exec",
            self.ns["gw"],
            self.gateway_bin,
            "--if-a",
            "gwa",
            "--if-b",
            "gwb",
            *self.gateway_args,
            "--stats",
            str(self.stats_path),
            "--ready",
            str(ready),
        ]
        (self.out / "gateway.cmd").write_text(" ".join(f"'{c}'" for c in cmd) + "\n")
        self.gw = subprocess.Popen(
            cmd, stdout=open(self.out / "gateway.log", "wb"), stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 10
        while not ready.exists():
            if self.gw.poll() is not None:
                raise RuntimeError(
                    f"the gateway exited at start (code {self.gw.returncode}): "
                    f"{(self.out / 'gateway.log').read_text().strip()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError("the gateway did not start within 10 s")
            time.sleep(0.01)
        self.t0 = time.monotonic()

    # -- running ---------------------------------------------------------------
    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def spawn(
        self, role: str, args: Sequence[str], stdout: Optional[Path] = None
    ) -> subprocess.Popen:
        """Start a process inside a namespace; it is killed at teardown if still running."""
        out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        err = open(str(stdout) + ".err", "wb") if stdout else subprocess.DEVNULL
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[role], *args], stdout=out, stderr=err)
        self.procs.append(p)
        return p

    def check_gateway(self) -> None:
        """Raise if the gateway died (crash, SIGKILL)."""
        if self.gw is not None and self.gw.poll() is not None and not self.stats_path.exists():
            raise RuntimeError(
                f"the gateway exited unexpectedly (code {self.gw.returncode}); "
                f"see {self.out / 'gateway.log'}"
            )

    def stop_gateway(self) -> Optional[Dict[str, Any]]:
        """SIGTERM the gateway and read its statistics."""
        if self.gw is None:
            return None
        if self.gw.poll() is None:
            self.gw.send_signal(signal.SIGTERM)
            try:
                self.gw.wait(10)
            except subprocess.TimeoutExpired:
                self.gw.kill()
                self.gw.wait()
        self.gw = None
        if self.stats_path.exists():
            return json.loads(self.stats_path.read_text())
        return None

    def close(self) -> None:
        """Stop every process and delete the namespaces (idempotent)."""
        try:
            for p in self.procs:
                if p.poll() is None:
                    p.kill()
            for p in self.procs:
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    pass
            if self.gw is not None and self.gw.poll() is None:
                self.gw.kill()
                self.gw.wait()
        finally:
            self.ns.destroy()
            if self._old_term is not None:
                signal.signal(signal.SIGTERM, self._old_term)
                self._old_term = None


def _raise_exit(signum, frame):  # pragma: no cover - signal path
    raise SystemExit(128 + signum)


def gateway_args(pl: scmod.Plan, exit_slack_s: float = 60.0) -> List[str]:
    return [
        "--rate-ab",
        str(pl.rate_ab),
        "--rate-ba",
        str(pl.rate_ba),
        "--delay",
        str(pl.delay_s),
        "--queue-ab",
        _jq(pl.queue_ab),
        "--queue-ba",
        _jq(pl.queue_ba),
        "--warmup",
        str(pl.warmup_s),
        "--duration",
        str(pl.duration_s),
        "--exit-after",
        str(pl.duration_s + exit_slack_s),
        "--seed",
        str(pl.seed),
    ]


def _iperf_server(tb: Testbed, pl: scmod.Plan, f: scmod.FlowPlan, port: int) -> subprocess.Popen:
    dst_side = "b" if f.src_side == "a" else "a"
    addr = scmod.host_address(dst_side, pl.hosts[dst_side].index(f.dst))
    return tb.spawn(
        dst_side,
        ["iperf3", "-s", "-1", "-J", "-i", "0.5", "-B", addr, "-p", str(port)],
        stdout=tb.out / f"flow{f.index}.server.json",
    )


def _iperf_client_args(pl: scmod.Plan, f: scmod.FlowPlan, port: int) -> List[str]:
    dst_side = "b" if f.src_side == "a" else "a"
    src = scmod.host_address(f.src_side, pl.hosts[f.src_side].index(f.src))
    dst = scmod.host_address(dst_side, pl.hosts[dst_side].index(f.dst))
    a = ["iperf3", "-c", dst, "-B", src, "-p", str(port), "-J", "-i", "0.5"]
    if f.kind == "tcp":
        a += ["-C", f.kernel_cc or "reno"]
        if f.packet_size:
            # TCP_MAXSEG counts the timestamp option: the IP packet is MSS + 40 bytes.
            a += ["-M", str(max(88, f.packet_size - 40))]
        if f.packets:
            a += [
                "-n",
                str(
                    f.packets * scmod.payload_per_packet(f.packet_size or scmod.DEFAULT_PACKET_SIZE)
                ),
            ]
        else:
            a += ["-t", str(scmod.iperf_duration(f))]
    else:
        size = f.packet_size or scmod.DEFAULT_PACKET_SIZE
        a += [
            "-u",
            "-b",
            str(int(f.rate_bps or 0)),
            "-l",
            str(max(16, size - 28)),
            "-t",
            str(scmod.iperf_duration(f)),
        ]
    return a


def _listening(tb: Testbed, side: str, ports: List[int]) -> bool:
    r = nsmod.sh(["ss", "-ltnH"], ns=tb.ns[side], check=False)
    have = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 4:
            have.add(parts[3].rsplit(":", 1)[-1])
    return all(str(p) in have for p in ports)


def _load_json(p: Path) -> Optional[Dict[str, Any]]:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def _goodput(
    server: Optional[Dict[str, Any]],
    client: Optional[Dict[str, Any]],
    start: float,
    warmup: float,
    duration: float,
) -> Optional[float]:
    """Bytes the receiver got during [warmup, duration] (its 0.5 s intervals, prorated), in b/s."""
    win = duration - warmup
    if server and server.get("intervals") and win > 0:
        total = 0.0
        for iv in server["intervals"]:
            s = iv.get("sum", {})
            a, b = start + float(s.get("start", 0)), start + float(s.get("end", 0))
            if b <= a:
                continue
            ov = max(0.0, min(b, duration) - max(a, warmup))
            total += float(s.get("bytes", 0)) * ov / (b - a)
        return total * 8 / win
    if client:
        end = client.get("end", {})
        for k in ("sum_received", "sum"):
            if k in end and "bits_per_second" in end[k]:
                return float(end[k]["bits_per_second"])
    return None


_NSTAT_KEYS = (
    "TcpOutSegs",
    "TcpRetransSegs",
    "TcpExtTCPTimeouts",
    "TcpExtTCPLossProbes",
    "TcpExtTCPSackRecovery",
    "TcpExtTCPRenoRecovery",
    "TcpExtDelayedACKs",
    "TcpExtTCPFastRetrans",
    "TcpExtTCPSpuriousRTOs",
)


def _tcp_counters(tb: Testbed, side: str) -> Optional[Dict[str, int]]:
    """The namespace's TCP counters (whole run, all flows): timeouts, retransmissions,
    loss probes, delayed ACKs (`nstat`); None when nstat is missing."""
    if shutil.which("nstat") is None:
        return None
    r = nsmod.sh(["nstat", "-a", "-s", "-z", "-j"], ns=tb.ns[side], check=False)
    try:
        d = json.loads(r.stdout)
        d = d.get("kernel", d)
    except ValueError:
        return None
    return {k: int(d.get(k, 0)) for k in _NSTAT_KEYS}


def _link_view(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if k not in ("flows", "other_flows")}


def predict(scenario: Any, path: Optional[str]) -> (Optional[Dict[str, Any]], Optional[str]):
    """The simulator's summary for the same scenario, or (None, why not)."""
    try:
        from aqmlab.sim import Scenario, simulate  # type: ignore[attr-defined]
    except Exception as e:  # noqa: BLE001 - any import problem means "not available"
        return None, f"simulator not available ({type(e).__name__}: {e})"
    try:
        if path is None:  # the simulator reads files: write the dict as TOML
            import tempfile

            with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as tf:
                tf.write(scmod.dumps(scenario))
            try:
                summ = simulate(Scenario.from_file(tf.name)).summary
            finally:
                os.unlink(tf.name)
        else:
            summ = simulate(Scenario.from_file(path)).summary
        if not isinstance(summ, dict):
            summ = json.loads(json.dumps(summ, default=lambda o: getattr(o, "__dict__", str(o))))
        return summ, None
    except Exception as e:  # noqa: BLE001
        return None, f"simulator failed ({type(e).__name__}: {e})"


def _comparison(
    summary: Dict[str, Any], pred: Optional[Dict[str, Any]], link: str
) -> Dict[str, Any]:
    def rate(l):
        return (l.get("drops", 0) / l["arrivals"]) if l and l.get("arrivals") else None

    t = summary["links"].get(link, {})
    p = (pred or {}).get("links", {}).get(link) if pred else None
    row = {"link": link}
    for k in ("utilization", "mean_queue", "mean_avg", "marks"):
        row[k] = {"testbed": t.get(k), "simulator": p.get(k) if p else None}
    row["drop_rate"] = {"testbed": rate(t), "simulator": rate(p) if p else None}
    return row


def run_testbed(
    scenario: Any,
    out_dir: Any,
    *,
    gateway: Optional[str] = None,
    prediction: bool = True,
    progress: bool = False,
) -> Dict[str, Any]:
    """Run a dumbbell scenario (TOML path or dict) on live Linux flows through the
    gateway; write ``out_dir/summary.json`` (the simulator's shape, plus
    ``"prediction"`` and ``"testbed"``) and return it."""
    wall = time.monotonic()
    path = None if isinstance(scenario, dict) else str(scenario)
    sc = scmod.load(scenario)
    pl = scmod.plan(sc)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ccs = sorted({f.kernel_cc for f in pl.flows if f.kernel_cc})
    hosts = {s: len(pl.hosts[s]) for s in ("a", "b")}
    flow_rows: List[Dict[str, Any]] = []
    with Testbed(
        out, gateway_args(pl), hosts, gateway=gateway, cc=ccs[0] if ccs else "reno", ecn=pl.ecn
    ) as tb:
        counters = {
            side: tb.spawn(
                side,
                [tb.gateway_bin, "count", "--iface", "eth0"],
                stdout=out / f"count_{side}.json",
            )
            for side in ("a", "b")
        }
        for (side, node), window in scmod.window_clamps(pl).items():
            rcv = "b" if side == "a" else "a"
            addr = scmod.host_address(side, pl.hosts[side].index(node))
            nsmod.sh(
                ["ip", "route", "add", f"{addr}/32", "dev", "eth0", "window", str(window)],
                ns=tb.ns[rcv],
            )
        ports = {f.index: 5201 + f.index for f in pl.flows}
        for f in pl.flows:
            _iperf_server(tb, pl, f, ports[f.index])
        deadline = time.monotonic() + 5
        for side in ("a", "b"):
            want = [ports[f.index] for f in pl.flows if (f.src_side != side)]
            while want and not _listening(tb, side, want):
                if time.monotonic() > deadline:
                    raise RuntimeError("iperf3 servers did not start")
                time.sleep(0.02)
        pending = sorted(pl.flows, key=lambda f: f.start_s)
        clients: Dict[int, subprocess.Popen] = {}
        started: Dict[int, float] = {}
        while pending or any(c.poll() is None for c in clients.values()):
            tb.check_gateway()
            now = tb.elapsed()
            while pending and pending[0].start_s <= now:
                f = pending.pop(0)
                started[f.index] = tb.elapsed()
                clients[f.index] = tb.spawn(
                    f.src_side,
                    _iperf_client_args(pl, f, ports[f.index]),
                    stdout=out / f"flow{f.index}.client.json",
                )
            if now > pl.duration_s + 30:
                break  # a client that hangs (its peer lost) does not hold the run
            time.sleep(0.02)
        tb.check_gateway()
        for p in counters.values():
            p.send_signal(signal.SIGTERM)
        for p in list(counters.values()) + tb.procs:
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                p.kill()
        gw = tb.stop_gateway()
        tcp_counters = {side: _tcp_counters(tb, side) for side in ("a", "b")}
    if gw is None:
        raise RuntimeError(f"the gateway wrote no statistics; see {out / 'gateway.log'}")
    ab, ba = gw["links"]["ab"], gw["links"]["ba"]
    for f in pl.flows:
        client = _load_json(out / f"flow{f.index}.client.json")
        server = _load_json(out / f"flow{f.index}.server.json")
        dst_side = "b" if f.src_side == "a" else "a"
        src = scmod.host_address(f.src_side, pl.hosts[f.src_side].index(f.src))
        dst = scmod.host_address(dst_side, pl.hosts[dst_side].index(f.dst))
        lport = None
        try:
            lport = client["start"]["connected"][0]["local_port"]
        except (TypeError, KeyError, IndexError):
            pass
        link = ab if f.src_side == "a" else ba
        gf = next(
            (
                g
                for g in link.get("flows", [])
                if g["src"] == f"{src}:{lport}" and g["dst"] == f"{dst}:{ports[f.index]}"
            ),
            None,
        )
        retrans = None
        if client and f.kind == "tcp":
            retrans = client.get("end", {}).get("sum_sent", {}).get("retransmits")
        flow_rows.append(
            {
                "id": f.index,
                "src": f.src,
                "dst": f.dst,
                "type": "tcp" if f.kind == "tcp" else "cbr",
                "goodput_bps": _goodput(
                    server, client, started.get(f.index, f.start_s), pl.warmup_s, pl.duration_s
                ),
                "drops": gf["drops"] if gf else None,
                "marks": gf["marks"] if gf else None,
                "timeouts": None,
                "retransmits": retrans,
                "variant": f.variant,
                "kernel_cc": f.kernel_cc,
                "address": f"{src}:{lport} -> {dst}:{ports[f.index]}",
                "error": (client or {}).get("error"),
            }
        )
    counts = {s: _load_json(out / f"count_{s}.json") for s in ("a", "b")}
    summary: Dict[str, Any] = {
        "links": {pl.link_name: _link_view(ab), pl.link_name_back: _link_view(ba)},
        "flows": flow_rows,
        "events": None,
        "wall_seconds": time.monotonic() - wall,
        "testbed": {
            "namespaces": list(tb.ns.names.values()),
            "gateway": gw["gateway"],
            "rate_bps": pl.rate_ab,
            "one_way_delay_s": pl.delay_s,
            "kernel_congestion_control": {f.variant: f.kernel_cc for f in pl.flows if f.variant},
            "ecn": pl.ecn,
            "ce_received": {s: (c or {}).get("ce") for s, c in counts.items()},
            "tcp_counters": tcp_counters,
            "notes": pl.notes
            + [
                "goodput: bytes the iperf3 receiver reported in [warmup, duration]",
                "timeouts: not observed per flow on live Linux flows (null)",
            ],
            "gateway_flows": {
                pl.link_name: ab.get("flows", []),
                pl.link_name_back: ba.get("flows", []),
            },
        },
    }
    if prediction:
        pred, why = predict(sc, path)
        summary["prediction"] = pred
        if why:
            summary["prediction_note"] = why
        summary["comparison"] = _comparison(summary, pred, pl.link_name)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


# -- command line ---------------------------------------------------------------
def add_arguments(parser) -> None:
    parser.add_argument(
        "scenario",
        nargs="?",
        help="scenario TOML file (a dumbbell: every flow crosses one bottleneck link)",
    )
    parser.add_argument(
        "--out",
        help="output directory (summary.json, gateway.json, iperf3 logs); required with a scenario",
    )
    parser.add_argument(
        "--gateway",
        default=None,
        help=f"aqmlab-gateway binary (default ${GATEWAY_ENV} or a cargo build)",
    )
    parser.add_argument(
        "--no-prediction", action="store_true", help="do not run the simulator on the same scenario"
    )
    parser.add_argument(
        "--cleanup",
        action="store_true",
        help="only remove namespaces left by killed runs, then exit",
    )


def _fmt(v, pct=False):
    if v is None:
        return "-"
    return f"{v * 100:.1f}%" if pct else (f"{v:.2f}" if isinstance(v, float) else str(v))


def run(args) -> int:
    """`aqmlab testbed`: returns the exit status."""
    try:
        nsmod.require_privileges()
        if args.cleanup:
            removed = nsmod.cleanup_stale()
            print(
                f"removed {len(removed)} stale namespace(s): {' '.join(removed)}"
                if removed
                else "nothing to clean up"
            )
            return 0
        if not args.scenario or not args.out:
            print("aqmlab testbed: give a SCENARIO and --out DIR (or --cleanup)", file=sys.stderr)
            return 2
        s = run_testbed(
            args.scenario, args.out, gateway=args.gateway, prediction=not args.no_prediction
        )
    except nsmod.PrivilegeError as e:
        print(f"aqmlab testbed: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"aqmlab testbed: error: {e}", file=sys.stderr)
        return 1
    for name, l in s["links"].items():
        print(
            f"{name}: utilization {_fmt(l['utilization'], True)}, arrivals {l['arrivals']}, drops {l['drops']} "
            f"(early {l['early_drops']}, forced {l['forced_drops']}), marks {l['marks']}, "
            f"mean queue {_fmt(l['mean_queue'])}, mean avg {_fmt(l['mean_avg'])}"
        )
    for f in s["flows"]:
        g = f["goodput_bps"]
        print(
            f"flow {f['id']} {f['type']} {f['src']}->{f['dst']}: goodput {g / 1e6:.2f} Mb/s"
            if g is not None
            else f"flow {f['id']}: no goodput ({f.get('error')})"
        )
    if "prediction_note" in s:
        print(f"prediction: {s['prediction_note']}")
    print(f"wrote {Path(args.out) / 'summary.json'}")
    return 0
