"""How the package imports: at the top of a module, except the heavy dependencies (which a
function imports when it needs them, so that light paths stay light), and never a
private name of another package. The light paths themselves: ``import aqmlab``, the
command table, ``aqmlab run``."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "aqmlab"

#: What a function may import: the dependencies whose import costs a tenth of a second
#: or more, the compiled extension (the analysis models and ``import aqmlab`` work
#: without it), and what ``aqmlab run`` would import for nothing on its way (a file
#: without a Python queue or traces, no --plot): the TOML parser (the simulator reads
#: the file; the parser's import compiles its regular expressions, 30 of 90 ms of CPU
#: on a loaded 2-core machine), shutil (with the compression modules it loads: needed
#: to remove an output being replaced) and aqmlab.sim (pathlib, tempfile, json, copy,
#: typing and the rest of the API, for those other files). Everything else is imported
#: at the top of the module.
HEAVY = (
    "tomllib",
    "tomli",
    "shutil",
    "aqmlab.sim",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "matplotlib",
    "dask",
    "distributed",
    "tqdm",
    "importlib.metadata",
    "aqmlab._native",
)


def _modules() -> Iterator[tuple[Path, str]]:
    """(path, dotted name of its package) of every module of aqmlab (not the peer
    harness it ships as data, aqmlab/peers: scripts run as whole processes)."""
    for p in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "peers") not in p.parents:
            yield p, ".".join(p.parent.relative_to(PACKAGE.parent).parts)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module an ``from X import ...`` reads, with relative levels resolved."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _imported(node: ast.AST, package: str) -> list[str]:
    """The modules (or ``module.name``) an import statement brings in."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    assert isinstance(node, ast.ImportFrom)
    base = _absolute(node, package)
    return [f"{base}.{a.name}" for a in node.names]


def _heavy(name: str) -> bool:
    return any(name == h or name.startswith(h + ".") for h in HEAVY)


def _function_of(tree: ast.AST) -> dict:
    """node -> the function it sits in (None at module level)."""
    owner: dict = {}

    def visit(node: ast.AST, fn: ast.AST | None) -> None:
        for child in ast.iter_child_nodes(node):
            owner[child] = fn
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else fn
            visit(child, inner)

    visit(tree, None)
    return owner


def test_functions_import_only_heavy_dependencies():
    """An import inside a function is of a heavy dependency (HEAVY); everything else is
    imported once, at the top of its module."""
    found = []
    for path, package in _modules():
        tree = ast.parse(path.read_text())
        owner = _function_of(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and owner.get(node) is not None:
                light = [n for n in _imported(node, package) if not _heavy(n)]
                if light:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {', '.join(light)}")
    assert not found, "imports inside functions:\n" + "\n".join(found)


def _private(name: str) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in name.split("."))


def test_no_private_names_across_packages():
    """A module uses another package's private names (``_x``) neither by import nor as
    an attribute of an imported module; within its own package it may."""
    found = []
    for path, package in _modules():
        tree = ast.parse(path.read_text())
        modules = {}  # local name -> module it is bound to (aqmlab's only)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for alias, full in zip(node.names, _imported(node, package)):
                if not full.startswith("aqmlab"):
                    continue
                owner = full.rsplit(".", 1)[0]
                if _private(full[len("aqmlab") :]) and not _same_package(owner, full, package):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {full}")
                modules[alias.asname or alias.name.split(".")[0]] = full
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and _private(node.attr)
            ):
                full = f"{modules[node.value.id]}.{node.attr}"
                if not _same_package(modules[node.value.id], full, package):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {full}")
    assert not found, "private names of another package:\n" + "\n".join(found)


def _same_package(owner: str, full: str, package: str) -> bool:
    """Whether the private part of `full` belongs to `package`: the private name is a
    module of `package` or a name defined in one of its modules."""
    private_at = next(
        i for i, p in enumerate(full.split(".")) if p.startswith("_") and not p.startswith("__")
    )
    holder = ".".join(full.split(".")[:private_at])
    return holder == package or holder.rsplit(".", 1)[0] == package


def _run(code: str) -> dict:
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_import_aqmlab_and_the_command_table_stay_light():
    """``import aqmlab`` imports no heavy dependency and not the extension; building the
    command table for ``aqmlab run`` imports neither the catalogue nor pandas."""
    got = _run(
        "import json, sys; import aqmlab; a = set(sys.modules); "
        "from aqmlab import cli; cli.build_parser('run'); b = set(sys.modules); "
        "print(json.dumps([sorted(a), sorted(b)]))"
    )
    after_import, after_table = (set(x) for x in got)
    heavy = [m for m in after_import if _heavy(m)]
    assert heavy == [], heavy
    assert "aqmlab.reproduce.catalogue" not in after_table
    assert not [m for m in after_table if m.split(".")[0] in ("pandas", "matplotlib", "scipy")]


def _module_name(path: Path, package: str) -> str:
    return package if path.name == "__init__.py" else f"{package}.{path.stem}"


def _top_level_graph() -> dict:
    """module -> the aqmlab modules it imports at its top level (a ``from X import y``
    counts as importing ``X.y`` when that is a module, else ``X``)."""
    names = {_module_name(p, pkg) for p, pkg in _modules()}
    graph: dict = {}
    for path, package in _modules():
        deps = set()
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for full in _imported(node, package):
                    while full and full not in names:
                        full = full.rpartition(".")[0]
                    if full:
                        deps.add(full)
        graph[_module_name(path, package)] = deps - {_module_name(path, package)}
    return graph


def test_the_top_level_imports_have_no_cycle():
    """No module of aqmlab imports, through its top-level imports, a module that imports
    it back: a cycle works or fails by the order of the imports."""
    graph = _top_level_graph()
    state: dict = {}
    cycles = []

    def visit(m: str, trail: list[str]) -> None:
        state[m] = "open"
        for d in sorted(graph.get(m, ())):
            if state.get(d) == "open":
                cycles.append(" -> ".join(trail[trail.index(d) :] + [m, d]))
            elif d not in state:
                visit(d, trail + [m])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


#: The modules of aqmlab that ``aqmlab run`` imports for a file without a Python queue
#: or traces: the command table and the command, the floor it uses (argument errors,
#: output directories, the progress loop, the tables' string type) and the extension,
#: which runs the file and writes the run's files.
RUN_PATH = {
    "aqmlab",
    "aqmlab.cli",
    "aqmlab.run",
    "aqmlab.arguments",
    "aqmlab.outdir",
    "aqmlab.progress",
    "aqmlab._tables",
    "aqmlab._native",
}

#: What that path has no use for (the interpreter's start may have imported some of them
#: already, which costs the command nothing): the Python API's modules and what they
#: import (paths, temporary files, JSON, copies, typing, hashes), the heavy dependencies,
#: and the modules that find or read packages' metadata.
NOT_ON_RUN_PATH = (
    "pathlib",
    "typing",
    "tempfile",
    "random",
    "shutil",
    "zlib",
    "bz2",
    "lzma",
    "json",
    "copy",
    "hashlib",
    "contextlib",
    "dataclasses",
    "importlib.util",
    "importlib.metadata",
    "tomllib",
    "tomli",
    "tqdm",
    "numpy",
    "pandas",
    "pyarrow",
)


def _run_path_imports(tmp_path: Path, *flags: str) -> tuple[set, str]:
    """The modules a fresh interpreter imports to run ``aqmlab run`` on a file without
    traces or a Python queue into a new directory (beyond those of its start), and what
    it printed."""
    scenario = ROOT / "scenarios" / "dumbbell_10mbps.toml"
    assert "trace" not in scenario.read_text() and "python" not in scenario.read_text()
    out = tmp_path / f"out{len(flags)}"
    code = (
        "import sys; before = set(sys.modules); from aqmlab.cli import main; "
        f"rc = main(['run', {str(scenario)!r}, '--out', {str(out)!r}, '--duration', '2s', '--warmup', '1s', "
        f"*{list(flags)!r}]); print(); "
        "print(repr([rc, sorted(set(sys.modules) - before)]))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert r.returncode == 0, r.stderr
    rc, new = ast.literal_eval(r.stdout.strip().splitlines()[-1])
    assert rc == 0 and (out / "summary.json").is_file()
    return set(new), r.stdout


@pytest.mark.parametrize("flags", [("-q",), ()], ids=["quiet", "table"])
def test_aqmlab_run_imports_only_what_it_runs(tmp_path, flags):
    """``aqmlab run`` (quiet, or printing its table) imports of aqmlab the modules of
    RUN_PATH only, and none of NOT_ON_RUN_PATH."""
    new, printed = _run_path_imports(tmp_path, *flags)
    assert {m for m in new if m.split(".")[0] == "aqmlab"} <= RUN_PATH, sorted(new)
    unwanted = [m for m in new if any(m == n or m.startswith(n + ".") for n in NOT_ON_RUN_PATH)]
    assert unwanted == [], unwanted
    assert ("r1->r2" in printed) == (flags == ())
