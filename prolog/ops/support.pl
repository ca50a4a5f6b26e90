/*  Support(gamma, e): a conservative or lexicographic upgrade of gamma.  e
    joins Dep of gamma's current arguments and the speaker commits to them.
    Support records evidence; it never returns a weakened argument to S_t.
*/

operation(support,
          "A speaker brings evidence `by` for `target`; `by` joins the target's Dep.",
          [ field(target, literal, required),
            field(by, literal, required),
            field(text, text, optional)
          ]).

violation(support, _, Op, support_target_unknown, M) :-
    field(Op, target, T), \+ claimed(T),
    fmt(M, "no argument claims ~w, so there is nothing to support", [T]).
violation(support, _, Op, support_target_abandoned, M) :-
    field(Op, target, T), all_abandoned(T), standing_note(T, Note),
    fmt(M, "~w is ~w: re-establish it with Hypothesize instead of supporting it", [T, Note]).
violation(support, _, Op, support_by_unknown, M) :-
    field(Op, by, E), \+ claimed(E),
    fmt(M, "evidence ~w is not claimed by any argument: Observe it first", [E]).
%  Evidence must itself be in S_t: the paper's Support takes "new evidence
%  compatible with gamma", and a claim that was abandoned or weakened is no
%  longer evidence anybody holds.  Supporting with it would add to Dep a
%  literal outside S_t, so the target would leave S_t's grounding at once
%  while the map showed a fresh commitment.
violation(support, _, Op, support_by_out_of_standing, M) :-
    field(Op, target, T), field(Op, by, E), claimed(E), \+ stands(E), standing_note(E, Note),
    fmt(M, "evidence ~w is ~w, out of standing: Support takes new evidence compatible with ~w, and evidence no longer in S_t is not (re-establish ~w first)",
        [E, Note, T, E]).
violation(support, _, Op, support_self, M) :-
    field(Op, target, T), field(Op, by, T),
    fmt(M, "~w cannot support itself", [T]).
violation(support, _, Op, support_contradicts, M) :-
    field(Op, target, T), field(Op, by, E),
    (   negation(T, E)
    ->  fmt(M, "~w is the negation of ~w and cannot support it", [E, T])
    ;   claims(B, E), claims(A, T), attacks(B, A)
    ->  fmt(M, "~w attacks ~w, so it cannot also support it", [E, T])
    ).
violation(support, U, Op, support_redundant, M) :-
    field(Op, target, T), field(Op, by, E), speaker(U, S),
    claimed(T), \+ all_abandoned(T),
    forall(current_arg(T, A), (rests_on(A, E), committed(S, A))),
    fmt(M, "~w already rests on ~w and ~w is already committed to it", [T, E, S]).

effect(support, _, Op, add_dep(A, E)) :-
    field(Op, target, T), field(Op, by, E), current_arg(T, A).
effect(support, U, Op, commit(S, A)) :-
    field(Op, target, T), speaker(U, S), current_arg(T, A).
%  M: [up gamma], or [^gamma] when the evidence is gamma-specific: something
%  gamma was proposed to explain (an argument for gamma explains it).
effect(support, _, Op, upgrade(T, Mode)) :-
    world_model, field(Op, target, T), field(Op, by, E),
    (   current_arg(T, A), explains(A, E) -> Mode = lexicographic ; Mode = conservative ).

%  The transitions support can emit on the map (an effect, or a standing change
%  From -> To); tests/test_transitions.py generates histories until each fires.
transition(support, add_dep).
transition(support, commit).
