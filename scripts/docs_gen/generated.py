"""Which file gets which generated piece, and the build and check over all of them."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path
from typing import Callable

from . import blocks, peers, reproductions, testbed, timings
from .blocks import ROOT

README = ROOT / "README.md"


def block_targets() -> dict[Path, dict[str, Callable[[], str]]]:
    """file -> block name -> the function that writes its body."""
    return {
        README: {"timings": timings.readme_block, "peers-cost": timings.peers_readme_block},
        ROOT / "docs" / "evaluate.md": {"timings-evaluate": timings.evaluate_block},
        ROOT / "docs" / "peers.md": {
            "peers-s": peers.s_table,
            "peers-s-ns2": peers.s_ns2_table,
            "peers-cm": peers.cm_table,
            "peers-e": peers.e_table,
            "peers-e-ns3": peers.e_ns3_table,
            "peers-bbr": peers.bbr_table,
        },
        ROOT / "docs" / "testbed.md": {
            "testbed-linux": testbed.linux_table,
            "testbed-bbr": testbed.bbr_table,
        },
    }


def page_targets() -> dict[Path, Callable[[], str]]:
    """whole generated pages -> their writer."""
    return {ROOT / "docs" / "timings.md": timings.page}


def write() -> list[Path]:
    """Rewrite every generated block and page; the files changed."""
    changed = []
    for path, makers in block_targets().items():
        text = path.read_text()
        new = blocks.fill(text, {k: f() for k, f in makers.items()})
        if new != text:
            path.write_text(new)
            changed.append(path)
    for path, make in page_targets().items():
        body = make()
        if not path.exists() or path.read_text() != body:
            path.write_text(body)
            changed.append(path)
    return changed


def stale() -> list[str]:
    """What differs from its sources, one line each."""
    out = []
    for path, makers in block_targets().items():
        rel = path.relative_to(ROOT)
        out += [
            f"{rel}: block {n} is stale"
            for n in blocks.stale(path, {k: f() for k, f in makers.items()})
        ]
    for path, make in page_targets().items():
        if not path.exists() or path.read_text() != make():
            out.append(f"{path.relative_to(ROOT)} is stale")
    page = blocks.blocks(reproductions.PAGE.read_text()).get("reproduce-counts")
    if page is None or blocks.blocks(README.read_text()).get("reproduce-counts") != page:
        out.append("README.md: block reproduce-counts differs from docs/reproductions/README.md's")
    return out


def catalogue_order() -> list[str]:
    """The experiment ids in the catalogue's order (`aqmlab reproduce --list`)."""
    from aqmlab.cli import main

    buf = io.StringIO()
    with redirect_stdout(buf):
        main(["reproduce", "--list"])
    return [line.split("\t")[0] for line in buf.getvalue().splitlines() if line.strip()]


def write_reproductions(
    run: Path, info: dict[str, str], before: tuple[str, Path] | None = None
) -> list[Path]:
    """docs/reproductions/README.md and the README's counts from the run in `run` (with
    `before`, (label, run directory), an earlier run's counts beside them)."""
    text, counts = reproductions.page(run, info, catalogue_order(), before)
    reproductions.PAGE.write_text(text)
    README.write_text(blocks.fill(README.read_text(), {"reproduce-counts": counts}))
    return [reproductions.PAGE, README]


def api_problems(out: Path) -> list[str]:
    from . import api

    return [f"API reference: {p}" for p in api.build(out)]
