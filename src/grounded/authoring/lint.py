"""``lint``: a rule file read against the author layer, each finding with its line.

Two kinds of finding (prolog/lint.pl decides both): a call to a predicate
that is neither in the author layer, nor the file's own, nor SWI-Prolog's (the
driver's and the state's internals may change under the author), and a
clause for a predicate of the driver or the author layer, or one qualified
with a module: loading such a file is refused (each rule file loads into a
module of its own and may add only its operation's clauses), so lint names
it, with its line, before the author tries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from grounded.core.errors import InputError
from grounded.solvers.prolog import PrologRules


@dataclass(frozen=True)
class Finding:
    path: str
    line: int | None
    kind: str
    """``calls`` or ``defines``."""
    predicate: str
    """``name/arity``."""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        if self.kind == "calls":
            return (f"{where}: calls {self.predicate}, which is not in the author layer "
                    "(docs/extending.md lists what an operation may read)")
        return (f"{where}: defines {self.predicate}, which the driver or the author layer already defines: "
                "rename it (start a helper's name with the operation's)")


def lint(path: str | Path) -> list[Finding]:
    """Every call outside the author layer and every redefinition in a rule file, in line order."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such rule file", path=str(path))
    lines = path.read_text(encoding="utf-8").splitlines()
    rules = PrologRules.get()
    found = [Finding(str(path), _line_of(lines, predicate.rpartition("/")[0]), "calls", predicate)
             for predicate in rules.lint(path)]
    found += [Finding(str(path), line, "defines", predicate) for predicate, line in rules.lint_definitions(path)]
    return sorted(found, key=lambda f: (f.line or 0, f.kind, f.predicate))


def _line_of(lines: list[str], name: str) -> int | None:
    """The first line that calls ``name`` (not where a clause head starts its line)."""
    pattern = re.compile(rf"(?<![\w']){re.escape(name)}\b")
    for n, text in enumerate(lines, 1):
        code = text.split("%", 1)[0]
        for m in pattern.finditer(code):
            if m.start() != 0:
                return n
    return None
