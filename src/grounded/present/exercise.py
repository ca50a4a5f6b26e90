"""Exercises in a notebook that keep their answer back: ``check`` says right or not, ``reveal`` shows it.

The tutorial asks the reader to predict before the engine answers.  A cell
that printed the answer beside the verdict would give it away to whoever runs
the cell first, so an ``Exercise`` holds the engine's answer: ``check(prediction)``
prints whether the prediction is right, with a hint that says nothing of the
answer (not even its size), and ``reveal()`` (a cell of its own) returns the
answer, which Jupyter shows with its own display, once a prediction has been
checked: a notebook run from top to bottom (Run All) reveals nothing, nor does
a cell that shows what follows from the answer (``after``).  Answers compare by the shape of the question, as
the page's questions do (scenario/questions.py): a Verify answer as yes/no,
Affected* as a set unless the exercise asks for the order of the walk.

``said(engine, update)`` shows what an update did in the page's words
(``+ o1 (observation, carol)``, ``h2 weakened by o9``) instead of the rules'
transitions.
"""

from __future__ import annotations

from typing import Any

from grounded.engine import Engine, Update
from grounded.present.render import describe_changes
from grounded.queries.affected import Affected
from grounded.queries.verify import Verification
from grounded.scenario.questions import normalise


class Exercise:
    """An answer held back: ``check(prediction)`` prints right or not quite, ``reveal()`` returns the answer.

    ``order=True`` (an Affected* answer or a list): the prediction must name the claims in the order the
    walk reaches them, not only the same set.  ``value``: what to compare when it is not the answer shown
    (a what-if's flagged claims, shown as the whole what-if).
    """

    def __init__(self, answer: Any, order: bool = False, value: Any = None):
        self._answer = answer
        self._value = answer if value is None else value
        self.order = order
        self.attempted = False
        """Whether a prediction has been checked: only then does ``reveal`` (or ``after``) show anything."""

    def _expected(self) -> Any:
        a = self._value
        if isinstance(a, Verification):
            return "yes" if a.grounded else "no"
        if isinstance(a, Affected):
            return list(a.claims) if self.order else normalise("set", list(a.claims))
        if isinstance(a, dict):
            return {k: normalise("set", list(v)) for k, v in a.items()}
        if isinstance(a, (list, tuple, set)):
            return list(a) if self.order else normalise("set", list(a))
        return a

    def _given(self, prediction: Any, expected: Any) -> Any:
        if isinstance(self._value, Verification):
            return normalise("yes_no", prediction)
        if isinstance(expected, dict) and isinstance(prediction, dict):
            return {k: normalise("set", list(v)) for k, v in prediction.items()}
        if isinstance(expected, list) and isinstance(prediction, (list, tuple, set, str)):
            return list(prediction) if self.order else normalise("set", prediction)
        return prediction

    def right(self, prediction: Any) -> bool:
        """Whether ``prediction`` is the engine's answer (compared by the exercise's shape)."""
        expected = self._expected()
        try:
            return self._given(prediction, expected) == expected
        except ValueError:
            return False

    def check(self, prediction: Any) -> None:
        """Print whether the prediction is right, never the answer itself."""
        if prediction is None or prediction == "...":
            print("write your prediction first, then run the cell again")
            return
        self.attempted = True
        if self.right(prediction):
            print("right!")
            return
        print("not quite" + self._hint(prediction) + ": think again, or run reveal() in the next cell")

    def _hint(self, prediction: Any) -> str:
        """A hint that does not give the answer away: only whether the claims are right and their order off
        (how many the engine names would tell)."""
        expected = self._expected()
        if not isinstance(expected, list) or not isinstance(prediction, (list, tuple, set)):
            return ""
        if self.order and sorted(set(prediction)) == sorted(expected) and len(prediction) == len(expected):
            return " (the right claims, in another order)"
        return ""

    def reveal(self) -> Any:
        """The engine's answer, shown by the notebook as the engine's objects are, once a prediction has been
        checked (else a reminder: a notebook run from top to bottom gives nothing away)."""
        return self._answer if self.attempted else Held()

    def after(self, shown: Any) -> Any:
        """``shown`` (what follows from the answer: what the rules did, a comparison) once a prediction has
        been checked, else the same reminder as ``reveal``."""
        return shown if self.attempted else Held()

    def __repr__(self) -> str:
        return "Exercise(answer held back: check(prediction), then reveal())"


class Held:
    """What ``reveal`` shows before a prediction: how to go on, and nothing of the answer."""

    def __repr__(self) -> str:
        return "held back: write your prediction in the exercise's cell and run it, then run this cell again"

    def _repr_markdown_(self) -> str:
        return f"*{self!r}*"


class Said:
    """What one update did, in words: its turn, speaker and text, then one line per change."""

    def __init__(self, update: Update, changes: list[str]):
        self.update = update
        self.changes = changes

    def _repr_markdown_(self) -> str:
        u = self.update
        head = f"**T{u.turn} {u.speaker}**" + (f": {u.utterance.text}" if u.utterance.text else "")
        return "\n".join([head, ""] + [f"- {c}" for c in self.changes or ["nothing changed"]])

    def __repr__(self) -> str:
        return "\n".join([f"T{self.update.turn} {self.update.speaker}", *self.changes])


def said(engine: Engine, update: Update) -> Said:
    """An update in the page's words; read right after it, while the engine's state is the one it made."""
    return Said(update, describe_changes(engine, update))
