"""benchmarks/peers/web_transfers.py: the web transfers aqmlab runs, drawn in Python so that
ns-2 runs the same ones (the Floyd et al. 2001 cross-check, ared2001.py)."""

from __future__ import annotations

import csv
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
    window, then time and packets of every transfer), the very list aqmlab runs; with
    --seeds each of Figs. 1-3's runs comes once per seed."""
    import ared2001
    from aqmlab.sim import Scenario

    runs = ared2001.cases("fig1-3", [1, 2])
    assert len(runs) == 2 * len(ared2001.cases("fig1-3"))
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
