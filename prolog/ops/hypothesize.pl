/*  Hypothesize(gamma, deps): a soft lexicographic upgrade [^gamma].  The
    abductive step of Definition A.2: there must be something surprising to
    explain, and gamma must be consistent and non-trivial.
*/

operation(hypothesize,
          "A speaker proposes an explanation resting on deps; it needs an open problem.",
          [ field(claim, literal, required),
            field(text, text, optional),
            field(deps, literals, required),
            field(explains, literals, optional)
          ]).

violation(hypothesize, _, Op, hypothesize_unaware, M) :-
    field(Op, claim, L), atom_of(L, P), latent(P),
    fmt(M, "~w is outside every agent's awareness: use Expand-Awareness first", [P]).
violation(hypothesize, _, Op, hypothesize_stands, M) :-
    field(Op, claim, L), once(standing_arg(L, A)), author(A, S), arg_turn(A, T),
    fmt(M, "~w already stands (~w at T~w): use Support to add evidence", [L, S, T]).
violation(hypothesize, _, Op, hypothesize_contradicted, M) :-
    field(Op, claim, L), negation(L, N), stands(N),
    fmt(M, "~w is inconsistent with ~w, which stands (Definition A.2, consistency)", [L, N]).
violation(hypothesize, _, Op, hypothesize_question, M) :-
    field(Op, claim, L), kind_of(L, question),
    fmt(M, "~w is a question, not an explanation: use Question", [L]).
violation(hypothesize, _, Op, hypothesize_dep_unknown, M) :-
    item(Op, deps, D), \+ known(D),
    fmt(M, "dep ~w is not a known proposition", [D]).
violation(hypothesize, _, Op, hypothesize_dep_self, M) :-
    field(Op, claim, L), field(Op, deps, Ds), memberchk(L, Ds),
    fmt(M, "~w cannot rest on itself", [L]).
violation(hypothesize, _, Op, hypothesize_explains_unknown, M) :-
    item(Op, explains, X), \+ known(X),
    fmt(M, "explains ~w, which is not a known proposition", [X]).
violation(hypothesize, _, Op, hypothesize_trivial, M) :-
    field(Op, claim, L), field(Op, explains, Xs), memberchk(L, Xs),
    fmt(M, "~w cannot explain itself (Definition A.2, non-triviality)", [L]).
violation(hypothesize, _, Op, hypothesize_nothing_to_explain, M) :-
    field(Op, explains, Xs, []),
    (   Xs == []
    ->  \+ some_open_problem,
        fmt(M, "there is no open problem, so nothing to explain: use Support or Observe", [])
    ;   forall(member(X, Xs), known(X)),
        \+ ( member(X, Xs), open_problem(X) ),
        fmt(M, "none of ~w is an open problem (each is settled: an explanation of it is resolved, or it left standing): use Support", [Xs])
    ).

%  Definition A.2, read in the world model when the conversation declares one.
%  The bridge passes, for the speaker i: consistent(B), novel(B), contingent(B)
%  and per modelled literal X in `explains` problem(X, Surprising,
%  Explanatory, Distinct) (see src/grounded/epistemic/abduction.py).
violation(hypothesize, _, Op, hypothesize_not_surprising, M) :-
    epistemic(Op, agent(I)), field(Op, claim, L),
    findall(X, epistemic(Op, problem(X, _, _, _)), Xs), Xs \== [],
    \+ epistemic(Op, problem(_, true, _, _)),
    (   Xs = [X]
    ->  fmt(M, "~w is not surprising: ~w believed it before it was observed, so ~w explains nothing new (Definition A.2, surprise)",
            [X, I, L])
    ;   fmt(M, "none of ~w is surprising: ~w believed each before it was observed (Definition A.2, surprise)", [Xs, I])
    ).
violation(hypothesize, _, Op, hypothesize_not_explanatory, M) :-
    epistemic(Op, agent(I)), field(Op, claim, L), epistemic(Op, problem(X, _, false, _)),
    fmt(M, "~w does not explain ~w: after upgrading with ~w, ~w still does not believe ~w (Definition A.2, explanatory)",
        [L, X, L, I, X]).
violation(hypothesize, _, Op, hypothesize_disbelieved, M) :-
    epistemic(Op, agent(I)), field(Op, claim, L), epistemic(Op, consistent(false)),
    negation(L, N),
    fmt(M, "~w believes ~w, so ~w is no candidate (Definition A.2, consistency)", [I, N, L]).
violation(hypothesize, _, Op, hypothesize_already_believed, M) :-
    epistemic(Op, agent(I)), field(Op, claim, L), epistemic(Op, novel(false)),
    fmt(M, "~w already believes ~w: there is nothing to abduce (Definition A.2, non-triviality)", [I, L]).
violation(hypothesize, _, Op, hypothesize_tautology, M) :-
    field(Op, claim, L), epistemic(Op, contingent(false)),
    fmt(M, "~w holds in every possible world, so it explains nothing (Definition A.2, non-triviality)", [L]).
violation(hypothesize, _, Op, hypothesize_restates, M) :-
    field(Op, claim, L), epistemic(Op, problem(X, _, _, false)),
    fmt(M, "~w says no more than ~w, the observation it would explain (Definition A.2, non-triviality)", [L, X]).

effect(hypothesize, U, Op, E) :-
    introduces(U, Op, hypothesis, E).
effect(hypothesize, _, Op, add_dep(new, D)) :-
    item(Op, deps, D).
effect(hypothesize, _, Op, add_explains(new, X)) :-
    item(Op, explains, X).
%  M: Definition A.2 is read for gamma (the bridge answers with the verdicts
%  above), then [^gamma]: gamma enters as belief, not knowledge.
effect(hypothesize, _, Op, abduce(L)) :-
    world_model, field(Op, claim, L).
effect(hypothesize, _, Op, upgrade(L, lexicographic)) :-
    world_model, field(Op, claim, L).

%  The transitions hypothesize can emit on the map (an effect, or a standing change
%  From -> To); tests/test_transitions.py generates histories until each fires.
transition(hypothesize, new_prop).
transition(hypothesize, aware).
transition(hypothesize, new_arg).
transition(hypothesize, commit).
transition(hypothesize, add_dep).
transition(hypothesize, add_explains).
