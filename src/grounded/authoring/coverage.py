"""What drawn histories reached of an operation: its uses, its transitions, its violation codes.

Each operation file declares the transitions it can emit on the map
(``transition(Op, T)``: an effect's name, or ``set_standing(From, To)``) and
its preconditions' codes (``violation/5``).  A bug that the rules and their
ASP twin share (an effect forgotten in both alike) passes the three-way check,
since the two agree; it shows here as a declared transition that never fires.
And a check that never accepted the operation, or never reached the states a
transition needs, tested little: the coverage says so, by name.

``cover`` is the transitions property alone (``grounded cover FILE``): aimed
histories (grounded.authoring.aim), drawn until every transition an operation
declares has fired, every standing change any operation emits checked
against what that operation declares.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grounded.authoring.aim import Drawn, draw
from grounded.dmap.effects import NewArg, SetStanding
from grounded.solvers.prolog import PrologRules

DRIVER_EFFECTS = {"problem", "new_agent", "turn"}
"""The driver's own effects (admission, open problems): no operation declares them."""

Transition = str | tuple[str, str, str]


def declared_transitions() -> dict[str, set[Transition]]:
    """Operation -> the transitions it declares, as the loaded rules hold them."""
    out: dict[str, set[Transition]] = {}
    for _, op, t in PrologRules.get().request(("transitions",)):
        out.setdefault(op, set()).add(t if isinstance(t, str) else tuple(t))
    return out


def declared_codes() -> dict[str, set[str]]:
    """Operation -> the violation codes its rules declare (the catalogue's reading of violation/5)."""
    out: dict[str, set[str]] = {}
    for line in PrologRules.get().catalogue_text().splitlines():
        kind, *rest = line.split("\t")
        if kind == "violation":
            out.setdefault(rest[0], set()).add(rest[1])
    return out


def shown(t: Transition) -> str:
    return t if isinstance(t, str) else f"{t[0]}({t[1]}, {t[2]})"


@dataclass
class Coverage:
    """What the histories of one run saw of one operation."""

    op: str
    declared: set[Transition]
    codes: set[str] = field(default_factory=set)
    """The violation codes the operation declares."""
    fired: Counter[Transition] = field(default_factory=Counter)
    reached: Counter[str] = field(default_factory=Counter)
    """Violation codes the operation's own clauses (or the driver's checks) raised on it."""
    accepted: int = 0
    accepted_in_world: int = 0
    """Accepted uses under a header that declares a world model."""
    rejected: int = 0
    undeclared: list[str] = field(default_factory=list)
    """Standing changes the operation emitted without declaring them."""
    utterances: int = 0

    def problems(self) -> list[str]:
        """What fails the run: never accepted, a declared transition never fired, an undeclared one."""
        out = []
        if not self.accepted:
            out.append(f"{self.op} was never accepted in {self.utterances} utterances "
                       f"({self.rejected} rejected: {_top(self.reached)})")
        never = sorted(shown(t) for t in self.declared - set(self.fired))
        out += [f"{self.op} never emitted {t} (declared by transition({self.op}, {t})) in "
                f"{self.utterances} utterances" for t in never]
        if not self.declared:
            out.append(f"{self.op} declares no transition/2: declare what it does to the map")
        return out + self.undeclared

    def lines(self) -> list[str]:
        """The coverage report of the operation, one line per item."""
        fired = ", ".join(f"{shown(t)} {self.fired[t]}" for t in sorted(self.declared, key=shown) if self.fired[t])
        never = ", ".join(shown(t) for t in sorted(self.declared - set(self.fired), key=shown))
        codes_never = sorted(self.codes - set(self.reached))
        return [f"{self.op}: accepted {self.accepted} ({self.accepted_in_world} with a world model), "
                f"rejected {self.rejected}",
                f"  transitions fired {len(set(self.fired) & self.declared)}/{len(self.declared)}: {fired or 'none'}"
                + (f"; NEVER: {never}" if never else ""),
                f"  codes reached {len(self.codes & set(self.reached))}/{len(self.codes)}: "
                + (", ".join(f"{c} {self.reached[c]}" for c in sorted(self.reached)) or "none")
                + (f"; never: {', '.join(codes_never)}" if codes_never else "")]


def _top(codes: Counter[str]) -> str:
    return ", ".join(f"{c} {n}" for c, n in codes.most_common(4)) or "no violation"


class Tally:
    """Coverage of every operation over the histories drawn; one standing map per history."""

    def __init__(self, ops: Iterable[str]):
        declared, codes = declared_transitions(), declared_codes()
        self.declared = declared
        self.of = {op: Coverage(op, declared.get(op, set()), codes.get(op, set())) for op in ops}

    def history(self, drawn: Sequence[Drawn], world: bool) -> None:
        standing: dict[int, str] = {}
        for d in drawn:
            names = [op["op"] for op in d.utterance["ops"]]
            for name in set(names):
                if name in self.of:
                    self.of[name].utterances += 1
            if d.update is None:
                for name in set(names):
                    if name in self.of:
                        self.of[name].rejected += 1
                for index, code in d.rejected_by:
                    if 0 <= index < len(names) and names[index] in self.of:
                        self.of[names[index]].reached[code] += 1
                continue
            for name in set(names):
                if name in self.of:
                    self.of[name].accepted += 1
                    self.of[name].accepted_in_world += world
            for e in d.update.effects:
                if e.name in DRIVER_EFFECTS:
                    continue
                name = names[e.index]
                t: Transition = e.name
                if isinstance(e, SetStanding):
                    t = ("set_standing", standing[e.arg], e.standing)
                    standing[e.arg] = e.standing
                    if name in self.of and t not in self.declared.get(name, set()):
                        self.of[name].undeclared.append(
                            f"{name} emitted {shown(t)} at T{d.update.turn} (argument {e.arg}), which it does not "
                            f"declare: its standing diagram is {sorted(map(shown, self.declared.get(name, set())))}")
                elif isinstance(e, NewArg):
                    standing[e.arg] = "active"
                if name in self.of:
                    self.of[name].fired[t] += 1

    def fired_all(self) -> bool:
        return all(c.declared <= set(c.fired) and c.accepted for c in self.of.values())


def cover(ops: Sequence[str], extensions: Sequence[str | Path] = (), *, seed: int = 0, histories: int = 400,
          length: int = 30, seconds: float = 60.0) -> Tally:
    """Draw aimed histories (at most ``histories`` of ``length`` moves, and ``seconds``) until every
    transition each of ``ops`` declares has fired."""
    tally: Tally | None = None
    deadline = time.monotonic() + seconds
    for i in range(histories):
        head, drawn = draw(random.Random(seed + i), extensions, length, focus=ops)
        if tally is None:  # the rules have the extensions loaded now
            tally = Tally(ops)
        tally.history(drawn, head.world is not None)
        if tally.fired_all() or time.monotonic() > deadline:
            break
    assert tally is not None
    return tally
