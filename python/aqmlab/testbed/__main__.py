"""``python -m aqmlab.testbed SCENARIO --out DIR`` (same as ``aqmlab testbed``)."""

import argparse
import sys

from ..cli import run_command
from . import add_arguments, run

if __name__ == "__main__":
    p = argparse.ArgumentParser(
        prog="aqmlab testbed",
        description="run a scenario on live Linux flows through aqmlab-gateway",
    )
    add_arguments(p)
    sys.exit(run_command(run, p.parse_args(), p, "aqmlab testbed"))
