"""``aqmlab-gateway`` and ``python -m aqmlab.gateway``: the userspace gateway the testbed
runs (crates/gateway), linked into the extension module so that an installed package
carries it; no cargo or source tree is needed. ``aqmlab-gateway --help`` lists its
flags and tools."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Run the gateway with `argv` (default: the command line) and exit with its status."""
    from aqmlab import _native

    args = sys.argv[1:] if argv is None else list(argv)
    sys.stdout.flush()
    sys.exit(_native.gateway_main(["aqmlab-gateway", *args]))


if __name__ == "__main__":
    main()
