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
