"""``grounded cost FILE``: does an operation's cost per application grow with the history?

A rule can be right and still quadratic: a violation that walks every claim
on every application costs O(n) per utterance, O(n^2) over a conversation of
n.  The check counts the logical inferences the rules spend (SWI-Prolog's
``statistics(inferences)``: work as a count, the same under any load) per
application of each operation, as one history grows through the given sizes
(1,000, 4,000 and 16,000 utterances by default), and fits the exponent of
the conversation's total cost, ``n x cost per application(n)``, against n:
1.0 is a rule whose cost per application does not grow, 2.0 one that walks
the history each time.  Above ``LIMIT`` the operation fails.

The history is a realistic stream of built-in operations (observations,
hypotheses resting on them and explaining them, support, questions, an
undermining now and then), so that what a rule may walk grows as a
conversation's does.  At each size the operation is applied ``samples``
times, its fields drawn against the state as the fuzzer draws them
(grounded.authoring.aim); accepted and rejected applications both count.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grounded.authoring.aim import AGENTS, Aim
from grounded.core.errors import PreconditionError
from grounded.engine import Engine

SIZES = (1_000, 4_000, 16_000)
LIMIT = 1.2
SAMPLES = 30


@dataclass
class OpCost:
    op: str
    per_application: dict[int, float] = field(default_factory=dict)
    """History size -> mean inferences per application."""

    @property
    def exponent(self) -> float:
        """The least-squares slope of log(n x per application) against log n."""
        xs = [math.log(n) for n in self.per_application]
        ys = [math.log(n * max(c, 1.0)) for n, c in self.per_application.items()]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        den = sum((x - mx) ** 2 for x in xs)
        return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 1.0

    @property
    def ok(self) -> bool:
        return self.exponent <= LIMIT

    def line(self) -> str:
        sizes = ", ".join(f"{c:,.0f} at {n:,}" for n, c in sorted(self.per_application.items()))
        verdict = "ok" if self.ok else f"FAIL: above {LIMIT} (it walks the history on every application)"
        return f"{self.op}: inferences per application {sizes}; exponent {self.exponent:.2f} {verdict}"


def background(i: int) -> dict:
    """The i-th utterance of the growing history: mostly observations, a hypothesis every fourth
    (resting on and explaining a recent observation), a support, a question, an undermining."""
    speaker = ("alice", "bob", "carol")[i % 3]
    k = i // 8
    step = i % 8
    if step in (0, 1, 2, 5):
        return {"speaker": speaker, "ops": [{"op": "observe", "claim": f"o{i}"}]}
    if step == 3:
        return {"speaker": speaker, "ops": [{"op": "hypothesize", "claim": f"h{k}", "deps": [f"o{i - 3}"],
                                             "explains": [f"o{i - 2}"]}]}
    if step == 4:
        return {"speaker": speaker, "ops": [{"op": "support", "target": f"h{k}", "by": f"o{i - 3}"}]}
    if step == 6:
        return {"speaker": speaker, "ops": [{"op": "question", "claim": f"q{k}"}]}
    return {"speaker": speaker, "ops": [{"op": "undermine", "target": f"o{i - 7}", "by": f"o{i - 6}"}]}


def cost(extensions: Sequence[str | Path], ops: Sequence[str] = (), sizes: Sequence[int] = SIZES,
         samples: int = SAMPLES, seed: int = 0) -> list[OpCost]:
    """Inferences per application of each operation (by default, the extensions') at each history size."""
    engine = Engine({"agents": AGENTS}, extensions=extensions)
    try:
        registry = engine.registry
        names = list(ops) or sorted(n for n in registry.specs if n not in registry.builtins)
        out = [OpCost(op) for op in names]
        rng = random.Random(seed)
        aim = Aim(rng, engine, names)
        rules = engine.rules.rules
        done = 0
        for size in sorted(sizes):
            while done < size:
                try:
                    engine.apply(background(done))
                except PreconditionError:  # the stream is drawn to be accepted; a refusal costs nothing to skip
                    pass
                done += 1
            for c in out:
                spent = 0
                for _ in range(samples):
                    ops_drawn = [aim.operation(registry.specs[c.op])]
                    before = rules.inferences()
                    aim.say(ops_drawn)
                    spent += rules.inferences() - before
                c.per_application[size] = spent / samples
        return out
    finally:
        engine.close()
