"""ReviseQA: the FOL parser, grounding, the clingo entailment reader, the loader, the engine loop."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.reviseqa.entail import FALSE, TRUE, UNCERTAIN, Entailment
from bench.reviseqa.fol import Atom, Binary, FOLSyntaxError, Not, Quantified, free_constants, parse, show
from bench.reviseqa.ground import evaluate, ground
from bench.reviseqa.run import run_scenario
from bench.reviseqa.scenario import load_scenario
from grounded.core.errors import InputError

from .bench_helpers import bench, needs_data

pytestmark = pytest.mark.bench  # the ReviseQA benchmark's parts

P = lambda name, arg="A": Atom(name, (arg,))  # noqa: E731


def test_precedence_and_the_dataset_connectives():
    assert show(parse("∀x (¬p_6(x) ∨ ¬p_0(x) → ¬p_5(x))")) == "∀x ((¬p_6(x) ∨ ¬p_0(x)) → ¬p_5(x))"
    assert parse("a(A) ∧ b(A) ∨ c(A)") == Binary("or", Binary("and", P("a"), P("b")), P("c"))
    assert parse("a(A) → b(A) → c(A)") == Binary("implies", P("a"), Binary("implies", P("b"), P("c")))
    assert parse("p_4(A) → (p_12(A) ← ¬p_5(A))") == Binary("implies", P("p_4"),
                                                           Binary("implies", Not(P("p_5")), P("p_12")))
    assert parse("-(p_16(M) ↔ p_15(M))") == Not(Binary("iff", P("p_16", "M"), P("p_15", "M")))
    assert parse("¬p_8(Ashlyn).") == Not(P("p_8", "Ashlyn"))
    assert parse("∀x ¬(p_3(x) ∧ p_8(x))") == Quantified("forall", "x", Not(Binary("and", P("p_3", "x"),
                                                                                 P("p_8", "x"))))
    assert parse("p(A) ⊕ q(A)").op == "xor"


def test_the_prover9_dialect_reads_the_same_formulas():
    assert parse("all x (-(p_6(x) <-> p_9(x)))", dialect="prover9") == parse("∀x ¬(p_6(x) ↔ p_9(x))")
    assert parse("(p_11(Z) | p_4(Z)) -> p_5(Z)", dialect="prover9") == parse("(p_11(Z) ∨ p_4(Z)) → p_5(Z)")
    assert parse("a(A) & -b(A)", dialect="prover9") == parse("a(A) ∧ ¬b(A)")


@pytest.mark.parametrize(("text", "message"), [
    ("(p_11(Zoya) ∨ p_4(Zoya)) → p_5(Zoya))", "at character 37: unexpected ')'"),
    ("p_1(G) → (p_9(G) ∨ p_10(G).", "expected rpar"),
    ("p(A) ∧", "expected a formula"),
    ("p(A) # q(A)", "unexpected character '#'"),
])
def test_parse_errors_name_the_field_and_position(text, message):
    with pytest.raises(FOLSyntaxError) as info:
        parse(text, where="ex_9.json: edits[2].edited_context_fol[4]")
    assert str(info.value).startswith("ex_9.json: edits[2].edited_context_fol[4]: cannot parse formula")
    assert message in str(info.value)


def test_grounding_expands_quantifiers_over_the_constants():
    f = parse("∀x (p(x) → q(x))")
    assert free_constants(f) == set()
    assert show(ground(f, ["B", "A"])) == "((p(A) → q(A)) ∧ (p(B) → q(B)))"
    assert show(ground(parse("∃x p(x)"), ["A", "B"])) == "(p(A) ∨ p(B))"
    assert free_constants(parse("∀x (p(x) ∨ q(Novah))")) == {"Novah"}


@settings(max_examples=40, deadline=None)
@given(st.sets(st.sampled_from([P("p"), P("q"), P("r")])))
def test_xor_and_reverse_implication_mean_what_the_prover9_twins_say(true_atoms):
    for mine, theirs in [("p(A) ⊕ q(A)", "-(p(A) <-> q(A))"), ("p(A) ← q(A)", "q(A) -> p(A)"),
                         ("p(A) ∨ q(A) → r(A)", "(p(A) | q(A)) -> r(A)")]:
        assert evaluate(parse(mine), true_atoms) == evaluate(parse(theirs, dialect="prover9"), true_atoms)


def _entail(premises: dict[str, str], conclusion: str) -> Entailment:
    return Entailment({k: ground(parse(v), ["A"]) for k, v in premises.items()}, ground(parse(conclusion), ["A"]))


def test_the_entailment_reader_answers_true_false_uncertain():
    e = _entail({"r1": "∀x (p(x) → q(x))", "r2": "p(A)", "r3": "∀x (q(x) → ¬s(x))", "r4": "t(A) ∨ u(A)"}, "s(A)")
    assert e.verdict(["r1", "r2", "r3", "r4"]) == FALSE
    assert e.verdict(["r1", "r2"]) == UNCERTAIN
    assert e.verdict([]) == UNCERTAIN
    e2 = _entail({"r1": "p(A) ⊕ q(A)", "r2": "¬q(A)"}, "p(A)")
    assert e2.verdict(["r1", "r2"]) == TRUE
    assert e2.verdict(["r1"]) == UNCERTAIN


def test_minimal_support_is_subset_minimal_and_entails():
    e = _entail({"r1": "p(A)", "r2": "∀x (p(x) → q(x))", "r3": "q(A)", "r4": "r(A)", "r5": "r(A) → q(A)"}, "q(A)")
    active = ["r1", "r2", "r4", "r5"]
    support = e.minimal_support(active)
    assert support in (["r1", "r2"], ["r4", "r5"])
    assert e.entails(support)
    for p in support:
        assert not e.entails([q for q in support if q != p])
    assert e.minimal_support(["r3", "r1", "r2"]) in (["r3"], ["r1", "r2"])
    assert e.minimal_support(["r1"]) is None


def test_contradictory_premises_entail_both_and_the_preferred_consistent_subset_decides():
    e = _entail({"old": "¬p(A)", "rule": "p(A) → q(A)", "new": "p(A)"}, "q(A)")
    assert not e.consistent(["old", "rule", "new"])
    assert e.entails(["old", "new"]) and e.entails(["old", "new"], negated=True)
    assert e.preferred_consistent(["new", "rule", "old"]) == ["new", "rule"]
    assert e.verdict(["new", "rule"]) == TRUE


def _scenario_file(tmp_path, edits, original=None, name="ex_1.json"):
    data = {
        "original_context": ["Ann reads.", "Readers learn.", "Ann sings."],
        "original_context_fol": original or ["p(Ann)", "∀x (p(x) → q(x))", "s(Ann)"],
        "conclusion": "Ann learns.", "conclusion_fol": "q(Ann)", "answer": "True", "reasoning_chain": [],
        "edits": edits,
    }
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _edit(context, answer, made=None, prover9=None):
    return {"edited_context_fol": context, "edited_natural_language_context": [""] * len(context),
            "edits_made": made or {}, "answer": answer, "conclusion_fol": "q(Ann)",
            "prover9_input": {"formulas(assumptions)": prover9 or []}}


def test_an_edit_removing_a_dep_premise_is_flagged_by_the_engine_and_dep_is_recomputed(tmp_path):
    path = _scenario_file(tmp_path, [
        _edit(["p(Ann)", "(∀x (p(x) → q(x)))", "s(Ann)", "t(Ann)"], "True"),  # re-bracketing is no removal
        _edit(["∀x (p(x) → q(x))", "s(Ann)", "t(Ann)", "s(Ann) → q(Ann)"], "True"),  # removes p(Ann), a Dep premise
        _edit(["∀x (p(x) → q(x))", "s(Ann)", "t(Ann)", "s(Ann) → q(Ann)", "t(Ann) → ¬q(Ann)"], "False"),
        _edit(["∀x (p(x) → q(x))", "t(Ann)"], "Uncertain"),
    ])
    sc = load_scenario(path)
    assert [(s.removed, s.added) for s in sc.steps[1:]] == [
        ([], ["r4"]), (["r1"], ["r5"]), ([], ["r6"]), (["r3", "r5", "r6"], [])]
    assert sc.steps[1].delta_disagrees  # the file lists no edits_made
    result = run_scenario(sc)
    assert [s.verdict for s in result.steps] == ["True", "True", "True", "False", "Uncertain"]
    steps = result.steps
    assert steps[0].dep == ["r1", "r2"] and not steps[1].removed_from_dep
    assert steps[2].removed_from_dep and steps[2].dep_recomputed and steps[2].dep == ["r3", "r5"]
    # edit 3 contradicts (s, s -> q, t, t -> -q): newest wins, r3 = s(Ann) is set aside, -q holds
    assert steps[3].dep == ["r4", "r6"] and not steps[3].removed_from_dep
    assert all(s.verify_agrees for s in steps)
    assert [s.contradictory for s in steps] == [False, False, False, True, False]


def test_unparseable_formulas_name_the_file_and_field_unless_a_prover9_twin_parses(tmp_path):
    broken = ["p(Ann)", "∀x (p(x) → q(x)))", "s(Ann)"]
    with pytest.raises(InputError, match=r"ex_1\.json: edits\[0\]\.edited_context_fol\[1\]: cannot parse"):
        load_scenario(_scenario_file(tmp_path, [_edit(broken, "True")]))
    path = _scenario_file(tmp_path, [_edit(broken, "True", prover9=["p(Ann)", "all x (p(x) -> q(x))", "s(Ann)"])],
                          name="ex_2.json")
    sc = load_scenario(path)
    assert sc.steps[1].premises == sc.steps[0].premises
    assert len(sc.repairs) == 1 and "Prover9 twin" in sc.repairs[0]
    with pytest.raises(InputError, match=r"ex_3\.json: edits\[0\]\.answer: expected one of True"):
        load_scenario(_scenario_file(tmp_path, [_edit(["p(Ann)"], "Maybe")], name="ex_3.json"))


@needs_data
def test_reviseqa_quick_run_on_the_real_data(tmp_path):
    result = bench("reviseqa", tmp_path)
    full = result["full"]
    assert full["scenarios"] == 10 and full["edit_steps"] == 70
    assert full["accuracy_at_consistent"]["7"] == 1.0
    assert full["accuracy_at"]["1"] >= 0.9
    assert result["verify_agrees"] == result["steps"]
    assert 0.3 < result["dep_share_full"] < 0.9
    assert result["prover9_agreement"]["agree"] >= 0.99 * result["prover9_agreement"]["checked"] > 0
    assert (tmp_path / "reviseqa_accuracy.png").read_bytes()[:4] == b"\x89PNG"
