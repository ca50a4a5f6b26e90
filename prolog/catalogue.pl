/*  catalogue.pl -- the precondition catalogue, read from the rules as loaded.

    `grounded rules` lists, for every operation the engine knows (built in or
    loaded as an extension), its preconditions (stable code and message
    template) and the effects it can emit.  Nothing here parses rule files:
    the catalogue is read from the clauses SWI-Prolog has loaded into each
    operation's module (grounded:op_module/2), with clause/3:

      * violation(Op, U, Op, Code, M) clauses: Code from the head, the message
        templates from the fmt(M, Template, Args) goals that build M;
      * the driver's own checks (any utterance or operation, the invariants):
        the clauses of the predicates listed by general_check/4 below;
      * effect(Op, U, Op, Effect) clauses: Effect from the head or, when the
        head leaves it open, from the clauses of the goal that binds it
        (introduces/4 for the operations that create an argument);
      * effect_signature/2: the transition vocabulary.

    A template's ~w places are named after what fills them: the operation
    field the value comes from (claim, deps item, ...), the speaker, or else
    the variable's name in the source (read back at the clause's line and
    unified with the loaded clause, so the names are those of that clause).

    Output: one tab-separated line per item (see catalogue_text/1).
*/
:- module(catalogue, [catalogue_text/1]).

:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(aggregate)).

%  general_check(Head, Scope, Code, Message): the driver's checks, with the
%  positions of the code and the message in their heads.
general_check(grounded:utterance_violation(_, C, M), utterance, C, M).
general_check(grounded:op_violation(_, _, _, C, M), operation, C, M).
general_check(grounded:announce_violation(_, _, _, C, M), operation, C, M).
general_check(invariants:broken_invariant(_, C, M), invariant, C, M).

%!  catalogue_text(-Text:string) is det.
%
%   Text is the catalogue, one line per item:
%    violation TAB Op TAB Code TAB Template TAB Names TAB File:Line
%    check TAB Scope TAB Code TAB Template TAB Names TAB File:Line
%    effect TAB Op TAB Effect TAB Condition
%    signature TAB Name TAB Types
%  Names are the names of the template's places, joined by "|"; an
%  operation whose clause builds its message in two ways has two lines.
catalogue_text(Text) :-
    with_output_to(string(Text), forall(item(Fields), print_line(Fields))).

print_line(Fields) :-
    atomic_list_concat(Fields, '\t', Line),
    write(Line), nl.

item([violation, Op, Code, Template, Names, Where]) :-
    grounded:op_module(Op, Module),
    clause(Module:violation(Op, _, _, Code, M), Body, Ref),
    atom(Code),
    message(Ref, Body, M, Template, Names),
    where(Ref, Where).
item([check, Scope, Code, Template, Names, Where]) :-
    general_check(Head, Scope, Code, M),
    catch(clause(Head, Body, Ref), _, fail),
    atom(Code),
    message(Ref, Body, M, Template, Names),
    where(Ref, Where).
item([effect, Op, Effect, Condition]) :-
    findall(Op-E-C, effect_item(Op, E, C), Items0),
    list_to_set(Items0, Items),
    member(Op-Effect-Condition, Items).
item([signature, Name, Types]) :-
    catch(vocabulary:effect_signature(Name, Ts), _, fail),
    atomic_list_concat(Ts, ',', Types).

where(Ref, Where) :-
    (   clause_property(Ref, file(File)), clause_property(Ref, line_count(Line))
    ->  format(atom(Where), "~w:~w", [File, Line])
    ;   Where = ''
    ).

%  message(+Ref, +Body, +M, -Template, -Names): a template that builds M in
%  Body (several on backtracking), or a note when none does.
message(Ref, Body, M, Template, Names) :-
    names(Ref, Body, VarNames),
    (   \+ ( sub_goal(Body, fmt(M0, _, _)), M0 == M )
    ->  Template = '(message built elsewhere)', Names = ''
    ;   sub_goal(Body, fmt(M1, T0, Args)), M1 == M,
        text(T0, Template),
        maplist(place_name(Body, VarNames), Args, Ns),
        atomic_list_concat(Ns, '|', Names)
    ).

text(T, A) :- ( string(T) -> atom_string(A, T) ; A = T ).

%  sub_goal(+Body, -Goal): every goal of a clause body, inside control constructs.
sub_goal(V, _) :- var(V), !, fail.
sub_goal((A, B), G) :- !, ( sub_goal(A, G) ; sub_goal(B, G) ).
sub_goal((A ; B), G) :- !, ( sub_goal(A, G) ; sub_goal(B, G) ).
sub_goal((A -> B), G) :- !, ( sub_goal(A, G) ; sub_goal(B, G) ).
sub_goal((A *-> B), G) :- !, ( sub_goal(A, G) ; sub_goal(B, G) ).
sub_goal(\+ A, G) :- !, sub_goal(A, G).
sub_goal(once(A), G) :- !, sub_goal(A, G).
sub_goal(forall(A, B), G) :- !, ( sub_goal(A, G) ; sub_goal(B, G) ).
sub_goal(findall(_, A, _), G) :- !, sub_goal(A, G).
sub_goal(aggregate_all(_, A, _), G) :- !, sub_goal(A, G).
sub_goal(_:A, G) :- !, sub_goal(A, G).
sub_goal(G, G).

%  place_name(+Body, +VarNames, +Arg, -Name): what fills a place of a template.
place_name(_, _, Arg, Name) :-
    nonvar(Arg), !,
    format(atom(Name), "~w", [Arg]).
place_name(Body, VarNames, Var, Name) :-
    (   origin(Body, VarNames, Var, Name0, 3)
    ->  Name = Name0
    ;   var_name(VarNames, Var, Name)
    ).

%  origin(+Body, +VarNames, +Var, -Name, +Depth): the name of the operation
%  field, or of the utterance's part, that Var comes from.
origin(Body, _, V, Key, _) :-
    sub_goal(Body, G), field_goal(G, Key, X), X == V, !.
origin(Body, _, V, speaker, _) :-
    sub_goal(Body, G), G = speaker(_, X), X == V, !.
origin(Body, _, V, turn, _) :-
    sub_goal(Body, G), G = turn(_, X), X == V, !.
origin(Body, _, V, Name, _) :-
    sub_goal(Body, epistemic(_, T)), compound(T),
    T =.. [Name|Args], member(X, Args), X == V, !.
origin(Body, _, V, Name, _) :-
    sub_goal(Body, G), callable(G), functor(G, F, N), position_name(F/N, I, Name),
    arg(I, G, X), X == V, !.
origin(Body, Names, V, Name, D) :-
    D > 0, D1 is D - 1,
    sub_goal(Body, G), derived(G, From, X, How), X == V, var(From),
    origin(Body, Names, From, Name0, D1), !,
    format(atom(Name), How, [Name0]).

%  position_name(Predicate, Position, Name): what an argument of the rules'
%  vocabulary holds, for the places no field fills.
position_name(argument/5, 3, 'its kind').
position_name(argument/5, 4, 'its speaker').
position_name(argument/5, 5, 'its turn').
position_name(author/2, 2, 'its speaker').
position_name(arg_kind/2, 2, 'its kind').
position_name(arg_turn/2, 2, 'its turn').
position_name(kind_of/2, 2, kind).
position_name(standing_of/2, 2, standing).
position_name(prop/2, 2, kind).

field_goal(field(_, Key, X), Key, X).
field_goal(field(_, Key, X, _), Key, X).
field_goal(item(_, Key, X), Name, X) :- atom(Key), format(atom(Name), "~w item", [Key]).

%  derived(Goal, From, To, How): To is made from From by Goal; How names it.
derived(member(X, L), L, X, '~w item').
derived(memberchk(X, L), L, X, '~w item').
derived(atom_of(L, P), L, P, '~w').
derived(negation(L, N), L, N, 'negation of ~w').
derived(standing_note(L, N), L, N, 'how ~w left standing').

var_name(VarNames, Var, Name) :-
    (   member(N=V, VarNames), V == Var
    ->  Name = N
    ;   Name = '_'
    ).

%  names(+Ref, +Body, -VarNames): the source names of the clause's variables:
%  the clause is read back at its line and unified with the loaded one.
names(Ref, Body, VarNames) :-
    (   catch(source_names(Ref, Body, VarNames0), _, fail)
    ->  VarNames = VarNames0
    ;   VarNames = []
    ).

source_names(Ref, Body, VarNames) :-
    clause_property(Ref, file(File)),
    clause_property(Ref, line_count(Line)),
    clause(Head0, Body, Ref),
    strip_module(Head0, _, Head),
    setup_call_cleanup(open(File, read, In),
                       ( skip_lines(In, Line),
                         read_term(In, Read, [variable_names(VarNames), module(grounded)]) ),
                       close(In)),
    Read = (Head :- Body).

skip_lines(_, 1) :- !.
skip_lines(In, N) :-
    skip(In, 0'\n),
    N1 is N - 1,
    skip_lines(In, N1).

%  effect_item(-Op, -Effect, -Condition): an effect an operation can emit.
effect_item(Op, Effect, Condition) :-
    grounded:op_module(Op, Module),
    clause(Module:effect(Op, _, _, E), Body, Ref),
    names(Ref, Body, VarNames),
    (   nonvar(E)
    ->  condition(Body, Condition),
        effect_text(Body, VarNames, E, Effect)
    ;   % the head leaves the effect open: read it from the clauses of the goal
        % that binds it, naming places by both clauses
        sub_goal(Body, G), callable(G), \+ G = fmt(_, _, _),
        term_variables(G, Vs), member(V, Vs), V == E,
        copy_term(G-E-Body-VarNames, G2-E2-Body2-VarNames2),
        catch(clause(Module:G2, HBody, HRef), _, fail),
        nonvar(E2),
        names(HRef, HBody, HNames),
        append(HNames, VarNames2, Names),
        condition((HBody, Body2), Condition),
        effect_text((HBody, Body2), Names, E2, Effect)
    ).

condition(Body, Condition) :-
    (   sub_goal(Body, G), G == world_model -> Condition = world_model ; Condition = '' ).

effect_text(Body, VarNames, E, Text) :-
    E =.. [F|Args],
    maplist(effect_arg(Body, VarNames), Args, Ts),
    atomic_list_concat(Ts, ', ', Inner),
    format(atom(Text), "~w(~w)", [F, Inner]).

effect_arg(Body, VarNames, V, T) :-
    var(V), !,
    place_name(Body, VarNames, V, N),
    format(atom(T), "<~w>", [N]).
effect_arg(_, _, A, T) :-
    atomic(A), !,
    format(atom(T), "~q", [A]).
effect_arg(Body, VarNames, A, T) :-
    A =.. [F|Args],
    maplist(effect_arg(Body, VarNames), Args, Ts),
    atomic_list_concat(Ts, ', ', Inner),
    format(atom(T), "~w(~w)", [F, Inner]).
