% concur.pl -- an agent takes on another's hypothesis, and what it rests on.

operation(concur,
          "An agent takes on another agent's hypothesis in good standing: commits to it and to what it rests on.",
          [ field(target, literal, required),
            field(text, text, optional)
          ]).

%  concur_basis(Op, B): an argument in good standing for a claim the target rests on.
concur_basis(Op, B) :-
    field(Op, target, T), standing_arg(T, A), rests_on(A, D), standing_arg(D, B).

violation(concur, _, Op, concur_unknown, M) :-
    field(Op, target, T), \+ claimed(T),
    fmt(M, "no argument claims ~w, so there is nothing to concur with", [T]).
violation(concur, _, Op, concur_not_hypothesis, M) :-
    field(Op, target, T), claimed(T), kind_of(T, K), K \== hypothesis,
    fmt(M, "~w is a ~w: concur takes on a hypothesis (use Support to back anything else)", [T, K]).
violation(concur, _, Op, concur_not_standing, M) :-
    field(Op, target, T), claimed(T), \+ stands(T), standing_note(T, Note),
    fmt(M, "~w is ~w: there is nothing in good standing to concur with", [T, Note]).
violation(concur, U, Op, concur_own, M) :-
    field(Op, target, T), speaker(U, S), once(( standing_arg(T, A), author(A, S) )),
    fmt(M, "~w proposed ~w: one concurs with someone else's hypothesis", [S, T]).

%  The speaker commits to the hypothesis and to every argument in good
%  standing for what it rests on (the driver drops commitments already held).
effect(concur, U, Op, commit(S, A)) :-
    field(Op, target, T), speaker(U, S), standing_arg(T, A).
effect(concur, U, Op, commit(S, B)) :-
    speaker(U, S), concur_basis(Op, B).

%  What concur does to the map: tests/test_transitions.py sees it fire.
transition(concur, commit).
