"""A benchmark's own check that did not hold, told apart from a fault of the benchmark.

A run that measured a target missed (the rules' work per operation grew, a
log was not read from its record, two solvers disagree) has done its job:
its figures are written, and the command says which check failed and exits
1.  Raised as an ``AssertionError`` it read as ``internal error`` with exit
2, the same as a crash or bad input.
"""


class CheckFailed(Exception):
    """What the benchmark checks of its own figures did not hold (the message says what, and by how much)."""
