"""Shapes of conversation for the cross-check's scaling benchmark (bench/crosscheck.py ``--shapes``).

Each shape writes a log of about K turns through the real engine (``Engine(header, log=path)``:
only accepted utterances reach the log) and returns its number of utterances.  A check's cost
depends on the structure of what a conversation says, not only on its length, so each shape
stresses one structure:

* ``naive``, ``realistic``, ``arguments``: the streams of tests/synthetic.py;
* ``fan``: many competing hypotheses on one question (a differential diagnosis): turn 0 asks q0,
  two of every three turns observe a new fact, every third a hypothesis explains q0 resting on one
  random earlier observation;
* ``deep``: the realistic stream where nearly every answer rests on the answer the previous topic
  settled, in lines of ``DEEP_LINES`` topics (long Dep chains; one unbroken chain is quadratic to
  say: Affected* of each of its literals holds everything after it);
* ``questions``: many questions, each with a few competing hypotheses; some hypotheses name
  nothing they explain (accepted while any problem is queued), some questions get resolved;
* ``dissent``: a long dissent-and-resolve history: a hypothesis, evidence against it brought by
  an agent who is then committed to the attack, an authoritative resolution over that dissent,
  now and then taken back by a revision;
* ``world``: the realistic stream under a header that declares a world model (docs/epistemic.md),
  a few of its observations modelled.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from grounded.core.errors import PreconditionError
from grounded.engine import Engine
from tests.synthetic import HEADER, argument_heavy, build, realistic

DEEP_LINES = 25
"""Topics per line of the deep shape (each resting on the one before)."""
WORLD_HEADER = {**HEADER, "world": {
    "atoms": ["m_a", "m_b", "m_c"],
    "formulas": {"o1a": "m_a", "o2a": "m_b", "o4a": "m_a & m_c"},
}}
"""The world shape's header: three modelled atoms, the first topics' observations standing for them."""

Shape = Callable[[int, int, Path], int]


def _logged(header: dict, utterances, path: Path) -> int:
    """Apply ``utterances`` to an engine logging to ``path``; the rejected ones are left out. Returns
    the number logged."""
    logged = 0
    with Engine(header, log=path) as engine:
        for u in utterances:
            try:
                engine.apply(u)
            except PreconditionError:
                continue
            logged += 1
    return logged


def naive(k: int, seed: int, path: Path) -> int:
    conv = build(k, "naive", seed, log=path)
    conv.engine.close()
    return len(conv.history)


def realistic_shape(k: int, seed: int, path: Path) -> int:
    conv = realistic(k, seed)
    conv.engine.close()
    return _logged(HEADER, conv.history, path)


def deep(k: int, seed: int, path: Path) -> int:
    conv = realistic(k, seed, depth=DEEP_LINES)
    conv.engine.close()
    return _logged(HEADER, conv.history, path)


def world(k: int, seed: int, path: Path) -> int:
    conv = realistic(k, seed)
    conv.engine.close()
    return _logged(WORLD_HEADER, conv.history, path)


def fan_utterances(k: int, seed: int = 3) -> list[dict]:
    """The fan of competing hypotheses on one question, K utterances (turns assigned by the engine)."""
    rnd = random.Random(seed)
    observed: list[str] = []
    said = [{"speaker": "alice", "ops": [{"op": "question", "claim": "q0", "text": "why?"}]}]
    for t in range(1, k):
        who = ("alice", "bob")[t % 2]
        if t % 3 or not observed:
            observed.append(f"o{t}")
            said.append({"speaker": who, "ops": [{"op": "observe", "claim": f"o{t}", "text": f"fact {t}"}]})
        else:
            said.append({"speaker": who, "ops": [{"op": "hypothesize", "claim": f"h{t}", "text": f"hyp {t}",
                                                  "deps": [rnd.choice(observed)], "explains": ["q0"]}]})
    return said


def fan(k: int, seed: int, path: Path) -> int:
    return _logged(HEADER, fan_utterances(k, seed), path)


def questions(k: int, seed: int, path: Path) -> int:
    """Question after question, each with an observation and 2-4 competing hypotheses."""
    rnd = random.Random(seed)
    said: list[dict] = []
    i = 0
    while len(said) < k:
        i += 1
        q, o = f"q{i}", f"o{i}"
        said += [{"speaker": rnd.choice(("alice", "bob", "carol")), "ops": [{"op": "question", "claim": q}]},
                 {"speaker": rnd.choice(("alice", "bob", "carol")), "ops": [{"op": "observe", "claim": o}]}]
        answers = [f"h{i}_{j}" for j in range(rnd.choice((2, 3, 4)))]
        for h in answers:
            named = {"explains": [q]} if rnd.random() < 0.8 else {}  # else: any open problem will do
            said.append({"speaker": rnd.choice(("bob", "carol")),
                         "ops": [{"op": "hypothesize", "claim": h, "deps": [o], **named}]})
        if rnd.random() < 0.4:
            said.append({"speaker": "alice", "ops": [{"op": "resolve", "target": rnd.choice(answers)}]})
    return _logged(HEADER, said[:k], path)


def dissent(k: int, seed: int, path: Path) -> int:
    """Hypotheses undermined by bob's evidence and resolved by alice's authority over his dissent."""
    rnd = random.Random(seed)
    said: list[dict] = []
    i = 0
    while len(said) < k:
        i += 1
        o, h, c = f"o{i}", f"h{i}", f"c{i}"
        said += [{"speaker": "carol", "ops": [{"op": "observe", "claim": o}]},
                 {"speaker": "carol", "ops": [{"op": "hypothesize", "claim": h, "deps": [o], "explains": [o]}]},
                 {"speaker": "bob", "ops": [{"op": "observe", "claim": c}]},
                 {"speaker": "bob", "ops": [{"op": "undermine", "target": h, "by": c}]},
                 {"speaker": "alice", "ops": [{"op": "resolve", "target": h, "assumptions": [o]}]}]
        if rnd.random() < 0.2:
            said.append({"speaker": "carol", "ops": [{"op": "revise", "target": h}]})
    return _logged(HEADER, said[:k], path)


def arguments(k: int, seed: int, path: Path) -> int:
    return argument_heavy(k, seed, path)


SHAPES: dict[str, Shape] = {
    "naive": naive, "realistic": realistic_shape, "arguments": arguments, "fan": fan, "deep": deep,
    "questions": questions, "dissent": dissent, "world": world,
}
"""Every shape by name, in the order the benchmark prints them."""
