"""``grounded scenario-to-log``: a scenario's conversation written as an event log.

Every turn goes through ``Engine.apply`` with the scenario's expectations
checked as ``grounded run`` checks them; the accepted turns are the log (a
turn the scenario expects rejected is not recorded, as the engine records
none).  The log is written beside its final name and moved there only when
every expectation held, so a failed scenario leaves no log and an existing
file is never touched.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grounded.core.errors import InputError
from grounded.engine import Engine
from grounded.io.effectlog import effects_path
from grounded.scenario import Scenario, run


@dataclass
class Written:
    log: Path
    recorded: int
    rejected: int
    checks: int
    failed: list[str]
    """The expectations that did not hold (``file:line: what``); the log is then not written."""


def scenario_to_log(scenario: str | Path, log: str | Path, extensions: Sequence[str | Path] = ()) -> Written:
    log = Path(log)
    if log.exists():
        raise InputError(f"{log} exists: scenario-to-log writes a new log only")
    talk = Scenario.load(scenario)
    fd, tmp = tempfile.mkstemp(prefix=f".{log.name}.", suffix=".tmp", dir=log.parent if str(log.parent) else ".")
    os.close(fd)
    os.unlink(tmp)  # the writer creates the file itself
    recorded = rejected = checks = 0
    failed: list[str] = []
    try:
        with Engine(talk.header, extensions=extensions, log=tmp) as engine:
            for outcome in run(talk, engine):
                recorded += outcome.update is not None
                rejected += outcome.rejection is not None
                checks += len(outcome.checks)
                failed += [f"{talk.path}:{r.line}: {r.description}" for r in outcome.checks if not r.passed]
        if not failed:
            if effects_path(tmp).exists():  # the record beside it (chained from the header, not the name)
                os.replace(effects_path(tmp), effects_path(log))
            os.replace(tmp, log)
    finally:
        for left in (tmp, effects_path(tmp)):
            if os.path.exists(left):
                os.unlink(left)
    return Written(log, recorded, rejected, checks, failed)
