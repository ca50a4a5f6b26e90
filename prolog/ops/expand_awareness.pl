/*  Expand-Awareness(p): p joins every agent's awareness set and the world
    set is refined on it.  Like Observe it records an argument for p with
    empty Dep, so continuations asserting p are grounded ("awareness leaves").
*/

operation(expand_awareness,
          "A proposition nobody was aware of enters every agent's awareness.",
          [ field(claim, literal, required),
            field(text, text, optional)
          ]).

violation(expand_awareness, _, Op, expand_awareness_already_aware, M) :-
    field(Op, claim, L), atom_of(L, P), aware(P),
    fmt(M, "~w is already in every agent's awareness: use Observe", [P]).

effect(expand_awareness, U, Op, E) :-
    introduces(U, Op, observation, E).
%  M: refine W on the new atom (Definition A.3), then, since the speaker
%  asserts it as Observe would, [!p] (Phase 2 T4: C(mis_monitor)).
effect(expand_awareness, _, Op, refine(P)) :-
    world_model, field(Op, claim, L), atom_of(L, P).
effect(expand_awareness, _, Op, announce(L)) :-
    world_model, field(Op, claim, L).

%  The transitions expand_awareness can emit on the map (an effect, or a standing change
%  From -> To); tests/test_transitions.py generates histories until each fires.
transition(expand_awareness, new_prop).
transition(expand_awareness, aware).
transition(expand_awareness, new_arg).
transition(expand_awareness, commit).
