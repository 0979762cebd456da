"""For scripts: one line on stderr instead of a traceback when Winnow cannot be reached or refuses."""

from __future__ import annotations

import os
import sys
from typing import Callable, NoReturn, Optional

from .client import WinnowError


def run_cli(main: Callable[[], Optional[int]]) -> NoReturn:
    """Run `main`; a WinnowError ends the script with its one-line message and exit code 1.

    Set WINNOW_DEBUG=1 to see the traceback instead.
    """
    try:
        code = main()
    except WinnowError as e:
        if os.environ.get("WINNOW_DEBUG"):
            raise
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(code or 0)
