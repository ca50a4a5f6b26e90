"""What the rules spend per utterance, and the shortcuts that cut it keep every answer (issue 23, item 3).

The driver's generic checks read what it kept of each operation's declaration
when the rule file loaded (required_field/3 beside op_module/2); the tests here
hold that table to the declarations, through an extension loaded, unloaded and
loaded again.
"""

from __future__ import annotations

from pathlib import Path

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


def test_a_reply_whose_value_holds_the_separator_comes_back_as_terms_and_reads_the_same():
    """flat_reply/2 checks each atom for U+001F rather than splitting the whole text again: a speaker
    named with one (sent as terms, the rules' own input not validated) still reads back exactly."""
    from grounded.dmap.effects import NewAgent, NewArg, Turn

    engine = Engine({})
    for speaker in ("b\x1fob", "carol"):
        utterance = ("utterance", 1 if speaker == "carol" else 0, speaker,
                     [("op", "observe", [("=", "claim", f"o{len(speaker)}")])])
        result = engine.rules.apply(utterance, session=None)  # type: ignore[arg-type]
        assert not isinstance(result, Rejected), result
        assert [e for e in result.effects if isinstance(e, NewAgent)] == [NewAgent(-1, speaker)]
        assert [type(e) for e in result.effects][:2] == [NewAgent, Turn]
        assert [e.claim for e in result.effects if isinstance(e, NewArg)] == [f"o{len(speaker)}"]
