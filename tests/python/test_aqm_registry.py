"""The AQM classes, their type stub and the docs' lists of AQMs come from the registry of
``crates/aqm`` (``aqm.REGISTRY``): every entry is a class with its keys, and the
generated files match it.

The generated files (``python/aqmlab/aqm.pyi``, the lists in ``README.md`` and
``docs/algorithms.md``) are rewritten from the registry by::

    .venv/bin/python tests/python/test_aqm_registry.py --write
"""

from __future__ import annotations

import inspect
import json
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from aqmlab import aqm

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ".venv/bin/python tests/python/test_aqm_registry.py --write"
END = "<!-- /aqm-registry -->"


def first_sentence(text: str) -> str:
    """The text up to the first full stop outside parentheses."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "." and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            return text[: i + 1]
    return text


def doc_text(spec: dict[str, Any]) -> str:
    return " ".join(line.strip() for line in spec["doc"])


def names_list() -> str:
    """The README's list of the AQMs, by name."""
    return ", ".join(spec["name"] for spec in aqm.REGISTRY)


def classes_list() -> str:
    """The README's list of the Python classes."""
    return ", ".join(f"`aqm.{spec['class']}`" for spec in aqm.REGISTRY)


def types_table() -> str:
    """docs/algorithms.md's table of the types."""
    rows = ["| `type` | Python | file | decides | what |", "|---|---|---|---|---|"]
    for spec in aqm.REGISTRY:
        decides = "at dequeue (holds its packets)" if spec["holds_packets"] else "on arrival"
        what = first_sentence(doc_text(spec)).replace("|", "\\|")
        file = f"`{spec['module']}.rs`"
        rows.append(f"| `{spec['type']}` | `aqm.{spec['class']}` | {file} | {decides} | {what} |")
    return "\n".join(rows)


def keys_reference() -> str:
    """docs/algorithms.md's list of every type's keys, types, defaults and meanings."""
    out = []
    for spec in aqm.REGISTRY:
        out += [f"**`{spec['type']}`** ({spec['name']}):", ""]
        for p in spec["params"]:
            out.append(f"- `{p['name']}` (`{p['type']}`, default `{p['default']!r}`): {p['doc']}")
        out.append("")
    return "\n".join(out).rstrip()


def fill(text: str, block: str, content: str, inline: bool) -> str:
    """`text` with the generated block `block` (between `<!-- aqm-registry:block -->` and
    the end marker) holding `content`."""
    start = f"<!-- aqm-registry:{block} -->"
    i = text.index(start) + len(start)
    j = text.index(END, i)
    sep = "" if inline else "\n"
    return text[:i] + sep + content + sep + text[j:]


def readme(text: str) -> str:
    text = fill(text, "names", names_list(), inline=True)
    return fill(text, "classes", classes_list(), inline=True)


def algorithms(text: str) -> str:
    text = fill(text, "types", types_table(), inline=False)
    return fill(text, "keys", keys_reference(), inline=False)


def _default(value: Any) -> str:
    """A default as the formatter writes it (strings in double quotes)."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


def stub() -> str:
    """python/aqmlab/aqm.pyi: the classes the registry makes, declared for type checkers."""
    classes = [spec["class"] for spec in aqm.REGISTRY]
    out = [
        '"""Type stubs of ``aqmlab.aqm``, whose classes are made at import from the AQM registry',
        "of ``crates/aqm`` (``crates/aqm/src/registry.rs``). Generated from it by",
        f"``{COMMAND}``; a test fails when they drift.",
        '"""',
        "",
        "import inspect",
        "from typing import Any, Literal, Optional, Union",
        "",
        "from . import _native",
        "",
        "__all__ = [",
        *[f'    "{n}",' for n in ["Queue", "from_config", "QUEUE_TYPES", "REGISTRY", *classes]],
        "]",
        "",
        "QUEUE_TYPES: tuple[str, ...]",
        "REGISTRY: tuple[dict[str, Any], ...]",
        "",
        "class Queue(_native.Queue):",
        "    def __init__(self, config: dict[str, Any]) -> None: ...",
        "",
        "def from_config(config: dict[str, Any]) -> Queue: ...",
        "def docstring(spec: dict[str, Any]) -> str: ...",
        "def signature(spec: dict[str, Any]) -> inspect.Signature: ...",
    ]
    for spec in aqm.REGISTRY:
        out += ["", f"class {spec['class']}(Queue):"]
        doc = aqm.docstring(spec).replace("\\", "\\\\")
        out.append('    """' + doc.replace("\n", "\n    ").replace("\n    \n", "\n\n"))
        out += ['    """', "", "    def __init__(", "        self,", "        *,"]
        for p in spec["params"]:
            out.append(f"        {p['name']}: {p['type']} = {_default(p['default'])},")
        out.append("    ) -> None: ...")
    return "\n".join(out) + "\n"


GENERATED = {
    "python/aqmlab/aqm.pyi": lambda _old: stub(),
    "README.md": readme,
    "docs/algorithms.md": algorithms,
}


def generated(path: str) -> str:
    """The file at `path` as the registry makes it."""
    old = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).exists() else ""
    return GENERATED[path](old)


@pytest.mark.parametrize("path", sorted(GENERATED))
def test_generated_files_are_current(path: str) -> None:
    """The stub and the docs' lists of AQMs are what the registry generates."""
    current = (ROOT / path).read_text(encoding="utf-8")
    assert current == generated(path), f"{path} drifted from the AQM registry: run {COMMAND}"


def test_every_entry_is_a_class_with_its_keys() -> None:
    """Each registry entry is a Queue subclass whose keyword-only signature lists its keys,
    annotations and defaults, and whose docstring documents each key."""
    assert [spec["type"] for spec in aqm.REGISTRY] == list(aqm.QUEUE_TYPES)
    for spec in aqm.REGISTRY:
        cls = getattr(aqm, spec["class"])
        assert issubclass(cls, aqm.Queue) and cls._TYPE == spec["type"]
        params = inspect.signature(cls).parameters
        assert list(params) == [p["name"] for p in spec["params"]]
        for p in spec["params"]:
            got = params[p["name"]]
            assert got.kind is inspect.Parameter.KEYWORD_ONLY
            assert (got.annotation, got.default) == (p["type"], p["default"]), p["name"]
            assert p["doc"] and p["doc"] in " ".join(cls.__doc__.split()), p["name"]


def test_annotations_are_python_types() -> None:
    """Every annotation evaluates with ``typing``'s names, and every default fits it."""
    names = {k: getattr(typing, k) for k in ("Any", "Literal", "Optional", "Union")}
    for spec in aqm.REGISTRY:
        for p in spec["params"]:
            t = eval(p["type"], names)  # noqa: S307 (the registry's own strings)
            assert _fits(p["default"], t), (spec["type"], p["name"], p["default"], p["type"])


def _fits(value: Any, t: Any) -> bool:
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is typing.Union:
        return any(_fits(value, a) for a in args)
    if origin is typing.Literal:
        return value in args
    if t is type(None):
        return value is None
    if t is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, t)


def _needs_limit(spec: dict[str, Any]) -> dict[str, Any]:
    """A buffer where the default has none (the reader requires one)."""
    defaults = {p["name"]: p["default"] for p in spec["params"]}
    return {"limit": 30} if defaults.get("limit", 0) is None else {}


def test_every_default_passed_explicitly_builds_the_same_queue() -> None:
    """Passing each key at its signature's default gives the configuration of leaving it out."""
    for spec in aqm.REGISTRY:
        cls = getattr(aqm, spec["class"])
        extra = _needs_limit(spec)
        explicit = {p["name"]: p["default"] for p in spec["params"]} | extra
        explicit = {k: v for k, v in explicit.items() if v is not None}
        assert cls(**explicit).config == cls(**extra).config, spec["type"]


def test_unknown_key_names_the_key() -> None:
    """A key no class has is refused with a ValueError naming it and the keys allowed."""
    with pytest.raises(ValueError, match="min_tj.*min_th"):
        aqm.Red(limit=5, min_tj=3)


def _write() -> list[str]:
    changed = []
    for path in sorted(GENERATED):
        text = generated(path)
        if not (ROOT / path).exists() or (ROOT / path).read_text(encoding="utf-8") != text:
            (ROOT / path).write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: {COMMAND}")
    for path in _write():
        print(f"rewrote {path}")
