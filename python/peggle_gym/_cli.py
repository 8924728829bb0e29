"""The `peggle` command a wheel installs: runs the engine the wheel carries with the same arguments
(exec: the same process, so its exit status, signals and terminal are the engine's own)."""
from __future__ import annotations

import os
import sys

from .engines import _executable, bundled_peggle, source_checkout_peggle


def engine() -> str:
    """The executable the command runs: the wheel's own (`bundled_peggle`: the AVX2-tuned one where
    the CPU has the flags, else the generic one), else the release build of the source checkout
    this package lives in. Never `peggle` on PATH, which may be this very command."""
    bundled = str(bundled_peggle())
    if _executable(bundled):
        return bundled
    return source_checkout_peggle()


def main() -> None:
    try:
        path = engine()
    except FileNotFoundError as e:
        print(f"peggle: {e}", file=sys.stderr)
        sys.exit(127)
    os.execv(path, [path, *sys.argv[1:]])


if __name__ == "__main__":
    main()
