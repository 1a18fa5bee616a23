"""Output locations of the commands that write: checked before any work starts, and
written whole or not at all.

- :func:`check_out_dir` / :func:`check_out_file`: can this directory (or file) be
  created here? A ``ValueError`` naming the option (``--out /proc/x: ...``) if not, so
  that a command fails at once instead of after its work.
- :func:`staged_dir`: work in a temporary directory beside the target, renamed onto it
  at the end; on failure the target is left as it was.
- :func:`replace_file`: a file written beside its target and renamed onto it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Union

__all__ = ["check_out_dir", "check_out_file", "staged_dir", "replace_file"]

PathLike = Union[str, "os.PathLike[str]"]


def _nearest_existing(p: Path) -> Path:
    """`p` or its nearest ancestor that exists."""
    p = Path(os.path.abspath(p))
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _probe(where: Path, what: str, flag: str) -> None:
    """Create and remove a directory in `where`; ValueError naming `flag` if impossible."""
    if not where.is_dir():
        raise ValueError(f"{flag} {what}: {where} is not a directory")
    try:
        d = tempfile.mkdtemp(prefix=".aqmlab-probe-", dir=where)
    except OSError as e:
        raise ValueError(
            f"{flag} {what}: cannot create a directory in {where}: {e.strerror or e}"
        ) from None
    os.rmdir(d)


def check_out_dir(path: PathLike, flag: str = "--out", *, inside: bool = False) -> Path:
    """Check that the output directory `path` can be created, or replaced, before any
    work starts; returns it as a Path. Raises ValueError naming `flag` when it exists
    and is not a directory, or when no directory can be created where it would go
    (a read-only or virtual file system such as /proc, no permission).

    The commands that write their output beside the target and rename it at the end
    need the parent writable; `inside` also checks an existing target's own inside (for
    the commands that add to an existing directory: a sweep's dataset, the catalogue)."""
    p = Path(path)
    if str(path) == "":
        raise ValueError(f"{flag}: expected a directory, got an empty string")
    if p.exists() and not p.is_dir():
        raise ValueError(f"{flag} {path}: exists and is not a directory")
    _probe(_nearest_existing(p.parent), str(path), flag)
    if inside and p.is_dir():
        _probe(p, str(path), flag)
    return p


def check_out_file(path: PathLike, flag: str = "--output") -> Path:
    """Check that the output file `path` can be written (created beside and renamed onto
    it) before any work starts; ValueError naming `flag` if not."""
    p = Path(path)
    if str(path) == "":
        raise ValueError(f"{flag}: expected a file name, got an empty string")
    if p.is_dir():
        raise ValueError(f"{flag} {path}: is a directory, expected a file name")
    _probe(_nearest_existing(p.parent), str(path), flag)
    return p


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


@contextmanager
def staged_dir(out: PathLike, *, keep_failed: Optional[str] = None) -> Iterator[Path]:
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
            failed = out.with_name(out.name + keep_failed)
            try:
                if failed.is_dir():
                    shutil.rmtree(failed)
                os.rename(tmp, failed)
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@contextmanager
def replace_file(out: PathLike) -> Iterator[Path]:
    """Yield a temporary file name beside `out` (same suffix, so that writers that go by
    the extension keep working); when the block ends normally it is renamed onto `out`,
    otherwise removed."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{out.stem}.tmp-", suffix=out.suffix, dir=out.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
