% merge.pl -- two competing hypotheses for one observation become one.

operation(merge,
          "Two hypotheses in good standing that explain the same observation become one new hypothesis resting on what both rested on.",
          [ field(claim, literal, required),
            field(first, literal, required),
            field(second, literal, required),
            field(text, text, optional)
          ]).

%  merge_part(Op, L): L is one of the two hypotheses merged.
merge_part(Op, L) :- field(Op, first, L).
merge_part(Op, L) :- field(Op, second, L).

%  merge_arg(Op, A): an argument in good standing for one of them.
merge_arg(Op, A) :- merge_part(Op, L), standing_arg(L, A).

%  merge_shares(Op): some observation is explained by both.
merge_shares(Op) :-
    field(Op, first, F), field(Op, second, G),
    standing_arg(F, A), explains(A, X), kind_of(X, observation),
    standing_arg(G, B), explains(B, X), !.

violation(merge, _, Op, merge_part_unknown, M) :-
    merge_part(Op, Part), \+ claimed(Part),
    fmt(M, "no argument claims ~w, so there is nothing to merge", [Part]).
violation(merge, _, Op, merge_same, M) :-
    field(Op, first, L), field(Op, second, L),
    fmt(M, "~w cannot be merged with itself", [L]).
violation(merge, _, Op, merge_not_hypothesis, M) :-
    merge_part(Op, Part), claimed(Part), kind_of(Part, K), K \== hypothesis,
    fmt(M, "~w is a ~w, not a hypothesis", [Part, K]).
violation(merge, _, Op, merge_not_standing, M) :-
    merge_part(Op, Part), claimed(Part), \+ stands(Part), standing_note(Part, Standing),
    fmt(M, "~w is ~w, not in good standing: nothing to merge", [Part, Standing]).
violation(merge, _, Op, merge_settled, M) :-
    merge_part(Op, Part), once(( standing_arg(Part, A), standing_of(A, resolved) )),
    fmt(M, "~w is resolved: it settles what it explains, and a merge would reopen that", [Part]).
violation(merge, _, Op, merge_nothing_shared, M) :-
    field(Op, first, F), field(Op, second, G), stands(F), stands(G),
    kind_of(F, hypothesis), kind_of(G, hypothesis), \+ merge_shares(Op),
    fmt(M, "~w and ~w explain no observation in common: they do not compete, so there is nothing to merge", [F, G]).
violation(merge, _, Op, merge_claim_stands, M) :-
    field(Op, claim, C), stands(C),
    fmt(M, "~w already stands: merge into a new claim", [C]).
violation(merge, _, Op, merge_claim_kind, M) :-
    field(Op, claim, C), kind_of(C, K), K \== hypothesis,
    fmt(M, "~w is a ~w: a merge yields a hypothesis", [C, K]).
violation(merge, _, Op, merge_claim_contradicted, M) :-
    field(Op, claim, C), negation(C, N), stands(N),
    fmt(M, "~w is inconsistent with ~w, which stands", [C, N]).

%  The new hypothesis: its Dep is the union of the two Deps (less the two
%  merged claims themselves), it explains what either explained, and the
%  speaker commits to it.
effect(merge, U, Op, E) :-
    introduces(U, Op, hypothesis, E).
effect(merge, _, Op, add_dep(new, D)) :-
    merge_arg(Op, A), rests_on(A, D), \+ merge_part(Op, D).
effect(merge, _, Op, add_explains(new, X)) :-
    merge_arg(Op, A), explains(A, X).
%  The two old ones are abandoned, by the merged claim; the speaker's own
%  commitment to them is released.
effect(merge, _, Op, set_standing(A, abandoned, by(C))) :-
    field(Op, claim, C), merge_arg(Op, A).
effect(merge, U, Op, retract_commitment(S, A)) :-
    merge_arg(Op, A), speaker(U, S).

%  The transitions merge can emit (tests/test_transitions.py sees each fire).
transition(merge, new_prop).
transition(merge, aware).
transition(merge, new_arg).
transition(merge, commit).
transition(merge, add_dep).
transition(merge, add_explains).
transition(merge, set_standing(active, abandoned)).
transition(merge, retract_commitment).
