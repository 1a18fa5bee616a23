"""The API reference: pdoc renders the ``aqmlab`` package from its docstrings, and
:func:`broken_references` checks that every Sphinx-style role in them
(``:func:`name```, ``:class:``, ``:mod:``, ...) names an object that exists.

``scripts/docs api --out DIR`` writes ``DIR/index.html`` and one page per module; it
fails when a module does not import, when pdoc warns, or when a reference is broken."""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import pkgutil
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|exc|obj):`~?([^`<]+?)`")
#: modules the reference leaves out: the compiled extension (documented by its .pyi
#: stub through the classes that wrap it) and the scripts run as ``python -m``
SKIP = ("aqmlab._native", "aqmlab.__main__")


def modules(package: str = "aqmlab") -> list[ModuleType]:
    """The package and every submodule, imported (an import error propagates). The
    package's lazy names (``__all__`` resolved by its ``__getattr__`` on first use) are
    resolved first, so that the reference documents them where ``__all__`` puts them."""
    root = importlib.import_module(package)
    for name in getattr(root, "__all__", []):
        setattr(root, name, getattr(root, name))
    out = [root]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if info.name.startswith(SKIP):
            continue
        out.append(importlib.import_module(info.name))
    return out


def _documented(mod: ModuleType) -> Iterator[tuple[str, type | None, str]]:
    """(name, owning class, docstring) of the module and of what it defines."""
    yield mod.__name__, None, mod.__doc__ or ""
    for name, obj in vars(mod).items():
        if getattr(obj, "__module__", None) != mod.__name__:
            continue
        if inspect.isclass(obj):
            yield f"{mod.__name__}.{name}", obj, obj.__doc__ or ""
            for mname, m in vars(obj).items():
                f = getattr(m, "__func__", m)
                doc = (
                    getattr(f, "__doc__", None) if callable(f) or isinstance(m, property) else None
                )
                if doc:
                    yield f"{mod.__name__}.{name}.{mname}", obj, doc
        elif inspect.isfunction(obj):
            yield f"{mod.__name__}.{name}", None, obj.__doc__ or ""


def _lookup(ns: Any, dotted: str) -> bool:
    """Does `dotted` name an attribute path of `ns` (a namespace dict, module or class)?"""
    head, *rest = dotted.split(".")
    if isinstance(ns, dict):
        if head not in ns:
            return False
        obj = ns[head]
    else:
        try:
            obj = getattr(ns, head)
        except AttributeError:
            return False
    for part in rest:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return False
    return True


def _importable(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            mod = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        return i == len(parts) or _lookup(mod, ".".join(parts[i:]))
    return False


def resolves(name: str, mod: ModuleType, cls: type | None) -> bool:
    """Does `name`, written in a docstring of `mod` (and `cls`), name an object?"""
    name = name.strip().rstrip("()")
    if name.startswith("."):
        package = mod.__name__ if hasattr(mod, "__path__") else mod.__name__.rpartition(".")[0]
        dots = len(name) - len(name.lstrip("."))
        base = package.rsplit(".", dots - 1)[0] if dots > 1 else package
        return _importable(base + "." + name.lstrip("."))
    if cls is not None and _lookup(cls, name):
        return True
    if _lookup(mod, name) or _lookup(vars(builtins), name):
        return True
    if _documented_by_pdoc(mod.__name__, name, cls):
        return True
    return _importable(name) or _importable("aqmlab." + name)


@functools.cache
def _pdoc_module(name: str) -> Any:
    import pdoc.doc

    return pdoc.doc.Module(importlib.import_module(name))


def _documented_by_pdoc(module: str, name: str, cls: type | None) -> bool:
    """Does pdoc document `name` in `module` (or in `cls`)? It also knows what a class's
    ``__init__`` assigns to ``self`` (``Result.summary``), which no class attribute is."""
    doc = _pdoc_module(module)
    if cls is not None and doc.get(f"{cls.__qualname__}.{name}") is not None:
        return True
    return doc.get(name) is not None


def broken_references(mods: list[ModuleType]) -> list[str]:
    """'where: role target' for every reference that names nothing."""
    out = []
    for mod in mods:
        for where, cls, doc in _documented(mod):
            for m in ROLE.finditer(doc):
                if not resolves(m.group(1), mod, cls):
                    out.append(f"{where}: {m.group(0)}")
    return out


def _render(mods: list[ModuleType], out: Path) -> None:
    """What ``pdoc.pdoc`` does, for exactly `mods`: a page per module (pdoc alone would
    follow ``aqmlab.__all__``, which names the public API, not every module), the index
    and the search index."""
    import pdoc.doc
    import pdoc.render

    all_modules = {m.__name__: pdoc.doc.Module(m) for m in mods}
    for name, module in all_modules.items():
        page = out / f"{name.replace('.', '/')}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(pdoc.render.html_module(module, all_modules))
    (out / "index.html").write_text(pdoc.render.html_index(all_modules))
    (out / "search.js").write_text(pdoc.render.search_index(all_modules))


def build(out: Path) -> list[str]:
    """Render the reference into `out`; the problems found (empty when it is sound)."""
    import pdoc.render

    mods = modules()
    pdoc.render.configure(docformat="restructuredtext", show_source=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _render(mods, out)
    problems = [f"pdoc: {w.message}" for w in caught if "pdoc" in str(w.filename)]
    return problems + broken_references(mods)
