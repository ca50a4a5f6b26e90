/*  Revise(gamma): the speaker explicitly retracts or contradicts gamma
    ([!~gamma], or an attack edge).  Every argument for gamma is abandoned;
    arguments resting on gamma keep their standing but stop being grounded,
    and Affected*(gamma) names them.
*/

operation(revise,
          "A speaker explicitly retracts or contradicts a claim; its arguments are abandoned.",
          [ field(target, literal, required),
            field(by, literal, optional),
            field(text, text, optional)
          ]).

violation(revise, _, Op, revise_target_unknown, M) :-
    field(Op, target, T), \+ claimed(T),
    fmt(M, "no argument claims ~w, so there is nothing to revise", [T]).
violation(revise, _, Op, revise_by_unknown, M) :-
    field(Op, by, E), \+ claimed(E),
    fmt(M, "revised by ~w, but no argument claims ~w", [E, E]).
violation(revise, _, Op, revise_self, M) :-
    field(Op, target, T), field(Op, by, T),
    fmt(M, "~w cannot revise itself", [T]).
violation(revise, _, Op, revise_already_abandoned, M) :-
    field(Op, target, T), all_abandoned(T),
    \+ ( field(Op, by, E), claimed(E), speaks_for(B, E),
         claims(A, T), \+ attacks(B, A) ),
    standing_note(T, Note),
    fmt(M, "~w is already ~w: nothing left to revise", [T, Note]).

%  The effects of a retraction (retraction_effect/5 in prolog/vocabulary.pl,
%  shared with Observe's `supersedes`), attacked by the voice of `by` if given.
effect(revise, U, Op, E) :-
    field(Op, target, T),
    (   field(Op, by, By) -> speaks_for(B, By), Cause = by(By)
    ;   B = none, Cause = none
    ),
    retraction_effect(U, T, B, Cause, E).

%  The transitions revise can emit on the map (an effect, or a standing change
%  From -> To); tests/test_transitions.py generates histories until each fires.
transition(revise, set_standing(active, abandoned)).
transition(revise, set_standing(weakened, abandoned)).
transition(revise, set_standing(resolved, abandoned)).
transition(revise, add_attack).
transition(revise, retract_commitment).
