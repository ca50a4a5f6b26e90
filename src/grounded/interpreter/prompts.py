"""The paper's three prompt conditions, as small versioned functions.

* **Minimal**: the operation names, one line each (the gloss the rule file
  declares).
* **Definitions**: a definition and a generic example per operation, plus the
  rules for the neighbouring pairs (Undermine vs Revise, Expand-Awareness vs
  Observe, Hypothesize with Revise).
* **State-augmented**: Definitions, and before every utterance the Context
  Renderer's live rendering of the dependency map (standing, groundedness,
  Dep, open problems, what is still outside everyone's awareness) instead of
  the bare list of claims.

Every condition also states the answer format (generated from the rules'
operation declarations, so extension operations are offered too) and shows
the claims the model may link to, by id.  A prompt function's name carries
its version; change the text, bump the version, and the call log records
which one produced each answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grounded.core.literals import atom_of
from grounded.dmap.operations import OperationRegistry
from grounded.engine import Engine
from grounded.interpreter.schema import describe_schema
from grounded.interpreter.texts import claim_texts
from grounded.interpreter.transcript import Said
from grounded.present import context

_ANSWER_FORMAT = """\
Answer with JSON only: {{"operations": [ ... ]}}, one object per operation the utterance performs, in order.
An utterance may perform several operations (three observations and a question), or none.
Fields of each operation:
{schema}
Ids: refer to existing claims by the ids listed in the state. A claim the utterance introduces gets a
new-claim reference instead: "#1", "#2", ... in its "claim" field, used by later operations of the same
answer ("deps": ["#1"]). Never invent other ids; the system assigns the real ones.
"text" restates the claim in one short sentence."""

_DEFINITIONS = {
    "observe": (
        "A speaker reports a fact they see or know, without explaining it: a log line, a number, a "
        "requirement, a decision constraint. It becomes a claim that rests on nothing.",
        'Example: "The cache hit rate dropped to 20% after the deploy." -> observe'),
    "hypothesize": (
        "A speaker proposes an explanation or a course of action that is not yet established: a cause, a "
        "causal chain, a design option. It rests on the claims it uses (deps) and explains open problems "
        "(explains: observations nobody has explained yet, or questions).",
        'Example: "Maybe the new eviction policy is throwing out hot keys." -> hypothesize, deps: the '
        "observation of the dropped hit rate, explains: that observation"),
    "support": (
        "A speaker brings evidence for a claim already on the table, or restates it approvingly. The "
        "evidence (by, or new evidence text) is added to what the claim rests on.",
        'Example: "The eviction counter spiked at exactly the same minute." -> support of the eviction '
        "hypothesis, evidence: the counter spike"),
    "undermine": (
        "A speaker brings evidence or an argument against a claim without retracting it outright: a "
        "mismatch, a risk, a cost. The claim is weakened, not dropped.",
        'Example: "But the hit rate also dropped on the servers that did not get the deploy." -> undermine '
        "of the eviction hypothesis"),
    "revise": (
        "A speaker retracts or rejects a claim: it is wrong, reversed, replaced, or no longer holds. The "
        "claim is abandoned.",
        'Example: "So it is not the eviction policy after all." -> revise of the eviction hypothesis'),
    "expand_awareness": (
        "A proposition nobody had in view enters the conversation, typically reinterpreting earlier "
        "evidence (\"that alert is really about X, not Y\") or opening a new kind of option.",
        'Example: "Wait, the \'disk\' alert is actually the network share, not the local disk." -> '
        "expand_awareness"),
    "resolve": (
        "The group settles a claim: it is accepted as the answer, or someone with decision authority "
        "decides despite disagreement (then give a decision claim and the assumptions it rests on).",
        'Example: "Agreed, the eviction bug is the root cause; let\'s roll it back." -> resolve of the '
        "eviction hypothesis"),
    "question": (
        "A speaker asks for information or raises an open problem, without proposing an answer.",
        'Example: "Which servers got the deploy first?" -> question'),
}

_NEIGHBOURS = """\
Rules for neighbouring operations:
- Undermine vs Revise: evidence against a claim that might still be right is Undermine (weakens it);
  saying the claim is wrong, reversed or dropped is Revise (abandons it).
- Expand-Awareness vs Observe: a fact within what everyone already considers is Observe; a proposition
  outside everyone's awareness entering the conversation (a reinterpretation, a new kind of option) is
  Expand-Awareness.
- Hypothesize with Revise: when a new explanation replaces or reverses an earlier one, the utterance is
  both: Hypothesize the new claim, and Revise the old one by it.
- Question vs Hypothesize: a question that proposes a concrete explanation or option ("could it be X?",
  "can we use X?") is Hypothesize; a request for information is Question.
- Support vs Observe: a new fact reported as evidence for a claim already on the table is Support (give
  it as evidence); a fact on its own is Observe."""


def minimal_v1(registry: OperationRegistry) -> str:
    ops = "\n".join(f"- {name}: {spec.doc}" for name, spec in registry.specs.items())
    return ("You classify each utterance of a multi-party conversation into operations on the "
            f"conversation's dependency map.\nOperations:\n{ops}\n\n"
            + _ANSWER_FORMAT.format(schema=describe_schema(registry)))


def definitions_v1(registry: OperationRegistry) -> str:
    parts = []
    for name, spec in registry.specs.items():
        definition, example = _DEFINITIONS.get(name, (spec.doc, ""))
        parts.append(f"- {name}: {definition}" + (f"\n  {example}" if example else ""))
    return ("You classify each utterance of a multi-party conversation into operations on the "
            "conversation's dependency map: what is claimed, what each claim rests on, and which claims "
            "still stand.\nOperations:\n" + "\n".join(parts) + "\n\n" + _NEIGHBOURS + "\n\n"
            + _ANSWER_FORMAT.format(schema=describe_schema(registry)))


def state_augmented_v1(registry: OperationRegistry) -> str:
    return definitions_v1(registry) + (
        "\n\nBefore each utterance you are shown the dependency map as it stands: use it to tell apart "
        "claims in standing from weakened or abandoned ones, open problems, and propositions still "
        "outside everyone's awareness.")


@dataclass(frozen=True, slots=True)
class PromptCondition:
    name: str
    version: str
    system: Callable[[OperationRegistry], str]
    shows_state: bool


PROMPTS = {
    "minimal": PromptCondition("minimal", "minimal_v1", minimal_v1, False),
    "definitions": PromptCondition("definitions", "definitions_v1", definitions_v1, False),
    "state": PromptCondition("state", "state_augmented_v1", state_augmented_v1, True),
}
CONDITIONS = tuple(PROMPTS)


def claim_list(engine: Engine) -> str:
    """The ids the model may link to, with their text (no standing: that is the State condition's)."""
    seen = claim_texts(engine)
    lines = [f"- {claim}: {texts[0]}" for claim, texts in seen.items()]  # the claim as first made
    for literal in engine.open_problems():
        if literal not in seen:
            prop = engine.state.props.get(atom_of(literal))
            lines.append(f"- {literal} (question): {prop.text if prop else ''}")
    return "\n".join(lines) or "(none yet)"


def user_message_v1(condition: PromptCondition, engine: Engine, said: Said, history: Sequence[Said],
                    state_budget: int) -> str:
    """What the model sees for one utterance: the state or the claim list, recent turns, the utterance."""
    if condition.shows_state:
        state = context.render_state(engine, budget=state_budget, fmt="markdown")
        parts = [f"Dependency map before this utterance:\n{state}"]
    else:
        parts = [f"Claims so far (ids you may refer to):\n{claim_list(engine)}"]
    if history:
        parts.append("Recent utterances:\n" + "\n".join(f"T{s.turn} {s.speaker}: {s.text}" for s in history))
    parts.append(f"Classify this utterance.\nT{said.turn} {said.speaker}: {said.text}")
    return "\n\n".join(parts)


def rejection_message_v1(violations_text: list[str]) -> str:
    return ("The engine rejected these operations and applied none of them. Failing conditions:\n"
            + "\n".join(f"- {v}" for v in violations_text)
            + "\nFix each failing condition and answer again with the complete JSON for this utterance.")


def malformed_message_v1(problem: str) -> str:
    return f"Your answer could not be used: {problem}. Answer again with JSON only, in the format given."
