"""``grounded bench``: the benchmarks' sub-app (grounded.bench.cli), registered when invoked or listed."""

from __future__ import annotations

from grounded.bench.cli import bench_app
from grounded.cli.app import app

app.add_typer(bench_app, name="bench")
