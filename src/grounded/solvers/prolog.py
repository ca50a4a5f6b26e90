"""The bridge to SWI-Prolog: one rule base per process, terms in and terms out.

SWI-Prolog is a process-wide singleton.  The bridge calls one predicate,
``grounded:py_request(+Request, -Reply)``, through the foreign interface
directly (pyswip's query layer would parse a goal string on every call), with
the request built as a term and the reply read back as one
(grounded.solvers.terms).  Utterances cross in one form only, the flat text of
grounded.solvers.flat: a live one, the request made most, goes to
``grounded:py_apply(+Text, -Reply)`` as one string and an accepted one's reply
comes back as one string (``Terms.call_text``); a batch goes inside its request
term as one string too.  While an utterance runs, the rules may call back
into Python (see prolog/grounded.pl): ``world_call/2`` for the world model's
findings on each operation, ``log_call/2`` to write an accepted utterance to
the event log inside the rules' transaction.  Every call stays on the thread
that started Prolog, as pyswip requires.

Several engines may live in one process: each keeps its facts in a Prolog
module of its own (prolog/state.pl), named here, so handing the rules from
one engine to another changes one fact and copies nothing.  ``RuleState`` is
one engine's view of the rule base: its typed requests.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from grounded.core.errors import InputError, PrologError
from grounded.core.literals import literal_term
from grounded.dmap.effects import SHAPES, Effect, Turn, effect, violations_of
from grounded.dmap.notes import StandingNote
from grounded.dmap.state import DependencyMap
from grounded.solvers.flat import (
    ACCEPTED_SHAPE,
    SEPARATOR,
    STOP_SHAPE,
    Accepted,
    Rejected,
    flat_facts,
    flat_utterances,
    read_accepted,
    read_flat,
)
from grounded.solvers.owner import claim_rules, rules_owner
from grounded.solvers.ruleset import RULES_DIR_VARIABLE
from grounded.solvers.termdata import PlString, Shape, Value

if TYPE_CHECKING:  # the operation models: made when the rules start, not imported with this module
    from grounded.dmap.operations import OperationRegistry, OperationSpec

RULES_PACKAGE = "grounded.prolog"

PROTOCOL_NAMES: list[tuple[str, int]] = [
    ("ok", 1), ("error", 1), ("o", 2), ("v", 4), ("-", 1), ("-", 2), ("by", 1), ("note", 4), ("a", 3),
    ("queries", 2), ("in", 1), ("operation", 3), ("field", 3), ("read", 2), ("applied", 1), ("accepted", 2),
    ("rejected", 1), ("refused", 1), ("flat", 2), ("terms", 1), ("each", 1), ("batch", 2), ("stopped", 2), ("done", 0),
    ("at", 2),
    *((name, len(kinds)) for name, kinds in SHAPES.items()),
]
"""The functors the rules answer with: created once, read back by handle."""




def rules_dir() -> Path:
    """The directory holding grounded.pl and ops/, found without relying on the cwd.

    ``GROUNDED_RULES_DIR`` names another copy of the rules, for testing a
    changed rule against the reference semantics (the retraction mutation
    tests plant bugs in such a copy); SWI-Prolog loads one rule base per
    process, so it is read when the first engine starts.
    """
    override = os.environ.get(RULES_DIR_VARIABLE)
    if override:
        path = Path(override)
        if not (path / "grounded.pl").is_file():
            raise PrologError(f"{RULES_DIR_VARIABLE}={override}: no grounded.pl there")
        return path
    return Path(str(resources.files(RULES_PACKAGE)))


class Session(Protocol):
    """What the rules call back while one utterance runs (Engine.apply provides it)."""

    def record(self) -> None:
        """The rules accept: write the utterance to the event log (raise to refuse: the
        rules then roll back, and nothing of the utterance is kept anywhere)."""

    def read(self, index: int, effects: list[Effect]) -> list[Value]:
        """Operation ``index`` passed its preconditions with these effects: the world model's
        findings about it, as verdict terms (grounded.epistemic.verdicts)."""

    def applied(self, index: int) -> None:
        """Operation ``index`` was applied (after ``read``)."""


@dataclass(frozen=True, slots=True)
class QueryAnswers:
    """The rules' own answers (prolog/queries.pl): grounded arguments, Affected* with hops."""

    grounded: frozenset[int]
    affected: dict[str, dict[int, int]]


RESULT_SHAPE: Shape = {**ACCEPTED_SHAPE, **STOP_SHAPE}  # type: ignore[dict-item]  # both are functor tables
GROUP_SHAPE: Shape = {"flat": ("text", "int"), "each": (("list", {"ok": (RESULT_SHAPE,), "error": ("text",)}),)}
"""apply_group's reply: every utterance accepted, as one flat text; else py_request/2's reply to each's apply."""
BATCH_SHAPE: Shape = {"batch": (ACCEPTED_SHAPE, {"done": (), "stopped": ("int", STOP_SHAPE)})}
HALT_SHAPE: Shape = {"at": ("text", "int")}
WORLD_SHAPE: Shape = {"read": ("int", ("list", SHAPES)), "applied": ("int",)}
STANDINGS_SHAPE: Shape = ("list", {"-": ("int", "text")})
INTS_SHAPE: Shape = ("list", "int")
LITERALS_SHAPE: Shape = ("list", "literal")
NOTES_SHAPE: Shape = ("list", {"note": ("literal", "text", "int", "cause")})
QUERIES_SHAPE: Shape = {"queries": (("list", "int"), ("list", {"a": ("literal", "int", "int")}))}


class PrologRules:
    """The process's rule base."""

    _instance: PrologRules | None = None

    @classmethod
    def get(cls) -> PrologRules:
        if cls._instance is None:
            _check_thread(rules_owner())
            cls._instance = cls()
        return cls._instance

    def __init__(self) -> None:
        if shutil.which("swipl") is None:
            raise PrologError(
                "SWI-Prolog is not installed (no swipl on PATH): install it with "
                "`apt-get install swi-prolog-nox`, or run `make setup`"
            )
        try:
            from pyswip import Prolog, core
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise PrologError(f"cannot load pyswip: {exc}") from exc
        Prolog()  # starts the embedded SWI-Prolog
        self.thread = threading.get_ident()
        claim_rules()  # started without an engine (an operation model, a lint): this thread's
        from grounded.solvers.terms import Terms  # ctypes: when Prolog starts

        self.terms = Terms(core._lib)
        self._replies: dict[object, Shape] = {}
        self.terms.known_names(PROTOCOL_NAMES)
        self.session: Session | None = None
        self._callbacks = [
            self.terms.foreign("grounded", "log_call", self._on_log, "text"),
            self.terms.foreign("grounded", "world_call", self._on_world, WORLD_SHAPE),
            self.terms.foreign("grounded", "halt_call", self._on_halt, HALT_SHAPE),
        ]
        self.halted: InputError | None = None  # a rule file called halt/0,1 in the request running
        use_module = self.terms.c.predicate(b"use_module", 1, b"user")
        self.terms.call(use_module, [str(rules_dir() / "grounded.pl")], [])
        self._request = self.terms.c.predicate(b"py_request", 2, b"grounded")
        self._apply = self.terms.c.predicate(b"py_apply", 2, b"grounded")
        self._busy = False
        self._free: list[str] = []  # state modules of released engines, cleared, for reuse
        self._released: list[str] = []  # released by a finalizer: cleared at the next request
        self._modules = 0
        self.loaded_extensions: tuple[str, ...] = ()
        self.builtin_specs = self._operation_specs()
        self.operation_specs = self.builtin_specs

    # -- the one foreign call -------------------------------------------------------

    def request(self, request: tuple, shape: Shape = "any") -> Any:
        """Send one request term; return the value of ``ok(Value)`` (read by ``shape``:
        grounded.solvers.terms), or raise PrologError with the rules' message.

        ``("apply", PlString)``, a live utterance's flat text (``RuleState.apply``), goes to py_apply/2
        as the string alone: an accepted utterance's flat reply then comes back as its text (a ``str``)."""
        _check_thread(self.thread)
        if self._busy:
            raise PrologError(f"a Prolog request ({request[0]}) was made from inside a rule callback")
        self._busy = True
        try:
            while self._released:  # engines garbage-collected since the last request
                module = self._released.pop()
                self._call(("free_state", module), "text")
                self._free.append(module)
            return self._call(request, shape)
        finally:
            self._busy = False

    def _call(self, request: tuple, shape: Shape) -> Any:
        terms = self.terms
        terms.raised = None
        self.halted = None
        try:
            if len(request) == 2 and request[0] == "apply":  # a live utterance's flat text
                reply = terms.call_text(self._apply, request[1], self._reply_shape(shape))
            else:
                reply = terms.call(self._request, [request, None], [None, self._reply_shape(shape)])[1]
        finally:
            raised, terms.raised = terms.raised, None
            halted, self.halted = self.halted, None
        if halted is not None:  # whatever the request answered, it ran without the rest of a rule
            raise halted
        if raised is not None:
            raise raised
        if type(reply) is str:  # py_apply/2's flat text of an accepted utterance
            return reply
        if reply[0] == "error":  # type: ignore[index]
            raise PrologError(f"Prolog {request[0]}: {reply[1]}")  # type: ignore[index]
        return reply[1]  # type: ignore[index]

    def _reply_shape(self, shape: Shape) -> Shape:
        """``ok(Value) | error(Message)`` around ``shape``: made once per shape, so that its
        reader is compiled once (grounded.solvers.terms)."""
        key = shape if isinstance(shape, str) else id(shape)
        reply = self._replies.get(key)
        if reply is None:
            reply = self._replies[key] = {"ok": (shape,), "error": ("text",)}
        return reply

    # -- callbacks from the rules ----------------------------------------------------

    def _session(self) -> Session:
        if self.session is None:
            raise PrologError("the rules called back into Python outside an utterance")
        return self.session

    def _on_log(self, value: Any) -> Value:
        if self.halted is not None:  # refused: the rules roll the utterance back, the log is not written
            raise self.halted
        self._session().record()
        return "true"

    def _on_world(self, value: Any) -> Value:
        if value[0] == "read":
            _, index, effects = value
            return self._session().read(index, [effect(index, e) for e in effects])
        self._session().applied(value[1])
        return "true"

    def _on_halt(self, value: Any) -> Value:
        """A rule file called halt/0,1 during a request: prolog/grounded.pl cancelled it, and the
        request fails with this error (an exit status from an extension would read as a verdict).
        Outside a request the process is ending (pyswip's exit handler): the predicate fails, and the
        halt goes ahead."""
        if not self._busy:
            return None
        _, path, line = value
        where = f"{path}:{line}" if line else path or "a rule file"  # in the message: a caller may re-place the error
        self.halted = InputError(f"{where} called halt: an extension may not end the process")
        return "true"

    # -- engines' states ------------------------------------------------------------

    def new_state(self, facts: list[Value]) -> RuleState:
        """A fresh state module holding ``facts`` (the header's), for one engine."""
        state = self._fresh()
        state._put_facts(facts)  # one request, or parts for a large state (an engine restored, its rules started late)
        return state

    def state_in_parts(self, facts: list[Value], part: int, levels: list[Value] | None) -> tuple[RuleState,
                                                                                                 Iterator[None]]:
        """A fresh state module for one engine, and what puts ``facts`` (and ``levels``) into it ``part`` at a time
        when run (``RuleState.restoring``): the state must not be asked anything before that has run to its end."""
        state = self._fresh()
        return state, state.restoring(facts, part, levels)

    def _fresh(self) -> RuleState:
        if self._free:
            module = self._free.pop()
        else:
            self._modules += 1
            module = f"grounded_state_{self._modules}"
        return RuleState(self, module)

    def release(self, module: str) -> None:
        """The engine owning ``module`` is gone; safe from any thread and from a finalizer:
        the module is cleared at the next request, on the Prolog thread."""
        self._released.append(module)

    # -- extensions and the operation table -----------------------------------------

    def use_extensions(self, extensions: tuple[str, ...]) -> None:
        """Load exactly these extension rule files (unloading the others)."""
        if extensions == self.loaded_extensions:
            return
        try:
            for path in self.loaded_extensions:
                if path not in extensions:
                    self.request(("unload_extension", path), "text")
                    self.loaded_extensions = tuple(p for p in self.loaded_extensions if p != path)
            for path in extensions:
                if path not in self.loaded_extensions:
                    self._load_extension(path)
                    self.loaded_extensions += (path,)
        finally:  # what is loaded, even when one file was refused
            self.operation_specs = self._operation_specs()

    def _load_extension(self, path: str) -> None:
        """Load one extension rule file into a module of its own; a file that would redefine a
        predicate of the driver or the author layer, or declare an operation another file
        declares, is refused with nothing loaded (InputError naming the file, line and predicate)."""
        try:
            reply = self.request(("load_extension", path))
        except InputError:  # it called halt while loading: what did load goes with it
            self.request(("unload_extension", path), "text")
            raise
        if reply != "true":
            _, line, why = reply
            raise InputError(f"extension refused: {why}", path=path, line=line or None)

    def _operation_specs(self) -> list[OperationSpec]:
        from grounded.dmap.operations import OperationSpec

        try:
            return [OperationSpec.from_term(t) for t in self.request(("schema",))]
        except ValueError as exc:
            raise PrologError(str(exc)) from exc

    def registry(self) -> OperationRegistry:
        """The operations the rules know now (built-ins and loaded extensions)."""
        from grounded.dmap.operations import OperationRegistry

        return OperationRegistry(self.operation_specs, frozenset(s.name for s in self.builtin_specs))

    def builtin_registry(self) -> OperationRegistry:
        """The eight operations of prolog/ops, whatever extensions are loaded."""
        from grounded.dmap.operations import OperationRegistry

        return OperationRegistry(self.builtin_specs, frozenset(s.name for s in self.builtin_specs))

    # -- requests that need no engine --------------------------------------------------

    def acyclic_grounded(self, arguments: list[int], attacks: list[tuple[int, int]]) -> frozenset[int] | None:
        """The grounded extension by prolog/dung.pl's one pass, or None if the attacks form a cycle."""
        result = self.request(("acyclic_grounded", arguments, [("-", a, b) for a, b in attacks]))
        if result == "cyclic":
            return None
        return frozenset(result[1])

    def apply_group(self, group: list[tuple[RuleState, PlString]]) -> list[Accepted | Rejected | PrologError]:
        """Live utterances of several states (each ``RuleState.live_text``, recording none, no world model to
        ask) in one request, in order, each atomically and on its own: what each did, or the error that
        stopped it (as ``RuleState.apply`` would have raised it), in the same order."""
        answer = self.request(("apply_group", [text for _, text in group]), GROUP_SHAPE)
        if answer[0] == "flat":  # every one accepted
            accepted = read_flat(answer[1], answer[2])
            if len(accepted) != len(group):
                raise PrologError(f"the rules' reply to a group of {len(group)} holds {len(accepted)} utterances")
            for state, _ in group:
                state.behind = None
            return list(accepted)
        out: list[Accepted | Rejected | PrologError] = []
        for (state, _), reply in zip(group, answer[1], strict=True):
            if reply[0] == "error":
                out.append(PrologError(f"Prolog apply: {reply[1]}"))
                continue
            state.behind = None
            try:
                out.append(_decided(reply[1]))
            except PrologError as exc:
                out.append(exc)
        return out

    def catalogue_text(self) -> str:
        """The precondition catalogue as the rules read it from their loaded clauses (prolog/catalogue.pl)."""
        return str(self.request(("catalogue",), "text"))

    def inferences(self) -> int:
        """Logical inferences the rules have run so far in this process: work measured as a count,
        the same under any load (``python -m bench ingest`` checks it grows linearly)."""
        return int(self.request(("inferences",), "int"))

    def lint(self, path: str | Path) -> list[str]:
        """Predicates a rule file calls outside the documented layer (prolog/lint.pl)."""
        return [f"{n}/{a}" for _, n, a in self.request(("lint", str(path)))]

    def lint_refusals(self, path: str | Path) -> list[tuple[int, str, str, str]]:
        """(line, kind, what, why) for everything that keeps a rule file from loading (prolog/lint.pl's
        refusals/2: the sandbox), in line order."""
        return [(int(line), str(kind), str(what), str(why))
                for _, line, kind, what, why in self.request(("lint_refusals", str(path)))]

    def lint_transitions(self, path: str | Path) -> list[tuple[str, int]]:
        """(operation, line) for each operation a rule file declares with no transition/2 clause."""
        return [(str(op), int(line)) for _, op, line in self.request(("lint_transitions", str(path)))]

    def lint_definitions(self, path: str | Path) -> list[tuple[str, int]]:
        """(predicate, line) for each clause of a rule file that would redefine a predicate of the
        driver or the author layer, or define one in another module: loading it is refused."""
        return [(str(pi), int(line)) for _, pi, line in self.request(("lint_definitions", str(path)))]


def _flat(utterances: list[tuple]) -> tuple[str, int]:
    """Utterances as the one text the rules read them in (``flat_utterances``).  Every validated utterance
    fits it (its ids are letters, digits and ``_ . : -``); a value that does not is refused, not sent."""
    flat = flat_utterances(utterances)
    if flat is None:
        raise PrologError(_NOT_FLAT)
    return flat


_NOT_FLAT = "an utterance holds a value the rules' text cannot carry (not a validated utterance)"


def _decided(result: tuple) -> Accepted | Rejected:
    """A live utterance's reply read by ``RESULT_SHAPE``: accepted or rejected (refused: PrologError)."""
    if result[0] == "rejected":
        return Rejected(violations_of(result[1]))
    if result[0] == "refused":
        raise PrologError(f"the rules did not record the utterance: {result[1]}")
    return read_accepted(result)[0]


def _check_thread(owner: int | None) -> None:
    if owner is not None and threading.get_ident() != owner:
        raise PrologError("SWI-Prolog is used from a second thread: keep every engine call on the "
                          "thread that created the first Engine")


class RuleState:
    """One engine's state in the rule base, and the rules' own answers about it.

    The answers are what ``grounded check`` compares with the Python queries and
    with ASP: the rules decide them from their own facts, not from the bridge's.

    Two things may be owed to the rules before the next request about this
    state, and are settled first by every method here: turns the engine
    admitted without them (``admitted``: an utterance without operations,
    whose only effect is the turn), and the facts of a state restored from a
    snapshot (``restore``), put in only when the rules are first needed.
    """

    def __init__(self, rules: PrologRules, module: str):
        self.rules = rules
        self.module = module
        self.behind: int | None = None
        """The last turn the engine admitted without the rules (None: they know every turn)."""
        self._facts: Callable[[], list[Value]] | None = None

    def admitted(self, turn: int) -> Accepted:
        """The engine admitted turn ``turn`` itself (an utterance without operations: ``Engine._admit``): tell
        the rules with the next request, before anything else.  Its one effect, the turn, as the rules report it."""
        self.behind = turn
        return Accepted([Turn(-1, turn)], [])

    @property
    def holds_state(self) -> bool:
        """Whether the rules hold this state as facts (not waiting for ``restore``'s facts to be put in)."""
        return self._facts is None

    def restore(self, facts: Callable[[], list[Value]]) -> None:
        """This state is ``facts()`` (a snapshot's), put into the rules when first needed."""
        self._facts = facts
        self.behind = None

    def _ready(self, catch_up: bool = True) -> None:
        if self._facts is not None:
            facts, self._facts = self._facts, None
            self._put_facts(facts())
        if catch_up and self.behind is not None:
            self.rules.request(("catch_up", self.module, self.behind), "text")
            self.behind = None

    def _put_facts(self, given: list[Value]) -> None:
        """This state is ``given``, in one go (``restoring``, RESTORE_PART facts per request)."""
        for _ in self.restoring(given, RESTORE_PART):
            pass

    def restoring(self, given: list[Value], part: int, levels: list[Value] | None = None) -> Iterator[None]:
        """This state is ``given``: in one request, or for a large state in parts of ``part`` facts (``add_facts``),
        so that the text of the whole state (and its tokens on the Prolog side) is never held at once: restoring
        10^5 utterances that way held more memory than the state itself.  ``levels``: the state's levels
        (``level_facts``), sent as more facts rather than rebuilt by the rules at the end (one long step).
        Yields between two requests, so that a caller may serve other states' requests there (a server's loop);
        nothing else may ask about this state before the last one (``_ready`` would see it part-made).  Each
        part's place in ``given`` and ``levels`` is emptied once it is sent: the facts are freed a part at a
        time, not all at once at the end (a tenth of a second at 10^5 utterances, on the caller's thread)."""
        self._facts = None
        module, request = self.module, self.rules.request
        if len(given) <= part and levels is None:
            request(("new_state", module, _sent_facts(given)), "text")
            return
        request(("new_state", module, []), "text")
        parts = [(facts, start) for facts in ((given,) if levels is None else (given, levels))
                 for start in range(0, len(facts), part)]
        for n, (facts, start) in enumerate(parts):
            yield
            sent = facts[start:start + part]
            facts[start:start + part] = [None] * len(sent)
            last = "false" if n + 1 < len(parts) else "true" if levels is None else "levels"
            request(("add_facts", module, _sent_facts(sent), last), "text")

    def _behind(self) -> Value:
        """The turn to catch up on, sent with an utterance (forgotten once the request returns)."""
        return "none" if self.behind is None else self.behind

    def apply(self, utterance: tuple | PlString, session: Session | None, record: bool = False) -> Accepted | Rejected:
        """Run one utterance, given as its term data or as its ``live_text`` made already (the text then says
        whether to record).  With ``record`` the rules ask ``session.record()`` to write it to the event log
        before their transaction commits, so a failed write rolls them back too."""
        text = utterance if isinstance(utterance, PlString) else self.live_text(utterance, record)
        rules = self.rules
        rules.session = session
        try:
            result = rules.request(("apply", text), RESULT_SHAPE)
            self.behind = None
        finally:
            rules.session = None
        if type(result) is str:  # the flat reply's text alone: one foreign call to read it
            return read_flat(result)[0]
        return _decided(result)

    def live_text(self, utterance: tuple, record: bool = False) -> PlString:
        """The live request for one utterance as one string (flat_apply/5 in prolog/wire.pl), this state
        ready for it first."""
        self._ready(catch_up=False)
        flat = flat_utterances([utterance])
        if flat is None:
            raise PrologError(_NOT_FLAT)
        behind = "none" if self.behind is None else self.behind
        return PlString(f"{self.module}{SEPARATOR}{'true' if record else 'false'}{SEPARATOR}"
                        f"{behind}{SEPARATOR}{flat[1]}{SEPARATOR}{flat[0]}")

    def apply_batch(self, utterances: list[tuple]) -> tuple[list[Accepted], tuple[int, Rejected] | None]:
        """Run many utterances in one request, in order, each atomically, recording none and asking
        nothing of the engine (a log being replayed is already written).

        Returns what each accepted one did and, if one was rejected, its position
        and violations: the batch stopped there, and the rules' state holds the
        utterances before it.
        """
        self._ready(catch_up=False)
        text, count = _flat(utterances)
        _, accepted, stop = self.rules.request(("apply_batch", self.module, ("flat", PlString(text), count),
                                                self._behind()), BATCH_SHAPE)
        self.behind = None
        done = read_accepted(accepted)
        if stop[0] == "done":
            return done, None
        _, index, result = stop
        if result[0] == "refused":
            raise PrologError(f"the rules did not apply the utterance: {result[1]}")
        return done, (index, Rejected(violations_of(result[1])))

    def _ask(self, request: str, shape: Shape = "any") -> Any:
        self._ready()
        return self.rules.request((request, self.module), shape)

    def standings(self) -> dict[int, str]:
        """Argument id -> standing, as the rules hold it now."""
        return {a: s for _, a, s in self._ask("standings", STANDINGS_SHAPE)}

    def ask(self, query: str) -> list[int]:
        """The arguments a registered query holds of, by the rules (``query(Name)`` in prolog/queries.pl), sorted."""
        self._ready()
        return list(self.rules.request(("ask", query, self.module), INTS_SHAPE))

    def reinstatable(self) -> list[int]:
        """Arguments out of standing whose every attacker has left S_t (prolog/queries.pl)."""
        return self.ask("reinstatable")

    def notes(self) -> dict[str, StandingNote]:
        """Claim -> how its newest argument reached its standing (claim_standing/4)."""
        notes = self._ask("claim_standings", NOTES_SHAPE)
        return {literal: StandingNote(standing, turn, cause) for _, literal, standing, turn, cause in notes}

    def open_problems(self) -> list[str]:
        return list(self._ask("open_problems", LITERALS_SHAPE))

    def queries(self) -> QueryAnswers:
        _, grounded, affected = self._ask("queries", QUERIES_SHAPE)
        by_literal: dict[str, dict[int, int]] = {}
        for _, p, a, hop in affected:
            by_literal.setdefault(p, {})[a] = hop
        return QueryAnswers(frozenset(grounded), by_literal)

    def invariant_holds(self) -> bool:
        """Lemma 2.4 in its global form: no attacked argument in S_t."""
        return self._ask("invariant", "text") == "true"

    def facts(self) -> list[Value]:
        """Every fact of this state, sorted, as term data (for tests and cross-checks)."""
        return list(self._ask("state_facts"))


RESTORE_PART = 20_000
"""Facts per request when a state is restored into the rules (``RuleState._put_facts``)."""


def _sent_facts(facts: list[Value]) -> Value:
    flat = flat_facts(facts)
    return facts if flat is None else ("flat", PlString(flat[0]), flat[1])


def iter_state_facts(dm: DependencyMap) -> Iterator[Value]:
    """The facts prolog/state.pl holds for the state ``dm`` mirrors, as term data, in the order the
    rules asserted them wherever the rules read them in order (arguments by id, the attacks, the
    commitments and the open problems as they came): a state restored from a snapshot is put
    into the rules with these (``RuleState.restore``), and the rules then decide as if they had
    replayed the log.  A test holds them equal to the rules' own facts after random conversations.
    One at a time: a caller on a thread of its own may let the GIL go between them (a server's cold build).
    """
    yield from (("agent", name, "true" if a.authority else "false") for name, a in dm.agents.items())
    if dm.open_agents:
        yield "open_agents"
    if dm.acyclic:
        yield ("option", "acyclic_attacks")
    if dm.header.world is not None:
        yield ("option", "world_model")
    for p in dm.props.values():  # a proposition and its awareness one after the other: one clause (state.pl)
        yield ("prop", p.id, p.kind)
        if p.aware_turn is not None:
            yield ("aware", p.id)
    for r in dm.args:
        yield ("argument", r.id, literal_term(r.claim), r.kind, r.speaker, r.turn)
    for r in dm.args:
        turn, standing, cause = r.history[-1]
        yield ("standing", r.id, standing, turn, "none" if cause is None else ("by", literal_term(cause)))
    yield from (("dep", r.id, literal_term(d)) for r in dm.args for d in r.deps)
    yield from (("explains", r.id, literal_term(x)) for r in dm.args for x in r.explains)
    yield from (("att", a, b) for a, b, _ in dm.attacks)
    committed: dict[tuple[str, int], None] = {}
    for _, agent, arg, added in dm.commit_events:
        if added:
            committed[(agent, arg)] = None
        else:
            committed.pop((agent, arg), None)
    yield from (("committed", agent, arg) for agent, arg in committed)
    yield from (("dissent", a, agent) for a, agents in dm.dissent.items() for agent in agents)
    yield from (("open_problem", literal_term(p)) for p in dm.open_problems)
    if dm.last_turn is not None:
        yield ("last_turn", dm.last_turn)
    yield ("arg_count", len(dm.args))


def state_facts(dm: DependencyMap) -> list[Value]:
    """Every fact ``iter_state_facts`` gives, in its order."""
    return list(iter_state_facts(dm))


def level_facts(dm: DependencyMap, pause: Callable[[], None] | None = None) -> list[Value] | None:
    """The facts the rules' ``rebuild_levels`` (prolog/invariants.pl) makes from the state ``dm`` mirrors, made
    here (pure Python: off the rules' thread if need be) to be sent with ``state_facts``: each literal some
    argument's Dep holds (``rested_on``), and the level of each node of Dep (of the attacks too under
    ``acyclic_attacks``) above 0, its longest path down to a node pointing nowhere.  None if a graph has a
    cycle (the rules then rebuild them, and refuse the state as they always did).  ``pause``: called every
    thousand steps or so (a thread of its own lets the GIL go there)."""
    tick = _every(1024, pause)
    dep: set[tuple[Any, Any]] = set()
    for r in dm.args:
        tick()
        dep.update((r.claim, d) for d in r.deps)
    levels = _levels(dep, tick)
    if levels is None:
        return None
    facts: list[Value] = [("rested_on", *_literal_key(d)) for d in dict.fromkeys(d for r in dm.args for d in r.deps)]
    facts.extend(("dep_level", *_literal_key(n), level) for n, level in levels.items() if level > 0)
    if dm.acyclic:
        attacks = _levels({(a, b) for a, b, _ in dm.attacks}, tick)
        if attacks is None:
            return None
        facts.extend(("att_level", n, level) for n, level in attacks.items() if level > 0)
    return facts


def _every(steps: int, pause: Callable[[], None] | None) -> Callable[[], None]:
    """What to call at each step of a long walk: ``pause`` every ``steps`` of them."""
    count = [0]

    def tick() -> None:
        count[0] += 1
        if pause is not None and count[0] % steps == 0:
            pause()

    return tick


def _literal_key(literal: str) -> tuple[str, str]:
    """A literal as the rules key it (``literal_key/3``): its atom and its sign."""
    return (literal[1:], "neg") if literal.startswith("-") else (literal, "pos")


def _levels(edges: set[tuple[Any, Any]], tick: Callable[[], None]) -> dict[Any, int] | None:
    """Each node's longest path along ``edges`` down to a node with none out (Kahn's order, from those); None
    if some node is never placed (a cycle).  ``tick`` at each edge and node."""
    out: dict[Any, int] = {}
    pointing: dict[Any, list[Any]] = {}
    for x, y in edges:
        tick()
        out[x] = out.get(x, 0) + 1
        pointing.setdefault(y, []).append(x)
    queue = [y for y in pointing if y not in out]
    levels = dict.fromkeys(queue, 0)
    while queue:
        y = queue.pop()
        tick()
        above = levels[y] + 1
        for x in pointing.get(y, ()):
            if levels.get(x, 0) < above:
                levels[x] = above
            out[x] -= 1
            if out[x] == 0:
                queue.append(x)
    return None if any(out.values()) else levels


__all__ = ["Accepted", "PlString", "PrologRules", "QueryAnswers", "Rejected", "RuleState", "Session",
           "iter_state_facts", "level_facts", "rules_dir", "state_facts"]
