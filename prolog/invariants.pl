/*  invariants.pl -- what every operation, built in or added, must preserve.

    The driver checks these after applying an operation's effects, so an
    extension whose rules would break the paper's guarantees is rejected with
    the same kind of message as a failed precondition, and nothing applies.
*/
:- module(invariants,
          [ broken_invariant/3,
            standing_may_change/2,
            standing_invariant_holds/0,
            edge_added/3,
            rebuild_levels/0
          ]).

:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(library(pairs)).
:- use_module(library(rbtrees)).
:- use_module(library(error)).
:- use_module(library(solution_sequences)).
:- use_module(state).
:- use_module(vocabulary).

%  Lemma 2.4 (standing invariant): standing only ever goes down, except that
%  an active argument may be resolved.  Weakened and abandoned arguments
%  never return to S_t; the engine reports them as reinstatable instead.
standing_rank(active, 2).
standing_rank(resolved, 2).
standing_rank(weakened, 1).
standing_rank(abandoned, 0).

%!  standing_may_change(+Old, +New) is semidet.
%
%   An argument's standing may go from Old to New (Lemma 2.4).
standing_may_change(active, resolved).
standing_may_change(Old, New) :-
    standing_rank(Old, RO),
    standing_rank(New, RN),
    RN < RO.

%!  broken_invariant(+Effect, -Code, -Message) is nondet.
%
%   Effect, just applied, breaks an invariant the paper proves: Code and
%   Message say which.  Read after the effects of one operation are applied.
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
    cycle_found(att),                   % else the attacks are still acyclic
    reaches(attack_step, T, F),
    claims(F, LF), claims(T, LT),
    fmt(M, "~w attacking ~w would close a cycle in the attack graph (restriction A2: attacks stay acyclic)",
        [LF, LT]).
broken_invariant(add_dep(A, D), dep_cycle, M) :-
    cycle_found(dep),                   % else Dep is still acyclic
    claims(A, L),
    reaches(depends_step, D, L),
    fmt(M, "~w resting on ~w would be circular: ~w already rests on ~w", [L, D, D, L]).

%  The step relations reaches/3 walks for A2 and for acyclic Dep: a claim
%  depends on the literals in the Dep of any argument for it.
attack_step(X, Y) :- att(X, Y).
depends_step(Claim, Literal) :- argument(A, Claim, _, _, _), dep(A, Literal).

%!  standing_invariant_holds is semidet.
%
%   The global form of Lemma 2.4, for tests and `grounded check`: no
%   argument in S_t is attacked.
standing_invariant_holds :-
    \+ ( att(_, A), in_standing(A) ).

                 /*******************************
                 *   ACYCLICITY, INCREMENTALLY  *
                 *******************************/

%  Dep over claims (a claim rests on the literals in the Dep of any argument
%  for it) must stay acyclic, and so must the attacks under A2.  Asking, for
%  every new edge X -> Y, whether Y reaches X walks everything under Y: for a
%  claim resting on a chain, the whole chain, so building a chain of depth n
%  took time n^2.  Instead each graph keeps levels (dep_level/3, att_level/2
%  in the state module; a node without one is at 0) such that every edge
%  goes down: level(X) > level(Y) for X -> Y.  Then a new edge X -> Y
%
%  * that already goes down cannot close a cycle: nothing changes;
%  * from a node nothing points to (a new claim, a new attacker) cannot
%    either: X is raised above Y;
%  * otherwise Y is searched for X among the nodes not below X (levels fall
%    along every path, so a path from Y to X never leaves them).  Not found:
%    X, and what points to X, are raised as far as needed.  Found: the graph
%    now has a cycle; the levels are no longer kept (cycle_found/1) and
%    broken_invariant/3 names each edge of the operation that closes one by
%    the plain walk (reaches/3), exactly as without levels.  The utterance
%    is rejected and its transaction takes the levels back with the rest.
%
%  So, with no cycle found, no edge can close one: broken_invariant/3 asks
%  reaches/3 only after a cycle was found, and gives the same violations as
%  asking it for every edge.  Building a chain costs the same per link at
%  depth 10 and at depth 10^5.

%!  edge_added(+Graph, +X, +Y) is det.
%
%   The edge X -> Y was just stored in Graph (dep: claim X rests on literal
%   Y; att: argument X attacks argument Y): its levels are kept.
edge_added(G, X, Y) :-
    mark_pointed(G, Y),
    (   cycle_found(G)
    ->  true
    ;   node_level(G, X, LX), node_level(G, Y, LY),
        (   LX > LY
        ->  true
        ;   L1 is LY + 1,
            (   \+ pointed_to(G, X)
            ->  set_level(G, X, L1)
            ;   found_above(G, Y, X, LX)
            ->  store(cycle_found(G))
            ;   raise(G, [X-L1])
            )
        )
    ).

%  found_above(+G, +From, +To, +Min): To is reachable from From through
%  nodes at level Min or above.
found_above(G, From, To, Min) :-
    rb_empty(Seen),
    found_above_(G, [From], To, Min, Seen).

found_above_(G, [N|Stack], To, Min, Seen) :-
    (   N == To
    ->  true
    ;   rb_insert_new(Seen, N, true, Seen1)
    ->  findall(S, ( step(G, N, S), node_level(G, S, L), L >= Min ), Ss),
        append(Ss, Stack, Stack1),
        found_above_(G, Stack1, To, Min, Seen1)
    ;   found_above_(G, Stack, To, Min, Seen)
    ).

%  raise(+G, +Todo): each Node-Level in Todo is at least at Level, and what
%  points to it above it (a worklist: no recursion as deep as the graph).
raise(_, []).
raise(G, [X-L|Todo]) :-
    node_level(G, X, LX),
    (   LX >= L
    ->  raise(G, Todo)
    ;   set_level(G, X, L),
        L1 is L + 1,
        findall(P-L1, pointing(G, X, P), Ps),
        append(Ps, Todo, Todo1),
        raise(G, Todo1)
    ).

step(dep, Claim, Literal) :- depends_step(Claim, Literal).
step(att, X, Y) :- att(X, Y).

pointing(dep, Literal, Claim) :- dep(B, Literal), claims(B, Claim).
pointing(att, Y, X) :- att(X, Y).

%  Whether a literal is rested on is kept as a mark (rested_on/2), not asked
%  of dep/2: with the literal in its second argument, SWI-Prolog indexes
%  dep/2 there only when the literals rested on are varied, so under a fan
%  (10^4 hypotheses resting on one literal) every new claim scanned every
%  dep/2 clause: a fan of n took time n^2.
pointed_to(dep, Literal) :- literal_key(Literal, P, Sign), rested_on(P, Sign).
pointed_to(att, Y) :- once(att(_, Y)).

%  A literal's level is kept under its atom (first-argument indexing sees
%  only the functor of -(P)) and its sign.
node_level(dep, Literal, N) :-
    literal_key(Literal, P, Sign),
    (   dep_level(P, Sign, N0) -> N = N0 ; N = 0 ).
node_level(att, A, N) :-
    (   att_level(A, N0) -> N = N0 ; N = 0 ).

mark_pointed(dep, Literal) :-
    literal_key(Literal, P, Sign),
    (   rested_on(P, Sign) -> true ; store(rested_on(P, Sign)) ).
mark_pointed(att, _).

set_level(dep, Literal, N) :-
    literal_key(Literal, P, Sign),
    (   unstore(dep_level(P, Sign, _)) -> true ; true ),
    store(dep_level(P, Sign, N)).
set_level(att, A, N) :-
    (   unstore(att_level(A, _)) -> true ; true ),
    store(att_level(A, N)).

%  rebuild_levels: the levels of a state given as facts (restored from a
%  snapshot), computed from scratch: longest paths up from the nodes that
%  point nowhere, in one pass over the edges (Kahn's order).
%!  rebuild_levels is det.
%
%   The levels of Dep (and, under A2, of the attacks) of the current state,
%   from scratch: a state given as facts.
rebuild_levels :-
    retract_levels,
    forall(distinct(L, dep(_, L)), mark_pointed(dep, L)),
    rebuild_levels(dep),
    (   option(acyclic_attacks) -> rebuild_levels(att) ; true ).

retract_levels :-
    db(M),
    retractall(M:dep_level(_, _, _)),
    retractall(M:rested_on(_, _)),
    retractall(M:att_level(_, _)).

rebuild_levels(G) :-
    findall(X-Y, step(G, X, Y), Edges0),
    sort(Edges0, Edges),                                % distinct edges, by tail
    transpose_pairs(Edges, Reversed),                   % Y-X, by head
    group_pairs_by_key(Reversed, Pointing),             % Y-[X, ...]: what points to Y
    list_to_rbtree(Pointing, Preds),
    pairs_keys(Edges, Tails),
    clumped(Tails, OutDegrees),                         % X-the number of edges out of X
    list_to_rbtree(OutDegrees, Out),
    pairs_values(Edges, Heads0),
    sort(Heads0, Heads),
    exclude(has_key(Out), Heads, Sinks),                % pointed to, pointing nowhere: level 0
    rb_empty(Levels0),
    kahn(Sinks, Preds, Out, Left, Levels0, Levels),
    (   \+ ( rb_in(_, D, Left), D > 0 )                 % every node placed
    ->  forall(( rb_in(N, L, Levels), L > 0 ), set_level(G, N, L))
    ;   domain_error(acyclic_graph, G)                 % a stored state is never cyclic
    ).

has_key(Tree, Key) :- rb_lookup(Key, _, Tree).

%  kahn(+Queue, +Preds, +Out0, -Out, +Levels0, -Levels): Queue holds the
%  nodes whose successors all have their levels; each is one above the
%  highest of them.  Out counts the edges out of each node not yet placed.
kahn([], _, Out, Out, Levels, Levels).
kahn([Y|Queue], Preds, Out0, Out, Levels0, Levels) :-
    (   rb_lookup(Y, LY, Levels0) -> true ; LY = 0 ),
    (   rb_insert_new(Levels0, Y, LY, Levels1) -> true ; Levels1 = Levels0 ),
    (   rb_lookup(Y, Xs, Preds) -> true ; Xs = [] ),
    L1 is LY + 1,
    foldl(kahn_edge(L1), Xs, Out0-Levels1-Queue, Out1-Levels2-Queue1),
    kahn(Queue1, Preds, Out1, Out, Levels2, Levels).

kahn_edge(L1, X, Out0-Levels0-Queue0, Out-Levels-Queue) :-
    (   rb_lookup(X, LX, Levels0), LX >= L1
    ->  Levels = Levels0
    ;   rb_insert(Levels0, X, L1, Levels)
    ),
    rb_lookup(X, D0, Out0),
    D is D0 - 1,
    rb_update(Out0, X, D, Out),
    (   D =:= 0 -> Queue = [X|Queue0] ; Queue = Queue0 ).
