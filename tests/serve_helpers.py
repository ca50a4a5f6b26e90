"""The tests' handle on a real server: see grounded.bench.serving."""

from grounded.bench.serving import ServerProcess, client, kill_rounds, make_key

__all__ = ["ServerProcess", "client", "kill_rounds", "make_key"]
