"""``python -m bench NAME ...`` from the repository root: the benchmarks' command line (bench/cli.py).

It reports errors as ``grounded`` does (one line on stderr, exit 2), through the same entry point.
"""

from bench.cli import bench_app
from grounded.cli import main

main(bench_app)
