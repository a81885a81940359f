"""The reference directory the seed builders read: an optional first argument, ../shared/reference by default.

`--help` prints the usage and exits; a path that is not a directory stops with a clear message, before anything
is read or written (it used to fail deep inside a build as '--help/prices.csv').
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = ROOT.parent / "shared" / "reference"


def reference_dir(argv: list[str], script: str, writes: str) -> Path:
    """The directory named by argv[1] (or the default), or exit with usage (0 on --help, 2 on a bad path)."""
    usage = f"usage: python scripts/{script} [REFERENCE_DIR]\n  reads REFERENCE_DIR (default {DEFAULT_REFERENCE})"
    usage += f"\n  writes {writes}"
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(usage)
        raise SystemExit(0)
    if len(args) > 1:
        sys.exit(f"{usage}\nerror: one argument at most, got {len(args)}")
    reference = Path(args[0]) if args else DEFAULT_REFERENCE
    if not reference.is_dir():
        sys.exit(f"{usage}\nerror: {reference} is not a directory")
    return reference
