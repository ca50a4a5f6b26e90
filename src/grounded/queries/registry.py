"""The query registry: one declaration per query, read by every front end.

A query is asked of a conversation as of a turn (``at``, None for the latest)
with a few parameters (a claim, ``closure``).  Its entry here says, once:

* ``name`` and ``help``: the CLI's ``grounded query FILE NAME``, the HTTP route
  ``/v1/conversations/{id}/<path>``, the MCP tool and the docs all use them;
* ``params``: a pydantic model of the parameters (``at`` aside), which the CLI,
  the routes and the tools validate with;
* ``walk``: the Python walk that answers it over the engine's state;
* ``shape``: the walk's answer as the one JSON object every front end sends,
  described by ``answer`` (a pydantic model: the OpenAPI document and
  ``grounded schema --queries`` publish it);
* ``prolog``: how the rules answer it (a name declared ``query(Name)`` in
  prolog/queries.pl, asked by ``RuleState.ask``), and ``asp``: the ``#show``
  predicate of asp/queries.lp that answers it; ``grounded check`` holds the
  three equal for every entry that names both and says (``ids``) which
  arguments an answer holds (Verify and Affected* it compares in full).

So a new query is one ``register(Query(...))`` here plus its rules; the
front ends generate their command, route and tool from the entry.  The walks
themselves stay in ``verify.py`` and ``affected.py`` (and, for the small ones,
below); only this module and the engine call them (tests/test_layers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from grounded.core.bounds import check_turn
from grounded.core.errors import InputError
from grounded.core.literals import atom_of
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import DependencyMap
from grounded.queries.affected import Affected
from grounded.queries.verify import Verification, grounded_arguments

if TYPE_CHECKING:  # the models (pydantic): a query answered from a snapshot reads its parameters without them
    from grounded.dmap.model import Argument
    from grounded.queries.models import AffectedParams, Answer, Params


class Source(Protocol):
    """What a walk reads: the engine (its state, and Verify/Affected* with their literal checks)."""

    @property
    def state(self) -> DependencyMap: ...

    def verify(self, literal: str, at: int | None = None) -> Verification: ...

    def affected(self, literal: str, closure: bool = True, at: int | None = None) -> Affected: ...


# -- the small walks (Verify and Affected* are in verify.py and affected.py) --------------------------


def reinstatable(dm: DependencyMap, t: int | None) -> list[int]:
    """Arguments out of standing with an attacker, every attacker out of S_t (prolog/queries.pl, reinstatable/1)."""
    result = []
    for r in dm.args:
        standing = r.standing_at(t)
        if standing is None or standing in GOOD_STANDING:
            continue
        attackers = dm.attackers_at(r.id, t)
        if attackers and not any(dm.in_standing(a, t) for a in attackers):
            result.append(r.id)
    return result


def commitments(dm: DependencyMap, t: int | None) -> dict[str, list[str]]:
    """Cm: each agent's public commitments, as the claims of the committed arguments."""
    args = dm.args
    return {agent: list(dict.fromkeys(args[i - 1].claim for i in ids)) for agent, ids in dm.commitments_at(t).items()}


def dissent(dm: DependencyMap, t: int | None) -> dict[str, list[str]]:
    """Decision claim -> agents recorded as dissenting from it."""
    return {dm.arg(i).claim: list(agents) for i, agents in dm.dissent.items() if dm.visible(i, t)}


def standing(dm: DependencyMap, claim: str, t: int | None) -> str | None:
    ids = dm.claimants_at(claim, t)
    return dm.arg(ids[-1]).standing_at(t) if ids else None


def dep(dm: DependencyMap, claim: str, t: int | None) -> list[str]:
    ids = dm.claimants_at(claim, t)
    return list(dm.arg(ids[-1]).deps_at(t)) if ids else []


def arguments(dm: DependencyMap, claim: str | None, t: int | None) -> list[Argument]:
    ids = (dm.claimants_at(claim, t) if claim is not None else [r.id for r in dm.args if dm.visible(r.id, t)])
    return [dm.argument(i, t) for i in ids]


def is_known(dm: DependencyMap, literal: str, t: int | None) -> bool:
    """Whether the state (as of ``t``) has heard of ``literal``: an argument claims it or its proposition
    is declared (an empty Affected* of a known literal is an answer: nothing rests on it)."""
    if dm.claimants_at(literal, t):
        return True
    prop = dm.props.get(atom_of(literal))  # looked up, not searched: a map read from an index has no list
    return prop is not None and (t is None or prop.turn is None or prop.turn <= t)


# -- the registry -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """One query: see the module's docstring.  ``ok`` is the CLI's exit code 0 (else 1)."""

    name: str
    help: str
    params_model: type[Params] | str
    """The parameters' model (grounded.queries.models), or its name there: then imported when first asked
    for (``params``), and plain parameters are read without it (``read``)."""
    answer_model: type[Answer] | str
    """The answer's model, or its name in grounded.queries.models (``answer``)."""
    walk: Callable[[Source, Any, int | None], Any]
    shape: Callable[[Any, Source, Any, int | None], dict[str, Any]]
    prolog: str | None = None
    asp: str | None = None
    ids: Callable[[dict[str, Any]], list[int]] | None = None
    """For a query the rules answer as a set of arguments (``query(Name)`` in prolog/queries.pl, ``#show asp/2``
    in asp/queries.lp): the argument ids of an answer, which ``grounded check`` compares."""
    ok: Callable[[dict[str, Any]], bool] = lambda answer: True

    @property
    def path(self) -> str:
        """The HTTP route's last segment."""
        return self.name.replace("_", "-")

    @property
    def params(self) -> type[Params]:
        """The parameters' pydantic model."""
        return _model(self.params_model)

    @property
    def answer(self) -> type[Answer]:
        """The answer's pydantic model (its one JSON shape)."""
        return _model(self.answer_model)

    def read(self, params: dict[str, Any]) -> Params | PlainParams:
        """The parameters, validated; an InputError names the query and the field.  Parameters plainly right
        for a model of grounded.queries.models named by name are read as plain data, what the model makes of
        them (``plain_params``): a query answered from a snapshot imports no pydantic (tests/test_startup.py)."""
        if isinstance(self.params_model, str):
            plain = plain_params(self.params_model, params)
            if plain is not None:
                return plain
        from pydantic import ValidationError

        try:
            return self.params.model_validate(params)
        except ValidationError as exc:
            where = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'parameters'}: {e['msg']}" for e in exc.errors())
            raise InputError(f"query {self.name}: {where}") from None

    def ask(self, source: Source, at: int | None = None, **params: Any) -> dict[str, Any]:
        """The answer, as the JSON object ``answer`` describes (built without a second validation)."""
        args = self.read(params)
        t = check_turn(at)
        return self.shape(self.walk(source, args, t), source, args, t)


def _model(model: type | str) -> Any:
    if isinstance(model, str):
        from grounded.queries import models

        return getattr(models, model)
    return model


class PlainParams(NamedTuple):
    """A query's parameters as plain data (``Query.read``): the fields of the models, their defaults."""

    claim: str | None = None
    closure: bool = True


REQUIRED = object()
"""A field's default in ``PLAIN_FIELDS`` when the model requires the field."""

PLAIN_FIELDS: dict[str, dict[str, tuple[tuple[type, ...], Any]]] = {
    "Params": {},
    "ClaimParams": {"claim": ((str,), REQUIRED)},
    "AffectedParams": {"claim": ((str,), REQUIRED), "closure": ((bool,), True)},
    "ArgumentsParams": {"claim": ((str, type(None)), None)},
}
"""The parameter models of grounded.queries.models as plain data: model name -> field -> (the exact types a
value may have, the default or ``REQUIRED``).  The models' own field lists, read without importing pydantic;
tests/test_plain_copies.py holds the two equal, field by field."""


def plain_params(model: str, given: dict[str, Any]) -> PlainParams | None:
    """``given`` as plain data when it is plainly right for the model of grounded.queries.models named
    ``model`` (no other key, every required one, each value of its field's type), else None: the model
    reads it, and names what is wrong.  tests/test_query_registry.py holds the two readings equal."""
    fields = PLAIN_FIELDS.get(model)
    if fields is None or not given.keys() <= fields.keys():
        return None
    values = {}
    for name, (types, default) in fields.items():
        value = given.get(name, default)
        if value is REQUIRED or (name in given and type(value) not in types):
            return None
        values[name] = value
    return PlainParams(**values)


QUERIES: dict[str, Query] = {}
"""Every query by name, in the order registered (the order of the CLI's, the API's and the tools' listings)."""


def register(query: Query) -> Query:
    """Add a query; a name taken is refused (one entry per query)."""
    if query.name in QUERIES:
        raise ValueError(f"query {query.name} is registered already")
    QUERIES[query.name] = query
    return query


def unregister(name: str) -> None:
    QUERIES.pop(name, None)


def get(name: str) -> Query:
    """The query by name; an InputError lists the names there are."""
    try:
        return QUERIES[name]
    except KeyError:
        raise InputError(f"no query {name!r} (one of {', '.join(QUERIES)})") from None


SUMMARY = ("open_problems", "commitments", "dissent", "reinstatable")
"""The queries a state's summary lists (``GET .../state``, ``grounded state``, the notebook and the book):
each answer's field of the query's own name."""


def summary(source: Source, at: int | None = None) -> dict[str, Any]:
    """Open problems, commitments, dissent and the reinstatable claims, as of turn ``at``."""
    return {name: QUERIES[name].ask(source, at)[name] for name in SUMMARY}


def state_arguments(source: Source, at: int | None = None) -> list[dict[str, Any]]:
    """Every argument as of turn ``at`` in the ``arguments`` query's shape, with whether it is grounded
    (``StateArgument``)."""
    t = check_turn(at)
    dm = source.state
    grounded = grounded_arguments(dm, t)
    return [{**dm.argument_json(r.id, t), "grounded": r.id in grounded} for r in dm.args if dm.visible(r.id, t)]


def state(source: Source, at: int | None = None) -> dict[str, Any]:
    """The state as of turn ``at`` in its one JSON shape (``StateAnswer``): the turn it is as of (the last
    one when ``at`` is None), every argument with whether it is grounded, and the summary's answers.  The CLI
    (``grounded state --json``), the HTTP API and the pages read it from here."""
    t = check_turn(at)
    return {"at": source.state.last_turn if t is None else t, "arguments": state_arguments(source, t),
            **summary(source, t)}


def verify_json(v: Verification) -> dict[str, Any]:
    """A Verify answer in its one shape (``VerifyAnswer``)."""
    return {"claim": v.claim, "grounded": v.grounded, "status": v.status, "chain": list(v.chain),
            "arguments": list(v.arguments), "reason": v.reason, "failing": v.failing, "at": v.at}


def affected_json(a: Affected, known: bool) -> dict[str, Any]:
    """An Affected answer in its one shape (``AffectedAnswer``)."""
    return {"claim": a.literal, "closure": a.closure, "at": a.at, "claims": a.claims,
            "lose_support": a.lose_support, "hops": a.claim_hops, "arguments": list(a.arguments),
            "losing_arguments": a.losing_arguments, "known": known}


def _affected_shape(a: Affected, source: Source, p: AffectedParams, t: int | None) -> dict[str, Any]:
    return affected_json(a, bool(a.arguments) or is_known(source.state, p.claim, t))


VERIFY = register(Query(
    "verify", "Verify(c): is the claim carried by an argument in good standing, grounded all the way down?",
    "ClaimParams", "VerifyAnswer",
    walk=lambda s, p, t: s.verify(p.claim, at=t),
    shape=lambda v, s, p, t: verify_json(v),
    prolog="queries", asp="now_grounded", ok=lambda a: a["grounded"]))

AFFECTED = register(Query(
    "affected", "Affected*(p): every argument resting, transitively, on p (closure=false: one step).",
    "AffectedParams", "AffectedAnswer",
    walk=lambda s, p, t: s.affected(p.claim, closure=p.closure, at=t),
    shape=_affected_shape,
    prolog="queries", asp="now_hop", ok=lambda a: a["known"]))

REINSTATABLE = register(Query(
    "reinstatable", "Arguments out of standing whose every attacker has left S_t (reported, never reinstated).",
    "Params", "ReinstatableAnswer",
    walk=lambda s, p, t: reinstatable(s.state, t),
    shape=lambda ids, s, p, t: {"at": t, "arguments": ids,
                                "reinstatable": list(dict.fromkeys(s.state.arg(i).claim for i in ids))},
    prolog="reinstatable", asp="now_reinstatable", ids=lambda a: a["arguments"]))

OPEN_PROBLEMS = register(Query(
    "open_problems", "The open problems: questions and observations nothing explains yet.",
    "Params", "OpenProblemsAnswer",
    walk=lambda s, p, t: s.state.open_problems_at(t),
    shape=lambda found, s, p, t: {"at": t, "open_problems": list(found)}))

COMMITMENTS = register(Query(
    "commitments", "Cm: each agent's public commitments, as claims.",
    "Params", "CommitmentsAnswer",
    walk=lambda s, p, t: commitments(s.state, t),
    shape=lambda found, s, p, t: {"at": t, "commitments": found}))

DISSENT = register(Query(
    "dissent", "Decision claim -> the agents recorded as dissenting from it.",
    "Params", "DissentAnswer",
    walk=lambda s, p, t: dissent(s.state, t),
    shape=lambda found, s, p, t: {"at": t, "dissent": found}))

STANDING = register(Query(
    "standing", "The standing of the newest argument for a claim.",
    "ClaimParams", "StandingAnswer",
    walk=lambda s, p, t: standing(s.state, p.claim, t),
    shape=lambda found, s, p, t: {"claim": p.claim, "at": t, "standing": found}))

DEP = register(Query(
    "dep", "Dep of the newest argument for a claim.",
    "ClaimParams", "DepAnswer",
    walk=lambda s, p, t: dep(s.state, p.claim, t),
    shape=lambda found, s, p, t: {"claim": p.claim, "at": t, "dep": found}))

ARGUMENTS = register(Query(
    "arguments", "The arguments (standing, Dep, provenance), all of them or those for one claim.",
    "ArgumentsParams", "ArgumentsAnswer",
    walk=lambda s, p, t: arguments(s.state, p.claim, t),
    shape=lambda found, s, p, t: {"claim": p.claim, "at": t,
                                  "arguments": [a.model_dump(mode="json") for a in found]}))


__all__ = ["AFFECTED", "QUERIES", "REINSTATABLE", "VERIFY", "PlainParams", "Query", "Source", "get",
           "register", "state", "state_arguments", "unregister"]
