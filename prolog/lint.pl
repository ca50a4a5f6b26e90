/*  lint.pl -- does a rule file keep to the documented layer?

    undocumented_calls(+File, -Calls) lists the predicates the clause bodies
    of File call that are neither in the rule-author layer
    (layer_predicate/1 in vocabulary.pl), nor defined in File itself, nor
    part of SWI-Prolog or its libraries: the driver's and the state's
    internals.  The tests hold every built-in operation to an empty list,
    and `docs/extending.md` asks extensions to do the same.

    redefined_predicates(+File, -Defined) lists the predicates File defines
    that belong to the driver, the state or the author layer (every file of
    the shipped rule base) or to SWI-Prolog, other than the three an
    operation is made of (operation/3, violation/5, effect/4): loaded into
    the rules' module, such a clause would change what every operation reads.
*/

redefined_predicates(File, Defined) :-
    absolute_file_name(File, Abs),
    setup_call_cleanup(open(File, read, In), read_clauses(In, Clauses), close(In)),
    findall(N/A, ( member(C, Clauses), clause_head(C, H), callable(H), functor(H, N, A),
                   \+ memberchk(N/A, [operation/3, violation/5, effect/4]),
                   shipped_or_system(H, Abs) ),
            Defined0),
    sort(Defined0, Defined).

shipped_or_system(H, _) :- functor(H, N, A), layer_predicate(N/A), !.
shipped_or_system(H, _) :- predicate_property(system:H, defined), !.
shipped_or_system(H, Abs) :-
    functor(H, N, A), functor(G, N, A),
    predicate_property(grounded:G, file(F)), F \== Abs,
    module_property(grounded, file(Driver)), file_directory_name(Driver, Dir),
    atom_concat(Dir, '/', Prefix), sub_atom(F, 0, _, _, Prefix), !.

undocumented_calls(File, Calls) :-
    setup_call_cleanup(open(File, read, In), read_clauses(In, Clauses), close(In)),
    findall(N/A, ( member(C, Clauses), clause_head(C, H), functor(H, N, A) ), Own0),
    sort(Own0, Own),
    findall(N/A, ( member(C, Clauses), clause_body(C, B), body_goal(B, G),
                   functor(G, N, A), \+ memberchk(N/A, Own), \+ allowed_call(G) ),
            Calls0),
    sort(Calls0, Calls).

read_clauses(In, Clauses) :-
    read_term(In, T, []),
    (   T == end_of_file
    ->  Clauses = []
    ;   Clauses = [T|Rest],
        read_clauses(In, Rest)
    ).

clause_head((:- _), _) :- !, fail.
clause_head((H :- _), H) :- !.
clause_head(H, H).

clause_body((_ :- B), B).

%  body_goal(+Body, -Goal): every goal Body calls, looking inside control
%  constructs and the usual meta-predicates.
body_goal(V, _) :- var(V), !, fail.
body_goal((A, B), G) :- !, ( body_goal(A, G) ; body_goal(B, G) ).
body_goal((A ; B), G) :- !, ( body_goal(A, G) ; body_goal(B, G) ).
body_goal((A -> B), G) :- !, ( body_goal(A, G) ; body_goal(B, G) ).
body_goal((A *-> B), G) :- !, ( body_goal(A, G) ; body_goal(B, G) ).
body_goal(\+ A, G) :- !, body_goal(A, G).
body_goal(once(A), G) :- !, body_goal(A, G).
body_goal(ignore(A), G) :- !, body_goal(A, G).
body_goal(forall(A, B), G) :- !, ( body_goal(A, G) ; body_goal(B, G) ).
body_goal(findall(_, A, _), G) :- !, body_goal(A, G).
body_goal(findall(_, A, _, _), G) :- !, body_goal(A, G).
body_goal(aggregate_all(_, A, _), G) :- !, body_goal(A, G).
body_goal(aggregate_all(_, _, A, _), G) :- !, body_goal(A, G).
body_goal(_^A, G) :- !, body_goal(A, G).
body_goal(G, G).

allowed_call(G) :- functor(G, N, A), layer_predicate(N/A), !.
allowed_call(G) :- predicate_property(system:G, defined), !.
allowed_call(G) :- predicate_property(grounded:G, imported_from(_)), !.
