"""Definition A.2 on a small model, then wired into Hypothesize through the rules."""

from __future__ import annotations

import pytest

from grounded import Engine, PreconditionError
from grounded.dmap.effects import Upgrade
from grounded.epistemic import updates as U
from grounded.epistemic.abduction import Problem, abduce, explanatory, surprising
from grounded.epistemic.model import PlausibilityModel
from grounded.epistemic.parse import parse

# rain and the sprinkler each wet the lawn; nobody observes anything privately


def lawn() -> PlausibilityModel:
    m = PlausibilityModel.cube(["rain", "sprinkler", "wet", "cloud"], {"ann": []})
    return U.announce(U.announce(m, parse("rain -> wet")), parse("sprinkler -> wet"))


def observed(m: PlausibilityModel):
    """The lawn is seen wet: (model before, model after)."""
    return m, U.announce(m, parse("wet"), "wet")


def verdict(before, after, gamma: str):
    chi = parse("wet")
    return abduce(after, "ann", parse(gamma), [Problem("wet", chi, before, U.withdraw(after, "wet"))], point=None)


def test_a_wet_lawn_is_surprising_and_rain_explains_it():
    before, after = observed(lawn())
    v = verdict(before, after, "rain")
    assert v.consistent and v.novel and v.contingent
    assert [(p.surprising, p.explanatory, p.distinct) for p in v.problems] == [(True, True, True)]


def test_each_condition_can_fail():
    before, after = observed(lawn())
    assert not verdict(before, after, "cloud").problems[0].explanatory  # says nothing about the lawn
    assert not verdict(before, after, "wet").problems[0].distinct  # restates the observation
    assert not verdict(before, after, "rain | ~rain").contingent  # a tautology
    assert not verdict(before, after, "~wet").consistent  # contradicts what is known
    believed = U.lexicographic(after, parse("sprinkler"))
    assert not abduce(believed, "ann", parse("sprinkler"), point=None).novel  # already believed
    # had ann believed it would rain, the wet lawn would not have surprised her
    expecting, _ = observed(U.lexicographic(lawn(), parse("rain")))
    assert not surprising(expecting, "ann", parse("wet"), None)


def test_explanation_is_judged_without_the_observation_itself():
    _, after = observed(lawn())
    # with the wet lawn announced, anything "explains" it; withdrawn, only rain or the sprinkler do
    assert explanatory(after, "ann", parse("cloud"), parse("wet"), None)
    assert not explanatory(U.withdraw(after, "wet"), "ann", parse("cloud"), parse("wet"), None)


def test_surprise_at_an_actual_world_needs_the_observation_to_be_true_there():
    m = PlausibilityModel.cube(["wet"], {"ann": []}, actual=["wet"])
    assert surprising(m, "ann", parse("wet"))
    assert not surprising(m, "ann", parse("~wet"))


# -- through the engine ---------------------------------------------------------------

WORLD = {
    "agents": {"ann": {}, "bob": {}, "moderator": {}},
    "world": {
        "atoms": ["rain", "sprinkler", "wet", "cloud"],
        "agents": {"ann": {}, "bob": {}},
        "formulas": {"o_wet": "wet", "h_rain": "rain", "h_sprinkler": "sprinkler", "h_cloud": "cloud",
                     "h_wet": "wet", "h_taut": "rain | ~rain", "h_dry": "~wet", "o_dry": "~wet"},
        "background": ["rain -> wet", "sprinkler -> wet"],
    },
}

SEEN = ("bob", [{"op": "observe", "claim": "o_wet"}])


def hyp(claim, explains=("o_wet",)):
    return {"op": "hypothesize", "claim": claim, "deps": [], "explains": list(explains)}


EPISTEMIC_CASES = {
    # code: (setup utterances, failing utterance, message)
    "hypothesize_not_explanatory": (
        [SEEN], ("ann", [hyp("h_cloud")]),
        "h_cloud does not explain o_wet: after upgrading with h_cloud, ann still does not believe o_wet "
        "(Definition A.2, explanatory)"),
    "hypothesize_restates": (
        [SEEN], ("ann", [hyp("h_wet")]),
        "h_wet says no more than o_wet, the observation it would explain (Definition A.2, non-triviality)"),
    "hypothesize_tautology": (
        [SEEN], ("ann", [hyp("h_taut")]),
        "h_taut holds in every possible world, so it explains nothing (Definition A.2, non-triviality)"),
    "hypothesize_disbelieved": (
        [SEEN], ("ann", [hyp("h_dry")]),
        "ann believes -h_dry, so h_dry is no candidate (Definition A.2, consistency)"),
    "hypothesize_already_believed": (
        [("bob", [{"op": "question", "claim": "q1"}]),
         ("bob", [{"op": "hypothesize", "claim": "h_rain", "deps": [], "explains": ["q1"]}]),
         ("bob", [{"op": "question", "claim": "q2"}])],
        ("ann", [{"op": "hypothesize", "claim": "h_sprinkler", "deps": [], "explains": ["q2"]},
                 {"op": "hypothesize", "claim": "h_sprinkler_again", "deps": [], "explains": ["q2"]}]),
        "ann already believes h_sprinkler_again: there is nothing to abduce (Definition A.2, non-triviality)"),
    "hypothesize_not_surprising": (
        [("bob", [{"op": "question", "claim": "q1"}]),
         ("bob", [{"op": "hypothesize", "claim": "h_rain", "deps": [], "explains": ["q1"]}]), SEEN],
        ("ann", [hyp("h_sprinkler")]),
        "o_wet is not surprising: ann believed it before it was observed, so h_sprinkler explains nothing new "
        "(Definition A.2, surprise)"),
    "announce_impossible": (
        [SEEN], ("ann", [{"op": "observe", "claim": "o_dry"}]),
        "announcing o_dry leaves no possible world: the world model already rules it out"),
}


def world(**extra) -> Engine:
    header = {**WORLD, "world": {**WORLD["world"], **extra}}
    header["world"]["formulas"] = {**WORLD["world"]["formulas"], "h_sprinkler_again": "sprinkler"}
    return Engine(header)


def tell(engine: Engine, speaker: str, ops: list):
    return engine.apply({"speaker": speaker, "ops": ops})


def test_a_hypothesis_that_passes_definition_a2_is_accepted_and_enters_as_belief():
    e = world()
    tell(e, *SEEN)
    update = tell(e, "ann", [hyp("h_rain")])
    assert ("h_rain", "lexicographic") in [(u.literal, u.mode) for u in update.of(Upgrade)]
    assert e.believes("ann", "h_rain") and not e.knows("ann", "h_rain")
    assert e.believes("bob", "rain")  # the upgrade is public
    assert e.standing("h_rain") == "active"


FINDING = {  # the finding of the world model each violation rests on (grounded.epistemic.verdicts)
    "hypothesize_not_explanatory": lambda v: v[0] == "problem" and v[3] is False,
    "hypothesize_restates": lambda v: v[0] == "problem" and v[4] is False,
    "hypothesize_tautology": lambda v: v == ("contingent", False),
    "hypothesize_disbelieved": lambda v: v == ("consistent", False),
    "hypothesize_already_believed": lambda v: v == ("novel", False),
    "hypothesize_not_surprising": lambda v: v[0] == "problem" and v[2] is False,
    "announce_impossible": lambda v: v[0] == "impossible",
    "announce_false": lambda v: v[0] == "false",
}


@pytest.mark.parametrize("code", sorted(EPISTEMIC_CASES))
def test_each_failing_check_is_a_violation_naming_its_condition(code):
    setup, (speaker, ops), message = EPISTEMIC_CASES[code]
    e = world()
    for s, o in setup:
        tell(e, s, o)
    model, frames, snapshot, facts = e.model, len(e.world.history), e.snapshot(), e.prolog_state()
    with pytest.raises(PreconditionError) as info:
        tell(e, speaker, ops)
    matching = [v for v in info.value.violations if v.code == code]
    assert matching, info.value.codes
    assert matching[0].message == message
    given = [v for vs in e.last_verdicts.values() for v in vs]  # what the rules were given
    assert any(FINDING[code](v) for v in given), given
    assert e.model is model and len(e.world.history) == frames, "a rejected utterance changed M"
    assert e.snapshot() == snapshot and e.prolog_state() == facts


def test_the_speaker_is_the_abducing_agent_and_unmodelled_speakers_are_not_checked():
    e = world()
    tell(e, *SEEN)
    tell(e, "moderator", [hyp("h_cloud")])  # not a modelled agent: only the rules' own checks
    assert e.standing("h_cloud") == "active"


def test_an_operation_is_read_after_the_ones_before_it_in_the_utterance():
    e = world()
    # observed and explained in one breath: the surprise is judged before the observation
    tell(e, "ann", [{"op": "observe", "claim": "o_wet"}, hyp("h_rain")])
    assert e.knows("bob", "wet") and e.believes("bob", "rain")


def test_announcements_must_be_true_in_a_declared_actual_world():
    e = world(actual=["sprinkler", "wet"])
    with pytest.raises(PreconditionError) as info:
        tell(e, "bob", [{"op": "observe", "claim": "o_dry"}])
    assert info.value.codes == ["announce_false"]
    assert "o_dry is false in the actual world the world model declares" in str(info.value)


def test_without_a_world_model_nothing_epistemic_is_checked_or_reported():
    e = Engine({"agents": WORLD["agents"]})
    tell(e, *SEEN)
    update = tell(e, "ann", [hyp("h_wet")])  # restates the observation: only a model can tell
    assert e.model is None and not update.of(Upgrade) and update.worlds is None
    assert ("option", "world_model") not in e.prolog_state()
