"""The tests' handle on a real server: see tests.serving."""

from tests.serving import ServerProcess, client, kill_rounds, make_key

__all__ = ["ServerProcess", "client", "kill_rounds", "make_key"]
