"""``aqmlab new-aqm NAME [--rust]``: the start of an AQM of your own, ready to run.

A Python AQM (default): ``NAME/NAME.py`` (a class, Drop Tail to start from),
``NAME/scenario.toml`` (a dumbbell whose bottleneck it runs: ``aqmlab run
NAME/scenario.toml --out out``) and ``NAME/test_NAME.py`` (pytest: the class against
the built-in ``droptail``, bit for bit). With ``--rust``, a plugin crate:
``NAME/Cargo.toml`` (a cdylib depending on aqmlab's ``aqm`` crate by path),
``NAME/src/lib.rs`` (the AQM and its test, ``cargo test``) and ``NAME/scenario.toml``
(``cargo build --release`` first). docs/own-aqm.md says what an AQM answers."""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

SCENARIO = """\
# {name}: a 10 Mb/s dumbbell, ten TCP flows, its bottleneck queue {what}.
name = "{name}"
duration = "30s"
warmup = "10s"
bottleneck = "r1->r2"

[[link]]
a = "r1"
b = "r2"
rate = "10Mbps"
delay = "20ms"
queue = {{ type = "droptail", limit = 100 }}
queue_ab = {queue}

[[link]]
a = "s"
b = "r1"
rate = "100Mbps"
delay = "5ms"

[[link]]
a = "r2"
b = "k"
rate = "100Mbps"
delay = "5ms"

[[flow]]
type = "tcp"
src = "s"
dst = "k"
count = 10
"""

PYTHON = '''\
"""{name}: an AQM as a Python class (aqmlab; see docs/own-aqm.md for the contract)."""


class {cls}:
    def __init__(self, limit=100, **params):
        # the queue's keys in the scenario (all but type and class)
        self.limit = limit

    def enqueue(self, now, pkt, q):
        """`now` in ns; `pkt.size`, `pkt.flow`, `pkt.ecn`; `q.packets`, `q.bytes`,
        `q.link_rate_bps`, `q.rng.random()`. Answer "enqueue", "drop" or "mark"."""
        if q.packets >= self.limit:
            return "drop_overflow"  # the buffer is full (a plain "drop" counts as early)
        return "enqueue"
'''

PYTHON_TEST = '''\
"""{name} against the built-in Drop Tail: the class starts as one, so the runs agree
bit for bit (links and flows) until you change it."""

import copy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def test_{name}_runs_as_drop_tail():
    from aqmlab import Scenario, simulate

    mine = Scenario.from_file(HERE / "scenario.toml").to_dict()
    builtin = copy.deepcopy(mine)
    builtin["link"][0]["queue_ab"] = {{"type": "droptail", "limit": 100}}
    a = simulate(mine, progress=False).summary
    b = simulate(builtin, progress=False).summary
    assert a["links"]["r1->r2"]["queue_type"] == "python"
    assert a["flows"] == b["flows"]
    for d in a["links"]:
        assert {{k: v for k, v in a["links"][d].items() if k != "queue_type"}} == {{
            k: v for k, v in b["links"][d].items() if k != "queue_type"
        }}
'''

CARGO = """\
[package]
name = "{name}"
version = "0.1.0"
edition = "2024"

[lib]
crate-type = ["cdylib", "rlib"]

[dependencies]
aqm = {{ path = "{aqm}" }}

[workspace]
"""

RUST = """\
//! {name}: an AQM as an aqmlab plugin (see docs/own-aqm.md). `cargo build --release`
//! makes target/release/lib{name}.so, which `scenario.toml` runs.

use aqm::common::Limit;
use aqm::config::BuildContext;
use aqm::plugin::{{Params, PluginAqm}};
use aqm::{{Backlog, DropReason, PacketInfo, QueueDiscipline, Result, Time, Verdict}};

#[derive(Clone, Debug)]
pub struct {cls} {{
    limit: u32,
}}

impl PluginAqm for {cls} {{
    /// The queue's keys in the scenario (all but type and path); `ctx` has the link's
    /// rate and the queue's seed (`aqm::common::rng_from_seed` gives the built-ins' stream).
    fn new(p: &Params, _ctx: &BuildContext) -> Result<{cls}> {{
        p.only(&["limit"])?;
        Ok({cls} {{ limit: p.u64("limit", Some(100))?.unwrap_or(100) as u32 }})
    }}
}}

impl QueueDiscipline for {cls} {{
    fn on_arrival(&mut self, _now: Time, _pkt: &PacketInfo, q: Backlog) -> Verdict {{
        if q.packets >= self.limit {{
            Verdict::Drop(DropReason::Overflow)
        }} else {{
            Verdict::Enqueue
        }}
    }}
    fn on_removed(&mut self, _now: Time, _pkt: &PacketInfo, _after: Backlog, _departed: bool) {{}}
    fn limit(&self) -> Limit {{
        Limit {{ packets: Some(self.limit), bytes: None }}
    }}
}}

aqm::export_aqm!({cls});

#[cfg(test)]
mod tests {{
    use super::*;

    #[test]
    fn drops_when_full() {{
        let p = Params::new(vec![("limit".into(), aqm::config::Value::Int(2))]);
        let mut q = {cls}::new(&p, &BuildContext::default()).unwrap();
        let pkt = PacketInfo::new(1000, 0);
        let at = |n| Backlog {{ packets: n, bytes: 1000 * n as u64 }};
        assert_eq!(q.on_arrival(Time(0), &pkt, at(1)), Verdict::Enqueue);
        assert_eq!(q.on_arrival(Time(0), &pkt, at(2)), Verdict::Drop(DropReason::Overflow));
    }}
}}
"""


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def aqm_crate(given: str | None) -> Path:
    """The `aqm` crate to build against: `given`, or the source tree's."""
    if given is not None:
        p = Path(given).resolve()
    else:
        p = Path(__file__).resolve().parents[2] / "crates" / "aqm"
    if not (p / "Cargo.toml").is_file():
        where = f"--aqm-path {given}: no Cargo.toml there" if given else "no source tree"
        raise ValueError(
            f"{where}; a Rust AQM builds against aqmlab's `aqm` crate: give --aqm-path "
            "PATH/TO/aqmlab/crates/aqm"
        )
    return p


def files(name: str, rust: bool, aqm_path: str | None) -> dict[str, str]:
    """The scaffold's files, by path under its directory."""
    cls = _class_name(name)
    if rust:
        queue = f'{{ type = "plugin", path = "target/release/lib{name}.so", limit = 100 }}'
        return {
            "Cargo.toml": CARGO.format(name=name, aqm=aqm_crate(aqm_path).as_posix()),
            "src/lib.rs": RUST.format(name=name, cls=cls),
            "scenario.toml": SCENARIO.format(name=name, what="the plugin", queue=queue),
        }
    queue = f'{{ type = "python", class = "{name}:{cls}", limit = 100 }}'
    return {
        f"{name}.py": PYTHON.format(name=name, cls=cls),
        f"test_{name}.py": PYTHON_TEST.format(name=name),
        "scenario.toml": SCENARIO.format(name=name, what="the class", queue=queue),
    }


def scaffold(name: str, rust: bool = False, where: Path = Path("."), aqm_path=None) -> Path:
    """Write the scaffold of AQM `name` into `where`/`name` (which must not exist), whole
    or not at all."""
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", name):
        raise ValueError(
            f"NAME = {name!r} is invalid: allowed a lower-case identifier (a-z, 0-9, _), "
            "the module's or crate's name"
        )
    target = where / name
    if target.exists():
        raise ValueError(f"NAME: {target} exists already")
    content = files(name, rust, aqm_path)
    stage = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=where))
    try:
        for rel, text in content.items():
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_text(text)
        stage.rename(target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return target


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``aqmlab new-aqm``."""
    parser.add_argument("name", metavar="NAME", help="the AQM's name (a lower-case identifier)")
    parser.add_argument("--rust", action="store_true", help="a Rust plugin crate, not a class")
    parser.add_argument("--dir", default=".", help="where to make NAME/ (default: here)")
    parser.add_argument(
        "--aqm-path", help="aqmlab's crates/aqm, for --rust (default: the source tree's)"
    )


def run(args: argparse.Namespace) -> int:
    where = Path(args.dir)
    if not where.is_dir():
        raise ValueError(f"--dir {args.dir}: no such directory")
    target = scaffold(args.name, args.rust, where, args.aqm_path)
    if args.rust:
        how = f"cd {target} && cargo test && cargo build --release && aqmlab run scenario.toml --out out"
    else:
        how = f"aqmlab run {target}/scenario.toml --out out; pytest {target}"
    print(f"{target}: {', '.join(sorted(files(args.name, args.rust, args.aqm_path)))}")
    print(f"next: {how}", file=sys.stdout)
    return 0
