"""``lint``: a rule file read against the author layer, each finding with its line.

Two kinds of finding (prolog/lint.pl decides both): a call to a predicate
that is neither in the author layer, nor the file's own, nor SWI-Prolog's (the
driver's and the state's internals may change under the author), and a
definition of a predicate the shipped rules or SWI-Prolog already define,
other than operation/3, violation/5 and effect/4 (loaded into the rules'
module, it would change what every operation reads).
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
    found = []
    for item in PrologRules.get().lint(path):
        kind, _, predicate = item.rpartition(" ")
        name = predicate.rpartition("/")[0]
        kind = kind or "calls"
        found.append(Finding(str(path), _line_of(lines, name, kind == "defines"), kind, predicate))
    return sorted(found, key=lambda f: (f.line or 0, f.kind, f.predicate))


def _line_of(lines: list[str], name: str, head: bool) -> int | None:
    """The first line that defines ``name`` (a clause head starts its line) or calls it (elsewhere)."""
    pattern = re.compile(rf"(?<![\w']){re.escape(name)}\b")
    for n, text in enumerate(lines, 1):
        code = text.split("%", 1)[0]
        for m in pattern.finditer(code):
            if (m.start() == 0) == head:
                return n
    return None
