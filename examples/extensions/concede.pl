% concede.pl -- a speaker accepts a claim in good standing and commits to it.

operation(concede,
          "A speaker accepts a claim in good standing, without evidence, and commits to it.",
          [ field(target, literal, required),
            field(text, text, optional)
          ]).

violation(concede, _, Op, concede_not_standing, M) :-
    field(Op, target, T), \+ stands(T),
    fmt(M, "~w is not in good standing, so there is nothing to concede", [T]).
violation(concede, U, Op, concede_redundant, M) :-
    field(Op, target, T), stands(T), speaker(U, S),
    forall(standing_arg(T, A), committed(S, A)),
    fmt(M, "~w is already committed to ~w", [S, T]).

effect(concede, U, Op, commit(S, A)) :-
    field(Op, target, T), speaker(U, S), standing_arg(T, A).

%  What concede does to the map: tests/test_transitions.py sees each fire.
transition(concede, commit).
