"""The bridge to SWI-Prolog: one rule base per process, text in and text out.

SWI-Prolog is a process-wide singleton and pyswip's query layer parses a goal
string and converts bindings on every call (about 40 us).  The engine makes
one call per utterance, so it goes through the foreign interface directly:
one predicate (``grounded:bridge_call/3``), a string in and a string out,
about 10 us of overhead.  Every call stays on the thread that started
Prolog, as pyswip requires.

Several engines may live in one process.  The rules hold the state of one of
them at a time (the *owner*); before an engine applies an utterance its facts
are loaded if another engine owned the rules last.  Each engine's Python state
is the source of those facts (``DependencyMap.prolog_facts``).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from grounded.core.errors import PrologError
from grounded.dmap.operations import OperationSpec

RULES_PACKAGE = "grounded.prolog"


RULES_DIR_VARIABLE = "GROUNDED_RULES_DIR"


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


class PrologRules:
    """The process's rule base and the one engine whose state it holds."""

    _instance: PrologRules | None = None

    @classmethod
    def get(cls) -> PrologRules:
        if cls._instance is None:
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
        self._core = core
        Prolog()  # starts the embedded SWI-Prolog
        self.thread = threading.get_ident()
        main = rules_dir() / "grounded.pl"
        list(Prolog.query(f"use_module({_quote(str(main))})"))
        self._predicate = core.PL_predicate(b"bridge_call", 3, b"grounded")
        self.owner: object | None = None
        self.loaded_extensions: tuple[str, ...] = ()
        self.operation_specs = self._operation_specs()

    # -- the one foreign call -------------------------------------------------

    def call(self, request: str, text: str = "") -> str:
        if threading.get_ident() != self.thread:
            raise PrologError(
                "SWI-Prolog is used from a second thread: keep every engine call on the "
                "thread that created the first Engine"
            )
        c = self._core
        # Text read back from Prolog lives on a string stack that is released only
        # when a foreign predicate returns; we call in from outside, so we mark and
        # release it ourselves.  Without this the process aborts after 2^20 calls
        # ("Too many stacked strings").
        with c.PL_STRINGS_MARK():
            frame = c.PL_open_foreign_frame()
            try:
                refs = c.PL_new_term_refs(3)
                c.PL_put_atom_chars(refs, request.encode())
                c.PL_put_chars(refs + 1, c.PL_STRING | c.REP_UTF8, -1, text.encode("utf-8"))
                if not c.PL_call_predicate(None, c.PL_Q_NODEBUG | c.PL_Q_CATCH_EXCEPTION,
                                           self._predicate, refs):
                    raise PrologError(f"Prolog request {request} failed")
                out = ctypes.c_char_p()
                c.PL_get_chars(refs + 2, ctypes.byref(out),
                               c.CVT_STRING | c.CVT_ATOM | c.REP_UTF8 | c.BUF_STACK)
                result = (out.value or b"").decode("utf-8")
            finally:
                c.PL_discard_foreign_frame(frame)
        if result.startswith("error\t"):
            raise PrologError(f"Prolog {request}: {result[6:]}")
        return result

    # -- ownership of the rule base's state -----------------------------------

    def adopt(self, owner: object, facts: Callable[[], str], extensions: tuple[str, ...]) -> None:
        """Make ``owner``'s state the one the rules read, if it is not already."""
        if self.owner is owner and self.loaded_extensions == extensions:
            return
        self.use_extensions(extensions)
        self.call("load_state", facts())
        self.owner = owner

    def disown(self, owner: object) -> None:
        if self.owner is owner:
            self.owner = None

    def use_extensions(self, extensions: tuple[str, ...]) -> None:
        """Load exactly these extension rule files (unloading the others)."""
        if extensions == self.loaded_extensions:
            return
        for path in self.loaded_extensions:
            if path not in extensions:
                self.call("unload_extension", path)
        for path in extensions:
            if path not in self.loaded_extensions:
                self.call("load_extension", path)
        self.loaded_extensions = extensions
        self.operation_specs = self._operation_specs()

    def _operation_specs(self) -> list[OperationSpec]:
        lines = self.call("schema").splitlines()
        try:
            return [OperationSpec.parse(line) for line in lines if line]
        except ValueError as exc:
            raise PrologError(f"bad operation/3 declaration: {exc}") from exc

    # -- requests ---------------------------------------------------------------

    def apply(self, utterance_term: str) -> str:
        return self.call("apply", utterance_term)

    def simulate(self, utterance_term: str) -> str:
        """A dry run: the transitions of every operation that would pass; nothing changes."""
        return self.call("simulate", utterance_term)

    def dump_state(self) -> str:
        return self.call("dump_state")

    def standing_invariant_holds(self) -> bool:
        return self.call("invariant") == "true"

    def standings(self) -> dict[int, str]:
        """Argument id -> standing, as the rules hold it now."""
        text = self.call("standings")
        return {int(a): s for a, s in (line.split("\t") for line in text.split("\n") if line)}

    def queries(self) -> tuple[set[int], dict[str, dict[int, int]]]:
        """The rules' own answers: grounded arguments, and Affected* (argument -> hop) per literal."""
        grounded: set[int] = set()
        affected: dict[str, dict[int, int]] = {}
        for line in self.call("queries").split("\n"):
            if line.startswith("grounded\t"):
                grounded.add(int(line.split("\t")[1]))
            elif line.startswith("affected\t"):
                _, p, a, k = line.split("\t")
                affected.setdefault(p, {})[int(a)] = int(k)
        return grounded, affected


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
