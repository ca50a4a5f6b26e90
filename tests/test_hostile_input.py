"""Issue 10, the rules' side: every value goes into Prolog as data, and comes back exact.

Identifiers are drawn from a wide alphabet (all of Unicode, Prolog and ASP
syntax) and the validators decide which are ids: an accepted one must behave
exactly as a plain name does (the same conversation with plain names gives the
same state and answers, up to the renaming, and ``grounded check`` agrees three
ways); a rejected one is an InputError that changes nothing.  Texts go through
unchanged whatever they hold, up to the bounds; a lone surrogate is an
InputError, never a UnicodeEncodeError.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from grounded import Engine, InputError, PreconditionError
from grounded.crosscheck.check import check_history
from grounded.dmap.model import Header
from grounded.solvers.prolog import PrologRules
from grounded.solvers.terms import PlString

from .test_properties import SCALE

SYNTAX = ["none", "by", "true", "false", "fail", "[]", "{}", "'", '"', "\\", ").", ":-", "%", "#", "#const",
          "a).", "x:-y", "a%b", "a#b", "end_of_file", "_", "_G1", "A", "Var", "0", "007", "1.5", "1e10", "-",
          "a-", "a.b", "a:b", "a_b", "décidé", "名前", "\x00", "a\nb", "\t", " ", "' ).\n:- halt.", "\u2028",
          "not", "is", "mod", "-(a)", "f(x)", "a,b", "|", "!", ";", "->", "@", "$", "`", "~", "\u00a0"]

PLAIN = [f"zz{i}zz" for i in range(9)]
"""Plain names of the template conversation: none is a substring of another or of English."""

WIDE = st.characters(codec=None, exclude_categories=("Cs",))  # all of Unicode but lone surrogates
ID_LIKE = st.builds(lambda head, tail: head + tail,
                    st.sampled_from([*"abzAZ09_", "none", "by", "true", "false", "end_of_file", "_G", "Var", "is",
                                     "mod", "not", "0x", "1e"]),
                    st.text(alphabet=st.sampled_from(list("aZ9_.:-")), max_size=10))
IDENTIFIERS = st.one_of(
    st.sampled_from(SYNTAX),
    st.text(alphabet=WIDE | st.sampled_from(list("'\"\\).:-%#_ \n")), min_size=1, max_size=12),
    ID_LIKE,
    st.builds(lambda c, n: c * n, st.sampled_from(["a", "Z", "0", "_", "."]), st.integers(150, 200)),
)
"""Anything: the validators decide which are ids."""


@st.composite
def identifiers(draw) -> list[str]:
    """Nine distinct names: eight mostly id-like, one from anywhere, in a random order, so
    that both the accepted path and the refused one are exercised often.  None starts with ``-``: that
    is a literal's negation (``-0`` is "not 0", which a question may not claim), not part of a name."""
    tame = draw(st.lists(ID_LIKE, min_size=8, max_size=8))
    names = [*tame, draw(IDENTIFIERS)]
    assume(len(set(names)) == 9 and not any(n.startswith(("decide_", "-")) for n in names))
    return draw(st.permutations(names))


TEXTS = st.one_of(
    st.text(alphabet=WIDE, max_size=40),
    st.sampled_from(SYNTAX),
    st.builds(lambda c, n: (c * n)[:100_000], st.sampled_from(["x", "é", "\x00", "'", "\u2603", ").\n"]),
              st.integers(1000, 100_000)),
).filter(lambda t: "zz" not in t)


def template(names: list[str], texts: list[str]) -> tuple[dict, list[dict]]:
    """A conversation with every operation, named by ``names`` (claims and speakers)."""
    c0, c1, c2, q0, h0, h1, s0, s1, s2 = names
    header = {"agents": {s0: {"authority": True}, s1: {}, s2: {}},
              "props": [{"id": c2, "kind": "assumption", "text": texts[0]}]}
    t = iter(texts[1:] * 3)
    utterances = [
        {"speaker": s0, "text": next(t), "ops": [{"op": "observe", "claim": c0, "text": next(t)},
                                                 {"op": "observe", "claim": c1, "text": next(t)},
                                                 {"op": "question", "claim": q0, "text": next(t)}]},
        {"speaker": s1, "text": next(t), "ops": [{"op": "hypothesize", "claim": h0, "deps": [c0],
                                                  "explains": [c1, q0], "text": next(t)}]},
        {"speaker": s2, "ops": [{"op": "hypothesize", "claim": h1, "deps": [c1, "-" + c2], "explains": [c1]}]},
        {"speaker": s1, "ops": [{"op": "undermine", "target": h1, "by": c0, "text": next(t)}]},
        {"speaker": s2, "ops": [{"op": "support", "target": h0, "by": c1}]},
        {"speaker": s0, "ops": [{"op": "observe", "claim": "-" + c0, "supersedes": [c0]}]},
        {"speaker": s2, "ops": [{"op": "resolve", "target": h1}]},  # authoritative? s2 has no authority
        {"speaker": s0, "ops": [{"op": "resolve", "target": h1, "assumptions": [c2], "text": next(t)}]},
        {"speaker": s1, "ops": [{"op": "revise", "target": h0, "by": "-" + c0}]},
        {"speaker": s1, "ops": [{"op": "revise", "target": h0}]},  # already abandoned: rejected
        {"speaker": s0, "ops": [{"op": "expand_awareness", "claim": c2}]},  # already aware: rejected
    ]
    return header, utterances


def renamer(mapping: dict[str, str]):
    """Rename ids in any data: exact strings (an id, its negation, a decision named after it)
    and, inside messages, every occurrence of a plain name."""
    full = {}
    for a, b in mapping.items():
        full[a], full["-" + a], full["decide_" + a] = b, "-" + b, "decide_" + b
    pattern = re.compile("|".join(map(re.escape, mapping)))

    def rename(x: Any) -> Any:
        if isinstance(x, str):
            return full[x] if x in full else pattern.sub(lambda m: mapping[m.group()], x)
        if isinstance(x, dict):
            return {rename(k): rename(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return type(x)(rename(v) for v in x)
        return x
    return rename


def replay(header: dict, utterances: list[dict]) -> tuple[Engine, list]:
    engine = Engine(header)
    outcomes = []
    for u in utterances:
        try:
            update = engine.apply(u)
            outcomes.append(("ok", update.turn, list(update.left), update.flagged))
        except PreconditionError as exc:
            outcomes.append(("rejected", [(v.index, v.code, v.message) for v in exc.violations]))
    return engine, outcomes


def answers(engine: Engine, literals: list[str]) -> dict:
    out: dict = {"open": engine.open_problems(), "cm": engine.commitments(), "dissent": engine.dissent(),
                 "reinstatable": engine.reinstatable(),
                 "notes": {c: (n.standing, n.turn, n.cause) for c, n in engine.rules.notes().items()}}
    for p in literals:
        v = engine.verify(p)
        a = engine.affected(p)
        out[p] = (v.grounded, v.status, v.chain, v.reason, v.failing, a.claims, a.hops, a.lose_support,
                  engine.standing(p), engine.dep(p))
    return out


def plain_literals() -> list[str]:
    return [*PLAIN, *("-" + p for p in PLAIN)]


@settings(max_examples=int(40 * SCALE), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(ids=identifiers(), texts=st.lists(TEXTS, min_size=6, max_size=6))
def test_any_id_the_validators_accept_behaves_as_a_plain_name(ids, texts):
    plain_header, plain = template(PLAIN, texts)
    header, hostile = template(ids, texts)
    reference, expected = replay(plain_header, plain)
    rename = renamer(dict(zip(PLAIN, ids, strict=True)))
    try:
        engine = Engine(header)
    except InputError:
        event("refused: a header id")
        return  # an agent or proposition id the header's validators refuse: a clean error
    outcomes = []
    for u in hostile:
        before, rules_before = engine.snapshot(), engine.prolog_state()
        try:
            update = engine.apply(u)
            outcomes.append(("ok", update.turn, list(update.left), update.flagged))
        except PreconditionError as exc:
            outcomes.append(("rejected", [(v.index, v.code, v.message) for v in exc.violations]))
        except InputError:
            # refused by the validators: nothing changed, and the plain run needs no comparison
            assert engine.snapshot() == before and engine.prolog_state() == rules_before
            event("refused: an utterance id")
            return
    event("accepted: every id")
    assert outcomes == rename(expected)
    assert engine.snapshot() == rename(reference.snapshot())
    assert set(engine.prolog_state()) == set(rename(reference.prolog_state()))
    assert answers(engine, [rename(p) for p in plain_literals()]) == rename(answers(reference, plain_literals()))


@settings(max_examples=int(8 * SCALE), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(ids=identifiers(), texts=st.lists(TEXTS, min_size=6, max_size=6))
def test_grounded_check_agrees_three_ways_on_any_valid_ids(ids, texts):
    header, utterances = template(ids, texts)
    try:
        engine = Engine(header)
        for u in utterances:
            try:
                engine.apply(u)
            except PreconditionError:
                pass
    except InputError:
        return
    candidates = [{**u, "turn": t} for t, u in enumerate(utterances, 1)]
    report = check_history(Header.model_validate(header), candidates)
    assert report.asp and report.ok, report.mismatches[:5]


def test_the_ids_that_broke_the_text_protocol_round_trip():
    """Issue 10: a claim id or speaker `none` became '' everywhere."""
    e = Engine()
    e.apply({"speaker": "none", "ops": [{"op": "observe", "claim": "none"}, {"op": "observe", "claim": "by"}]})
    e.apply({"speaker": "true", "ops": [{"op": "hypothesize", "claim": "h", "deps": ["none"], "explains": ["by"]}]})
    assert e.verify("h").chain == ("h", "none")
    e.apply({"speaker": "none", "ops": [{"op": "revise", "target": "none", "by": "by"}]})
    v = e.verify("h")
    assert not v.grounded and v.reason == "none -> h: none abandoned at T3 by by" and v.failing == "none"
    assert e.affected("none").claims == ["h"] and e.affected("none").lose_support == ["h"]
    assert [(a.claim, a.speaker) for a in e.arguments()] == [("none", "none"), ("by", "none"), ("h", "true")]
    assert e.arguments("none")[0].history[-1].cause == "by"
    assert e.state.note("none").cause == "by" and e.rules.notes()["none"].cause == "by"
    Engine()  # another engine in between used to change what the next utterance saw
    e.apply({"speaker": "none", "ops": [{"op": "hypothesize", "claim": "none", "deps": ["by"],
                                         "explains": ["by"]}]})
    assert e.standing("none") == "active" and e.verify("none").chain == ("none", "by")
    e.apply({"speaker": "by", "ops": [{"op": "observe", "claim": "-true"}, {"op": "observe", "claim": "a:-b"},
                                      {"op": "observe", "claim": "x.", "text": "' ).\n:- halt.\x00"}]})
    assert [a.claim for a in e.arguments()][-3:] == ["-true", "a:-b", "x."]
    assert e.arguments("x.")[0].text == "' ).\n:- halt.\x00"
    candidates = [{"turn": 1, "speaker": "none", "ops": [{"op": "observe", "claim": "none"}]},
                  {"turn": 2, "speaker": "none", "ops": [{"op": "revise", "target": "none"}]},
                  {"turn": 3, "speaker": "none", "ops": [{"op": "hypothesize", "claim": "h", "deps": ["none"],
                                                          "explains": ["none"]}]}]
    report = check_history(Header(), candidates)
    assert report.ok, report.mismatches


@settings(max_examples=int(200 * SCALE), deadline=None)
@given(text=st.one_of(st.text(alphabet=WIDE), st.sampled_from(SYNTAX),
                      st.builds(lambda c, n: c * n, WIDE, st.integers(1, 100_000))),
       number=st.integers(-2**63, 2**63 - 1))
def test_terms_carry_any_text_and_integer_exactly(text, number):
    """The foreign interface itself: atoms, strings, compounds and lists come back as they went in."""
    rules = PrologRules.get()
    value = ("f", text, PlString(text), [text, number, ("-", text)], number)
    assert rules.request(("echo", value)) == ("f", text, text, [text, number, ("-", text)], number)


def test_a_lone_surrogate_is_an_input_error_that_changes_nothing():
    e = Engine()
    e.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    before, rules = e.snapshot(), e.prolog_state()
    for bad in ({"speaker": "alice", "text": "a\ud800b", "ops": []},
                {"speaker": "alice", "ops": [{"op": "observe", "claim": "o2", "text": "\udfff"}]},
                {"speaker": "al\ud800ice", "ops": []},
                {"speaker": "alice", "ops": [{"op": "observe", "claim": "o\udc00"}]}):
        with pytest.raises(InputError, match="surrogate|literal|proposition id"):
            e.apply(bad)
    assert e.snapshot() == before and e.prolog_state() == rules


def test_a_thousand_operations_and_ids_and_texts_at_their_bounds():
    """PLAN.md's bounds: 1,000 operations per utterance, ids of 200 characters, texts of
    100,000; everything up to them runs (no Prolog stack error)."""
    e = Engine()
    ops = [{"op": "observe", "claim": f"o{i}_" + "x" * 190, "text": "t"} for i in range(1000)]
    update = e.apply({"speaker": "s" * 200, "ops": ops, "text": "\u2603" * 100_000})
    assert len(e.state.args) == 1000 and update.turn == 1
    ops = [{"op": "hypothesize", "claim": f"h{i}", "deps": [f"o{i}_" + "x" * 190], "explains": [f"o{i}_" + "x" * 190]}
           for i in range(1000)]
    e.apply({"speaker": "s" * 200, "ops": ops})
    assert e.verify("h999").chain == ("h999", "o999_" + "x" * 190)
    long_text = ("é\x00').\n:- halt." * 8000)[:100_000]  # the bound on a text (PLAN.md)
    e.apply({"speaker": "b", "ops": [{"op": "observe", "claim": "L" * 200, "text": long_text}]})
    assert e.arguments("L" * 200)[0].text == long_text
