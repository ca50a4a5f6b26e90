"""``grounded new-op NAME``: the four files of a new operation, ready to be filled in.

The skeleton is a working operation, not a template with holes: the speaker
commits to a claim in good standing (one precondition, one effect), in
Prolog and in its ASP twin, with a test file holding both to two cases and
a scenario using it.  It passes ``lint``, ``test-op`` and ``check`` as
written, so every edit the author makes starts from a green state.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from grounded.authoring.cases import SUFFIX
from grounded.core.errors import InputError
from grounded.solvers.prolog import PrologRules

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
    """Write NAME.pl, NAME.lp, NAME.test.yaml and NAME.yaml in ``directory``; nothing is written if
    the name is not an operation name, is a built-in's, or any of the four files exists."""
    if not NAME.match(name):
        raise InputError(f"{name!r} is not an operation name: lower case letters, digits and _, "
                         "starting with a letter (at most 40)")
    if name in PrologRules.get().builtin_registry().specs:
        raise InputError(f"{name} is a built-in operation: choose another name")
    folder = Path(directory)
    files = {folder / f"{name}.pl": PROLOG, folder / f"{name}.lp": ASP, folder / f"{name}{SUFFIX}": TESTS,
             folder / f"{name}.yaml": SCENARIO}
    if existing := [str(p) for p in files if p.exists()]:
        raise InputError(f"{existing[0]} exists: new-op writes new files only")
    folder.mkdir(parents=True, exist_ok=True)
    model = "".join(part.capitalize() for part in name.split("_"))
    for path, template in files.items():
        path.write_text(template.format(name=name, model=model, suffix=SUFFIX, op=yaml_scalar(name)), encoding="utf-8")
    return list(files)
