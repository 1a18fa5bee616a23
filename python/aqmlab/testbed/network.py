"""The testbed's network: namespaces a / gw / b joined by veth pairs, the hosts'
addresses, and the running gateway, as a context manager.

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
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import netns as nsmod
from . import scenario as scmod
from .gateway import ensure_tools, gateway_binary

# How the hosts' interfaces receive what the gateway sends them: "inline", the veth's
# default, the receiving host's stack run in the gateway's context as it sends;
# "thread", through NAPI in a kernel thread of their own, as a NIC's receive runs on
# the receiving host (docs/testbed.md: "Offloads", "Forwarding capacity").
RECEIVE_MODES = ("thread", "inline")
DEFAULT_RECEIVE = "inline"

# How the testbed's processes are scheduled: "realtime", the gateway under SCHED_FIFO
# and the hosts' traffic (iperf3, and the hosts' NAPI threads with receive = "thread")
# at the highest priority of the default policy, so that other work on the machine
# does not delay the emulated link's departures or the hosts' answers; "normal", the
# default policy at the default priority (docs/testbed.md, "Scheduling").
SCHEDULING = ("realtime", "normal")
DEFAULT_SCHEDULING = "realtime"
GATEWAY_PRIORITY = 50  # SCHED_FIFO
# The hosts' niceness: not SCHED_FIFO, where a host process that spins would take its
# CPU from everything else, and through the kernel's real-time throttling from the
# gateway too.
HOST_NICE = -20


class Testbed:
    """Namespaces a / gw / b joined by veth pairs, hosts' addresses, and a running
    gateway; a context manager that tears everything down on exit (and on SIGTERM,
    which it turns into SystemExit while it runs in the main thread).

    `hosts` gives the number of addresses on each side; `gateway_args` are the
    gateway's flags after the interfaces (rate, delay, queues, window); `env` the
    gateway's environment (default: this process's; see `gateway.gateway_env`);
    `receive` how the hosts' interfaces receive ([`RECEIVE_MODES`]; default
    $AQMLAB_TESTBED_RECEIVE, else [`DEFAULT_RECEIVE`]); `scheduling` how its
    processes are scheduled ([`SCHEDULING`]; default $AQMLAB_TESTBED_SCHEDULING, else
    [`DEFAULT_SCHEDULING`]). What a "realtime" setting could not apply is in
    `self.scheduling_errors` and the gateway's statistics.
    """

    __test__ = False  # not a pytest test class

    def __init__(  # noqa: PLR0913 - the network's settings, by name (keyword-only)
        self,
        out_dir: Path,
        gateway_args: Sequence[str],
        hosts: dict[str, int],
        *,
        gateway: str | None = None,
        cc: str = "reno",
        ecn: bool = False,
        env: Mapping[str, str] | None = None,
        receive: str | None = None,
        scheduling: str | None = None,
    ):
        self.out = Path(out_dir)
        self.gateway_args = list(gateway_args)
        self.hosts = hosts
        self.gateway_bin = gateway or gateway_binary()
        self.cc = cc
        self.ecn = ecn
        self.env = None if env is None else dict(env)
        self.receive = receive or os.environ.get("AQMLAB_TESTBED_RECEIVE", DEFAULT_RECEIVE)
        if self.receive not in RECEIVE_MODES:
            raise ValueError(
                f"receive (AQMLAB_TESTBED_RECEIVE) must be one of {RECEIVE_MODES}, "
                f"not {self.receive!r}"
            )
        self.scheduling = scheduling or os.environ.get(
            "AQMLAB_TESTBED_SCHEDULING", DEFAULT_SCHEDULING
        )
        if self.scheduling not in SCHEDULING:
            raise ValueError(
                f"scheduling (AQMLAB_TESTBED_SCHEDULING) must be one of {SCHEDULING}, "
                f"not {self.scheduling!r}"
            )
        # The command prefix that runs a host's traffic process at niceness HOST_NICE
        # (empty: the default), and what could not be applied.
        self.host_prefix: list[str] = []
        self.scheduling_errors: list[str] = []
        self.ns = nsmod.Netns(["a", "gw", "b"])
        self.gw: subprocess.Popen | None = None
        self.procs: list[subprocess.Popen] = []
        self.stats_path = self.out / "gateway.json"
        self.t0 = 0.0
        self._old_term: Any = None

    # -- set-up ----------------------------------------------------------------
    def __enter__(self) -> Testbed:
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
        napi_before = nsmod.napi_threads()
        if self.receive == "thread":
            for side in ("a", "b"):
                ns.threaded_receive(side, "eth0")
        if self.scheduling == "realtime":
            self._realtime_hosts(sorted(set(nsmod.napi_threads()) - set(napi_before)))
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

    def _realtime_hosts(self, napi: list[int]) -> None:
        """Niceness [`HOST_NICE`] for the hosts' traffic processes (checked once here:
        `nice` runs its command even where it may not lower the niceness; applied by
        `spawn`) and for the hosts' NAPI threads `napi`; what the kernel refuses is
        kept in `scheduling_errors`."""
        prefix = ["nice", "-n", str(HOST_NICE)]
        r = nsmod.sh([*prefix, "nice"], ns=self.ns["a"], check=False)
        if r.returncode == 0 and r.stdout.strip() == str(HOST_NICE):
            self.host_prefix = prefix
        else:
            why = r.stderr.strip() or f"niceness {r.stdout.strip()}"
            self.scheduling_errors.append(f"hosts' traffic: {' '.join(prefix)}: {why}")
        for pid in napi:
            r = nsmod.sh(["renice", "-n", str(HOST_NICE), "-p", str(pid)], check=False)
            if r.returncode != 0:
                self.scheduling_errors.append(f"NAPI thread {pid}: {r.stderr.strip()}")

    def scheduling_record(self, gateway_stats: dict[str, Any] | None) -> dict[str, Any]:
        """What the run's processes were scheduled with (the summary's
        `testbed.scheduling`): the setting, the gateway's own report, the hosts'
        traffic's policy, the receive mode, and every setting that was refused."""
        gw = (gateway_stats or {}).get("gateway", {}).get("scheduling")
        errors = list(self.scheduling_errors)
        if gw and gw.get("error"):
            errors.insert(0, f"gateway: {gw['error']}")
        hosts = f"nice {HOST_NICE}" if self.host_prefix else "other"
        return {
            "setting": self.scheduling,
            "gateway": gw,
            "hosts": hosts,
            "receive": self.receive,
            "errors": errors,
        }

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
            *(["--realtime", str(GATEWAY_PRIORITY)] if self.scheduling == "realtime" else []),
            "--stats",
            str(self.stats_path),
            "--ready",
            str(ready),
        ]
        (self.out / "gateway.cmd").write_text(" ".join(f"'{c}'" for c in cmd) + "\n")
        self.gw = subprocess.Popen(
            cmd, stdout=open(self.out / "gateway.log", "wb"), stderr=subprocess.STDOUT, env=self.env
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
        self, role: str, args: Sequence[str], stdout: Path | None = None, traffic: bool = False
    ) -> subprocess.Popen:
        """Start a process inside a namespace; it is killed at teardown if still running.
        `traffic`: a host's traffic process (iperf3), run at niceness [`HOST_NICE`]
        when the scheduling is "realtime" and the kernel allows it."""
        out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        err = open(str(stdout) + ".err", "wb") if stdout else subprocess.DEVNULL
        prefix = self.host_prefix if traffic else []
        cmd = ["ip", "netns", "exec", self.ns[role], *prefix, *args]
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        self.procs.append(p)
        return p

    def check_gateway(self) -> None:
        """Raise if the gateway died (crash, SIGKILL, an AQM of its queue failing),
        with the last line it wrote."""
        if self.gw is not None and self.gw.poll() is not None and not self.stats_path.exists():
            log = self.out / "gateway.log"
            lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
            last = f": {lines[-1]}" if lines else ""
            raise RuntimeError(
                f"the gateway exited unexpectedly (code {self.gw.returncode}){last}; see {log}"
            )

    def stop_gateway(self) -> dict[str, Any] | None:
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
