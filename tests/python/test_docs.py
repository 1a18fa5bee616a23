"""The README and docs/ against the code and the measurements: generated pieces current,
links and anchors resolving, commands and flags the docs name existing, the TCP
variants the simulator accepts listed, the README's examples running."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from docs_gen import blocks, generated, reproductions  # noqa: E402

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]


def test_generated_pieces_are_current():
    """Every generated block and page equals what its sources give (`scripts/docs build`)."""
    assert generated.stale() == []


@pytest.mark.slow  # pdoc imports and renders every module: 25-30 s
def test_api_reference_builds(tmp_path: Path):
    """`scripts/docs api` renders every module, with no import error, pdoc warning or
    docstring reference that names nothing."""
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "docs"), "api", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / "index.html").exists()
    assert (tmp_path / "aqmlab" / "evaluate.html").exists()


def _counts(block: str) -> dict[str, list[int]]:
    rows = [
        r.strip("|").split("|") for r in block.splitlines() if r.startswith("| ") and "---" not in r
    ]
    return {r[0].strip(): [int(x) for x in r[1:]] for r in rows[1:]}


def test_reproduction_counts_agree_with_the_rows_and_the_catalogue():
    """The README's per-paper counts are the reproductions page's, whose ok / differ
    counts are its listed rows' and whose experiments are the catalogue's."""
    page = reproductions.PAGE.read_text()
    table = blocks.blocks(page)["reproduce-counts"]
    assert blocks.blocks(README.read_text())["reproduce-counts"] == table
    counts = _counts(table)
    sections = re.split(r"^## ", page, flags=re.M)[1:]
    seen = []
    for sec in sections:
        paper, body = sec.split("\n", 1)
        rows = [r for r in body.splitlines() if r.startswith("| ") and not r.startswith("| id ")]
        ids = re.findall(r"^- \*\*([\w.-]+)\*\*", body, flags=re.M)
        seen += ids
        n_exp, ok, differ = counts[paper.strip()][:3]
        assert len(ids) == n_exp, paper
        assert sum(r.rstrip(" |").endswith("| ok") for r in rows) == ok, paper
        assert sum(r.rstrip(" |").endswith("| differs") for r in rows) == differ, paper
    assert sorted(seen) == sorted(generated.catalogue_order())


def test_every_experiment_with_a_difference_links_its_explanation():
    """Each id of the catalogue maps to a section of a reproduction page (`SECTIONS`)."""
    for id_ in generated.catalogue_order():
        if id_ in ("floyd1993-fig7", "floyd1993-fig8"):
            continue  # computed, no simulation: their notes are their explanation
        assert reproductions.why(id_) is not None, id_


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {reproductions.anchor(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_resolve(page: Path):
    """Every relative link of the page names a file that exists, and its anchor a heading."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, frag = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        if not dest.exists():
            bad.append(target)
        elif frag and dest.suffix == ".md" and frag not in _anchors(dest):
            bad.append(target)
    assert bad == [], "\n".join(bad)


def _help(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *args, "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    ).stdout


def _commands(text: str) -> list[str]:
    """The shell commands of a Markdown text that run `aqmlab`: lines of fenced blocks
    (not Python) and inline code spans that start with it (or with a path to it)."""
    lines, prose, fence = [], [], None
    for line in text.splitlines():
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
        elif fence is None:
            prose.append(line)
        elif fence != "python":
            lines.append(line)
    spans = re.findall(r"`([^`\n]+)`", "\n".join(prose))
    return lines + [s for s in spans if re.match(r"(\S*/)?aqmlab ", s)]


def test_commands_and_flags_the_docs_name_exist():
    """Each `aqmlab COMMAND --flag` in the README and docs/ is a command with that flag."""
    commands = set(
        re.findall(r"^    ([a-z][\w-]*)\b", _help().split("positional arguments:")[-1], flags=re.M)
    )
    assert {"run", "reproduce", "evaluate"} <= commands
    helps: dict[str, str] = {}
    bad = []
    for page in PAGES:
        for code in _commands(page.read_text()):
            for m in re.finditer(r"(?:^|[\s/])aqmlab ([a-z][\w-]*)([^#|;]*)", code):
                cmd, args = m.group(1), m.group(2)
                if cmd not in commands:
                    bad.append(f"{page.name}: aqmlab {cmd}")
                    continue
                if cmd not in helps:
                    helps[cmd] = _help(cmd)
                for flag in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", args):
                    if not re.search(rf"{flag}\b(?!-)", helps[cmd]):
                        bad.append(f"{page.name}: aqmlab {cmd} {flag}")
    assert bad == [], "\n".join(bad)


#: Pages that state what holds now (the dated notes keep what held then).
CURRENT = [p for p in PAGES if "notes" not in p.relative_to(ROOT).parts]


def _spans(page: Path) -> list[str]:
    """The inline code spans of a page's prose (one may break across lines, not across
    paragraphs) and the lines of its fenced blocks that are not Python (the README's
    Python blocks run in their own test)."""
    prose = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    spans = re.findall(r"`((?:[^`\n]|\n(?!\n))+)`", prose)
    return _commands(page.read_text()) + [s.replace("\n", " ") for s in spans]


def _resolve(dotted: str) -> bool:
    """Whether `aqmlab.a.b.c` (or `aqmlab.a.b:c`) names a module or an attribute of one."""
    parts = dotted.replace(":", ".").split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and not name.startswith(e.name):
                raise  # the module exists and an import inside it failed
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_python_names_the_docs_name_exist():
    """Each `aqmlab.module[.name]` and `python -m aqmlab...` the README and the pages
    state names a module (or a module's attribute) of the package."""
    names = set()
    for page in CURRENT:
        for span in _spans(page):
            names.update(re.findall(r"(?<![\w/.-])(aqmlab(?:\.[A-Za-z_]\w*)+(?::\w+)?)", span))
    assert len(names) >= 30, sorted(names)
    assert [n for n in sorted(names) if not _resolve(n)] == []


def test_paths_the_docs_name_exist():
    """Each path into the repository a page names in code (`crates/...`, `python/...`,
    `scripts/...`, ...) exists, or is git-ignored output; placeholders aside."""
    top = r"(?:crates|python|scripts|benchmarks|scenarios|sweeps|tests|docs|\.ci)/"
    paths = set()
    for page in CURRENT:
        for span in _spans(page):
            for m in re.finditer(rf"(?<![\w./-])({top}[\w./-]*)", span):
                if not re.search(r"[<{*]", span[m.end() : m.end() + 1] + m.group(1)):
                    paths.add(m.group(1).rstrip(".:"))
    assert len(paths) >= 40, sorted(paths)
    # git asks of a path where it really is (benchmarks/peers is a link into the package)
    real = {
        p: (ROOT / p).resolve().relative_to(ROOT).as_posix() + ("/" if p.endswith("/") else "")
        for p in paths
    }
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        input="\n".join(sorted(real.values())),
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.split()
    missing = [p for p in sorted(paths) if not (ROOT / p).exists() and real[p] not in ignored]
    assert missing == []


def _simulator_error(flow: dict[str, str]) -> str:
    import aqmlab

    scenario = {
        "duration": "1s",
        "link": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}],
        "flow": [{"src": "a", "dst": "b", **flow}],
    }
    with pytest.raises(ValueError) as err:
        aqmlab.simulate(scenario)
    return str(err.value)


def test_readme_lists_the_tcp_variants_the_simulator_accepts():
    """The simulator's row of "What is here" names every TCP variant it accepts."""
    msg = _simulator_error({"type": "tcp", "variant": "no-such-variant"})
    variants = re.findall(r"`(\w+)`", msg.split("expected", 1)[-1])
    assert len(variants) >= 6, msg
    row = next(line for line in README.read_text().splitlines() if "packet-level simulator" in line)
    names = {
        "newreno": "NewReno",
        "cubic": "CUBIC",
        "dctcp": "DCTCP",
        "ledbat": "LEDBAT",
        "bbr": "BBR",
    }
    missing = [v for v in variants if names.get(v, v.capitalize()) not in row]
    assert missing == []


SIMULATOR = ROOT / "docs" / "simulator.md"


def _scenario_block() -> str:
    return re.search(r"## Scenario files\n\n```toml\n(.*?)```", SIMULATOR.read_text(), re.S)[1]


def test_simulator_page_scenario_example_is_valid():
    """docs/simulator.md's scenario file, its hosts linked to its routers, is a valid
    scenario: every key it shows exists and takes the value shown."""
    import aqmlab

    scenario = tomllib.loads(_scenario_block())
    access = {"rate": "100Mbps", "delay": "1ms"}
    scenario["link"] += [{"a": "s1", "b": "r1", **access}, {"a": "r2", "b": "k1", **access}]
    flow = aqmlab.Scenario(scenario).normalized()["flows"][0]
    assert (flow["type"], flow["tcp"]["variant"]) == ("tcp", "newreno")


@pytest.mark.parametrize("key,flow", [("type", {}), ("variant", {"type": "tcp"})])
def test_simulator_page_lists_the_flow_types_and_variants(key: str, flow: dict[str, str]):
    """The scenario file's comments list the flow types and TCP variants the simulator
    accepts, in its order."""
    msg = _simulator_error({**flow, key: "no-such-name"})
    accepted = re.findall(r"`(\w+)`", msg.split("expected", 1)[-1])
    line = re.search(rf"^{key} = .*#\s*(.*)$", _scenario_block(), flags=re.M)[1]
    assert [w.strip() for w in line.split("|")] == accepted


def _keys(listed: str) -> set[str]:
    """The key names of a comma-separated list such as `index, name "a->b", rate_bps`."""
    listed = re.sub(r"\([^)]*\)", "", listed)
    return {item.split()[0] for item in listed.split(",") if item.strip()}


def test_simulator_page_lists_the_normalised_scenarios_keys():
    """The keys docs/simulator.md gives for `Scenario(...).normalized()` are its keys."""
    import aqmlab

    text = SIMULATOR.read_text()
    block = re.search(r"Its keys \(only ever added to\):\n\n```text\n(.*?)```", text, re.S)[1]
    top, _, tables = block.partition("\nnodes:")
    page = {"": _keys(top.replace("\n", ", "))}
    for name, inner in re.findall(r"^(\w+):\s*\[?\{?([^\]}]*)", "nodes:" + tables, re.M | re.S):
        page[""].add(name)
        if name != "nodes":
            page[name] = _keys(inner.replace("\n", " "))
    link = {"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}
    n = aqmlab.Scenario(
        {
            "duration": "1s",
            "link": [link],
            "flow": [{"src": "a", "dst": "b"}],
            "event": [{"at": "0.5s", "a": "a", "b": "b", "action": "down"}],
        }
    ).normalized()
    code = {"": set(n), "trace": set(n["trace"])}
    code.update({k: set(n[k][0]) for k in ("links", "directions", "flows", "events")})
    assert page == code


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


@pytest.mark.parametrize("n", range(len(_python_blocks())))
def test_readme_python_examples_run(n: int, monkeypatch):
    """Each Python example of the README runs from the source tree, and a number its
    comments state after a colon is the value its line computes (to the digits shown)."""
    monkeypatch.chdir(ROOT)
    block = _python_blocks()[n]
    ns: dict[str, object] = {}
    exec(compile(block, f"README.md python block {n}", "exec"), ns)  # noqa: S102
    for line in block.splitlines():
        m = re.match(r"^([\w.]+\(.*\))\s+#[^:]*:\s*(-?\d+\.\d+)\s*$", line)
        if m:
            value = eval(m.group(1), ns)  # noqa: S307 - the README's own example
            digits = len(m.group(2).split(".")[1])
            assert round(float(value), digits) == pytest.approx(float(m.group(2))), line
