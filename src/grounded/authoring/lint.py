"""``lint``: a rule file read against the sandbox an operation file loads in, each finding with its line.

An operation file loads into a module of its own and may define only its
operation's clauses and helpers over the exported author layer.
prolog/lint.pl decides what breaks that (refusals/2), and the load refuses
the same findings, so lint names each, with its line, before the author
tries: a call outside the layer (the driver's and the state's internals),
a clause for a predicate of the driver or the layer, a module-qualified
call, a call that writes the database, global variables or a stream, a goal
known only at run time, and a directive other than the harmless ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grounded.core.errors import InputError
from grounded.solvers.prolog import PrologRules

KINDS = ("defines", "calls", "qualified", "writes", "runtime", "directive", "undeclared")
"""What a finding is: each kind's word in the message below."""


@dataclass(frozen=True)
class Finding:
    path: str
    line: int | None
    kind: str
    """One of KINDS."""
    predicate: str
    """``name/arity`` (``module:name/arity`` for a qualified call), the directive, or the operation
    (``undeclared``: it has no transition/2, a lint finding the load lets pass)."""
    why: str = ""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        if self.kind == "defines":
            return (f"{where}: defines {self.predicate}, which the driver or the author layer already defines: "
                    "rename it (start a helper's name with the operation's)")
        if self.kind == "undeclared":
            return (f"{where}: declares {self.predicate} with no transition/2: declare what it does to the map "
                    "(grounded cover holds it to that)")
        verb = "runs the directive" if self.kind == "directive" else "calls"
        return f"{where}: {verb} {self.predicate}{', ' if self.kind == 'calls' else ': '}{self.why}"


def lint(path: str | Path) -> list[Finding]:
    """Everything in a rule file that keeps it from loading, and each operation it declares without
    transition/2, in line order."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such rule file", path=str(path))
    rules = PrologRules.get()
    found = [Finding(str(path), line or None, kind, what, why)
             for line, kind, what, why in rules.lint_refusals(path.resolve())]
    found += [Finding(str(path), line, "undeclared", op) for op, line in rules.lint_transitions(path.resolve())]
    return sorted(found, key=lambda f: f.line or 0)
