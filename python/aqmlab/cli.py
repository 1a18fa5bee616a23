"""The ``aqmlab`` command line."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

import aqmlab

from .arguments import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

# (name, one-line help, module, add-arguments function, run function); a command whose
# module is None is planned but not built yet and says so.
_COMMANDS = [
    (
        "demo",
        "run a RED queue against a synthetic arrival process and print what it did",
        "aqmlab.demo",
        "add_arguments",
        "run",
    ),
    (
        "run",
        "run one scenario file on the packet-level simulator",
        "aqmlab.run",
        "add_arguments",
        "run",
    ),
    (
        "compare",
        "run one scenario with its bottleneck queue replaced by each AQM, side by side",
        "aqmlab.compare",
        "add_arguments",
        "run",
    ),
    (
        "bench",
        "measure the simulator's speed (events and bottleneck packets per second)",
        "aqmlab.bench",
        "add_arguments",
        "run",
    ),
    (
        "tune",
        "recommend RED, Adaptive RED and FRED parameters for a link",
        "aqmlab.tune",
        "add_arguments",
        "run",
    ),
    (
        "reproduce",
        "reproduce the papers' figures and tables (the catalogue)",
        "aqmlab.reproduce.cli",
        "add_arguments",
        "run",
    ),
    (
        "evaluate",
        "run the RFC 7928 AQM characterization scenarios for a set of AQMs, with a report",
        "aqmlab.evaluate.cli",
        "add_arguments",
        "run",
    ),
    (
        "sweep",
        "run a parameter sweep in parallel (local cores or a Dask cluster)",
        "aqmlab.sweeps.cli",
        "add_sweep_arguments",
        "run_sweep",
    ),
    (
        "plot-sweep",
        "plot the results of a sweep",
        "aqmlab.sweeps.cli",
        "add_plot_arguments",
        "run_plot",
    ),
    (
        "new-aqm",
        "start an AQM of your own: a Python class (or a Rust plugin), a test and a scenario",
        "aqmlab.new_aqm",
        "add_arguments",
        "run",
    ),
    (
        "profiles",
        "list the behaviour profiles (rfc, ns2, ns3, linux) and the keys each sets",
        "aqmlab.profiles",
        "add_arguments",
        "run",
    ),
    (
        "testbed",
        "forward live Linux TCP traffic through the AQM library",
        "aqmlab.testbed",
        "add_arguments",
        "run",
    ),
]


def _available(module: str | None) -> bool:
    """Whether the command's module (one of this package's) is present: looked up as a
    file, without importing it or its parent packages (``aqmlab.reproduce``'s own
    imports cost a second, which every other command would pay)."""
    if module is None:
        return False
    p = os.path.join(os.path.dirname(os.path.realpath(__file__)), *module.split(".")[1:])
    return os.path.isfile(p + ".py") or os.path.isfile(os.path.join(p, "__init__.py"))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of `command` (the one being run; its module alone is imported), or of
    every command when `command` is None or not one of them."""
    parser = argparse.ArgumentParser(
        prog="aqmlab",
        description="Simulate, analyse, tune and reproduce active queue management (AQM) algorithms.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--version", action=_Version, nargs=0, help="show the version number and exit"
    )
    # (prog given: argparse would otherwise build a help formatter to find it, whose
    # import of shutil loads the compression modules)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="aqmlab")
    # The command being run alone, when it is one (each parser costs as much as the
    # run's own imports); all of them for the list in --help or an unknown name.
    chosen = [c for c in _COMMANDS if c[0] == command] or _COMMANDS
    for name, help_, module, add, run in chosen:
        built = _available(module)
        p = sub.add_parser(
            name,
            help=help_ if built else f"{help_} [not built yet]",
            description=help_ if built else f"{help_}. Not built yet.",
            formatter_class=HelpFormatter,
        )
        if built and name == command:
            mod = importlib.import_module(module)
            getattr(mod, add)(p)
            p.set_defaults(_run=getattr(mod, run), _parser=p)
        elif built:
            p.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        else:
            p.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
            p.set_defaults(_run=_not_built(name), _parser=p)
    return parser


def terminal_columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` gives it: ``COLUMNS``,
    else the width of standard output's terminal, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, given the width it would find itself (the terminal's,
    less 2): argparse builds one for each argument added, and one that finds the width
    imports shutil, with the compression modules shutil loads, which a command that
    prints no help has no use for."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class _Version(argparse.Action):
    """``--version``: the installed version, read only when asked (reading the package
    metadata costs tens of milliseconds that every other command would pay)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"aqmlab {aqmlab.__version__}")
        parser.exit()


def _not_built(name: str) -> Callable[[argparse.Namespace], int]:
    def run(_args: argparse.Namespace) -> int:
        print(f"aqmlab {name}: not built yet in this version of aqmlab.", file=sys.stderr)
        return 2

    return run


def flag_for(parser: argparse.ArgumentParser, argument: str) -> str | None:
    """How `parser` names the argument stored as `argument`: its long option
    (``--jobs``), else its short one, else (a positional) its metavar or the upper-cased
    name; None when `parser` has no such argument."""
    for action in parser._actions:  # (argparse keeps no public list of its arguments)
        if action.dest == argument:
            longs = [s for s in action.option_strings if s.startswith("--")]
            names = longs or action.option_strings
            if names:
                return names[0]
            return str(action.metavar or action.dest.upper())
    return None


def error_text(parser: argparse.ArgumentParser, error: ValueError) -> str:
    """The message of `error` for the command line: a bad argument of a library
    function (:class:`aqmlab.base.ArgumentError`) is named by the flag it came from."""
    if isinstance(error, ArgumentError):
        flag = flag_for(parser, error.argument)
        if flag is not None:
            return error.naming(flag)
    return str(error)


def run_command(
    run: Callable[[argparse.Namespace], int | None],
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    prog: str,
) -> int:
    """Run a command's `run(args)` and turn what it raises into an exit status: 130
    interrupted, 141 when the reader of its output went away, 2 (with the message, its
    flags named) for a bad argument or configuration."""
    try:
        return int(run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`aqmlab ... | head`): stop quietly, as Unix tools do.
        # Point stdout at /dev/null so that the interpreter's final flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except ValueError as e:  # configuration errors name the field, or the flag
        print(f"{prog}: error: {error_text(parser, e)}", file=sys.stderr)
        return 2
    except RuntimeError as e:  # an AQM from outside aqmlab stopped the run
        from . import _native

        if not isinstance(e, _native.ExternalAqmError):
            raise
        print(f"aqmlab {args.command}: error: {e}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    return run_command(args._run, args, args._parser, f"aqmlab {args.command}")


def command() -> int:
    """The ``aqmlab`` command (its entry point, and ``python -m aqmlab``'s): :func:`main`,
    then :func:`gc.freeze`, so that the interpreter's exit does not walk every object
    of the imports looking for reference cycles, which nothing after the command needs
    collected (10 million instructions of aqmlab run's 163 million on S1 1 s)."""
    status = main()
    gc.freeze()
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())
