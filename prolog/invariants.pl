/*  invariants.pl -- what every operation, built in or added, must preserve.

    The driver checks these after applying an operation's effects, so an
    extension whose rules would break the paper's guarantees is rejected with
    the same kind of message as a failed precondition, and nothing applies.
*/

%  Lemma 2.4 (standing invariant): standing only ever goes down, except that
%  an active argument may be resolved.  Weakened and abandoned arguments
%  never return to S_t; the engine reports them as reinstatable instead.
standing_rank(active, 2).
standing_rank(resolved, 2).
standing_rank(weakened, 1).
standing_rank(abandoned, 0).

standing_may_change(active, resolved).
standing_may_change(Old, New) :-
    standing_rank(Old, RO),
    standing_rank(New, RN),
    RN < RO.

%  broken_invariant(+Effect, -Code, -Message), read after the effects of
%  one operation are applied.
broken_invariant(add_attack(_, T), attack_on_standing, M) :-
    in_standing(T),
    claims(T, L), standing_of(T, S),
    fmt(M, "argument ~w (~w) is attacked yet stays ~w: an attack must take its target out of standing (Lemma 2.4)",
        [T, L, S]).
broken_invariant(set_standing(A, S, _), attack_on_standing, M) :-
    good_standing(S), once(att(B, A)),
    claims(A, L), claims(B, E),
    fmt(M, "argument ~w (~w) cannot be ~w while ~w attacks it (Lemma 2.4)", [A, L, S, E]).
broken_invariant(add_attack(F, T), attack_cycle, M) :-
    option(acyclic_attacks),
    reaches(attack_step, T, F),
    claims(F, LF), claims(T, LT),
    fmt(M, "~w attacking ~w would close a cycle in the attack graph (restriction A2: attacks stay acyclic)",
        [LF, LT]).
broken_invariant(add_dep(A, D), dep_cycle, M) :-
    claims(A, L),
    reaches(depends_step, D, L),
    fmt(M, "~w resting on ~w would be circular: ~w already rests on ~w", [L, D, D, L]).

%  The step relations reaches/3 walks for A2 and for acyclic Dep: a claim
%  depends on the literals in the Dep of any argument for it.
attack_step(X, Y) :- att(X, Y).
depends_step(Claim, Literal) :- argument(A, Claim, _, _, _), dep(A, Literal).

%  The global form of Lemma 2.4, for tests and `grounded check`.
standing_invariant_holds :-
    \+ ( att(_, A), in_standing(A) ).
