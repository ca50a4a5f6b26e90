/*  Resolve(gamma): consensual when gamma stands and nobody is committed to
    an argument attacking it, a hard announcement [!gamma]; otherwise
    authoritative, which needs a speaker with decision authority and records
    a decision argument (Dep = the stated assumptions) with its dissenters.
    `subsumes` adds gamma to the Dep of each subsumed claim (the paper's
    schema fix for Phase 2 T13).
*/

operation(resolve,
          "A claim is settled, by consensus or by an agent with decision authority.",
          [ field(target, literal, required),
            field(subsumes, literals, optional),
            field(claim, literal, optional),
            field(text, text, optional),
            field(assumptions, literals, optional)
          ]).

%  dissenter(T, G): G is committed to an argument attacking an argument for T.
dissenter(T, G) :-
    claims(A, T), opposes(G, A).

consensual(T) :-
    stands(T), \+ dissenter(T, _).

%  decision_claim(+Op, -D): the decision argument this Resolve records: the
%  given claim, or a fresh id when the resolve is authoritative.
decision_claim(Op, D) :-
    (   field(Op, claim, D0)
    ->  D = D0
    ;   field(Op, target, T), claimed(T), \+ consensual(T),
        atom_of(T, P), atom_concat(decide_, P, Base),
        fresh_id(Base, D)
    ).

why_authoritative(T, Why) :-
    (   \+ stands(T)
    ->  standing_note(T, Note), fmt(Why, "~w is ~w", [T, Note])
    ;   findall(G, dissenter(T, G), Gs0), sort(Gs0, Gs),
        fmt(Why, "~w committed to arguments attacking ~w", [Gs, T])
    ).

violation(resolve, _, Op, resolve_target_unknown, M) :-
    field(Op, target, T), \+ claimed(T),
    fmt(M, "no argument claims ~w, so there is nothing to resolve", [T]).
violation(resolve, _, Op, resolve_target_abandoned, M) :-
    field(Op, target, T), all_abandoned(T), standing_note(T, Note),
    fmt(M, "~w is ~w and cannot be resolved", [T, Note]).
violation(resolve, U, Op, resolve_no_authority, M) :-
    field(Op, target, T), claimed(T), \+ all_abandoned(T), \+ consensual(T),
    speaker(U, S), \+ has_authority(S),
    why_authoritative(T, Why),
    fmt(M, "resolving ~w is authoritative (~w) and ~w has no decision authority", [T, Why, S]).
violation(resolve, _, Op, resolve_claim_exists, M) :-
    field(Op, claim, D), known(D),
    fmt(M, "decision id ~w is already in use", [D]).
violation(resolve, _, Op, resolve_assumption_unknown, M) :-
    item(Op, assumptions, X), \+ known(X),
    fmt(M, "assumption ~w is not a known proposition", [X]).
violation(resolve, _, Op, resolve_subsumes_unknown, M) :-
    item(Op, subsumes, B), \+ claimed(B),
    fmt(M, "subsumes ~w, but no argument claims ~w", [B, B]).
violation(resolve, _, Op, resolve_subsumes_self, M) :-
    field(Op, target, T), field(Op, subsumes, Bs), memberchk(T, Bs),
    fmt(M, "~w cannot subsume itself", [T]).
violation(resolve, _, Op, resolve_redundant, M) :-
    field(Op, target, T), consensual(T),
    \+ ( standing_arg(T, A), standing_of(A, active) ),
    field(Op, subsumes, [], []), \+ field(Op, claim, _),
    fmt(M, "~w is already resolved", [T]).

effect(resolve, _, Op, set_standing(A, resolved, none)) :-
    field(Op, target, T), standing_arg(T, A), standing_of(A, active).
effect(resolve, _, Op, new_prop(P, decision)) :-
    decision_claim(Op, D), atom_of(D, P).
effect(resolve, _, Op, aware(P)) :-
    decision_claim(Op, D), atom_of(D, P).
effect(resolve, _, Op, new_arg(D, decision)) :-
    decision_claim(Op, D).
effect(resolve, _, Op, set_standing(new, resolved, none)) :-
    decision_claim(Op, _).
effect(resolve, _, Op, add_dep(new, X)) :-
    decision_claim(Op, _), item(Op, assumptions, X).
effect(resolve, _, Op, add_explains(new, X)) :-
    decision_claim(Op, _), field(Op, target, T), claims(A, T), explains(A, X).
effect(resolve, U, Op, commit(S, new)) :-
    decision_claim(Op, _), speaker(U, S).
effect(resolve, U, Op, dissent(new, G)) :-
    decision_claim(Op, _), field(Op, target, T), speaker(U, S),
    dissenter(T, G), G \== S.
effect(resolve, _, Op, add_dep(A, T)) :-
    field(Op, target, T), item(Op, subsumes, B),
    claims(A, B), \+ standing_of(A, abandoned).
%  M: consensual [!gamma]; an authoritative decision announces nothing.
effect(resolve, _, Op, announce(T)) :-
    world_model, field(Op, target, T), consensual(T).

%  The transitions resolve can emit on the map (an effect, or a standing change
%  From -> To); tests/test_transitions.py generates histories until each fires.
transition(resolve, set_standing(active, resolved)).
transition(resolve, new_prop).
transition(resolve, aware).
transition(resolve, new_arg).
transition(resolve, add_dep).
transition(resolve, add_explains).
transition(resolve, commit).
transition(resolve, dissent).
