"""The facts asp/history.lp reads and writes, as typed clorm predicates.

Input facts are built from validated utterances and serialised by clorm, never
by string concatenation; the answer is unified back into the same classes.
Literals are ASP strings, so ids such as ``P3`` stay constants.
"""

from __future__ import annotations

from clorm import ConstantField, IntegerField, Predicate, StringField


class Agent(Predicate):
    name = StringField
    authority = ConstantField  # true | false


class OpenAgents(Predicate):
    class Meta:
        name = "open_agents"


class Acyclic(Predicate):
    class Meta:
        name = "acyclic"


class WorldModel(Predicate):
    """The header declares a world model: operations announce and may carry verdicts."""

    class Meta:
        name = "world_model"


class EpAgent(Predicate):
    """The agent whose Definition A.2 checks the verdicts of step s report (bridge/epistemic/verdicts.py)."""

    s = IntegerField
    agent = StringField

    class Meta:
        name = "ep_agent"


class EpFlag(Predicate):
    """consistent / novel / contingent, true or false, for the hypothesis of step s."""

    s = IntegerField
    flag = ConstantField
    value = ConstantField

    class Meta:
        name = "ep_flag"


class EpProblem(Predicate):
    """An observation the hypothesis of step s would explain: surprising, explanatory, distinct."""

    s = IntegerField
    lit = StringField
    surprising = ConstantField
    explanatory = ConstantField
    distinct = ConstantField

    class Meta:
        name = "ep_problem"


class EpLit(Predicate):
    """An announcement of step s that leaves no world (impossible) or is false in the actual world."""

    s = IntegerField
    kind = ConstantField
    lit = StringField

    class Meta:
        name = "ep_lit"


class Prop0(Predicate):
    atom = StringField
    kind = ConstantField


class Aware0(Predicate):
    atom = StringField


class Utterance(Predicate):
    u = IntegerField
    turn = IntegerField
    speaker = StringField


class Step(Predicate):
    s = IntegerField
    u = IntegerField
    i = IntegerField
    op = ConstantField


class Close(Predicate):
    u = IntegerField
    c = IntegerField


class Field(Predicate):
    """A literal-valued operation field (claim, target, by)."""

    s = IntegerField
    key = ConstantField
    value = StringField


class Item(Predicate):
    """One element of a list-valued field (deps, explains, supersedes, ...)."""

    s = IntegerField
    key = ConstantField
    value = StringField


class Literal(Predicate):
    lit = StringField
    atom = StringField
    negated = IntegerField


class Negation(Predicate):
    lit = StringField
    neg = StringField


class DecideName(Predicate):
    """Candidate ids for the decision of an authoritative Resolve (decide_P, decide_P_2, ...)."""

    atom = StringField
    n = IntegerField
    name = StringField

    class Meta:
        name = "decide_name"


# -- the answer ------------------------------------------------------------------

class Accepted(Predicate):
    u = IntegerField


class Uviol(Predicate):
    u = IntegerField
    code = ConstantField


class Pviol(Predicate):
    s = IntegerField
    code = ConstantField


class Iviol(Predicate):
    s = IntegerField
    code = ConstantField


class FArg(Predicate):
    a = IntegerField
    claim = StringField
    kind = ConstantField
    speaker = StringField
    turn = IntegerField

    class Meta:
        name = "f_arg"


class StEvent(Predicate):
    a = IntegerField
    standing = ConstantField
    s = IntegerField
    order = IntegerField
    cause = StringField

    class Meta:
        name = "st_event"


class FDep(Predicate):
    a = IntegerField
    lit = StringField
    s = IntegerField

    class Meta:
        name = "f_dep"


class FExpl(Predicate):
    a = IntegerField
    lit = StringField
    s = IntegerField

    class Meta:
        name = "f_expl"


class FAtt(Predicate):
    b = IntegerField
    a = IntegerField
    s = IntegerField

    class Meta:
        name = "f_att"


class FCom(Predicate):
    agent = StringField
    a = IntegerField
    s = IntegerField
    kind = ConstantField  # add | del

    class Meta:
        name = "f_com"


class FDis(Predicate):
    a = IntegerField
    agent = StringField
    s = IntegerField

    class Meta:
        name = "f_dis"


class FProp(Predicate):
    atom = StringField
    kind = ConstantField
    s = IntegerField

    class Meta:
        name = "f_prop"


class FAware(Predicate):
    atom = StringField
    s = IntegerField

    class Meta:
        name = "f_aware"


class Prob(Predicate):
    lit = StringField
    s = IntegerField
    status = ConstantField  # open | closed


class Joined(Predicate):
    agent = StringField
    u = IntegerField


class NowGrounded(Predicate):
    x = IntegerField
    a = IntegerField

    class Meta:
        name = "now_grounded"


class NowAffectedOne(Predicate):
    x = IntegerField
    lit = StringField
    a = IntegerField

    class Meta:
        name = "now_affected_one"


class NowHop(Predicate):
    x = IntegerField
    lit = StringField
    a = IntegerField
    hop = IntegerField

    class Meta:
        name = "now_hop"


ANSWER = [Accepted, Uviol, Pviol, Iviol, FArg, StEvent, FDep, FExpl, FAtt, FCom, FDis, FProp, FAware,
          Prob, Joined, NowGrounded, NowAffectedOne, NowHop]


class TheView(Predicate):
    """The point whose state one-shot grounding is asked about (asp/oneshot.lp)."""

    x = IntegerField

    class Meta:
        name = "the_view"


# -- a view of the dependency map, as asp/queries.lp reads it ------------------------
# history.lp's view(x) derives these; tests write them directly from an engine.

class ViewArg(Predicate):
    x = IntegerField
    a = IntegerField

    class Meta:
        name = "arg"


class ViewClaim(Predicate):
    x = IntegerField
    a = IntegerField
    lit = StringField

    class Meta:
        name = "claim"


class ViewDep(Predicate):
    x = IntegerField
    a = IntegerField
    lit = StringField

    class Meta:
        name = "dep"


class ViewStanding(Predicate):
    x = IntegerField
    a = IntegerField
    standing = ConstantField

    class Meta:
        name = "standing"


class ViewQuery(Predicate):
    x = IntegerField
    lit = StringField

    class Meta:
        name = "query"
