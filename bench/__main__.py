"""``python -m bench NAME ...`` from the repository root: the benchmarks' command line (bench/cli.py).

It reports errors as ``grounded`` does (one line on stderr, exit 2), through the same entry point; a
benchmark's own check that did not hold is one line too, ``check failed: ...``, exit 1 (bench/checks.py).
"""

from bench.checks import CheckFailed
from bench.cli import bench_app
from grounded.cli import main

main(bench_app, checks=(CheckFailed,))
