"""The rule author's toolkit (docs/extending.md): what an author runs while writing an
operation, through the same public entry points ``grounded check`` uses.

* ``lint``: does a rule file keep to the author layer?
* ``run_op_tests``: the cases of a test file, each run against the Prolog operation
  and its ASP twin, the first difference named;
* ``new_op``: the four files of a new operation that pass lint and their own test;
* ``scenario_to_log``: a scenario's accepted turns written as an event log;
* ``fuzz``: random histories mixing the built-ins with the author's operations,
  each checked three ways (``check_history``).
"""

from grounded.authoring.fuzz import FuzzReport, fuzz
from grounded.authoring.lint import Finding, lint
from grounded.authoring.skeleton import new_op
from grounded.authoring.testop import CaseResult, run_op_tests
from grounded.authoring.tolog import scenario_to_log

__all__ = ["CaseResult", "Finding", "FuzzReport", "fuzz", "lint", "new_op", "run_op_tests", "scenario_to_log"]
