"""Sweep specifications, axis paths and the metric-path language (nothing is run here)."""

import math

import pytest

from aqmlab.sweeps import load_spec, metrics
from aqmlab.sweeps.spec import replication_seed
from aqmlab.sweeps.testing import example_spec, to_toml


def test_points_are_the_product_of_the_axes_times_replications():
    """Points are the Cartesian product of the axes (in order) times the replications, seeds base+r."""
    s = load_spec(example_spec())
    assert len(s.points) == 4 * 3 * 2
    p = s.points[0]
    assert p.params == {"link[0].queue.max_p": 0.02, "flow[0].count": 1}
    assert (
        [q.seed for q in s.points[:2]] == [replication_seed(5, 0), replication_seed(5, 1)] == [5, 6]
    )
    assert s.points[2].params == {"link[0].queue.max_p": 0.02, "flow[0].count": 3}
    sc = s.scenario(s.points[3])
    assert (
        sc["link"][0]["queue"]["max_p"] == 0.02 and sc["flow"][0]["count"] == 3 and sc["seed"] == 6
    )
    assert s.base["link"][0]["queue"]["max_p"] == 0.1  # the base is not modified
    assert len({q.id for q in s.points}) == len(s.points)


def test_point_ids_and_hashes_are_stable_and_change_with_the_spec(tmp_path):
    """The same sweep from TOML or dict gives the same ids and hash; a changed value changes the hash."""
    d = example_spec()
    f = tmp_path / "s.toml"
    f.write_text(to_toml(d))
    a, b = load_spec(d), load_spec(str(f))
    assert [p.id for p in a.points] == [p.id for p in b.points]
    assert a.spec_hash == b.spec_hash and a.fixed_hash == b.fixed_hash
    d2 = example_spec(max_p=(0.02, 0.05, 0.1, 0.3))
    c = load_spec(d2)
    assert c.spec_hash != a.spec_hash and c.fixed_hash == a.fixed_hash
    assert a.points[0].id == c.points[0].id  # same parameters and seed -> same point id
    d3 = example_spec()
    d3["base"]["duration"] = 20
    assert load_spec(d3).fixed_hash != a.fixed_hash


def test_ranges_samples_and_seed_axis():
    """Linear and log ranges, seeded random samples and an explicit seed axis."""
    d = example_spec(replications=1)
    d["axes"] = {
        "link[0].queue.max_p": {"range": {"start": 0.02, "stop": 0.5, "num": 5, "scale": "log"}},
        "link[0].queue.min_th": {"range": {"start": 2, "stop": 10, "num": 5}},
        "link[0].queue.w_q": {
            "sample": {"distribution": "loguniform", "low": 1e-4, "high": 1e-2, "n": 3, "seed": 4}
        },
        "seed": [11, 12],
    }
    s = load_spec(d)
    ax = {a.paths[0]: [v[0] for v in a.values] for a in s.axes}
    mp = ax["link[0].queue.max_p"]
    assert (
        mp[0] == 0.02 and mp[-1] == 0.5 and math.isclose(mp[1] / mp[0], mp[2] / mp[1], rel_tol=1e-9)
    )
    assert ax["link[0].queue.min_th"] == [2, 4, 6, 8, 10] and all(
        isinstance(v, int) for v in ax["link[0].queue.min_th"]
    )
    wq = ax["link[0].queue.w_q"]
    assert all(1e-4 <= v <= 1e-2 for v in wq) and wq == [v[0] for v in load_spec(d).axes[2].values]
    assert len(s.points) == 5 * 5 * 3 * 2 and {p.seed for p in s.points} == {11, 12}
    assert "seed" not in s.param_columns


def test_zipped_axis_with_labels():
    """paths = [...] varies several fields together; labels give the axis its own column."""
    d = example_spec(replications=1)
    d["base"]["flow"].append({"type": "tcp", "src": "r1", "dst": "r2", "count": 1})
    d["axes"] = {}
    d["axis"] = [
        {
            "paths": ["flow[0].count", "flow[1].count"],
            "values": [[1, 1], [2, 3]],
            "name": "flows",
            "labels": [2, 5],
        }
    ]
    s = load_spec(d)
    assert s.param_columns == ["flows", "flow[0].count", "flow[1].count"]
    assert [p.params for p in s.points] == [
        {"flows": 2, "flow[0].count": 1, "flow[1].count": 1},
        {"flows": 5, "flow[0].count": 2, "flow[1].count": 3},
    ]


@pytest.mark.parametrize(
    "path,message",
    [
        ("link[7].queue_ab.max_p", "axis 'link[7].queue_ab.max_p': link has 1 entry"),
        ("link[0].queue_ab.max_p", "axis 'link[0].queue_ab.max_p': link[0] has no 'queue_ab'"),
        ("flow.count", "axis 'flow.count': flow is an array"),
        ("links[0].rate", "axis 'links[0].rate': the scenario has no 'links'"),
        ("seed.x", "axis 'seed.x': seed is a value"),
        ("link[0]..rate", "axis 'link[0]..rate': path 'link[0]..rate': malformed segment"),
    ],
)
def test_invalid_axis_paths_are_named(path, message):
    """An axis path that does not exist in the base scenario is rejected with the path named."""
    d = example_spec()
    d["axes"][path] = [1, 2]
    with pytest.raises(ValueError) as e:
        load_spec(d)
    assert str(e.value).startswith(message), str(e.value)


def test_absent_last_key_in_an_existing_table_is_allowed():
    """The last key may be absent from an existing table: it is added (the scenario check validates it)."""
    d = example_spec()
    d["axes"]["link[0].queue.gentle"] = [True, False]
    d["axes"]["flow[0].max_window"] = [20, 40]
    s = load_spec(d)
    sc = s.scenario(s.points[0])
    assert sc["link"][0]["queue"]["gentle"] is True and sc["flow"][0]["max_window"] == 20


@pytest.mark.parametrize(
    "change,message",
    [
        ({"replications": 0}, "replications must be an integer >= 1"),
        ({"axes": {"flow[0].count": {"range": {"start": 1, "stop": 5}}}}, "range.num: missing"),
        (
            {
                "axes": {
                    "flow[0].count": {"range": {"start": 0, "stop": 5, "num": 3, "scale": "log"}}
                }
            },
            "needs start > 0",
        ),
        ({"axes": {"flow[0].count": []}}, "must be a non-empty list"),
        ({"axes": {"flow[0].count": [1, 1]}}, "are the same"),
        ({"metrics": ["flows[x].goodput_bps"]}, "must be a number or *"),
        ({"runner": "nocolon"}, "runner must be"),
        ({"bogus": 1}, "unknown key(s) ['bogus']"),
        ({"axes": {"seed": [1, 2]}}, "replications or a seed axis"),
    ],
)
def test_invalid_specs(change, message):
    """Malformed sweep entries raise ValueError saying what is wrong."""
    d = example_spec()
    d.update(change)
    with pytest.raises(ValueError) as e:
        load_spec(d)
    assert message in str(e.value)


def test_metric_paths():
    """The metric-path language: keys with '->', wildcards, indices, aggregates, {bottleneck}."""
    s = {
        "bottleneck": "r1->r2",
        "events": 7,
        "links": {
            "r1->r2": {"utilization": 0.9, "queue_type": "red", "hist": [1, 2]},
            "r2->r1": {"utilization": 0.1},
        },
        "flows": [
            {"id": 0, "goodput_bps": 1.0, "drops": 2},
            {"id": 1, "goodput_bps": 3.0, "drops": 0},
        ],
    }
    got = metrics.extract(
        s,
        [
            "links.r1->r2.utilization",
            "links.*.utilization",
            "flows[1].drops",
            "flows[*].goodput_bps",
            "flows.goodput_bps.sum",
            "flows.goodput_bps.jain",
            "flows.drops.max",
            "flows.*.mean",
            "links.{bottleneck}.queue_type",
            "events",
        ],
    )
    assert got == {
        "links.r1->r2.utilization": 0.9,
        "links.r2->r1.utilization": 0.1,
        "flows[1].drops": 0.0,
        "flows[0].goodput_bps": 1.0,
        "flows[1].goodput_bps": 3.0,
        "flows.goodput_bps.sum": 4.0,
        "flows.goodput_bps.jain": 0.8,
        "flows.drops.max": 2.0,
        "flows.goodput_bps.mean": 2.0,
        "flows.drops.mean": 1.0,
        "links.r1->r2.queue_type": "red",
        "events": 7.0,
    }
    assert (
        metrics.extract(s, metrics.DEFAULT_METRICS, optional=True)["links.r1->r2.utilization"]
        == 0.9
    )
    for bad, msg in [
        ("links.r9->r2.utilization", "links has no 'r9->r2' (it has: r1->r2, r2->r1)"),
        ("flows.goodput_bps", "FIELD.AGGREGATE"),
        ("flows[4].id", "flows has 2 entries"),
    ]:
        with pytest.raises(metrics.MetricError) as e:
            metrics.extract(s, [bad])
        assert msg in str(e.value)
