"""The paper's benchmarks: a folder of the repository, not part of the installed package.

Run from the repository root (``python -m bench NAME ...``, ``python -m bench.latency``): the modules import the
installed ``grounded`` and each other as ``bench.x``, and reuse the tests' harness (``tests/synthetic.py``,
``tests/serving.py``, ``tests/pgserver.py``).  See bench/README.md.
"""
