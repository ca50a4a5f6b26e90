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
    field(Op, claim, L), once(( standing_arg(L, A), argument(A, L, _, S, T) )),
    fmt(M, "~w already stands (~w at T~w): use Support to add evidence", [L, S, T]).
violation(hypothesize, _, Op, hypothesize_contradicted, M) :-
    field(Op, claim, L), negation(L, N), stands(N),
    fmt(M, "~w is inconsistent with ~w, which stands (Definition A.2, consistency)", [L, N]).
violation(hypothesize, _, Op, hypothesize_question, M) :-
    field(Op, claim, L), kind_of(L, question),
    fmt(M, "~w is a question, not an explanation: use Question", [L]).
violation(hypothesize, _, Op, hypothesize_dep_unknown, M) :-
    field(Op, deps, Ds), member(D, Ds), \+ known(D),
    fmt(M, "dep ~w is not a known proposition", [D]).
violation(hypothesize, _, Op, hypothesize_dep_self, M) :-
    field(Op, claim, L), field(Op, deps, Ds), memberchk(L, Ds),
    fmt(M, "~w cannot rest on itself", [L]).
violation(hypothesize, _, Op, hypothesize_explains_unknown, M) :-
    field(Op, explains, Xs), member(X, Xs), \+ known(X),
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
        fmt(M, "none of ~w is an open problem (each is explained or settled): use Support", [Xs])
    ).

effect(hypothesize, U, Op, E) :-
    introduces(U, Op, hypothesis, E).
effect(hypothesize, _, Op, add_dep(new, D)) :-
    field(Op, deps, Ds), member(D, Ds).
effect(hypothesize, _, Op, add_explains(new, X)) :-
    field(Op, explains, Xs), member(X, Xs).
