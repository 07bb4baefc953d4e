"""``make bench``: run every benchmark module in ``bench/`` (``bench/load.py``, ``bench/perft.py``...), each as
``python -m bench.NAME`` in its own process, in name order. ``--only NAME`` runs one, and passes any further
arguments on to it (``python -m bench --only load --seconds 1``)."""

from __future__ import annotations

import argparse
import pkgutil
import subprocess
import sys
from pathlib import Path


def main() -> int:
    names = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if not m.name.startswith("_"))
    parser = argparse.ArgumentParser(description="Run the benchmarks.")
    parser.add_argument("--only", choices=names, help="run this benchmark only")
    args, rest = parser.parse_known_args()
    if rest and not args.only:
        parser.error(f"arguments {rest} need --only NAME")
    status = 0
    for name in [args.only] if args.only else names:
        print(f"\n=== bench.{name} ===", flush=True)
        status = status or subprocess.call([sys.executable, "-m", f"bench.{name}", *rest])
    return status


if __name__ == "__main__":
    sys.exit(main())
