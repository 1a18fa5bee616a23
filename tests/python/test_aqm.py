"""The Python API of the queue disciplines (``aqmlab.aqm``)."""

import math

import numpy as np
import pytest
from scipy import stats

from aqmlab import aqm


def eq2(w_q, burst):
    """Floyd & Jacobson eq. (2), computed here from the sum that defines it."""
    return sum(i * w_q * (1 - w_q) ** (burst - i) for i in range(1, burst + 1))


def test_contract_names_exist():
    """The contract's constructors, methods and properties exist."""
    for cls in (
        aqm.DropTail,
        aqm.RandomDrop,
        aqm.Red,
        aqm.AdaptiveRed,
        aqm.FengAdaptiveRed,
        aqm.Fred,
    ):
        q = cls(limit=50) if cls in (aqm.DropTail, aqm.RandomDrop, aqm.Fred) else cls(limit=50)
        assert q.enqueue(0.0, 1000, 1) in {"enqueue", "mark", "drop_early", "drop_forced"}
        assert q.enqueue(0.001, 1000, 2, ecn_capable=True) in {
            "enqueue",
            "mark",
            "drop_early",
            "drop_forced",
        }
        assert q.dequeue(0.002) == (1000, 1)
        for name in ("avg", "count", "max_p", "len_packets", "len_bytes"):
            getattr(q, name)
        assert q.len_packets == 1 and q.len_bytes == 1000


def test_burst_average_is_eq2():
    """A burst of 101 packets into an empty RED queue leaves avg at eq. (2) for L = 100 (4.88 in the paper)."""
    q = aqm.Red(min_th=1000, max_th=2000, w_q=0.001, limit=500)
    for _ in range(101):
        assert q.enqueue(1.0, 1000, 0) == "enqueue"
    assert q.avg == pytest.approx(eq2(0.001, 100), rel=1e-12)
    assert math.floor(q.avg * 100) / 100 == 4.88


def test_method2_marks_uniformly_spaced():
    """Method 2's gaps between drops are uniform on {1..1/p_b} with mean 1/(2 p_b) + 1/2."""
    # w_q = 1 makes avg the queue an arrival sees; hold it at 10 packets: p_b = 0.1 * 5 / 10 = 0.05
    q = aqm.Red(min_th=5, max_th=15, w_q=1.0, max_p=0.1, limit=10_000, seed=3)
    for _ in range(10):
        q.enqueue(0.0, 1000, 0)
    gaps, since, first = [], 0, True
    t = 0.0
    while len(gaps) < 4000:
        t += 1e-6
        since += 1
        v = q.enqueue(t, 1000, 1)
        if v == "enqueue":
            q.dequeue(t)  # keep 10 waiting
        else:
            if not first:
                gaps.append(since)
            first, since = False, 0
    gaps = np.array(gaps)
    assert gaps.min() >= 1 and gaps.max() <= 20
    counts = np.bincount(gaps - 1, minlength=20)
    assert stats.chisquare(counts).pvalue > 0.001
    assert gaps.mean() == pytest.approx(
        1 / (2 * 0.05) + 0.5, abs=4 * math.sqrt((400 - 1) / 12 / len(gaps))
    )


def test_ecn_marks_instead_of_drops():
    """With ecn=True, early decisions on ECN-capable packets are marks; other packets are dropped."""
    q = aqm.Red(min_th=1, max_th=100, w_q=1.0, max_p=1.0, limit=1000, ecn=True, seed=1)
    for _ in range(50):
        q.enqueue(0.0, 500, 0, ecn_capable=True)
    verdicts = {q.enqueue(0.0, 500, 1, ecn_capable=True) for _ in range(200)}
    assert "mark" in verdicts and "drop_early" not in verdicts
    assert q.stats["marks"] > 0


def test_adaptive_red_moves_max_p():
    """Adaptive RED raises max_p by min(0.01, max_p/4) per 0.5 s while avg is above the target band."""
    q = aqm.AdaptiveRed(min_th=20, max_th=80, w_q=1.0, max_p=0.1, limit=1000)
    for _ in range(70):
        q.enqueue(0.0, 500, 0)
    assert q.poll_at == pytest.approx(0.5)
    expect = 0.1
    for k in range(1, 4):
        q.poll(0.5 * k)
        expect += min(0.01, expect / 4)
        assert q.max_p == pytest.approx(expect, rel=1e-12)


def test_adaptive_red_automatic_parameters():
    """ARED's automatic w_q, min_th and max_th follow the link rate (Section 4.3 and 6)."""
    q = aqm.AdaptiveRed(limit=1000, link_rate_bps=100e6)
    c = 100e6 / (8 * 500)
    # fill to 50 packets and check the EWMA weight from avg after one step
    q.enqueue(0.0, 500, 0)
    q.enqueue(0.0, 500, 0)
    assert q.avg == pytest.approx(1 - math.exp(-1 / c), rel=1e-9)


def test_random_drop_reports_victim():
    """Random Drop on a full buffer keeps the length and says which packet went."""
    q = aqm.RandomDrop(limit=3, seed=2)
    for f in range(3):
        q.enqueue(0.0, 100, f)
    seen = set()
    for f in range(3, 60):
        assert q.enqueue(0.0, 100, f) == "drop_forced"
        (victim,) = q.last_dropped
        seen.add(victim[1] == f)
        assert q.len_packets == 3
    assert seen == {True, False}


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(min_th=20, max_th=10, limit=5), "min_th"),
        (dict(w_q=0.0, limit=5), "w_q"),
        (dict(w_q=1.5, limit=5), "w_q"),
        (dict(max_p=2.0, limit=5), "max_p"),
        (dict(limit=0), "limit"),
        (dict(limit=-3), "limit"),
        (dict(limit=5, mark_method="sometimes"), "mark_method"),
        (dict(limit=5, bogus_option=1), "bogus_option"),
    ],
)
def test_invalid_arguments_name_the_parameter(kwargs, name):
    """Invalid arguments raise ValueError naming the parameter."""
    with pytest.raises(ValueError, match=name):
        aqm.Red(**kwargs)


@pytest.mark.parametrize(
    "config, path",
    [
        ({"limit": 5}, "type"),
        ({"type": 5, "limit": 5}, "type"),
        ({"type": "bleu", "limit": 5}, "type"),
        ({"type": "red", "limit": 5, "min_tj": 3}, "min_tj"),
        ({"type": "red", "limit": 5, "min_th": "abc"}, "min_th"),
        ({"type": "red", "limit": -5}, "limit"),
        ({"type": "red", "limit": 5.5}, "limit"),
        ({"type": "red", "limit": None}, "limit"),
        ({"type": "red", "limit": 5, "mark_method": "fancy"}, "mark_method"),
        ({"type": "red", "limit": 5, "mark_method": 3}, "mark_method"),
        ({"type": "red", "limit": 5, "count_mode": "fig"}, "count_mode"),
        ({"type": "red", "limit": 5, "gentle": "yes"}, "gentle"),
        ({"type": "ared", "limit": 5, "interval": [1]}, "interval"),
        ({"type": "ared", "limit": 5, "feng_alpha": 3}, "feng_alpha"),
        ({"type": "droptail", "limit": 5, "min_th": 3}, "min_th"),
        ({"type": "randomdrop", "limit": 5, "drop_front": True}, "drop_front"),
    ],
)
def test_queue_dict_errors_start_with_the_key(config, path):
    """A queue dict that cannot be read raises ValueError starting with the key at fault."""
    with pytest.raises(ValueError) as e:
        aqm.Queue(config)
    assert str(e.value).startswith(path + ": ") or str(e.value).startswith(path + " = "), e.value


def test_queue_dict_type_anywhere_and_config_table():
    """`type` may stand anywhere in the dict; `config` is the table with `type` first."""
    a = aqm.Queue({"limit": 20, "min_th": 3, "type": "red"})
    b = aqm.Queue({"type": "red", "min_th": 3, "limit": 20})
    assert a.config == b.config
    keys = list(a.config)
    assert keys[:4] == ["type", "min_th", "max_th", "w_q"] and keys[-1] == "seed"
    assert a.config["mark_method"] == "uniform" and a.config["count_mode"] == "text"


def test_queue_dict_takes_numpy_scalars():
    """Parameters taken from NumPy arrays read as the numbers they hold."""
    np = pytest.importorskip("numpy")
    a = aqm.Queue(
        {"type": "red", "limit": np.int64(20), "max_th": np.int32(9), "gentle": np.bool_(True)}
    )
    b = aqm.Queue({"type": "red", "limit": 20, "max_th": 9, "gentle": True})
    assert a.config == b.config


def test_invalid_time_and_size():
    """Negative times, sizes and flow ids are ValueErrors, not crashes."""
    q = aqm.DropTail(limit=5)
    with pytest.raises(ValueError, match="now"):
        q.enqueue(-1.0, 100, 0)
    with pytest.raises(ValueError, match="size"):
        q.enqueue(0.0, 0, 0)
    with pytest.raises(ValueError, match="flow"):
        q.enqueue(0.0, 100, -1)


def test_from_config_dict():
    """A scenario-style dict builds the same discipline as the keyword constructor."""
    a = aqm.Queue({"type": "red", "min_th": 3, "max_th": 9, "limit": 20, "seed": 4})
    b = aqm.Red(min_th=3, max_th=9, limit=20, seed=4)
    out_a = [a.enqueue(i * 1e-4, 1000, 0) for i in range(40)]
    out_b = [b.enqueue(i * 1e-4, 1000, 0) for i in range(40)]
    assert out_a == out_b and a.kind == "red"


def test_same_seed_same_result():
    """Same seed, same sequence of verdicts; another seed differs."""

    def run(seed):
        q = aqm.Red(min_th=2, max_th=6, w_q=0.5, max_p=0.5, limit=100, seed=seed)
        out = []
        for i in range(2000):
            out.append(q.enqueue(i * 1e-4, 1000, i % 3))
            if i % 2:
                q.dequeue(i * 1e-4)
        return out

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_demo_runs(capsys):
    """`aqmlab demo` runs and reports RED's early drops beside Drop Tail's overflow drops."""
    from aqmlab.cli import main

    assert main(["demo", "--duration", "2"]) == 0
    out = capsys.readouterr().out
    assert "early_drops" in out and "DropTail" in out


def test_time_never_goes_back():
    """A call whose ``now`` is earlier than the previous call's is refused, naming both times, and changes nothing."""
    q = aqm.Red(min_th=5, max_th=15, limit=50)
    assert q.enqueue(1.0, 1000, 0) == "enqueue"
    before = (q.len_packets, q.avg, q.stats)
    for call in (
        lambda: q.enqueue(0.5, 1000, 0),
        lambda: q.dequeue(0.999),
        lambda: q.dequeue_marked(0.0),
        lambda: q.poll(0.25),
    ):
        with pytest.raises(
            ValueError, match=r"now = .* earlier than the previous call's now = 1\b"
        ):
            call()
    assert (q.len_packets, q.avg, q.stats) == before
    # the same time again is allowed, and a refused call does not move the clock
    assert q.enqueue(1.0, 1000, 0) == "enqueue"
    assert q.dequeue(1.0) == (1000, 0)


def test_flags_take_only_booleans():
    """Boolean parameters and ``ecn_capable`` accept True/False (NumPy's too) and refuse anything else, naming it."""
    for bad in ("x", 1, 0, "true"):
        with pytest.raises(ValueError, match="^gentle"):
            aqm.Red(min_th=5, max_th=15, limit=50, gentle=bad)
        with pytest.raises(ValueError, match="^drop_front"):
            aqm.Queue({"type": "droptail", "limit": 5, "drop_front": bad})
    assert aqm.Red(min_th=5, max_th=15, limit=50, gentle=np.bool_(True)).config["gentle"] is True
    q = aqm.Red(min_th=5, max_th=15, limit=50)
    for bad in ("x", 1, 1.0, "True"):
        with pytest.raises(ValueError, match="^ecn_capable = .* allowed True or False"):
            q.enqueue(0.0, 1000, 0, ecn_capable=bad)
    assert q.len_packets == 0 and q.stats["arrivals"] == 0
    assert q.enqueue(0.0, 1000, 0, ecn_capable=np.bool_(True)) == "enqueue"


def test_dequeue_marked_reports_the_marks_of_the_arrivals():
    """A FIFO discipline's packets leave marked exactly when their arrival was answered "mark"; nothing is dropped at dequeue."""
    q = aqm.Red(min_th=1, max_th=30, w_q=1.0, max_p=1.0, limit=100, ecn=True, seed=4)
    verdicts = [q.enqueue(0.0, 500, i % 3, ecn_capable=True) for i in range(40)]
    assert "mark" in verdicts and "enqueue" in verdicts
    accepted = [(v == "mark") for v in verdicts if v in ("enqueue", "mark")]
    out = []
    while (d := q.dequeue_marked(1.0)) is not None:
        out.append(d)
        assert q.last_dequeue_dropped == []
    assert [m for (_, _, m) in out] == accepted
    assert q.stats["dequeue_drops"] == 0
    assert q.stats["departures"] == len(accepted)


def test_signal_is_the_average_for_the_red_family():
    """``signal`` is RED's average queue for the RED family and 0 for Drop Tail."""
    q = aqm.Red(min_th=5, max_th=15, w_q=0.1, limit=50)
    for i in range(20):
        q.enqueue(i * 1e-3, 1000, 0)
        assert q.signal == q.avg
    assert q.avg > 0
    d = aqm.DropTail(limit=5)
    d.enqueue(0.0, 1000, 0)
    assert d.signal == 0.0


def test_every_type_runs_behind_queue():
    """Every configuration type builds an ``aqm.Queue`` that takes a valid call sequence without error."""
    for kind in aqm.QUEUE_TYPES:
        q = aqm.Queue({"type": kind, "limit": 30})
        assert q.kind == kind
        t, sent = 0.0, 0
        for i in range(300):
            t += 1e-4
            q.enqueue(t, 1000, i % 4, ecn_capable=(i % 2 == 0))
            if i % 3 == 0:
                q.poll(t)
                if q.dequeue_marked(t) is not None:
                    sent += 1
        s = q.stats
        assert s["arrivals"] == 300 and s["departures"] == sent
        drops = s["early_drops"] + s["forced_drops"] + s["overflow_drops"]
        assert s["enqueued"] == sent + q.len_packets + drops - (300 - s["enqueued"])


def test_state_names_the_red_family_values():
    """``state`` holds RED's avg, count and max_p, the same as the properties; Drop Tail has none."""
    q = aqm.Red(min_th=100, max_th=200, w_q=0.5, max_p=0.1, limit=50, seed=2)
    for i in range(12):
        q.enqueue(i * 1e-3, 1000, 0)
    assert q.signal_kind == "average_queue"
    assert q.state == {"avg": q.avg, "count": float(q.count), "max_p": q.max_p}
    # w_q = 0.5, all accepted (avg below min_th), the n-th arrival sees n waiting:
    # avg <- avg / 2 + n / 2 (eq. 1), the first (an empty queue, never idle before) no step
    avg = 0.0
    for n in range(12):
        avg = 0.5 * avg + 0.5 * n if n else avg
    assert q.avg == pytest.approx(avg, rel=1e-12)
    d = aqm.DropTail(limit=5)
    d.enqueue(0.0, 1000, 0)
    assert (d.state, d.signal_kind, d.avg, d.count, d.max_p) == ({}, "none", 0.0, 0, 0.0)


def test_red_properties_are_zero_for_codel_whose_count_is_its_own():
    """CoDel's ``state["count"]`` is its drop count; ``count``, ``avg`` and ``max_p`` stay RED's (0)."""
    q = aqm.CoDel(target=0.001, interval=0.01, limit=10_000)
    # 200 packets at once, sent one per ms: the sojourn passes target at once, so CoDel
    # drops from the first interval on
    for _ in range(200):
        q.enqueue(0.0, 1000, 0)
    t = 0.0
    while q.len_packets:
        t += 1e-3
        q.dequeue(t)
    assert q.signal_kind == "drop_count"
    assert q.state["count"] == q.signal > 0
    assert (q.avg, q.count, q.max_p) == (0.0, 0, 0.0)


def test_fred_flow_reports_qlen_and_strike_of_buffered_flows():
    """``fred_flow`` gives FRED's (qlen, strike) of a flow with packets waiting, None otherwise."""
    q = aqm.Fred(limit=100, min_th=20, max_th=40, min_q=50)
    for flow, n in ((1, 3), (2, 2)):
        for _ in range(n):
            assert q.enqueue(0.0, 1000, flow) == "enqueue"
    assert q.fred_flow(1) == (3.0, 0)
    assert q.fred_flow(2) == (2.0, 0)
    assert q.fred_flow(7) is None
    while q.len_packets:
        q.dequeue(1.0)
    assert q.fred_flow(1) is None and q.fred_flow(2) is None
    assert aqm.Red(limit=5).fred_flow(1) is None
