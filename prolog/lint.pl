/*  lint.pl -- does a rule file keep to the author layer, and to its own module?

    An operation file (built in or an extension) loads into a module of its
    own that imports the author layer (vocabulary.pl).  It may define its
    operation's hooks and helpers of its own, over the exported layer and
    SWI-Prolog's side-effect-free predicates; it may not write the engine's
    state.  This file reads a rule file as text (nothing of it runs) and
    names, with its line, everything that breaks that sandbox:

      * a call outside the layer (undocumented_calls/2): the driver's and
        the state's internals, which may change under the author;
      * a clause for a predicate of the driver or the layer, or one in
        another module (driver_definitions/2);
      * a module-qualified call, a call that writes the database or global
        variables, does I/O or loads code, a goal only known at run time,
        and a directive other than discontiguous/1 or use_module of one of
        the pure libraries (sandbox_findings/2);

    refusals/2 gathers them all: load_rule_file/2 (grounded.pl) refuses a
    file that has any, and `grounded lint` prints them.
*/
:- module(lint,
          [ undocumented_calls/2,
            driver_definitions/2,
            sandbox_findings/2,
            refusals/2,
            undeclared_transitions/2
          ]).

:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(error)).

%!  refusals(+File, -Refusals) is det.
%
%   Refusals is every reason File may not load, as refusal(Line, Kind,
%   What, Why), sorted by line: Kind is defines, calls, qualified, writes,
%   runtime or directive; What names the predicate (Name/Arity) or the
%   directive.
refusals(File, Refusals) :-
    must_be(atom, File),
    driver_definitions(File, Defined),
    findall(refusal(Line, defines, PI,
                    "which the driver or the author layer already defines: an operation file contributes only operation/3, violation/5, effect/4 and transition/2, and gives its helpers names of their own"),
            member(def(PI, Line), Defined), Rs1),
    undocumented_calls_at(File, Calls),
    findall(refusal(Line, calls, What, "which is not in the author layer (docs/extending.md lists what an operation may read)"),
            ( member(PI-Line, Calls), format(atom(What), "~w", [PI]) ), Rs2),
    sandbox_findings(File, Rs3),
    append([Rs1, Rs2, Rs3], Rs),
    msort(Rs, Refusals).

%!  undeclared_transitions(+File, -Missing) is det.
%
%   Missing holds op(Name, Line) for each operation File declares (at Line)
%   with no transition/2 clause: what it does to the map is then
%   undeclared, and `grounded cover` has nothing to hold it to.  A lint
%   finding only: the file still loads.
undeclared_transitions(File, Missing) :-
    file_terms(File, Terms),
    findall(op(Op, Line),
            ( member(t(T, _, Line), Terms), clause_head(T, operation(Op, _, _)),
              \+ ( member(t(T2, _, _), Terms), clause_head(T2, transition(Op, _)) ) ),
            Missing).

%!  undocumented_calls(+File, -Calls) is det.
%
%   Calls is the sorted list of Name/Arity that clause bodies of File call
%   and that are neither in the author layer, nor defined in File, nor
%   SWI-Prolog's own.
undocumented_calls(File, Calls) :-
    undocumented_calls_at(File, At),
    findall(PI, member(PI-_, At), Calls0),
    sort(Calls0, Calls).

%  undocumented_calls_at(+File, -Calls): PI-Line for the first call of each.
undocumented_calls_at(File, Calls) :-
    file_terms(File, Terms),
    own_predicates(Terms, Own),
    findall(N/A-Line,
            ( member(t(T, Pos, _), Terms), clause_body(T, Pos, B, BPos),
              body_goal(B, BPos, G, GPos),
              callable(G), G \= _:_, functor(G, N, A), \+ memberchk(N/A, Own),
              \+ allowed_call(G), \+ denied(N/A, _),
              goal_line(Terms, GPos, Line) ),
            Calls0),
    first_of_each(Calls0, Calls).

first_of_each(Pairs, Firsts) :-
    msort(Pairs, Sorted),
    first_of_each_(Sorted, Firsts).
first_of_each_([], []).
first_of_each_([K-L|T], [K-L|Rest]) :-
    drop_key(T, K, T1),
    first_of_each_(T1, Rest).

drop_key([K1-_|T], K, Rest) :- K1 == K, !, drop_key(T, K, Rest).
drop_key(T, _, T).

%!  driver_definitions(+File, -Defined) is det.
%
%   Defined holds def('Name/Arity', Line) for each clause of File whose
%   head is a driver or layer predicate, is qualified with a module, or is
%   a hook (violation/5, effect/4, transition/2) of an operation the file
%   does not declare.
driver_definitions(File, Defined) :-
    file_terms(File, Terms),
    findall(Op, ( member(t(T, _, _), Terms), clause_head(T, H), H = operation(Op, _, _) ), Declared),
    findall(def(PI, Line),
            ( member(t(T, _, Line), Terms), clause_head(T, H),
              ( defines_driver(H, PI) ; hook_of_another(H, Declared, PI) ) ),
            Defined).

%!  sandbox_findings(+File, -Found) is det.
%
%   Found holds refusal(Line, Kind, What, Why) for each module-qualified
%   call, state-writing or I/O call, goal known only at run time and
%   directive other than the harmless ones, in File.
sandbox_findings(File, Found) :-
    file_terms(File, Terms),
    findall(refusal(Line, Kind, What, Why),
            ( member(t(T, Pos, Line0), Terms),
              (   T = (:- D)
              ->  \+ harmless_directive(D), Line = Line0, Kind = directive,
                  format(atom(What), "~q", [D]),
                  Why = "a directive runs as the file loads: an operation file may hold only discontiguous/1 and use_module(library(L)) of a pure library"
              ;   clause_body(T, Pos, B, BPos),
                  body_goal(B, BPos, G, GPos),
                  goal_refusal(G, Kind, What, Why),
                  goal_line(Terms, GPos, Line)
              ) ),
            Found0),
    sort(Found0, Found).

goal_refusal(G, runtime, What, Why) :-
    var(G), !,
    What = 'a variable goal',
    Why = "a goal known only at run time could be anything: call the layer's predicates by name".
goal_refusal(M:G, qualified, What, Why) :- !,
    (   callable(G) -> functor(G, N, A) ; N = G, A = '?' ),
    format(atom(What), "~w:~w/~w", [M, N, A]),
    Why = "a module-qualified call reaches past the author layer into another module".
goal_refusal(G, writes, What, Why) :-
    callable(G), functor(G, N, A),
    denied(N/A, Why0), !,
    format(atom(What), "~w/~w", [N, A]),
    Why = Why0.
goal_refusal(G, writes, What, Why) :-
    callable(G), functor(G, N, A),
    N/A = format/3, arg(1, G, Sink), \+ text_sink(Sink), !,
    format(atom(What), "~w/~w", [N, A]),
    Why = "it writes to a stream: build text with format(atom(_), ...) or fmt/3".
goal_refusal(G, writes, What, Why) :-
    callable(G), G \= _:_, functor(G, N, A),
    \+ vocabulary:layer_predicate(N/A),
    use_module(library(sandbox), []),           % loaded on the first extension read, not at start-up
    predicate_property(system:G, defined),
    \+ predicate_property(system:G, meta_predicate(_)),
    \+ catch(sandbox:safe_goal(user:G), _, fail), !,
    format(atom(What), "~w/~w", [N, A]),
    Why = "SWI-Prolog's sandbox (library(sandbox)) cannot show it free of side effects".

text_sink(V) :- var(V), !, fail.
text_sink(atom(_)).
text_sink(string(_)).
text_sink(codes(_)).
text_sink(codes(_, _)).
text_sink(chars(_)).
text_sink(chars(_, _)).

%  denied(?Name/Arity, -Why): predicates that write the database, global
%  variables or flags, do I/O or load code.  The sandbox library allows
%  some of them (assert on a module's own dynamic predicate, output to the
%  current stream); a rule may not: the rules must be a function of the
%  state, and the state is the driver's to change.
denied(PI, Why) :- denied_(PIs, Why), memberchk(PI, PIs).

denied_([assert/1, asserta/1, asserta/2, assertz/1, assertz/2, retract/1, retractall/1,
         abolish/1, abolish/2, erase/1, recorda/2, recorda/3, recordz/2, recordz/3, recorded/2,
         recorded/3, instance/2, flag/3, (dynamic)/1, compile_predicates/1],
        "it writes the database: the state is the driver's to change, through the effects an operation emits").
denied_([nb_setval/2, b_setval/2, nb_getval/2, b_getval/2, set_prolog_flag/2, create_prolog_flag/3,
         op/3, nb_setarg/3, setarg/3, nb_linkval/2],
        "it reads or writes global variables or flags, which outlive the operation").
denied_([write/1, writeln/1, print/1, write_canonical/1, writeq/1, write_term/2, nl/0, tab/1,
         format/1, format/2, print_message/2, put_char/1, read/1, read_term/2, open/3, open/4,
         close/1, see/1, tell/1, shell/1, shell/2, process_create/3],
        "it does I/O: a rule answers through its messages (fmt/3) and effects only").
denied_([consult/1, load_files/2, ensure_loaded/1, use_module/1, use_module/2, assertion/1],
        "it loads code or raises outside the layer's contract").

harmless_directive(discontiguous(_)).
harmless_directive(use_module(library(L))) :- pure_library(L).
harmless_directive(use_module(library(L), _)) :- pure_library(L).

pure_library(L) :-
    memberchk(L, [lists, apply, aggregate, pairs, rbtrees, assoc, ordsets, ugraphs, yall,
                  apply_macros, error, strings, dicts, solution_sequences]).

%  hook_of_another(+Head, +Declared, -PI): a violation/5, effect/4 or
%  transition/2 clause for an operation the file does not declare.  Each
%  file's hooks are read from its own module for its own operations only,
%  so such a clause would never run: refused rather than silently ignored.
hook_of_another(H, Declared, PI) :-
    callable(H), functor(H, N, A), memberchk(N/A, [violation/5, effect/4, transition/2]),
    arg(1, H, Op), atom(Op), \+ memberchk(Op, Declared),
    format(atom(PI), "~w/~w for ~w (an operation it does not declare)", [N, A, Op]).

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
rules_module(invariants).
rules_module(queries).
rules_module(dung).
rules_module(lint).

                 /*******************************
                 *      READING THE FILE        *
                 *******************************/

%  file_terms(+File, -Terms): t(Term, SubtermPositions, Line) for each
%  term of File, Line the line it starts on; an unreadable term is
%  t('$unreadable', none, Line) (the load reports it).  The file's text is
%  kept (file_text/2) so that a goal's character offset gives its line.
file_terms(File, Terms) :-
    read_file_to_string(File, Text, [encoding(utf8)]),
    setup_call_cleanup(open_string(Text, In), read_terms(In, Terms0), close(In)),
    Terms = [text(Text)|Terms0].

read_terms(In, Terms) :-
    stream_property(In, position(P0)),
    catch(read_term(In, T, [subterm_positions(Pos), term_position(TP), module(vocabulary)]), _,
          ( T = '$unreadable', Pos = none, TP = P0 )),
    (   T == end_of_file
    ->  Terms = []
    ;   stream_position_data(line_count, TP, Line),
        Terms = [t(T, Pos, Line)|Rest],
        read_terms(In, Rest)
    ).

%  goal_line(+Terms, +Pos, -Line): the line of the character offset at
%  which Pos starts.
goal_line([text(Text)|_], Pos, Line) :-
    (   nonvar(Pos), arg(1, Pos, From), integer(From)
    ->  sub_string(Text, 0, From, _, Before),
        split_string(Before, "\n", "", Parts),
        length(Parts, Line)
    ;   Line = 0
    ).

own_predicates(Terms, Own) :-
    findall(N/A, ( member(t(C, _, _), Terms), clause_head(C, H), callable(H), H \= _:_,
                   functor(H, N, A) ), Own0),
    sort(Own0, Own).

clause_head((:- _), _) :- !, fail.
clause_head('$unreadable', _) :- !, fail.
clause_head((H :- _), H) :- !.
clause_head((H --> _), H) :- !.
clause_head(H, H).

clause_body((_ :- B), Pos, B, BPos) :-
    (   Pos = term_position(_, _, _, _, [_, BPos0]) -> BPos = BPos0 ; BPos = none ).

%  body_goal(+Body, +Pos, -Goal, -GoalPos): every goal Body calls,
%  looking inside control constructs, the usual meta-predicates and the
%  closures of maplist/N, foldl/N, include/3, exclude/3 and reaches/3 (a
%  closure is completed with fresh arguments); Goal may be a variable (a
%  goal known only at run time).
body_goal(V, P, V, P) :- var(V), !.
body_goal(G, parentheses_term_position(_, _, P), G1, P1) :- !, body_goal(G, P, G1, P1).
body_goal(G, P, G1, P1) :-
    meta_goal(G, Args), !,
    member(I-Extra, Args),
    arg(I, G, Sub), arg_pos(P, I, SubP),
    (   Extra =:= 0
    ->  body_goal(Sub, SubP, G1, P1)
    ;   var(Sub) -> G1 = Sub, P1 = SubP
    ;   closure_goal(Sub, Extra, G1), P1 = SubP
    ).
body_goal(G, P, G, P).

closure_goal(M:C, Extra, M:G) :- !, closure_goal(C, Extra, G).
closure_goal(C, Extra, G) :-
    callable(C), C =.. L, length(More, Extra), append(L, More, L2), G =.. L2.
closure_goal(C, _, C) :- \+ callable(C).

arg_pos(term_position(_, _, _, _, Ps), I, P) :- nth1(I, Ps, P), !.
arg_pos(_, _, none).

%  meta_goal(+Goal, -Args): the arguments of Goal that are goals, as
%  Index-Extra (Extra: arguments a closure is called with).
meta_goal((_, _), [1-0, 2-0]).
meta_goal((_ ; _), [1-0, 2-0]).
meta_goal((_ -> _), [1-0, 2-0]).
meta_goal((_ *-> _), [1-0, 2-0]).
meta_goal(\+ _, [1-0]).
meta_goal(call(_), [1-0]).
meta_goal(once(_), [1-0]).
meta_goal(ignore(_), [1-0]).
meta_goal(forall(_, _), [1-0, 2-0]).
meta_goal(findall(_, _, _), [2-0]).
meta_goal(findall(_, _, _, _), [2-0]).
meta_goal(bagof(_, _, _), [2-0]).
meta_goal(setof(_, _, _), [2-0]).
meta_goal(aggregate_all(_, _, _), [2-0]).
meta_goal(aggregate_all(_, _, _, _), [3-0]).
meta_goal(_^_, [2-0]).
meta_goal(G, [1-E]) :-
    compound(G), compound_name_arity(G, call, N), N > 1, E is N - 1.
meta_goal(G, [1-E]) :-
    compound(G), compound_name_arity(G, maplist, N), N >= 2, N =< 7, E is N - 1.
meta_goal(include(_, _, _), [1-1]).
meta_goal(exclude(_, _, _), [1-1]).
meta_goal(partition(_, _, _, _), [1-1]).
meta_goal(foldl(_, _, _, _), [1-3]).
meta_goal(foldl(_, _, _, _, _), [1-4]).
meta_goal(foldl(_, _, _, _, _, _), [1-5]).
meta_goal(reaches(_, _, _), [1-2]).

allowed_call(G) :- functor(G, N, A), vocabulary:layer_predicate(N/A), !.
allowed_call(G) :- predicate_property(system:G, defined), !.
allowed_call(G) :- predicate_property(grounded:G, imported_from(M)), \+ rules_module(M), !.
allowed_call(G) :- functor(G, N, A), memberchk(N/A, [fail/0, false/0, true/0]), !.
allowed_call(G) :-                      % autoloaded from one of the pure libraries (pairs_keys/2, ...)
    functor(G, N, A),
    catch('$find_library'(user, N, A, Library, _), _, fail),
    pure_library(Library), !.
