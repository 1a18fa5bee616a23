"""Network namespaces and veth pairs the testbed owns, and their cleanup.

Every namespace is named ``aqmlab-<pid>-<role>`` where ``<pid>`` is the process that
created it. :func:`cleanup_stale` removes only ``aqmlab-*`` namespaces whose owner is
dead (a run killed with SIGKILL, or whose gateway crashed before the runner could tear
down): it kills the processes still inside them and deletes them. Interfaces are
created inside those namespaces (never in the caller's), so deleting a namespace
deletes its interfaces, and addresses exist only inside them.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence

from ..base import pid_alive

PREFIX = "aqmlab-"
_NAME = re.compile(r"^aqmlab-(\d+)-[a-z0-9]+$")


class PrivilegeError(RuntimeError):
    """The testbed lacks the privileges it needs (root or CAP_NET_ADMIN + CAP_NET_RAW)."""


def _capabilities() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except OSError:
        pass
    return 0


CAP_NET_ADMIN = 12
CAP_NET_RAW = 13
CAP_SYS_ADMIN = 21


def privilege_problem() -> str | None:
    """Why the testbed cannot run here, or None when it can."""
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    caps = _capabilities()
    need = (1 << CAP_NET_ADMIN) | (1 << CAP_NET_RAW) | (1 << CAP_SYS_ADMIN)
    if os.geteuid() != 0 and caps & need != need:
        return (
            "aqmlab testbed creates network namespaces and veth pairs and opens raw sockets: "
            "it needs root (or CAP_NET_ADMIN, CAP_NET_RAW and CAP_SYS_ADMIN). Run it with sudo."
        )
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    if r.returncode != 0:
        return f"`ip netns` does not work here: {r.stderr.strip()}"
    return None


def require_privileges() -> None:
    """Raise :class:`PrivilegeError` with a clear message when the testbed cannot run."""
    p = privilege_problem()
    if p:
        raise PrivilegeError(p)


def sh(
    args: Sequence[str], check: bool = True, ns: str | None = None, **kw
) -> subprocess.CompletedProcess:
    """Run a command (inside namespace `ns` if given), capturing its output."""
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {' '.join(cmd)}: {r.stderr.strip()}")
    return r


def list_namespaces() -> list[str]:
    r = sh(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def owned_namespaces(pid: int | None = None) -> list[str]:
    """Namespaces named by the testbed (of one owner pid if given)."""
    out = []
    for n in list_namespaces():
        m = _NAME.match(n)
        if m and (pid is None or int(m.group(1)) == pid):
            out.append(n)
    return out


def delete_namespace(name: str) -> None:
    """Kill the processes inside namespace `name` (ours: we started them there) and delete it."""
    if not _NAME.match(name):
        raise ValueError(f"refusing to delete {name!r}: not a namespace aqmlab created")
    for _ in range(3):
        r = sh(["ip", "netns", "pids", name], check=False)
        pids = [int(p) for p in r.stdout.split() if p.isdigit()]
        if not pids:
            break
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    sh(["ip", "netns", "del", name], check=False)


def cleanup_stale() -> list[str]:
    """Delete ``aqmlab-<pid>-*`` namespaces whose owner process is dead; return their names."""
    removed = []
    for n in owned_namespaces():
        pid = int(_NAME.match(n).group(1))  # type: ignore[union-attr]
        if pid != os.getpid() and not pid_alive(pid):
            delete_namespace(n)
            removed.append(n)
    return removed


def napi_threads() -> dict[int, str]:
    """The kernel's threaded-NAPI threads (``napi/IFNAME-ID``) now, by pid."""
    found = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/comm") as f:
                    comm = f.read().strip()
            except OSError:
                continue
            if comm.startswith("napi/"):
                found[int(d)] = comm
    return found


class Netns:
    """The namespaces of one run: created by :meth:`create`, removed by :meth:`destroy`."""

    def __init__(self, roles: Sequence[str], pid: int | None = None):
        self.pid = os.getpid() if pid is None else pid
        self.names: dict[str, str] = {r: f"{PREFIX}{self.pid}-{r}" for r in roles}
        self.created: list[str] = []

    def __getitem__(self, role: str) -> str:
        return self.names[role]

    def create(self) -> None:
        for name in self.names.values():
            if name in list_namespaces():
                raise RuntimeError(
                    f"namespace {name} already exists (another run of this process?)"
                )
            sh(["ip", "netns", "add", name])
            self.created.append(name)
            sh(["ip", "link", "set", "lo", "up"], ns=name)

    def destroy(self) -> None:
        for name in reversed(self.created):
            delete_namespace(name)
        self.created.clear()

    def veth(self, ns1: str, if1: str, ns2: str, if2: str) -> None:
        """A veth pair created directly inside the namespaces (no name in the caller's)."""
        sh(
            [
                "ip",
                "-n",
                self[ns1],
                "link",
                "add",
                if1,
                "type",
                "veth",
                "peer",
                "name",
                if2,
                "netns",
                self[ns2],
            ]
        )

    def offloads_off(self, role: str, ifname: str) -> None:
        """Segmentation and receive offloads off (packets are packets) and checksums
        computed in software (the gateway forwards frames, a partial checksum would
        reach the receiver unfinished)."""
        if shutil.which("ethtool") is None:
            raise RuntimeError("ethtool is not installed (apt-get install -y ethtool)")
        for feat in (["tso", "off"], ["gso", "off"], ["gro", "off"], ["tx", "off"], ["rx", "off"]):
            sh(["ethtool", "-K", ifname] + feat, ns=self[role], check=False)

    def threaded_receive(self, role: str, ifname: str) -> None:
        """The veth `ifname` receives through NAPI run by a kernel thread of its own
        (``napi/IFNAME-ID``), as a real NIC's receive runs in the receiving host's
        softirq, not in the sending process: without it a veth runs the receiving
        namespace's whole stack in the sender's context, charged to the sender. A veth
        polls with NAPI only with GRO on (`drivers/net/veth.c`, veth_set_features); a
        GRO size limit of 0 keeps GRO from merging anything (`skb_gro_receive`):
        packets stay packets."""
        sh(["ethtool", "-K", ifname, "gro", "on"], ns=self[role])
        sh(["ip", "link", "set", "dev", ifname, "gro_max_size", "0"], ns=self[role])
        sh(["sh", "-c", f"echo 1 > /sys/class/net/{ifname}/threaded"], ns=self[role])

    def sysctl(self, role: str, key: str, value) -> None:
        sh(["sysctl", "-q", "-w", f"{key}={value}"], ns=self[role])
