"""Bonald, May & Bolot's Markov chains against the same open-loop model run on the simulator."""

import pytest

from aqmlab.analysis import bonald, bonald_sim

EX1 = dict(min_th=20, max_th=40, max_p=1.0)  # Example 1, K = 40


@pytest.mark.parametrize(
    "policy,rho,burst",
    [
        ("taildrop", 0.8, 5),
        ("taildrop", 1.5, 3),
        ("red", 0.8, 1),
        ("red", 0.8, 5),
        ("red", 1.5, 3),
    ],
)
@pytest.mark.slow
def test_fig3_drop_probability_within_simulation_ci(policy, rho, burst):
    """Fig. 3: the chain's drop probability lies in the simulation's 99% confidence interval."""
    kw = EX1 if policy == "red" else {}
    model = bonald.drop_probability(policy, rho, 40, burst=burst, **kw)
    ((mean, half),) = [bonald_sim.drop_probabilities(policy, rho, 40, burst=burst, **kw)["total"]]
    assert abs(model - mean) <= half, f"model {model:.5f}, simulation {mean:.5f} +- {half:.5f}"


@pytest.mark.slow
def test_fig5_taildrop_per_class_within_simulation_ci():
    """Fig. 5, Tail Drop (rho = 2, B = 3, half bursty): each class's chain probability lies in the simulation's 99% interval, bursty above smooth."""
    pb, ps = bonald.class_drop_probabilities("taildrop", 2.0, 40, burst=3, bursty_fraction=0.5)
    sim = bonald_sim.drop_probabilities("taildrop", 2.0, 40, burst=3, bursty_fraction=0.5)
    for name, model in (("bursty", pb), ("smooth", ps)):
        mean, half = sim[name]
        assert abs(model - mean) <= half, (
            f"{name}: model {model:.4f}, simulation {mean:.4f} +- {half:.4f}"
        )
    assert pb > ps and sim["bursty"][0] > sim["smooth"][0]


@pytest.mark.slow
def test_fig5_red_removes_most_of_the_bias():
    """Fig. 5, RED: the total agrees within the 99% interval; Approximation 1 makes the chain a lower bound for the
    bursty class, and the simulated bias between classes is a small fraction of Tail Drop's."""
    pb, ps = bonald.class_drop_probabilities("red", 2.0, 40, burst=3, bursty_fraction=0.5, **EX1)
    total = bonald.drop_probability("red", 2.0, 40, burst=3, bursty_fraction=0.5, **EX1)
    sim = bonald_sim.drop_probabilities("red", 2.0, 40, burst=3, bursty_fraction=0.5, **EX1)
    mean, half = sim["total"]
    assert abs(total - mean) <= half, (
        f"total: model {total:.4f}, simulation {mean:.4f} +- {half:.4f}"
    )
    # Approximation 1 gives every packet of a burst the first packet's drop probability: a lower bound
    assert pb <= sim["bursty"][0] + sim["bursty"][1]
    td_b, td_s = bonald.class_drop_probabilities("taildrop", 2.0, 40, burst=3, bursty_fraction=0.5)
    red_bias = sim["bursty"][0] - sim["smooth"][0]
    assert 0 <= red_bias < 0.25 * (td_b - td_s), (
        f"RED bias {red_bias:.4f} vs Tail Drop {td_b - td_s:.4f}"
    )


def test_scenario_rejects_bad_arguments():
    """Bad model arguments are ValueErrors naming the argument."""
    with pytest.raises(ValueError, match="rho"):
        bonald_sim.scenario("red", -1, 40, **EX1)
    with pytest.raises(ValueError, match="policy"):
        bonald_sim.scenario("codel", 1, 40)


def test_size_distribution_validated_and_mean_kept():
    """An unknown size_distribution names its field; exponential sizes keep the mean packet size."""
    from aqmlab import simulate

    sc = bonald_sim.scenario("taildrop", 0.5, 40, duration=60.0)
    sc["flow"][0]["size_distribution"] = "weird"
    with pytest.raises(ValueError, match=r"flow\[0\]\.size_distribution"):
        simulate(sc, progress=False)
    sc["flow"][0]["size_distribution"] = "exponential"
    link = simulate(sc, progress=False).summary["links"]["s->d"]
    # utilization = offered load for an uncongested link: the mean size is the configured one
    assert link["utilization"] == pytest.approx(0.5, abs=0.02)
