/*  lint.pl -- does a rule file keep to the documented layer?

    undocumented_calls(+File, -Calls) lists the predicates the clause bodies
    of File call that are neither in the rule-author layer
    (layer_predicate/1 in vocabulary.pl), nor defined in File itself, nor
    part of SWI-Prolog or its libraries: the driver's and the state's
    internals.  The tests hold every built-in operation to an empty list,
    and `docs/extending.md` asks extensions to do the same.

    driver_definitions(+File, -Defined) lists the predicates File defines
    that the driver or the author layer already defines: an operation file
    loads into a module of its own (load_rule_file/2 in grounded.pl), and
    one that would redefine, say, creates/1 or claims/2 is refused.
*/

undocumented_calls(File, Calls) :-
    setup_call_cleanup(open(File, read, In), read_clauses(In, Clauses), close(In)),
    findall(N/A, ( member(C, Clauses), clause_head(C, H), functor(H, N, A) ), Own0),
    sort(Own0, Own),
    findall(N/A, ( member(C, Clauses), clause_body(C, B), body_goal(B, G),
                   functor(G, N, A), \+ memberchk(N/A, Own), \+ allowed_call(G) ),
            Calls0),
    sort(Calls0, Calls).

%  driver_definitions(+File, -Defined): def('Name/Arity', Line) for each
%  clause of File whose head is a driver or layer predicate, or is
%  qualified with a module.
driver_definitions(File, Defined) :-
    setup_call_cleanup(open(File, read, In), read_positioned(In, Terms), close(In)),
    findall(Op, ( member(T-_, Terms), clause_head(T, H), H = operation(Op, _, _) ), Declared),
    findall(def(PI, Line),
            ( member(T-Line, Terms), clause_head(T, H),
              ( defines_driver(H, PI) ; hook_of_another(H, Declared, PI) ) ),
            Defined).

%  hook_of_another(+Head, +Declared, -PI): a violation/5, effect/4 or
%  transition/2 clause for an operation the file does not declare.  Each
%  file's hooks are read from its own module for its own operations only,
%  so such a clause would never run: refused rather than silently ignored.
hook_of_another(H, Declared, PI) :-
    callable(H), functor(H, N, A), memberchk(N/A, [violation/5, effect/4, transition/2]),
    arg(1, H, Op), atom(Op), \+ memberchk(Op, Declared),
    format(atom(PI), "~w/~w for ~w (an operation it does not declare)", [N, A, Op]).

read_positioned(In, Terms) :-
    catch(read_term(In, T, [term_position(Pos), module(grounded)]), _, T = '$unreadable'),
    (   T == end_of_file
    ->  Terms = []
    ;   stream_position_data(line_count, Pos, Line),
        Terms = [T-Line|Rest],
        read_positioned(In, Rest)
    ).

defines_driver(Q:H, PI) :- !,
    callable(H), functor(H, N, A), format(atom(PI), "~w:~w/~w", [Q, N, A]).
defines_driver(H, PI) :-
    callable(H), functor(H, N, A),
    current_predicate(grounded:N/A),
    predicate_property(grounded:H, implementation_module(M)),
    rules_module(M),
    format(atom(PI), "~w/~w", [N, A]).

%  rules_module(?Module): the modules of the rules' own code.
rules_module(grounded).
rules_module(state).
rules_module(settled).
rules_module(vocabulary).
rules_module(wire).

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

allowed_call(G) :- functor(G, N, A), vocabulary:layer_predicate(N/A), !.
allowed_call(G) :- predicate_property(system:G, defined), !.
allowed_call(G) :- predicate_property(grounded:G, imported_from(M)), \+ rules_module(M), !.
