"""The floor of the package: what any module of aqmlab may use, importing nothing of
aqmlab and no heavy dependency itself.

- Argument checks: :class:`ArgumentError` (a ``ValueError`` that knows which argument
  it is about, so that a command line can name its flag instead), :func:`positive_int`,
  :func:`int_at_least`, :func:`integer`, :func:`positive`, :func:`non_negative`,
  :func:`in_range`.
- Output locations: :func:`check_out_dir`, :func:`check_out_file` (can it be created
  here? asked before any work starts).
- Atomic writes: :func:`staged_dir` (a directory built beside its target and renamed
  onto it), :func:`replace_file` (the same for a file), :func:`write_text`,
  :func:`write_bytes`, :func:`set_aside` (an old output moved out of the way, nothing
  deleted).
- TOML: :func:`load_toml`, :func:`read_toml` (``tomllib``, or ``tomli`` before Python
  3.11), syntax errors as ``ValueError``.
- :func:`build_id`: a digest of the package version and the compiled extension, which
  stored results are tied to.
- :func:`pid_alive`: whether a process is still running.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Union

import aqmlab

__all__ = [
    "ArgumentError",
    "positive_int",
    "int_at_least",
    "integer",
    "positive",
    "non_negative",
    "in_range",
    "check_out_dir",
    "check_out_file",
    "staged_dir",
    "replace_file",
    "write_text",
    "write_bytes",
    "set_aside",
    "load_toml",
    "read_toml",
    "build_id",
    "pid_alive",
]

PathLike = Union[str, "os.PathLike[str]"]


# ------------------------------------------------------------------ argument checks
class ArgumentError(ValueError):
    """A bad argument of a function: ``argument`` is its parameter name, ``detail`` what
    is wrong with it. The message reads ``"<argument> <detail>"`` (``"jobs must be an
    integer >= 1, got 0"``); a command line that took the value from a flag names the
    flag instead (``"--jobs must be ..."``, see :mod:`aqmlab.cli`)."""

    def __init__(self, argument: str, detail: str) -> None:
        self.argument = argument
        self.detail = detail
        super().__init__(self.naming(argument))

    def naming(self, name: str) -> str:
        """The message with the argument called `name` (a flag, say)."""
        sep = "" if self.detail[:1] in (":", ",") else " "
        return f"{name}{sep}{self.detail}"


def _real(value: Any) -> float | None:
    """`value` as a float, or None if it is not a real number (a bool is not one)."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _number(name: str, value: Any) -> float:
    x = _real(value)
    if x is None or math.isnan(x):
        raise ArgumentError(name, f"must be a number, got {value!r}")
    return x


def integer(name: str, value: Any, *, minimum: int) -> int:
    """`value` as an int >= `minimum`; a float with no fractional part is accepted, a
    bool is not. ArgumentError naming `name` otherwise."""
    x = _real(value)
    if x is None or not math.isfinite(x) or x != int(x) or int(x) < minimum:
        raise ArgumentError(name, f"must be an integer >= {minimum}, got {value!r}")
    return int(x)


def int_at_least(name: str, value: Any, minimum: int) -> int:
    """`value`, an int >= `minimum`; ArgumentError naming `name` otherwise. Unlike
    :func:`integer`, a float is refused (``jobs=2.0`` is a mistake), and a bool too."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ArgumentError(name, f"must be an integer >= {minimum}, got {value!r}")
    return value


def positive_int(name: str, value: Any) -> int:
    """`value`, an int >= 1 (a count: jobs, seeds, replications); ArgumentError naming
    `name` otherwise (see :func:`int_at_least`)."""
    return int_at_least(name, value, 1)


def positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """`value` > 0 (finite unless `allow_inf`) as a float; ArgumentError naming `name`."""
    x = _number(name, value)
    if not x > 0:
        raise ArgumentError(name, f"must be > 0, got {value!r}")
    if math.isinf(x) and not allow_inf:
        raise ArgumentError(name, f"must be finite, got {value!r}")
    return x


def non_negative(name: str, value: Any) -> float:
    """`value` >= 0 and finite as a float; ArgumentError naming `name` otherwise."""
    x = _number(name, value)
    if not x >= 0 or math.isinf(x):
        raise ArgumentError(name, f"must be >= 0 and finite, got {value!r}")
    return x


def in_range(
    name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False
) -> float:
    """`value` in [lo, hi] (an end open when asked) as a float; ArgumentError naming `name`."""
    x = _number(name, value)
    ok_lo = x > lo if lo_open else x >= lo
    ok_hi = x < hi if hi_open else x <= hi
    if not (ok_lo and ok_hi):
        interval = f"{'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
        raise ArgumentError(name, f"must be in {interval}, got {value!r}")
    return x


# ------------------------------------------------------------------ output locations
def _nearest_existing(p: Path) -> Path:
    """`p` or its nearest ancestor that exists."""
    p = Path(os.path.abspath(p))
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _probe(where: Path, what: str, name: str) -> None:
    """Create and remove a directory in `where`; ArgumentError naming `name` if impossible."""
    if not where.is_dir():
        raise ArgumentError(name, f"{what}: {where} is not a directory")
    try:
        d = tempfile.mkdtemp(prefix=".aqmlab-probe-", dir=where)
    except OSError as e:
        detail = f"{what}: cannot create a directory in {where}: {e.strerror or e}"
        raise ArgumentError(name, detail) from None
    os.rmdir(d)


def check_out_dir(path: PathLike, name: str = "out", *, inside: bool = False) -> Path:
    """Check that the output directory `path` can be created, or replaced, before any
    work starts; returns it as a Path. ArgumentError naming the argument `name` when it
    exists and is not a directory, or when no directory can be created where it would
    go (a read-only or virtual file system such as /proc, no permission).

    Output written beside the target and renamed at the end needs the parent writable;
    `inside` also checks an existing target's own inside (for output added to an
    existing directory: a sweep's dataset, the catalogue)."""
    p = Path(path)
    if str(path) == "":
        raise ArgumentError(name, ": expected a directory, got an empty string")
    if p.exists() and not p.is_dir():
        raise ArgumentError(name, f"{path}: exists and is not a directory")
    _probe(_nearest_existing(p.parent), str(path), name)
    if inside and p.is_dir():
        _probe(p, str(path), name)
    return p


def check_out_file(path: PathLike, name: str = "output") -> Path:
    """Check that the output file `path` can be written (created beside and renamed onto
    it) before any work starts; ArgumentError naming the argument `name` if not."""
    p = Path(path)
    if str(path) == "":
        raise ArgumentError(name, ": expected a file name, got an empty string")
    if p.is_dir():
        raise ArgumentError(name, f"{path}: is a directory, expected a file name")
    _probe(_nearest_existing(p.parent), str(path), name)
    return p


# ------------------------------------------------------------------ atomic writes
def _swap_in(tmp: Path, out: Path) -> None:
    """Rename `tmp` onto `out`; an existing `out` (a directory) is moved aside first and
    removed after."""
    if out.exists() or out.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, old / out.name)
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(tmp, out)


def _keep_failed(tmp: Path, failed: Path) -> None:
    """Rename the work directory `tmp` to `failed` (replacing an earlier one), or remove it."""
    try:
        if failed.is_dir():
            shutil.rmtree(failed)
        os.rename(tmp, failed)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def staged_dir(out: PathLike, *, keep_failed: str | None = None) -> Iterator[Path]:
    """Yield a fresh temporary directory beside `out`; when the block ends normally it
    becomes `out` (replacing an existing one), so `out` is complete or as it was. When
    the block raises, the temporary directory is removed, or, with `keep_failed` (a
    suffix such as ``".failed"``), kept as ``out`` + suffix for its logs (replacing an
    earlier one)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        yield tmp
    except BaseException:
        if keep_failed:
            _keep_failed(tmp, out.with_name(out.name + keep_failed))
        else:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def replace_file(out: PathLike, *, fsync: bool = False) -> Iterator[Path]:
    """Yield a temporary file name beside `out` (``.tmp-<name>-...``, with `out`'s suffix,
    so that writers that go by the extension keep working); when the block ends
    normally it gets the permissions of a file created the ordinary way, is flushed to
    disk if `fsync`, and is renamed onto `out`; otherwise it is removed."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".tmp-{out.name}-", suffix=out.suffix, dir=out.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        if fsync:
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes(path: PathLike, data: bytes, *, fsync: bool = False) -> Path:
    """Write `data` to `path` whole or not at all (see :func:`replace_file`)."""
    with replace_file(path, fsync=fsync) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text(path: PathLike, text: str, *, fsync: bool = False) -> Path:
    """Write `text` (UTF-8) to `path` whole or not at all (see :func:`replace_file`)."""
    return write_bytes(path, text.encode("utf-8"), fsync=fsync)


def set_aside(path: PathLike, tag: str) -> Path:
    """Move `path` to ``<path>.superseded-<tag>`` (``-2``, ``-3``... when taken) and
    return the new name: an output of another kind is kept, never mixed or deleted."""
    path = Path(path)
    dest = path.with_name(f"{path.name}.superseded-{tag}")
    k = 1
    while dest.exists():
        k += 1
        dest = path.with_name(f"{path.name}.superseded-{tag}-{k}")
    os.replace(path, dest)
    return dest


# ------------------------------------------------------------------ TOML
def load_toml(text: str) -> dict[str, Any]:
    """TOML text as a dict; ValueError ``"TOML syntax: ..."`` if it is not TOML."""
    # (imported when first needed: `aqmlab run` hands its file to the simulator, and
    # the parser's import, which compiles its regular expressions, was a third of the
    # command's imports)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python < 3.11
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"TOML syntax: {e}") from None
    except RecursionError:
        raise ValueError("TOML syntax: arrays or tables nested too deeply") from None


def read_toml(path: PathLike) -> dict[str, Any]:
    """A TOML file as a dict; ValueError naming the file if it is missing, unreadable
    or not TOML."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        return load_toml(text)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


# ------------------------------------------------------------------ build id
_BUILD_ID: str | None = None


def build_id() -> str:
    """A short digest of the aqmlab package version and the compiled extension's bytes.

    Results kept between runs (a sweep that an interrupted run resumes) carry it, so
    that results of another build are never mixed with this one's: a changed digest
    changes the sweep's hash, which the sweep store then refuses to extend."""
    global _BUILD_ID
    if _BUILD_ID is None:
        h = hashlib.sha256(aqmlab.__version__.encode())
        spec = importlib.util.find_spec("aqmlab._native")
        try:
            if spec is None or not spec.origin:
                raise OSError("no compiled extension")
            with open(spec.origin, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        except OSError:
            h.update(b"no native module")
        _BUILD_ID = h.hexdigest()[:16]
    return _BUILD_ID


# ------------------------------------------------------------------ processes
def pid_alive(pid: int) -> bool:
    """Whether process `pid` is running. A zombie (a process that has ended and waits
    for its parent to collect its status) has ended; a process of another user that
    cannot be signalled is running. Where ``/proc`` is absent, existence alone counts."""
    pid = positive_int("pid", pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open(f"/proc/{pid}/stat") as f:
            # the state follows the command name, which is in parentheses and may hold any
            # character: read it after the last ')'
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:  # gone since the signal, or no /proc on this system
        return not os.path.isdir("/proc/self")
    except (OSError, IndexError):
        return True
