"""What the rules spend per utterance, and the shortcuts that cut it keep every answer (issue 23, item 3).

The driver's generic checks read what it kept of each operation's declaration
when the rule file loaded (required_field/3 beside op_module/2); the tests here
hold that table to the declarations, through an extension loaded, unloaded and
loaded again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grounded import Engine
from grounded.solvers.prolog import PrologRules, Rejected

ROOT = Path(__file__).resolve().parent.parent
CONCEDE = ROOT / "examples" / "extensions" / "concede.pl"
TEAM = {"agents": {"alice": {"authority": True}, "bob": {}}}


def missing(engine: Engine, op: str) -> list[str]:
    """The rules' missing_field messages for ``op`` sent with no fields (Python's validation bypassed)."""
    result = engine.rules.apply(("utterance", 1, "bob", [("op", op, [])]), session=None)  # type: ignore[arg-type]
    assert isinstance(result, Rejected)
    return [v.message for v in result.violations if v.code == "missing_field"]


def test_an_extension_s_required_fields_are_checked_once_however_often_it_is_loaded():
    """Loaded, unloaded and loaded again: one missing_field per required field, none once it is gone."""
    for _ in range(2):
        engine = Engine(TEAM, extensions=[CONCEDE])
        assert missing(engine, "concede") == ["concede needs the field target"]
        assert missing(engine, "support") == ["support needs the field target", "support needs the field by"]
        plain = Engine(TEAM)
        plain._prolog.use_extensions(())
        result = plain.rules.apply(("utterance", 1, "bob", [("op", "concede", [])]), session=None)  # type: ignore[arg-type]
        assert isinstance(result, Rejected) and [v.code for v in result.violations] == ["unknown_operation"]
    assert PrologRules.get().loaded_extensions == ()


def test_an_utterance_the_flat_text_cannot_carry_is_refused_before_it_is_sent():
    """Utterances cross to the rules in one form, the flat text: a value holding its separator U+001F (a
    speaker no validated utterance can have) is refused by the bridge with nothing sent, and the rules'
    state is as it was; the same utterance with a plain speaker is accepted."""
    from grounded.core.errors import PrologError
    from grounded.dmap.effects import NewAgent

    engine = Engine({})
    before = engine.prolog_state()
    with pytest.raises(PrologError, match="cannot carry"):
        engine.rules.apply(("utterance", 1, "b\x1fob", [("op", "observe", [("=", "claim", "o4")])]), session=None)
    assert engine.prolog_state() == before
    result = engine.rules.apply(("utterance", 1, "carol", [("op", "observe", [("=", "claim", "o5")])]), session=None)
    assert not isinstance(result, Rejected) and NewAgent(-1, "carol") in result.effects


def _declared(name: str, optional: int) -> str:
    notes = [f"field(note{i}, text, optional)" for i in range(optional)]
    fields = ", ".join(["field(target, literal, required)", *notes])
    return f"""operation({name}, "Accepts a claim in good standing.", [{fields}]).
violation({name}, _, Op, {name}_not_standing, M) :-
    field(Op, target, T), \\+ stands(T),
    fmt(M, "~w is not in good standing", [T]).
effect({name}, U, Op, commit(S, A)) :-
    field(Op, target, T), speaker(U, S), standing_arg(T, A).
transition({name}, commit).
"""


@pytest.mark.parametrize("optional", [60])
def test_an_operation_s_generic_checks_cost_the_same_however_many_fields_it_declares(tmp_path: Path, optional: int):
    """The driver's checks of every operation (known? its required fields given?) read required_field/3, kept when
    the file loaded, not the declaration: an operation declaring many optional fields costs the rules no more
    inferences than one declaring none (walking the declaration cost one more per field, per operation)."""
    path = tmp_path / "agree.pl"
    path.write_text(_declared("agree_wide", optional) + _declared("agree_narrow", 0))
    engine = Engine(TEAM, extensions=[path])
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"}]})
    rules = engine.rules.rules
    costs = {}
    for name, target in (("agree_narrow", "o1"), ("agree_wide", "o2")):
        before = rules.inferences()
        update = engine.apply({"speaker": "bob", "ops": [{"op": name, "target": target}]})
        costs[name] = rules.inferences() - before
        assert [e.name for e in update.effects] == ["turn", "commit"]
    assert abs(costs["agree_wide"] - costs["agree_narrow"]) < optional // 4, costs


def test_the_rules_reply_is_a_string_not_an_atom_made_per_utterance():
    """flat_reply/2 joins its tokens into a string: it made an atom of each reply's whole text before (one more
    entry in the atom table per request, reclaimed only by atom garbage collection)."""
    from pyswip import Prolog

    def atoms() -> int:
        return int(next(Prolog().query("statistics(atoms, N)"))["N"])

    engine = Engine(TEAM)
    engine.rules.apply(("utterance", 1, "alice", []), session=None)  # type: ignore[arg-type]
    before = atoms()
    for turn in range(2, 202):
        result = engine.rules.apply(("utterance", turn, "alice", []), session=None)  # type: ignore[arg-type]
        assert [e.name for e in result.effects] == ["turn"]
    assert atoms() - before < 20


def test_each_literal_an_operation_touches_is_re_decided_with_one_is_open():
    """problem_updates/2 asks is_open/1 once per touched literal: a queued literal that stays open was asked
    twice before (once by each clause of the old problem_change/2).  Counted by SWI-Prolog's profiler, whose
    call counts are exact (only its times are sampled)."""
    from pyswip import Prolog

    engine = Engine(TEAM)
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"}]})
    assert engine.open_problems() == ["o1", "o2"]
    prolog = Prolog()
    list(prolog.query("reset_profiler, profiler(_, true)"))
    try:
        engine.apply({"speaker": "bob", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o2"],
                                                      "explains": ["o1"]}]})
    finally:
        list(prolog.query("profiler(_, false)"))
    query = ("profile_data(D), get_dict(nodes, D, Nodes), member(Node, Nodes), "
             "get_dict(predicate, Node, vocabulary:is_open/1), get_dict(call, Node, N)")
    (calls,) = [r["N"] for r in prolog.query(query)]
    list(prolog.query("reset_profiler"))
    assert engine.open_problems() == ["o1", "o2"]  # h1 explains o1, but is not resolved: still open
    assert calls == 2  # o1 and h1, once each


def test_a_live_utterance_crosses_to_the_rules_as_one_string(monkeypatch):
    """RuleState.apply sends the state module, the record flag, the turn to catch up on and the utterance in
    one string (py_apply/2, flat_apply/5), put as it is: no term built node by node (``put``), where each node of
    apply(Module, flat(Text, N), Record, Behind) was one before (seven), then apply(Text) two."""
    from grounded.solvers.terms import Terms

    engine = Engine(TEAM)
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    engine.apply({"speaker": "bob"})  # chatter: admitted without the rules, which catch up with the next request
    built: list[object] = []
    original = Terms.put

    def put(self: Terms, t: int, value: object) -> None:
        built.append(value)
        original(self, t, value)  # type: ignore[arg-type]

    monkeypatch.setattr(Terms, "put", put)
    update = engine.apply({"speaker": "bob", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1"]}]})
    assert built == []
    assert update.turn == 3 and [e.name for e in update.effects][:2] == ["turn", "new_prop"]
    assert engine.rules.behind is None and engine.state.last_turn == 3


def test_a_malformed_live_request_is_an_error_naming_it():
    """The rules check the one string: a count that does not match its tokens is refused, nothing applied."""
    from grounded.core.errors import PrologError
    from grounded.solvers.flat import SEPARATOR, read_flat
    from grounded.solvers.termdata import PlString

    engine = Engine(TEAM)
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    tokens = [engine.rules.module, "false", "none", "99", "1", "2", "alice", "0"]  # 99: there are four
    with pytest.raises(PrologError, match="a malformed flat request"):
        engine.rules.rules.request(("apply", PlString(SEPARATOR.join(tokens) + SEPARATOR)))
    tokens[3] = "4"
    reply = engine.rules.rules.request(("apply", PlString(SEPARATOR.join(tokens) + SEPARATOR)))
    assert [e.name for e in read_flat(reply, reply.count(SEPARATOR))[0].effects] == ["turn"]  # its text alone
    assert [f for f in engine.rules.facts() if f[0] == "last_turn"] == [("last_turn", 2)]  # the well-formed one


def _reply_inferences(effects: str) -> tuple[int, str]:
    """The inferences flat_reply/2 spends on one accepted utterance of ``effects`` (a Prolog list), and its text."""
    from pyswip import Prolog

    Engine(TEAM).rules.facts()  # the rules loaded
    query = (f"Es = {effects}, statistics(inferences, I0), wire:flat_reply([[o(0, Es)]-[]], flat(T, _)), "
             "statistics(inferences, I1), N is I1 - I0")
    (row,) = list(Prolog().query(query))
    text = row["T"]
    return int(row["N"]), text.decode() if isinstance(text, bytes) else str(text)


def test_a_reply_value_is_told_in_line():
    """flat_reply/2 tests each value for what it is in line, an atom first: a reply of 200 effects of one atom each
    cost 8.1 inferences per effect (a clause per value and one asking whether an atom holds the separator), 6.1
    now; each value still reads back as written, a literal, a cause and an integer too."""
    n, _ = _reply_inferences("[" + ", ".join(f"aware(p{i})" for i in range(200)) + "]")
    assert n < 200 * 7, n
    _, text = _reply_inferences("[add_dep(3, -(p1)), set_standing(2, weakened, by(-(p1))), "
                                "set_standing(4, abandoned, by(q)), set_standing(5, active, none)]")
    assert text.split("\x1f") == ["4", "0", "add_dep", "3", "-p1", "0", "set_standing", "2", "weakened", "+-p1",
                                  "0", "set_standing", "4", "abandoned", "+q", "0", "set_standing", "5", "active",
                                  "none", "0", ""]
