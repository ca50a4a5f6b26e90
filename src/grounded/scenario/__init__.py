"""Scenario files: a conversation with gold operations and the results expected of it.

``Scenario.load`` reads one (file.py); ``run`` replays it through an engine and
checks every expectation (run.py, checks.py, epistemic.py).
"""

from grounded.scenario.checks import CHECKS, retraction_score
from grounded.scenario.file import SCENARIO_SUFFIXES, Check, Scenario, ScenarioTurn
from grounded.scenario.run import CheckResult, TurnOutcome, evaluate, run

__all__ = ["CHECKS", "SCENARIO_SUFFIXES", "Check", "CheckResult", "Scenario", "ScenarioTurn", "TurnOutcome",
           "evaluate", "retraction_score", "run"]
