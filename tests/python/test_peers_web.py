"""benchmarks/peers/web_transfers.py: the web transfers aqmlab runs, drawn in Python so that
ns-2 runs the same ones (the Floyd et al. 2001 cross-check, ared2001.py)."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "peers"))

from web_transfers import Pcg64Mcg, transfers  # noqa: E402


def test_pcg64mcg_reference_values() -> None:
    """The generator against the PCG reference (the C library's test suite for a
    128-bit MCG with XSL RR output, state 42) and rand_pcg 0.9's construction vectors
    (from_seed of the bytes 1..16; seed_from_u64(0))."""
    rng = Pcg64Mcg(42)
    assert [rng.next_u64() for _ in range(6)] == [
        0x63B4A3A813CE700A,
        0x382954200617AB24,
        0xA7FD85AE3FE950CE,
        0xD715286AA2887737,
        0x60C92FEE2E59F32C,
        0x84C4E96BEFF30017,
    ]
    assert Pcg64Mcg(int.from_bytes(bytes(range(1, 17)), "little")).next_u64() == (
        7071994460355047496
    )
    assert Pcg64Mcg.seed_from_u64(0).next_u64() == 6198063878555692194
    u = Pcg64Mcg.seed_from_u64(7).random()
    assert 0.0 <= u < 1.0


def _web_only(seed: int, fixed: bool = False) -> dict:
    """A 100 Mb/s path that loses nothing, carrying a web group each way for 30 s,
    with a trace of the packets arriving at either direction."""
    web = {
        "type": "web",
        "packet_size": 1000,
        "max_window": 1000,
        "arrival_rate": 10,
        "mean_packets": 12,
        "shape": 1.2,
        "max_transfers": 100,
    }
    if fixed:
        web["size_distribution"] = "fixed"
    return {
        "name": "web-only",
        "duration": "30s",
        "seed": seed,
        "profile": "ns2",
        "link": [
            {
                "a": "a",
                "b": "b",
                "rate": "100Mbps",
                "delay": "10ms",
                "queue": {"type": "droptail", "limit": 100000},
            }
        ],
        "flow": [
            dict(web, src="a", dst="b", start="0s"),
            dict(web, src="b", dst="a", start="1.5s"),
        ],
        "trace": {"packets": ["a->b", "b->a"]},
    }


def _traced_transfers(path: Path, flows: set[int]) -> list[tuple[int, int]]:
    """(start in ns, packets sent) of every transfer of `flows` in a packet trace: a
    transfer starts when its connection's packet 0 arrives at the first queue (at
    once: no preparation delay), and sends packets 0..n-1 (nothing is lost)."""
    starts: list[tuple[int, int]] = []
    sizes: dict[int, list[int]] = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            fl = int(row["flow"])
            if row["event"] != "a" or row["ack"] == "1" or fl not in flows:
                continue
            seq = int(row["seq"])
            if seq == 0:
                starts.append((round(float(row["time"]) * 1e9), fl))
                sizes.setdefault(fl, []).append(1)
            else:
                sizes[fl][-1] = max(sizes[fl][-1], seq + 1)
    taken = {fl: iter(v) for fl, v in sizes.items()}
    return [(t, next(taken[fl])) for t, fl in sorted(starts)]


@pytest.mark.parametrize("seed,fixed", [(1, False), (2, False), (3, True)])
def test_transfers_are_the_simulators(seed: int, fixed: bool, tmp_path: Path) -> None:
    """The list is the simulator's, transfer for transfer: each group's transfers in a
    packet trace start at the listed nanosecond with the listed size (those that end
    before the run does; the last ones' starts too), and nothing is rejected."""
    from aqmlab.sim import Scenario, simulate

    sc = Scenario.from_dict(_web_only(seed, fixed))
    norm = sc.normalized()
    rows = simulate(sc, trace_dir=tmp_path).summary["flows"]
    groups: dict[int, list[int]] = {}
    for i, f in enumerate(norm["flows"]):
        groups.setdefault(f["spec"], []).append(i)
    assert len(groups) == 2
    for members in groups.values():
        listed = transfers(norm["flows"][members[0]], norm["duration"])
        assert len(listed) > 250  # 10 per second for about 30 s
        assert all(t2 > t1 for (t1, _), (t2, _) in zip(listed, listed[1:]))
        if fixed:
            assert {n for _, n in listed} == {12}
        else:
            assert min(n for _, n in listed) >= 2  # Pareto's scale, 12 x 0.2 / 1.2
            assert len({n for _, n in listed}) > 20
        assert sum(rows[i]["rejected"] for i in members) == 0
        traced = _traced_transfers(tmp_path / "packets.csv", set(members))
        assert [t for t, _ in traced] == [t for t, _ in listed]
        done = [i for i, (t, _) in enumerate(listed) if t < 25e9]
        assert len(done) > 200
        assert [traced[i] for i in done] == [listed[i] for i in done]


def test_transfers_reject_what_the_replay_cannot_follow() -> None:
    from aqmlab.sim import Scenario

    norm = Scenario.from_dict(_web_only(1)).normalized()
    tcp = dict(norm["flows"][0], type="tcp")
    with pytest.raises(ValueError, match="not a web flow"):
        transfers(tcp, 10.0)
    with pytest.raises(ValueError, match="drawn by flow 0"):
        transfers(norm["flows"][1], 10.0)
    with pytest.raises(ValueError, match="prep_delay"):
        transfers(dict(norm["flows"][0], prep_delay=0.001), 10.0)


def test_ared2001_hands_ns2_the_transfers() -> None:
    """ared2001.py's parameters give ns-2 each web group's list (source, destination,
    window, then time and packets of every transfer), the very list aqmlab runs; each of
    Figs. 1-3's runs comes once per seed (seeds 1-5, or those of --seeds)."""
    import ared2001
    from aqmlab.sim import Scenario

    runs = ared2001.cases("fig1-3", [1, 2])
    every = ared2001.cases("fig1-3")
    assert {r["key"]["seed"] for r in every} == {1, 2, 3, 4, 5}
    assert len(runs) * 5 == 2 * len(every)
    assert {r["key"]["seed"] for r in runs} == {1, 2}
    c = next(r for r in runs if r["key"]["flows"] == 5 and r["key"]["seed"] == 2)
    text = ared2001.params(c["scenario"], c["windows"], "t")
    (web,) = [ln.split(" ", 1)[1] for ln in text.splitlines() if ln.startswith("web ")]
    norm = Scenario.from_dict(c["scenario"]).normalized()
    groups = [f for f in norm["flows"] if f["type"] == "web" and f["first"] == f["id"]]
    entries = [e.split(" {") for e in web.strip("{}").split("}} {")]
    assert len(entries) == len(groups) == 2
    for (head, times), f in zip(entries, groups):
        assert head.split()[-1] == str(f["tcp"]["max_window"])
        nums = times.strip("}").split()
        listed = transfers(f, norm["duration"])
        assert [(round(float(t) * 1e9), int(n)) for t, n in zip(nums[::2], nums[1::2])] == listed


def _one_transfer(packets: int) -> dict:
    """Floyd et al.'s dumbbell with nothing but one web transfer of `packets` packets
    (window 1000) crossing the idle RED link r1->r2 at about 1.16 s (seed 1)."""
    droptail = {"type": "droptail", "limit": 1000}
    red = {"type": "red", "limit": 200, "min_th": 20, "max_th": 80, "w_q": 0.002}
    return {
        "name": "one-transfer",
        "profile": "ns2",
        "duration": "2s",
        "seed": 1,
        "link": [
            {"a": "r1", "b": "r2", "rate": "15Mbps", "delay": "20ms", "queue": red},
            {"a": "s2", "b": "r1", "rate": "100Mbps", "delay": "22.5ms", "queue": droptail},
            {"a": "r2", "b": "k2", "rate": "100Mbps", "delay": "22.5ms", "queue": droptail},
        ],
        "flow": [
            {
                "type": "web",
                "src": "s2",
                "dst": "k2",
                "start": "0s",
                "packet_size": 1000,
                "max_window": 1000,
                "arrival_rate": 0.2,
                "mean_packets": packets,
                "size_distribution": "fixed",
            }
        ],
    }


def _rounds(times: list[float]) -> list[int]:
    """Packets per round trip: runs of arrivals less than 50 ms apart (the path's round
    trip is 130 ms, a round's packets 80-533 us apart)."""
    out = [1]
    for a, b in zip(times, times[1:]):
        if b - a > 0.05:
            out.append(0)
        out[-1] += 1
    return out


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (ns) is not installed")
def test_ared2001_web_transfer_slow_starts_to_its_window(tmp_path: Path) -> None:
    """ns-2's web transfer in ns2/ared2001.tcl slow-starts as aqmlab's does: its initial
    ssthresh is its window of 1000 packets (ns-2's reset(): ssthresh_ = window_, as for
    the agents that exist when the run starts), not the class's window_ of 20 that the
    agent had when it was made. A 100-packet transfer on an idle path sends 2, 4, 8, 16,
    32 and the last 38 packets in successive round trips (RFC 5681 slow start from
    ns-2's windowInit_ 2, one packet more per ACK), after ns-2's 40-byte SYN."""
    import ared2001
    from aqmlab.sim import Scenario, simulate

    sc = _one_transfer(100)
    slow_start = [2, 4, 8, 16, 32, 38]
    trace = tmp_path / "ns2.tr"
    params = tmp_path / "one.params"
    params.write_text(ared2001.params(sc, [(0.0, 2.0)], "one") + f"trace {trace}\n")
    subprocess.run(["ns", str(ared2001.TCL), str(params)], check=True, capture_output=True)
    syn, data = [], []
    for line in trace.read_text().splitlines():
        ev, t, src, _dst, _kind, size = line.split()[:6]
        if ev == "+" and src == "0":  # enqueued at r1 -> r2 (node 0 -> node 1)
            (syn if size == "40" else data).append(float(t))
    assert len(syn) == 1 and syn[0] < data[0]
    assert _rounds(data) == slow_start
    sc["trace"] = {"packets": ["r1->r2"]}
    simulate(Scenario.from_dict(sc), trace_dir=tmp_path / "aqmlab")
    with open(tmp_path / "aqmlab" / "packets.csv") as f:
        ours = [float(r["time"]) for r in csv.DictReader(f) if r["event"] == "a"]
    assert _rounds(ours) == slow_start
