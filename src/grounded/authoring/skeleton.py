"""``grounded new-op NAME``: the five files of a new operation, ready to be filled in.

The skeleton is a working operation, not a template with holes: the speaker
commits to a claim in good standing (one precondition, one effect), in
Prolog and in its ASP twin, with a test file holding both to two cases, a
scenario using it and plunit tests of the rule file in SWI-Prolog alone
(NAME.plt).  It passes ``lint``, ``test-op`` and ``check`` as
written, so every edit the author makes starts from a green state.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from grounded.authoring.cases import SUFFIX
from grounded.core.errors import InputError
from grounded.solvers.prolog import PrologRules, rules_dir

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")

PROLOG = '''\
% {name}.pl -- TODO: what {name} does, in one line (written by grounded new-op).

operation({name},
          "TODO: what {name} does, in one sentence (the docstring of the model {model}).",
          [ field(target, literal, required),
            field(text, text, optional)
          ]).

violation({name}, _, Op, {name}_not_standing, M) :-
    field(Op, target, T), \\+ stands(T),
    fmt(M, "~w is not in good standing: nothing to {name}", [T]).

effect({name}, U, Op, commit(S, A)) :-
    field(Op, target, T), speaker(U, S), standing_arg(T, A).

%  What {name} does to the map (docs/extending.md, transition/2): every declared one must fire.
transition({name}, commit).
'''

ASP = '''\
% {name}.lp -- the ASP twin of {name}.pl, read by grounded check and grounded test-op.
#program {name}(s).

violation(s, {name}_not_standing) :- field(s, target, T), not stands(s, T).

effect(s, commit(G, A)) :- field(s, target, T), speaker(s, G), standing_arg(s, T, A).
'''

TESTS = '''\
# {name}{suffix} -- cases for {name}.pl and its twin {name}.lp: grounded test-op {name}{suffix}
rules: {name}.pl
agents: {{ana: {{}}, ben: {{}}}}
cases:
  - name: ben applies {name} to what ana observed
    history:
      - {{speaker: ana, ops: [{{op: observe, claim: o1}}]}}
    utterance: {{speaker: ben, ops: [{{op: {op}, target: o1}}]}}
    effects: [commit(ben, o1)]
  - name: nothing stands
    utterance: {{speaker: ben, ops: [{{op: {op}, target: o1}}]}}
    violations: [{name}_not_standing]
'''

PLUNIT = '''\
/*  {name}.plt -- plunit tests of {name}.pl in SWI-Prolog alone (written by grounded new-op).

    swipl -g run_tests -t halt {name}.plt

    The rules' driver (the grounded package's prolog/grounded.pl) loads
    {name}.pl as grounded check does; each test says utterances to a fresh
    state and reads the driver's verdict: accepted(Effects, _), Effects a
    list of o(OpIndex, EffectsOfThatOp), or rejected([v(OpIndex, Op, Code,
    Message), ...]).
*/
:- use_module(library(plunit)).
:- use_module({driver!r}, []).

:- prolog_load_context(directory, Dir),
   atom_concat(Dir, '/{name}.pl', File),
   grounded:request(load_extension(File), true).

%  fresh: a new state with ana and ben, and nothing said yet.
fresh :-
    gensym({name}_state_, M),
    grounded:new_state(M, [agent(ana, false), agent(ben, false), arg_count(0)]),
    grounded:use_state(M).

say(Turn, Speaker, Ops, Result) :-
    grounded:apply_utterance(utterance(Turn, Speaker, Ops), false, Result).

:- begin_tests({name}).

test(commits_to_a_claim_in_good_standing) :-
    fresh,
    say(1, ana, [op(observe, [claim=o1])], accepted(_, _)),
    say(2, ben, [op({name}, [target=o1])], Result),
    assertion(Result = accepted(_, _)),
    Result = accepted(Effects, _),
    assertion(( memberchk(o(0, Mine), Effects), memberchk(commit(ben, 1), Mine) )).

test(nothing_stands) :-
    fresh,
    say(1, ben, [op({name}, [target=o1])], Result),
    assertion(Result = rejected([v(0, {name}, {name}_not_standing, _)])).

:- end_tests({name}).
'''

SCENARIO = '''\
# {name}.yaml -- a conversation using {name}: grounded run {name}.yaml -x {name}.pl
grounded: 1
agents: {{ana: {{}}, ben: {{}}}}
turns:
  - {{turn: 1, speaker: ana, ops: [{{op: observe, claim: o1}}]}}
  - turn: 2
    speaker: ben
    ops: [{{op: {op}, target: o1}}]
    expect:
      - commitments: {{ben: {{includes: [o1]}}}}
'''


def yaml_scalar(name: str) -> str:
    """``name`` as a YAML value that reads back as that string: quoted when YAML would read it as something
    else (``true``, ``no``, ``on``, ``null``: a boolean or nothing, which the test file's reader refuses)."""
    return name if yaml.safe_load(name) == name else json.dumps(name)


def new_op(name: str, directory: str | Path = ".") -> list[Path]:
    """Write NAME.pl, NAME.lp, NAME.test.yaml, NAME.yaml and NAME.plt in ``directory``; nothing is written
    if the name is not an operation name, is a built-in's, or any of the five files exists."""
    if not NAME.match(name):
        raise InputError(f"{name!r} is not an operation name: lower case letters, digits and _, "
                         "starting with a letter (at most 40)")
    if name in PrologRules.get().builtin_registry().specs:
        raise InputError(f"{name} is a built-in operation: choose another name")
    folder = Path(directory)
    files = {folder / f"{name}.pl": PROLOG, folder / f"{name}.lp": ASP, folder / f"{name}{SUFFIX}": TESTS,
             folder / f"{name}.yaml": SCENARIO, folder / f"{name}.plt": PLUNIT}
    if existing := [str(p) for p in files if p.exists()]:
        raise InputError(f"{existing[0]} exists: new-op writes new files only")
    folder.mkdir(parents=True, exist_ok=True)
    model = "".join(part.capitalize() for part in name.split("_"))
    for path, template in files.items():
        path.write_text(template.format(name=name, model=model, suffix=SUFFIX, op=yaml_scalar(name),
                                        driver=str(rules_dir() / "grounded")), encoding="utf-8")
    return list(files)
