/*  Question(chi): no epistemic update; chi joins the queue of open
    abductive problems until an argument explaining it is resolved.
*/

operation(question,
          "A speaker asks; the question stays an open problem until an answer is resolved.",
          [ field(claim, literal, required),
            field(text, text, optional)
          ]).

violation(question, _, Op, question_negated, M) :-
    field(Op, claim, -Q),
    fmt(M, "a question id cannot be negated: use ~w", [Q]).
violation(question, _, Op, question_exists, M) :-
    field(Op, claim, L), atom(L), kind_of(L, K),
    fmt(M, "~w is already a proposition (~w): give the question a fresh id", [L, K]).

effect(question, _, Op, new_prop(Q, question)) :-
    field(Op, claim, Q).
effect(question, _, Op, aware(Q)) :-
    field(Op, claim, Q).

%  The transitions question can emit on the map (an effect, or a standing change
%  From -> To); tests/test_transitions.py generates histories until each fires.
transition(question, new_prop).
transition(question, aware).
