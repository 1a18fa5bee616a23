"""Output directories with :mod:`os` alone: whether one can be made where asked (checked
before any work starts), and one built beside its target and renamed onto it at the
end, so that the target is complete or as it was. :mod:`aqmlab.base` gives these as
paths (:func:`aqmlab.base.check_out_dir`, :func:`aqmlab.base.staged_dir`); ``aqmlab
run`` uses them as they are, so that its path imports no more than it runs (the import
of :mod:`tempfile`, with :mod:`random`, :mod:`shutil` and the compression modules these
bring, cost more CPU than the command's own modules).

- :func:`check_dir`, :func:`check_file`: could the directory (file) be created or
  replaced here? :class:`~aqmlab.arguments.ArgumentError` naming the argument if not.
- :func:`stage`, :func:`swap_in`, :func:`discard`, :func:`keep_failed`: a temporary
  directory beside the target; renamed onto it (an existing one moved aside and
  removed); removed; or kept under another name for its logs.
"""

from __future__ import annotations

import errno
import os

from .arguments import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["make_temp_dir", "check_dir", "check_file", "stage", "swap_in", "discard", "keep_failed"]


def make_temp_dir(parent: PathLike, prefix: str) -> str:
    """A new directory, mode 0700, named `prefix` and 8 random hexadecimal digits, in
    `parent`; its absolute path (as :func:`tempfile.mkdtemp` makes one)."""
    for _ in range(100):
        name = os.path.join(parent, prefix + os.urandom(4).hex())
        try:
            os.mkdir(name, 0o700)
        except FileExistsError:
            continue
        return os.path.abspath(name)
    raise FileExistsError(errno.EEXIST, "no unused name for a directory", str(parent))


def _nearest_existing(path: str) -> str:
    """`path` or its nearest ancestor that exists."""
    p = os.path.abspath(path)
    while not os.path.exists(p) and p != os.path.dirname(p):
        p = os.path.dirname(p)
    return p


def _probe(where: str, what: str, name: str) -> None:
    """Create and remove a directory in `where`; ArgumentError naming `name` if impossible."""
    if not os.path.isdir(where):
        raise ArgumentError(name, f"{what}: {where} is not a directory")
    try:
        d = make_temp_dir(where, ".aqmlab-probe-")
    except OSError as e:
        detail = f"{what}: cannot create a directory in {where}: {e.strerror or e}"
        raise ArgumentError(name, detail) from None
    os.rmdir(d)


def _strip(path: PathLike) -> str:
    """`path` without a trailing separator (``/`` stays itself)."""
    p = os.fspath(path)
    return p.rstrip(os.sep) or p[:1]


def _parent(path: PathLike) -> str:
    """The directory `path` is in (``.`` for a bare name), as ``Path(path).parent``."""
    return os.path.dirname(_strip(path)) or "."


def check_dir(path: PathLike, name: str = "out", *, inside: bool = False) -> None:
    """Check that the output directory `path` can be created, or replaced, before any
    work starts: ArgumentError naming the argument `name` when it exists and is not a
    directory, or when no directory can be created where it would go (a read-only or
    virtual file system such as /proc, no permission). `inside` also checks an
    existing target's own inside (for output added to an existing directory)."""
    if os.fspath(path) == "":
        raise ArgumentError(name, ": expected a directory, got an empty string")
    if os.path.exists(path) and not os.path.isdir(path):
        raise ArgumentError(name, f"{path}: exists and is not a directory")
    _probe(_nearest_existing(_parent(path)), str(path), name)
    if inside and os.path.isdir(path):
        _probe(os.fspath(path), str(path), name)


def check_file(path: PathLike, name: str = "output") -> None:
    """Check that the output file `path` can be written (created beside and renamed onto
    it) before any work starts; ArgumentError naming the argument `name` if not."""
    if os.fspath(path) == "":
        raise ArgumentError(name, ": expected a file name, got an empty string")
    if os.path.isdir(path):
        raise ArgumentError(name, f"{path}: is a directory, expected a file name")
    _probe(_nearest_existing(_parent(path)), str(path), name)


def stage(out: PathLike) -> str:
    """A fresh temporary directory beside `out` (``.<name>.tmp-<random>``), its parents
    made if needed: where the output is written before :func:`swap_in`."""
    parent = _parent(out)
    os.makedirs(parent, exist_ok=True)
    return make_temp_dir(parent, f".{os.path.basename(_strip(out))}.tmp-")


def discard(path: PathLike) -> None:
    """Remove the directory tree `path`, whatever it holds (errors ignored)."""
    import shutil  # (only here: see the module's documentation)

    shutil.rmtree(path, ignore_errors=True)


def swap_in(tmp: PathLike, out: PathLike) -> None:
    """Rename `tmp` onto `out`; an existing `out` is moved aside first and removed
    after. `tmp` is removed if the rename fails."""
    try:
        if os.path.lexists(out):
            name = os.path.basename(_strip(out))
            old = make_temp_dir(_parent(out), f".{name}.old-")
            os.rename(out, os.path.join(old, name))
            os.rename(tmp, out)
            discard(old)
        else:
            os.rename(tmp, out)
    except BaseException:
        discard(tmp)
        raise


def keep_failed(tmp: PathLike, failed: PathLike) -> None:
    """Rename the work directory `tmp` to `failed` (replacing an earlier one), or remove it."""
    try:
        if os.path.isdir(failed):
            import shutil  # (only here: see the module's documentation)

            shutil.rmtree(failed)
        os.rename(tmp, failed)
    except OSError:
        discard(tmp)
