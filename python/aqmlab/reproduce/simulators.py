"""The simulator each paper ran, and the behaviour profile the catalogue runs it in.

A paper that names its simulator runs in aqmlab's profile of that simulator where
aqmlab has one (``aqmlab profiles``): Floyd, Gummadi & Shenker 2001 and the simulations
of Bonald, May & Bolot 2000's Section V ran ns (ns-2), so they run in ``ns2``. A paper
that names a simulator aqmlab has no profile of (REAL, OPNET, a simulator of one's own)
or names none runs in ``rfc``, the default. Each experiment writes its profile into
every row of its ``comparison.csv`` (the column ``profile``) and, with what the paper
says, as the first of its assumptions (``meta.json``, the catalogue's page). The
scenario files of a group in a profile name it at their top (``profile = "ns2"``), so
that every scenario the group builds from them, queues and flows replaced or not, runs
in it; ``tests/python/test_reproduce_profiles.py`` checks the files against this table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Simulator:
    """The profile a group runs in, and what its paper says about its simulator."""

    profile: str
    says: str


_RFC_NONE = "aqmlab has no profile of it, so the experiments run in the rfc profile"

#: group-name prefix -> the simulator (the longest prefix of a group's name wins)
SIMULATORS: dict[str, Simulator] = {
    "floyd1993": Simulator(
        "rfc",
        "Section V: 'Our simulator is a version of the REAL simulator [19] built on "
        "Columbia's Nest simulation package', its TCP 'equivalent to that in 4.3-Tahoe "
        f"BSD TCP'; {_RFC_NONE}",
    ),
    "bonald2000": Simulator(
        "rfc",
        "Sections II-IV check the analytic model against simulations without naming a "
        "simulator (Section V names ns for its own), so these run in the rfc profile",
    ),
    "bonald2000-tcp": Simulator(
        "ns2",
        "Section V: 'We obtained these with ns [9]' ([9]: S. Floyd, NS network "
        "simulator), that is ns-2, so these run in the ns2 profile (ns-2 2.35's defaults)",
    ),
    "floyd2001": Simulator(
        "ns2",
        "Section 1: 'We have implemented this revised proposal in the NS simulator', and "
        "Section 3 uses 'NS's default values' for w_q and max_p: ns-2, so these run in "
        "the ns2 profile (ns-2 2.35's defaults)",
    ),
    "lin1997": Simulator(
        "rfc",
        "Section 11.1: 'Our simulator is a distant descendant of one written for the "
        "DARPA/BNR funded CreditNet Project', an ATM switch with 'the NetBSD 1.2 TCP Reno "
        f"source files'; {_RFC_NONE}",
    ),
    "zheng2008": Simulator(
        "rfc",
        "Section 5.1: 'Simulations were carried out with the OPNET 5.1 network simulation "
        f"tool'; {_RFC_NONE}",
    ),
}


def simulator_of(group: str) -> Simulator:
    """The simulator of the group called `group` (by the longest prefix of its name);
    the rfc profile, saying so, for a name the table does not know."""
    found = [k for k in SIMULATORS if group == k or group.startswith(k + "-")]
    if not found:
        return Simulator("rfc", "the paper's simulator is not recorded: rfc profile")
    return SIMULATORS[max(found, key=len)]


def group_of_file(name: str) -> str:
    """The group prefix a catalogue scenario file belongs to (``floyd2001_fig1.toml``
    -> ``floyd2001``, ``bonald2000_tcp.toml`` -> ``bonald2000-tcp``), or ``""``."""
    stem = name.removesuffix(".toml").replace("_", "-")
    found = [k for k in SIMULATORS if stem == k or stem.startswith(k + "-")]
    return max(found, key=len) if found else ""
