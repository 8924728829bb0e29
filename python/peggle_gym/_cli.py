"""The `peggle` command a wheel installs: runs the engine the wheel carries with the same arguments
(exec: the same process, so its exit status, signals and terminal are the engine's own)."""
from __future__ import annotations

import os
import sys

from .client import BUNDLED_PEGGLE, _executable, source_checkout_peggle


def engine() -> str:
    """The executable the command runs: the wheel's own (``peggle_gym/bin/peggle``), else the
    release build of the source checkout this package lives in. Never `peggle` on PATH, which may
    be this very command."""
    if _executable(str(BUNDLED_PEGGLE)):
        return str(BUNDLED_PEGGLE)
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
