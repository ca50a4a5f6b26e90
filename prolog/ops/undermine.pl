/*  Undermine(gamma, e): a plausibility downgrade of gamma.  The argument
    voicing e attacks gamma's current arguments, and those in good standing
    become weakened (Lemma 2.4: attacked arguments leave S_t).
*/

operation(undermine,
          "A speaker brings evidence `by` against `target`; the target is weakened.",
          [ field(target, literal, required),
            field(by, literal, required),
            field(text, text, optional)
          ]).

violation(undermine, _, Op, undermine_target_unknown, M) :-
    field(Op, target, T), \+ claimed(T),
    fmt(M, "no argument claims ~w, so there is nothing to undermine", [T]).
violation(undermine, _, Op, undermine_target_abandoned, M) :-
    field(Op, target, T), all_abandoned(T), standing_note(T, Note),
    fmt(M, "~w is already ~w: it is no longer believed, so there is nothing to undermine", [T, Note]).
violation(undermine, _, Op, undermine_by_unknown, M) :-
    field(Op, by, E), \+ claimed(E),
    fmt(M, "evidence ~w is not claimed by any argument: Observe it first", [E]).
violation(undermine, _, Op, undermine_by_abandoned, M) :-
    field(Op, by, E), all_abandoned(E), standing_note(E, Note),
    fmt(M, "evidence ~w is ~w and cannot undermine anything", [E, Note]).
violation(undermine, _, Op, undermine_self, M) :-
    field(Op, target, T), field(Op, by, T),
    fmt(M, "~w cannot undermine itself", [T]).
violation(undermine, _, Op, undermine_redundant, M) :-
    field(Op, target, T), field(Op, by, E),
    claimed(T), claimed(E), \+ all_abandoned(T),
    speaks_for(B, E),
    forall(current_arg(T, A), attacks(B, A)),
    fmt(M, "~w already attacks ~w: nothing changes", [E, T]).

effect(undermine, _, Op, add_attack(B, A)) :-
    field(Op, target, T), field(Op, by, E),
    speaks_for(B, E), current_arg(T, A).
effect(undermine, _, Op, set_standing(A, weakened, by(E))) :-
    field(Op, target, T), field(Op, by, E),
    current_arg(T, A), in_standing(A).
effect(undermine, U, Op, commit(S, B)) :-
    field(Op, by, E), speaker(U, S), speaks_for(B, E).
%  M: [^~gamma], a downgrade of gamma: its worlds stay possible, no longer believed.
effect(undermine, _, Op, upgrade(N, lexicographic)) :-
    world_model, field(Op, target, T), negation(T, N).

%  The transitions undermine can emit on the map (an effect, or a standing change
%  From -> To); tests/test_transitions.py generates histories until each fires.
transition(undermine, add_attack).
transition(undermine, set_standing(active, weakened)).
transition(undermine, set_standing(resolved, weakened)).
transition(undermine, commit).
