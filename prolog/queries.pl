/*  queries.pl -- Verify and Affected* over the rules' own state.

    The runtime answers these in Python over a reverse index; these rules
    compute the same things directly from the facts, so `grounded check` can
    hold Python, Prolog and ASP equal.  Not on the hot path.
*/
:- module(queries,
          [ grounded_args/1,
            affected/2,
            query_answers/2,
            query/1,
            reinstatable/1
          ]).

:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(library(rbtrees)).
:- use_module(state).
:- use_module(vocabulary).

%!  grounded_args(-Args:list) is det.
%
%   Args is the least fixpoint of DESIGN.md section 2, sorted: an
%  argument in S_t is grounded once every Dep literal is established (claimed
%  by a grounded argument).  A work list, as in a topological sort: each
%  candidate counts the Dep literals it still waits for, and establishing a
%  literal wakes the candidates waiting on it, so every Dep pair is looked at
%  once (a Dep chain of n arguments costs O(n log n), where re-scanning the
%  candidates round by round cost O(n^2)).
grounded_args(Args) :-
    findall(A, in_standing(A), Candidates),
    rb_empty(E),
    foldl(wait_on_deps, Candidates, E-E-[], Waiting-Counts-Ready),
    establish_all(Ready, Waiting, Counts, E, [], Args0),
    sort(Args0, Args).

%  wait_on_deps(+A, +W0-C0-R0, -W-C-R): A's distinct Dep literals, each
%  mapped to the candidates waiting on it (W), A's count of them (C), and A
%  in the ready list (R) when it rests on nothing.
wait_on_deps(A, W0-C0-R0, W-C-R) :-
    findall(L, dep(A, L), Ls0), sort(Ls0, Ls),
    length(Ls, N),
    (   N =:= 0
    ->  W = W0, C = C0, R = [A|R0]
    ;   foldl(waiter(A), Ls, W0, W), rb_insert_new(C0, A, N, C), R = R0
    ).

waiter(A, L, W0, W) :-
    (   rb_update(W0, L, As, [A|As], W1) -> W = W1 ; rb_insert_new(W0, L, [A], W) ).

establish_all([], _, _, _, Done, Done).
establish_all([A|Ready], Waiting, Counts, Est, Done, Args) :-
    claims(A, L),
    (   rb_lookup(L, _, Est)
    ->  establish_all(Ready, Waiting, Counts, Est, [A|Done], Args)
    ;   rb_insert_new(Est, L, true, Est1),
        (   rb_lookup(L, Woken, Waiting) -> true ; Woken = [] ),
        foldl(wake, Woken, Counts-Ready, Counts1-Ready1),
        establish_all(Ready1, Waiting, Counts1, Est1, [A|Done], Args)
    ).

wake(A, C0-R0, C-R) :-
    rb_update(C0, A, N0, N, C),
    N is N0 - 1,
    (   N =:= 0 -> R = [A|R0] ; R = R0 ).

%!  affected(+P, -Pairs:list) is det.
%
%   Pairs is Affected*(P) as Arg-Hop pairs (Definition 2.3, by rounds: hop
%   1 is one-step Affected).
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

%!  query_answers(-Grounded:list, -Affected:list) is det.
%
%   Grounded is the grounded arguments, sorted, and Affected holds
%   a(P, Arg, Hop) for Affected*(P) of every literal P some Dep holds.
query_answers(Grounded, Affected) :-
    grounded_args(Grounded),
    findall(P, dep(_, P), Ps0), sort(Ps0, Ps),
    findall(a(P, A, K), ( member(P, Ps), affected(P, Pairs), member(A-K, Pairs) ), Affected).

%!  query(?Name) is nondet.
%
%   The queries of src/grounded/queries/registry.py the rules answer as
%  Name(?Arg), asked as ask(Name, State) (prolog/grounded.pl): `grounded check`
%  holds the answer equal to the registry's Python walk and to ASP.  A new
%  query of that kind is one query/1 fact here beside its rule.
query(reinstatable).

%!  reinstatable(?A) is nondet.
%
%   A is out of S_t, has an attacker, and every attacker has left S_t.
%   Reported, never reinstated (Lemma 2.4).
reinstatable(A) :-
    standing(A, S, _, _), \+ good_standing(S),
    once(att(_, A)),
    \+ ( att(B, A), in_standing(B) ).
