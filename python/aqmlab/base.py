"""The floor of the package: what any module of aqmlab may use, importing nothing of
aqmlab but the floor's own leaves (:mod:`aqmlab.arguments`, :mod:`aqmlab.outdir`) and
no heavy dependency itself.

- Argument checks (from :mod:`aqmlab.arguments`): :class:`ArgumentError` (a
  ``ValueError`` that knows which argument it is about, so that a command line can name
  its flag instead), :func:`positive_int`, :func:`int_at_least`, :func:`integer`,
  :func:`positive`, :func:`non_negative`, :func:`in_range`.
- Output locations: :func:`check_out_dir`, :func:`check_out_file` (can it be created
  here? asked before any work starts; :mod:`aqmlab.outdir` gives them with strings).
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
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Union

import aqmlab

from . import outdir
from .arguments import (
    ArgumentError,
    in_range,
    int_at_least,
    integer,
    non_negative,
    positive,
    positive_int,
)

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


# ------------------------------------------------------------------ output locations
def check_out_dir(path: PathLike, name: str = "out", *, inside: bool = False) -> Path:
    """Check that the output directory `path` can be created, or replaced, before any
    work starts; returns it as a Path. ArgumentError naming the argument `name` when it
    exists and is not a directory, or when no directory can be created where it would
    go (a read-only or virtual file system such as /proc, no permission).

    Output written beside the target and renamed at the end needs the parent writable;
    `inside` also checks an existing target's own inside (for output added to an
    existing directory: a sweep's dataset, the catalogue)."""
    outdir.check_dir(path, name, inside=inside)
    return Path(path)


def check_out_file(path: PathLike, name: str = "output") -> Path:
    """Check that the output file `path` can be written (created beside and renamed onto
    it) before any work starts; ArgumentError naming the argument `name` if not."""
    outdir.check_file(path, name)
    return Path(path)


# ------------------------------------------------------------------ atomic writes
@contextmanager
def staged_dir(out: PathLike, *, keep_failed: str | None = None) -> Iterator[Path]:
    """Yield a fresh temporary directory beside `out`; when the block ends normally it
    becomes `out` (replacing an existing one), so `out` is complete or as it was. When
    the block raises, the temporary directory is removed, or, with `keep_failed` (a
    suffix such as ``".failed"``), kept as ``out`` + suffix for its logs (replacing an
    earlier one). (:mod:`aqmlab.outdir` does the work, with strings.)"""
    out = Path(out)
    tmp = Path(outdir.stage(out))
    try:
        yield tmp
    except BaseException:
        if keep_failed:
            outdir.keep_failed(tmp, out.with_name(out.name + keep_failed))
        else:
            outdir.discard(tmp)
        raise
    outdir.swap_in(tmp, out)


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
