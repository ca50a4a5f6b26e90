/*  queries.pl -- Verify and Affected* over the rules' own state.

    The runtime answers these in Python over a reverse index; these rules
    compute the same things directly from the facts, so `grounded check` can
    hold Python, Prolog and ASP equal.  Not on the hot path.
*/

%  grounded_args(-Args): the least fixpoint of DESIGN.md section 2, by rounds:
%  an argument in S_t is grounded once every Dep literal is established.
grounded_args(Args) :-
    findall(A, in_standing(A), Candidates),
    rb_empty(E0),
    ground_rounds(Candidates, E0, [], Args0),
    sort(Args0, Args).

ground_rounds(Candidates, Est, Done, Args) :-
    partition(ready(Est), Candidates, New, Rest),
    (   New == []
    ->  Args = Done
    ;   foldl(establish, New, Est, Est1),
        append(Done, New, Done1),
        ground_rounds(Rest, Est1, Done1, Args)
    ).

ready(Est, A) :- forall(dep(A, L), rb_lookup(L, _, Est)).

establish(A, Est0, Est) :-
    claims(A, L),
    (   rb_lookup(L, _, Est0) -> Est = Est0 ; rb_insert_new(Est0, L, true, Est) ).

%  affected(+P, -Pairs): Affected*(P) as Arg-Hop pairs (Definition 2.3, by
%  rounds: hop 1 is one-step Affected).
affected(P, Pairs) :-
    findall(A, dep(A, P), X0s), sort(X0s, X0),
    rb_empty(Seen0),
    foldl(mark(1), X0, Seen0, Seen1),
    affected_rounds(X0, 1, [P], Seen1, Seen),
    rb_visit(Seen, Pairs).

affected_rounds([], _, _, Seen, Seen) :- !.
affected_rounds(Frontier, K, Claims0, Seen0, Seen) :-
    findall(C, (member(A, Frontier), claims(A, C), \+ memberchk(C, Claims0)), Cs0),
    sort(Cs0, Cs),
    append(Claims0, Cs, Claims),
    findall(B, (member(C, Cs), dep(B, C), \+ rb_lookup(B, _, Seen0)), Bs0),
    sort(Bs0, Bs),
    K1 is K + 1,
    foldl(mark(K1), Bs, Seen0, Seen1),
    affected_rounds(Bs, K1, Claims, Seen1, Seen).

mark(K, A, Seen0, Seen) :- rb_insert_new(Seen0, A, K, Seen).

%  query_answers(-Grounded, -Affected): the grounded arguments, sorted, and
%  a(P, Arg, Hop) for Affected*(P) of every literal P some Dep holds.
query_answers(Grounded, Affected) :-
    grounded_args(Grounded),
    findall(P, dep(_, P), Ps0), sort(Ps0, Ps),
    findall(a(P, A, K), ( member(P, Ps), affected(P, Pairs), member(A-K, Pairs) ), Affected).

%  query(?Name): the queries of src/grounded/queries/registry.py the rules answer as
%  Name(?Arg), asked as ask(Name, State) (prolog/grounded.pl): `grounded check`
%  holds the answer equal to the registry's Python walk and to ASP.  A new
%  query of that kind is one query/1 fact here beside its rule.
query(reinstatable).

%  reinstatable(?A): A is out of S_t, has an attacker, and every attacker has
%  left S_t.  Reported, never reinstated (Lemma 2.4).
reinstatable(A) :-
    standing(A, S, _, _), \+ good_standing(S),
    once(att(_, A)),
    \+ ( att(B, A), in_standing(B) ).
