/*  grounded.pl -- the driver: the runtime semantics of one utterance.

    The Python bridge hands this module one utterance at a time, or a batch
    of them, as one flat text of tokens (prolog/wire.pl turns it into terms;
    nothing in it is ever read as Prolog text).  For every
    operation in it the driver asks the operation's rules (prolog/ops, and
    any extension) which preconditions fail and, if none does, which effects
    it has; it checks those effects against the vocabulary, drops the ones
    that would change nothing, applies the rest to the current state (so the
    next operation of the same utterance sees them), checks the invariants
    the paper proves (prolog/invariants.pl) and re-decides the open problems
    they touch.  Any violation anywhere rolls the whole utterance back: an
    utterance is atomic.

    Two calls go back into Python while an utterance runs, both foreign
    predicates the bridge registers:

    * world_call(read(I, Effects), Verdicts): with a declared world model,
      once operation I's effects are known, the bridge reads them in M and
      answers what it found; the operation's violation/5 rules then see the
      findings as its `epistemic` field.  world_call(applied(I), _) tells
      the bridge the operation was applied.  One rule run per utterance.
    * log_call(record, true): the utterance is accepted and the engine
      keeps an event log; the bridge writes the utterance to it, and the
      transaction commits only if that succeeds (a full disk leaves the rules
      as they were).  The effects then come back as the reply.

    The bridge mirrors every reported effect; it never decides one itself.
    Adding an operation means adding rules: see docs/extending.md.
*/
:- module(grounded, [py_apply/2, py_request/2]).

:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(rbtrees)).
:- use_module(library(aggregate)).
:- use_module(library(assoc)).

:- use_module(state).
:- use_module(settled).
:- use_module(vocabulary).
:- use_module(wire).
%  What the driver reads of the vocabulary beyond the author layer
%  (effect_signature/2, value_type/2, layer_predicate/1) it calls qualified.

                 /*******************************
                 *          OPERATIONS          *
                 *******************************/

%  Each operation file, built in (prolog/ops) or an extension, is loaded
%  into a module of its own that imports the author layer (vocabulary.pl)
%  and nothing of the driver.  It contributes the hooks below, for the
%  operations it declares; its other predicates are its own helpers, under
%  names the driver and the layer do not use (load_rule_file/2 refuses the
%  file otherwise, naming the predicate), so no rule file can replace a
%  clause of the driver, and unloading an extension leaves the driver as it
%  was.  op_module(Name, Module): operation Name is declared in Module, in
%  the order loaded (the built-ins first).
:- dynamic op_module/2, rule_file/2.    % rule_file(File, Module)
%  required_field(Name, Field, Module): operation Name, declared in Module,
%  needs Field; kept beside op_module/2 when the file loads, so that the
%  check every operation runs (op_violation/5) neither copies the
%  declaration (its documentation and every field) nor walks its fields.
:- dynamic required_field/3.

hook(operation/3).
hook(violation/5).
hook(effect/4).
hook(transition/2).

%  The hooks as the driver asks them, of the module that declares the
%  operation.
declared(Name, Doc, Fields)      :- op_module(Name, M), M:operation(Name, Doc, Fields).
rule_violation(Name, U, Op, C, Msg) :- op_module(Name, M), M:violation(Name, U, Op, C, Msg).
rule_effect(Name, U, Op, E)      :- op_module(Name, M), M:effect(Name, U, Op, E).
%  declared_transition(?Name, ?Transition): a transition operation Name
%  declares it can emit (an effect's name, or set_standing(From, To));
%  tests/test_transitions.py generates histories until each has fired.
declared_transition(Name, T)     :- op_module(Name, M), M:transition(Name, T).

%  load_rule_file(+File, +Module): load an operation file into Module.
%  Refused (rule_file_refused(File, Line, Why) is thrown, Line 0 when it
%  names no line), with nothing loaded, when it breaks the sandbox
%  (refusals/2 in lint.pl: it defines a predicate of the driver or of the
%  layer, calls outside the layer, qualifies a call with a module, writes
%  the database or does I/O) or declares an operation that another file
%  declares.  The first refusal by line is named, with the others' count.
load_rule_file(File, Module) :-
    load_rule_file(File, Module, checked).

%  load_rule_file(+File, +Module, +Check): Check is `checked` for an
%  extension, `shipped` for a built-in operation of prolog/ops, whose files
%  tests/test_vocabulary.py holds to no refusal (reading them again at every
%  start would double the rules' start-up).
load_rule_file(File, Module, Check) :-
    (   Check == shipped -> Refusals = [] ; refusals(File, Refusals) ),
    (   Refusals == []
    ->  true
    ;   Refusals = [refusal(Line, Kind, What, Why0)|More],
        length(More, Others),
        refusal_verb(Kind, Verb, Sep),
        (   Others =:= 0 -> Tail = "" ; format(string(Tail), " (and ~w more: grounded lint lists them)", [Others]) ),
        format(string(Why), "~w ~w~w~w~w", [Verb, What, Sep, Why0, Tail]),
        throw(rule_file_refused(File, Line, Why))
    ),
    module_property(vocabulary, file(Vocabulary)),
    Module:use_module(Vocabulary),
    load_files(Module:File, [if(true)]),
    forall(( hook(N/A), \+ current_predicate(Module:N/A) ), dynamic(Module:N/A)),
    findall(N, Module:operation(N, _, _), Names0),
    (   member(N, Names0), op_module(N, Other), Other \== Module, rule_file(OtherFile, Other)
    ->  unload_file(File),
        format(string(Why2), "declares the operation ~w, which ~w already declares", [N, OtherFile]),
        throw(rule_file_refused(File, 0, Why2))
    ;   true
    ),
    retractall(op_module(_, Module)),
    retractall(required_field(_, _, Module)),
    forall(member(N, Names0), assertz(op_module(N, Module))),
    forall(( member(N, Names0), Module:operation(N, _, Fs), member(field(F, _, required), Fs) ),
           assertz(required_field(N, F, Module))),
    retractall(rule_file(File, _)),
    assertz(rule_file(File, Module)).

%  refusal_verb(+Kind, -Verb, -Separator): how a refusal of Kind reads
%  ("defines creates/1, which ...", "calls assertz/1: it writes ...").
refusal_verb(defines, defines, ', ').
refusal_verb(calls, calls, ', ').
refusal_verb(qualified, calls, ': ').
refusal_verb(writes, calls, ': ').
refusal_verb(runtime, calls, ': ').
refusal_verb(directive, 'runs the directive', ': ').

%  unload_rule_file(+File): its operations are gone, the driver unchanged.
unload_rule_file(File) :-
    (   retract(rule_file(File, Module))
    ->  retractall(op_module(_, Module)),
        retractall(required_field(_, _, Module))
    ;   true
    ),
    unload_file(File).

%  load_operation(+Spec): a built-in operation, from the directives below.
load_operation(Spec) :-
    absolute_file_name(Spec, File, [file_type(prolog), access(read)]),
    file_base_name(File, Base), file_name_extension(Name, _, Base),
    atom_concat(op_, Name, Module),
    load_rule_file(File, Module, shipped).

%  clause_location(+Module, +Op, -Kind, -Name, -File, -Line): a violation/5
%  clause of Op (Name its code) or an effect/4 clause (Name the effect's
%  name, '?' when the head leaves it open), at File:Line.
clause_location(M, Op, violation, Code, File, Line) :-
    clause(M:violation(Op, _, _, Code, _), _, Ref), atom(Code),
    clause_property(Ref, file(File)), clause_property(Ref, line_count(Line)).
clause_location(M, Op, effect, Name, File, Line) :-
    clause(M:effect(Op, _, _, E), _, Ref),
    (   compound(E) -> functor(E, Name, _) ; Name = '?' ),
    clause_property(Ref, file(File)), clause_property(Ref, line_count(Line)).

%  extension_module(+File, -Module): the module an extension loads into,
%  one per file.
extension_module(File, Module) :-
    atom_concat('extension:', File, Module).

                 /*******************************
                 *            EFFECTS           *
                 *******************************/

%  Effects that would change nothing are dropped here, so rules need not
%  check (and their ASP twins need not either).
redundant(new_prop(P, _))              :- prop(P, _).
redundant(aware(P))                    :- aware(P).
redundant(set_standing(A, S, _))       :- standing(A, S, _, _).
redundant(add_dep(A, L))               :- dep(A, L).
redundant(add_explains(A, L))          :- explains(A, L).
redundant(add_attack(F, T))            :- att(F, T).
redundant(commit(G, A))                :- committed(G, A).
redundant(retract_commitment(G, A))    :- \+ committed(G, A).
redundant(dissent(A, G))               :- dissent(A, G).

apply_effect(_, new_prop(P, K))          :- store(prop(P, K)).
apply_effect(_, aware(P))                :- store(aware(P)).
apply_effect(U, new_arg(Id, L, K))       :- new_argument(U, Id, L, K, false).
apply_effect(u(T, _), set_standing(A, S, C)) :-
    unstore(standing(A, Old, _, _)), store(standing(A, S, T, C)),
    standing_changed(A, Old, S).
apply_effect(_, add_dep(A, L))           :- store(dep(A, L)), claims(A, C), edge_added(dep, C, L).
apply_effect(_, add_explains(A, L))      :- store(explains(A, L)), explains_added(A, L).
apply_effect(_, add_attack(F, T))        :-
    store(att(F, T)),
    (   option(acyclic_attacks) -> edge_added(att, F, T) ; true ).
apply_effect(_, commit(G, A))            :- store(committed(G, A)).
apply_effect(_, retract_commitment(G, A)) :- unstore(committed(G, A)).
apply_effect(_, dissent(A, G))           :- store(dissent(A, G)).
apply_effect(_, announce(_)).            % M lives in the bridge
apply_effect(_, upgrade(_, _)).
apply_effect(_, withdraw(_)).
apply_effect(_, refine(_)).
apply_effect(_, abduce(_)).
apply_effect(_, problem(L, open))        :- store(open_problem(L)).
apply_effect(_, problem(L, closed))      :- unstore(open_problem(L)).
apply_effect(_, new_agent(G))            :- store(agent(G, false)).
apply_effect(_, turn(T)) :-
    (   unstore(last_turn(_)) -> true ; true ),
    store(last_turn(T)).

%  new_argument(+U, +Id, +Literal, +Kind, +Committed): the argument, with
%  its speaker's commitment to it when Committed == true (state.pl:
%  Commitments; the commit effect that follows then finds it stored).
new_argument(u(T, S), Id, L, K, Committed) :-
    unstore(arg_count(_)), store(arg_count(Id)),
    store_argument(Id, L, K, S, T, Committed),
    store(standing(Id, active, T, none)).

%  Effects addressed to the world model M.
model_effect(announce(_)).
model_effect(upgrade(_, _)).
model_effect(withdraw(_)).
model_effect(refine(_)).
model_effect(abduce(_)).

                 /*******************************
                 *            DRIVER            *
                 *******************************/

%  apply_utterance(+utterance(Turn, Speaker, Ops), +Record, -Result): Result is
%  accepted(Transitions, Left), with Transitions a list of o(Index, Effects),
%  the effects each operation applied in order (Index -1: the utterance's own,
%  a new speaker and the turn; an operation without effects is left out), and
%  Left the claims the utterance took out of S_t (left_standing/2);
%  rejected(Violations), with v(Index, Op, Code, Message); or refused(Why):
%  the bridge could not record it (Record == true: it says why).  Nothing
%  changes unless it is accepted.
apply_utterance(utterance(Turn, Speaker, []), Record, Result) :-
    !,
    admit_utterance(Turn, Speaker, Record, Result).
apply_utterance(utterance(Turn, Speaker, Ops), Record, Result) :-
    saved_counters(Saved),
    (   catch(transaction(run_utterance(Turn, Speaker, Ops, Record, Result)), Stop, true)
    ->  true
    ;   restore_counters(Saved), fail
    ),
    (   var(Stop)
    ->  true
    ;   restore_counters(Saved),
        (   Stop = rejected(Vs)
        ->  Result = rejected(Vs)
        ;   Stop == refused
        ->  Result = refused("the bridge could not record the utterance")
        ;   throw(Stop)
        )
    ).

run_utterance(Turn, Speaker, Ops, Record, accepted(Transitions, Left)) :-
    U = u(Turn, Speaker),
    admission(U, V0, Admit),
    apply_each(Admit, U),
    run_ops(Ops, 0, U, Vss, Tss),
    (   V0 == [], all_empty(Vss)
    ->  true
    ;   append([V0|Vss], Violations),
        throw(rejected(Violations))
    ),
    drop_empty([o(-1, Admit)|Tss], Transitions),
    left_standing(Transitions, Left),
    (   Record == true
    ->  (   log_call(record, true) -> true ; throw(refused) )
    ;   true
    ).

%  drop_empty(+Transitions, -NonEmpty): leave out operations without effects.
drop_empty([], []).
drop_empty([T|Ts], Out) :-
    (   T = o(_, [])
    ->  Out = Out1
    ;   Out = [T|Out1]
    ),
    drop_empty(Ts, Out1).

all_empty([]).
all_empty([[]|Ls]) :- all_empty(Ls).

apply_each([], _).
apply_each([E|Es], U) :-
    apply_effect(U, E),
    apply_each(Es, U).

%  admit_utterance(+Turn, +Speaker, +Record, -Result): an utterance without
%  operations (chatter) is still a turn: the same speaker and turn-order
%  checks, the same admission effects (a new speaker, the turn), recorded
%  before they apply.  With no operation to run there is nothing to roll
%  back, so it needs no transaction: the checks come first, then the write,
%  then the two facts.  Its reply is the one run_utterance/5 would give.
admit_utterance(Turn, Speaker, Record, Result) :-
    U = u(Turn, Speaker),
    admission(U, Violations, Admit),
    (   Violations \== []
    ->  Result = rejected(Violations)
    ;   Record == true, \+ log_call(record, true)
    ->  Result = refused("the bridge could not record the utterance")
    ;   apply_each(Admit, U),
        Result = accepted([o(-1, Admit)], [])
    ).

utterance_violation(u(T, _), turn_order, M) :-
    last_turn(Last), T =< Last,
    fmt(M, "turn ~w does not come after turn ~w", [T, Last]).
utterance_violation(u(_, S), unknown_speaker, M) :-
    \+ open_agents, \+ agent(S, _),
    findall(G, agent(G, _), Gs),
    fmt(M, "~w is not a declared agent (agents: ~w)", [S, Gs]).

admission(u(_, S), new_agent(S)) :- open_agents, \+ agent(S, _).
admission(u(T, _), turn(T)).

%  admission(+U, -Violations, -Effects): the utterance's own violations
%  (utterance_violation/3, as v/4 records) and its admission effects
%  (admission/2, in order).  The usual case, a known speaker after the last
%  turn, is decided without collecting solutions: it runs for every
%  utterance, chatter included.  A known speaker is admitted whether or not
%  agents join on their first word, so open_agents/0 is asked only of a
%  speaker not yet known.
admission(U, Violations, Admit) :-
    U = u(T, S),
    (   ( last_turn(Last) -> T > Last ; true ),
        (   agent(S, _)
        ->  Admit = [turn(T)]
        ;   open_agents, Admit = [new_agent(S), turn(T)]
        )
    ->  Violations = []
    ;   findall(v(-1, utterance, C, M), utterance_violation(U, C, M), Violations),
        findall(E, admission(U, E), Admit)
    ).

%  run_ops(+Ops, +I, +U, -Violations, -Transitions): one list of each per
%  operation, in order (tail-recursive: an utterance may be long).
run_ops([], _, _, [], []).
run_ops([Op|Ops], I, U, [Vs|Vss], [Ts|Tss]) :-
    run_op(I, U, Op, Vs, Ts),
    I1 is I + 1,
    run_ops(Ops, I1, U, Vss, Tss).

run_op(I, U, Op, Vs, Ts) :-
    Op = op(Name, _),
    findall(v(I, Name, C, M), op_violation(Name, U, Op, C, M), Vs0),
    (   Vs0 == []
    ->  run_effects(I, Name, U, Op, Vs, Es)
    ;   Vs = Vs0, Es = []
    ),
    Ts = o(I, Es).

%  The operation's declaration is read from op_module/2 and required_field/3
%  (what load_rule_file/2 kept of it), not copied from operation/3 per call.
op_violation(Name, _, _, unknown_operation, M) :-
    \+ op_module(Name, _), !,
    findall(N, declared(N, _, _), Ns),
    fmt(M, "~w is not an operation (known: ~w)", [Name, Ns]).
op_violation(Name, _, Op, missing_field, M) :-
    required_field(Name, F, _),
    \+ field(Op, F, _),
    fmt(M, "~w needs the field ~w", [Name, F]).
op_violation(Name, U, Op, Code, M) :-
    rule_violation(Name, U, Op, Code, M).
op_violation(Name, U, Op, Code, M) :-
    has_findings(Op),
    announce_violation(Name, U, Op, Code, M).

%  Any operation that announces L: the bridge found L impossible (no world of
%  the model satisfies it after the operations before it) or false in the
%  declared actual world.  A hard announcement must be truthful.
announce_violation(Name, U, Op, announce_impossible, M) :-
    epistemic(Op, impossible(L)), rule_effect(Name, U, Op, announce(L)),
    fmt(M, "announcing ~w leaves no possible world: the world model already rules it out", [L]).
announce_violation(Name, U, Op, announce_false, M) :-
    epistemic(Op, false(L)), rule_effect(Name, U, Op, announce(L)),
    fmt(M, "~w is false in the actual world the world model declares", [L]).

%  has_findings(+Op): the world model's findings were added to Op (only
%  then can epistemic/2 succeed; a quick test spares the clauses above).
has_findings(op(_, Fields)) :- memberchk(epistemic=_, Fields).

%  run_effects(+I, +Name, +U, +Op, -Violations, -Transitions): ask the rules
%  for the effects (all read the state before the operation), check and
%  prune them, let the world model read them, apply them, then check the
%  invariants and update the open problems they touch.
run_effects(I, Name, U, Op, Violations, Transitions) :-
    findall(E, rule_effect(Name, U, Op, E), Es0),
    dedupe(Es0, Es00),
    order_effects(Es00, Es1),
    malformed_effects(Name, Es1, Bad),
    (   Bad \== []
    ->  tag(I, Name, Bad, Violations), Transitions = []
    ;   bind_new_argument(Es1, Es2),
        drop_redundant(Es2, Es),
        epistemic_violations(I, Name, U, Op, Es, EpVs),
        (   EpVs \== []
        ->  Violations = EpVs, Transitions = []
        ;   apply_checked_each(Es, U, [], Broken),
            findall(C-M, (member(E, Es), broken_invariant(E, C, M)), After),
            append(Broken, After, Bad2),
            tag(I, Name, Bad2, Violations),
            problem_updates(Es, Ps),
            apply_each(Ps, U),
            world_applied(I, Es),
            append(Es, Ps, Transitions)
        )
    ).

tag(_, _, [], []).
tag(I, Name, [C-M|Pairs], [v(I, Name, C, M)|Violations]) :-
    tag(I, Name, Pairs, Violations).

%  The driver's loops over effect lists are written out rather than passed
%  to maplist/exclude/partition: they run for every effect of every
%  operation, and a closure costs a meta-call per element.
drop_redundant([], []).
drop_redundant([E|Es], Out) :-
    (   redundant(E)
    ->  Out = Out1
    ;   Out = [E|Out1]
    ),
    drop_redundant(Es, Out1).

apply_checked_each([], _, Broken, Broken).
apply_checked_each([new_prop(P, K), aware(P), new_arg(Id, L, K)|Es], U, Broken0, Broken) :-
    literal_key(L, P, _), !,                 % the proposition kept with its first argument (state.pl: Awareness)
    apply_checked_each([new_arg(Id, L, K)|Es], U, Broken0, Broken).
apply_checked_each([new_prop(P, K), aware(P)|Es], U, Broken0, Broken) :- !,
    store_aware_prop(P, K),                  % one clause for both (state.pl: Awareness)
    apply_checked_each(Es, U, Broken0, Broken).
apply_checked_each([new_arg(Id, L, K)|Es], U, Broken0, Broken) :-
    U = u(_, S), memberchk(commit(S, Id), Es), !,
    new_argument(U, Id, L, K, true),         % and its speaker's commitment (state.pl: Commitments)
    apply_checked_each(Es, U, Broken0, Broken).
apply_checked_each([E|Es], U, Broken0, Broken) :-
    apply_checked(U, E, Broken0, Broken1),
    apply_checked_each(Es, U, Broken1, Broken).

%  epistemic_violations(+I, +Name, +U, +Op, +Effects, -Violations): with a
%  world model, the bridge reads the operation's model effects in M (after
%  the operations before it) and its findings become the `epistemic` field
%  that violation/5 reads.  Without model effects there is nothing to read.
epistemic_violations(I, Name, U, Op, Es, Violations) :-
    (   world_model, once(( member(E, Es), model_effect(E) ))
    ->  world_call(read(I, Es), Verdicts),
        Op = op(Name, Fields),
        Op1 = op(Name, [epistemic=Verdicts|Fields]),
        findall(v(I, Name, C, M), op_violation(Name, U, Op1, C, M), Violations)
    ;   Violations = []
    ).

world_applied(I, Es) :-
    (   world_model, once(( member(E, Es), model_effect(E) ))
    ->  world_call(applied(I), _)
    ;   true
    ).

%  New propositions and the new argument come first, so that the other
%  effects of the operation may refer to them.
order_effects(Es, Ordered) :-
    split_creates(Es, First, Rest),
    append(First, Rest, Ordered).

split_creates([], [], []).
split_creates([E|Es], First, Rest) :-
    (   creates(E)
    ->  First = [E|First1], Rest = Rest1
    ;   First = First1, Rest = [E|Rest1]
    ),
    split_creates(Es, First1, Rest1).

creates(new_prop(_, _)).
creates(aware(_)).
creates(new_arg(_, _)).

%  dedupe(+List, -Set): first occurrences in order (effect lists are short).
dedupe(Xs, Set) :-
    (   sort(Xs, Sorted), same_length(Sorted, Xs)
    ->  Set = Xs                        % no two are ==: the usual case
    ;   dedupe(Xs, [], Set)
    ).

dedupe([], _, []).
dedupe([X|Xs], Seen, Set) :-
    (   memberchk_eq(X, Seen)
    ->  Set = Set1
    ;   Set = [X|Set1]
    ),
    dedupe(Xs, [X|Seen], Set1).

memberchk_eq(X, [Y|Ys]) :-
    (   X == Y -> true ; memberchk_eq(X, Ys) ).

%  malformed_effects(+Name, +Effects, -Bad): rule-author mistakes, as
%  Code-Message pairs: an effect outside the vocabulary or with a value of
%  the wrong type, an argument that does not exist, `new` without a new
%  argument, two new arguments from one operation.
malformed_effects(Name, Es, Bad) :-
    (   memberchk(new_arg(_, _), Es) -> New = true ; New = false ),
    (   all_valid(Es, New, 0, NewArgs), NewArgs =< 1
    ->  Bad = []
    ;   malformed_effects(Name, Es, New, Bad)
    ).

%  all_valid(+Effects, +New, +N0, -N): every effect is valid (the usual
%  case, checked in one pass), N0 + the number of new arguments is N.
all_valid([], _, N, N).
all_valid([E|Es], New, N0, N) :-
    valid_effect(New, E),
    (   E = new_arg(_, _) -> N1 is N0 + 1 ; N1 = N0 ),
    all_valid(Es, New, N1, N).

malformed_effects(Name, Es, New, Bad) :-
    findall(unknown_effect-M,
            ( member(E, Es), \+ valid_effect(New, E),
              fmt(M, "~w emitted ~q, which is not an effect (see effect_signature/2 in prolog/vocabulary.pl)",
                  [Name, E]) ),
            B1),
    aggregate_all(count, member(new_arg(_, _), Es), NewArgs),
    (   NewArgs > 1
    ->  fmt(M2, "~w creates ~w arguments; an operation creates at most one", [Name, NewArgs]),
        Bad = [two_new_arguments-M2|B1]
    ;   Bad = B1
    ).

valid_effect(New, E) :-
    ground(E), compound(E),
    compound_name_arguments(E, F, Args),
    vocabulary:effect_signature(F, Types),
    valid_values(Types, Args, New).

valid_values([], [], _).
valid_values([T|Ts], [X|Xs], New) :-
    valid_value(New, T, X),
    valid_values(Ts, Xs, New).

valid_value(New, arg, X) :- !,
    (   X == new -> New == true ; integer(X), once(argument(X, _, _, _, _)) ).
valid_value(_, Type, X) :- vocabulary:value_type(Type, X).

bind_new_argument(Es0, Es) :-
    (   memberchk(new_arg(_, _), Es0)
    ->  arg_count(N0), Id is N0 + 1,
        bind_each(Es0, Id, Es)
    ;   Es = Es0
    ).

bind_each([], _, []).
bind_each([E0|Es0], Id, [E|Es]) :-
    bind_new(Id, E0, E),
    bind_each(Es0, Id, Es).

%  Only a position typed `arg` holding `new` names the new argument (an atom
%  `new` elsewhere, say a claim, stays); the effects are ground here.
bind_new(Id, new_arg(L, K), new_arg(Id, L, K)) :- !.
bind_new(_, E0, E) :-
    \+ arg(_, E0, new), !,
    E = E0.
bind_new(Id, E0, E) :-
    E0 =.. [F|As0],
    vocabulary:effect_signature(F, Types),
    bind_positions(Types, As0, Id, As),
    E =.. [F|As].

bind_positions([], [], _, []).
bind_positions([T|Ts], [X|Xs], Id, [Y|Ys]) :-
    (   T == arg, X == new -> Y = Id ; Y = X ),
    bind_positions(Ts, Xs, Id, Ys).

apply_checked(U, E, Broken0, Broken) :-
    (   E = set_standing(A, New, _), standing(A, Old, _, _),
        \+ standing_may_change(Old, New)
    ->  claims(A, L),
        fmt(M, "argument ~w (~w) may not go from ~w to ~w: weakened and abandoned arguments never return to standing (Lemma 2.4)",
            [A, L, Old, New]),
        append(Broken0, [standing_invariant-M], Broken)
    ;   Broken = Broken0
    ),
    apply_effect(U, E).

%  problem_updates(+Effects, -ProblemEffects): re-decide the open problems
%  whose status these effects may have changed.  It runs for every
%  operation, so it walks the effects and the literals itself: the literals
%  an effect touches are collected without a findall per operation (one only
%  for a standing change, which touches every literal its argument claims or
%  explains), and each literal's status is decided with one is_open/1.
problem_updates(Es, Ps) :-
    touched_literals(Es, Ls0),
    dedupe(Ls0, Ls),
    problem_changes(Ls, Ps).

touched_literals([], []).
touched_literals([E|Es], Ls) :-
    (   touched(E, L)
    ->  Ls = [L|Ls1]
    ;   E = set_standing(A, _, _)
    ->  findall(L, ( claims(A, L) ; explains(A, L) ), Ls, Ls1)
    ;   Ls = Ls1
    ),
    touched_literals(Es, Ls1).

touched(new_arg(_, L, _), L).
touched(add_explains(_, L), L).
touched(new_prop(P, question), P).

%  problem_changes(+Literals, -ProblemEffects): problem(L, open) for each
%  literal open but not queued, problem(L, closed) for each queued but no
%  longer open, in order.
problem_changes([], []).
problem_changes([L|Ls], Ps) :-
    (   open_problem(L)
    ->  ( is_open(L) -> Ps = Ps1 ; Ps = [problem(L, closed)|Ps1] )
    ;   is_open(L)
    ->  Ps = [problem(L, open)|Ps1]
    ;   Ps = Ps1
    ),
    problem_changes(Ls, Ps1).

%  left_standing(+Transitions, -Claims): the claims this utterance took out
%  of S_t: an argument for each left good standing, and none stands now.
%  The bridge flags what rests on them (Affected* in S_t).
left_standing(Ts, Claims) :-
    (   member(o(_, Es), Ts), memberchk(set_standing(_, _, _), Es)
    ->  findall(L, ( member(o(_, Es1), Ts), member(set_standing(A, S, _), Es1),
                     \+ good_standing(S),
                     claims(A, L), \+ stands(L) ),
                Ls),
        dedupe(Ls, Claims)
    ;   Claims = []
    ).

                 /*******************************
                 *        MANY UTTERANCES       *
                 *******************************/

%  catch_up(+Behind): the bridge admitted turns up to Behind without a rule
%  run (utterances without operations, by a known speaker, in turn order:
%  Engine.apply), or Behind is none.  Only the last turn changes, by the
%  admission effect turn/1 the rules would have applied (admission/3).
catch_up(none) :- !.
catch_up(Turn) :-
    apply_effect(-1, turn(Turn)).

%  apply_batch(+Utterances, +I, -Accepted, -Stop): apply the utterances in
%  order, each atomically and judged by the rules as apply_utterance/3
%  judges one (Record = false: a log being replayed is already written).
%  Accepted holds Transitions-Left of each accepted one; the first that is
%  not accepted stops the batch: Stop is stopped(I, Result), its position
%  and its rejected(...) or refused(...), and the state is as it was before
%  it.  Stop is done when every utterance was accepted.
apply_batch([], _, [], done).
apply_batch([U|Us], I, Replies, Stop) :-
    apply_utterance(U, false, Result),
    (   Result = accepted(Ts, Left)
    ->  Replies = [Ts-Left|Replies1],
        I1 is I + 1,
        apply_batch(Us, I1, Replies1, Stop)
    ;   Replies = [],
        Stop = stopped(I, Result)
    ).

                 /*******************************
                 *       FOREIGN INTERFACE      *
                 *******************************/

%!  py_request(+Request, -Reply) is det.
%
%   The one entry point the Python bridge
%  calls (grounded.solvers.prolog), with Request a term it built through the
%  foreign interface.  Reply is ok(Value), or error(Message) with SWI-Prolog's
%  own message on one line: nothing crosses as an exception.
py_request(Request, Reply) :-
    catch(( request(Request, Value) -> Reply = ok(Value) ; Reply = error("the request failed") ),
          E,
          ( error_line(E, Line), Reply = error(Line) )).

%  An extension is trusted code, and one that calls halt/0,1 would end the
%  whole process with whatever status it names (0 reads as success: a run
%  that passed, a claim grounded).  While a request from the bridge runs,
%  the halt is cancelled instead (halt/1 then fails where it was called) and
%  the bridge told where it was called, halt_call(at(File, Line), _), which
%  succeeds only while the bridge waits on a request: the
%  bridge refuses the utterance's commit and fails the request with an input
%  error naming the file.  A halt outside a request, the process ending, goes
%  ahead.
:- at_halt(grounded:refuse_halt).

refuse_halt :-
    prolog_current_frame(Frame),
    (   extension_caller(Frame, File, Line) -> true
    ;   source_location(File, Line) -> true   % a directive of a file being loaded
    ;   File = '', Line = 0
    ),
    (   current_predicate(halt_call/2),       % the bridge's (plain swipl, as plunit runs it, has none)
        halt_call(at(File, Line), _)          % fails unless a request is running
    ->  cancel_halt('a rule file called halt/0,1 during a request')
    ;   true
    ).

%  extension_caller(+Frame, -File, -Line): the nearest clause of an extension
%  on the stack above Frame, by its file and first line.
extension_caller(Frame, File, Line) :-
    prolog_frame_attribute(Frame, clause, Clause),
    clause_property(Clause, file(File)),
    extension_module(File, Module), current_module(Module), !,
    clause_property(Clause, line_count(Line)).
extension_caller(Frame, File, Line) :-
    prolog_frame_attribute(Frame, parent, Parent),
    extension_caller(Parent, File, Line).


%!  py_apply(+Text, -Reply) is det.
%
%   A live utterance as one string (flat_apply/5),
%  the request the bridge makes most: Reply is py_request/2's reply to
%  apply(Text), except that an accepted utterance whose reply is flat comes
%  back as the flat text alone, a string, so that the bridge reads it with
%  one foreign call rather than one per node of ok(flat(Text, N)) (N is the
%  count of separators in Text: flat_reply/2 falls back to terms when a
%  value holds one).
py_apply(Text, Reply) :-
    py_request(apply(Text), Reply0),
    (   Reply0 = ok(flat(Flat, _))
    ->  Reply = Flat
    ;   Reply = Reply0
    ).

group_reply(Text, Reply) :-
    py_request(apply(Text), Reply).

flat_part(ok(flat(Text, N)), Text, N).

%  error_line(+Error, -Line): SWI-Prolog's own message for Error, on one line.
error_line(E, Line) :-
    (   catch(message_to_codes(E, Codes), _, fail)
    ->  string_codes(S, Codes),
        split_string(S, "\n\t", " ", Parts0),
        exclude(==(""), Parts0, Parts),
        atomic_list_concat(Parts, ' ', Atom),
        atom_string(Atom, Line)
    ;   format(string(Line), "~q", [E])
    ).

message_to_codes(E, Codes) :-
    '$messages':translate_message(E, Lines, []),
    with_output_to(codes(Codes), print_message_lines(current_output, '', Lines)).

%  apply_one(+Module, +Utterance, +Record, +Behind, -Reply): one utterance, live.
apply_one(M, Utterance, Record, Behind, Reply) :-
    use_state(M), catch_up(Behind),
    apply_utterance(Utterance, Record, Result),
    tidy_state,
    (   Result = accepted(Ts, Left)
    ->  flat_reply([Ts-Left], Reply)
    ;   Reply = Result
    ).

request(apply(Text), Reply) :-               % a live utterance as one string (flat_apply/5)
    flat_apply(Text, M, Record, Behind, Utterance),
    apply_one(M, Utterance, Record, Behind, Reply).
%  apply_group(+Texts): live utterances of several engines in one request (the
%  service's group of writes, src/grounded/service/host.py), each Text as
%  apply(Text) takes it, naming its own state module: applied in order, each
%  atomically and on its own (one refused or in error leaves the others).  One
%  crossing for the group, and the rules run back to back.  When every one was
%  accepted with a flat reply, the reply is flat(Text, N), their flat texts
%  joined (one text of many utterances, as flat_reply/2 writes a batch's), read
%  with one foreign call; else each(Replies), the reply of each as
%  py_request(apply(Text), Reply) gives it.
request(apply_group(Texts), Reply) :-
    maplist(group_reply, Texts, Replies),
    (   maplist(flat_part, Replies, Parts, Counts)
    ->  atomics_to_string(Parts, Text), sum_list(Counts, N), Reply = flat(Text, N)
    ;   Reply = each(Replies)
    ).
request(apply_batch(M, Batch, Behind), batch(Accepted, Stop)) :-
    batch_utterances(Batch, Utterances),
    use_state(M), catch_up(Behind),
    apply_batch(Utterances, 0, Replies, Stop),
    tidy_state,
    flat_reply(Replies, Accepted).
request(catch_up(M, Behind), true) :-
    use_state(M), catch_up(Behind).
request(new_state(M, Sent), true) :-
    (   Sent = flat(_, _) -> flat_facts(Sent, Facts) ; Facts = Sent ),
    new_state(M, Facts),
    use_state(M), rebuild_levels, rebuild_settled.
%  add_facts(M, Sent, Last): more of a state being restored in parts (after
%  new_state(M, [])), so that neither side holds all of it as text at once;
%  the levels are rebuilt with the last part, or were given with the facts
%  (Last = levels: dep_level/3, rested_on/2, att_level/2 as rebuild_levels
%  would make them).
request(add_facts(M, Sent, Last), true) :-
    (   Sent = flat(_, _) -> flat_facts(Sent, Facts) ; Facts = Sent ),
    add_facts(M, Facts),
    (   Last == true -> use_state(M), rebuild_levels, rebuild_settled
    ;   Last == levels -> use_state(M), rebuild_settled
    ;   true
    ).
request(free_state(M), true) :-
    forget_state(M).
request(state_facts(M), Facts) :-
    state_facts(M, Facts).
request(schema, Specs) :-
    findall(operation(N, D, Fs), declared(N, D, Fs), Specs).
request(load_extension(File0), Reply) :-
    absolute_file_name(File0, File, [access(read)]),
    extension_module(File, Module),
    catch(( load_rule_file(File, Module), Reply = true ),
          rule_file_refused(_, Line, Why), Reply = refused(Line, Why)).
request(unload_extension(File0), true) :-
    absolute_file_name(File0, File),
    unload_rule_file(File).
request(transitions, Ts) :-
    findall(t(N, T), declared_transition(N, T), Ts).
request(standings(M), Pairs) :-
    use_state(M), findall(A-S, standing(A, S, _, _), Pairs).
request(invariant(M), Holds) :-
    use_state(M), ( standing_invariant_holds -> Holds = true ; Holds = false ).
request(grounded_args(M), Args) :-         % the grounded arguments alone (queries.pl)
    use_state(M), grounded_args(Args).
request(queries(M), queries(Grounded, Affected)) :-
    use_state(M), query_answers(Grounded, Affected).
request(ask(Name, M), Ids) :-              % a query of the registry (src/grounded/queries/registry.py):
    query(Name), use_state(M),               % the arguments Name/1 holds of, sorted (queries.pl)
    findall(A, call(Name, A), Ids0), sort(Ids0, Ids).
request(claim_standings(M), Notes) :-
    use_state(M),
    findall(L, claims(_, L), Ls0), sort(Ls0, Ls),
    findall(note(L, S, T, C), ( member(L, Ls), claim_standing(L, S, T, C) ), Notes).
request(open_problems(M), Ls) :-
    use_state(M), findall(L, open_problem(L), Ls).
request(acyclic_grounded(Args, Attacks), Result) :-
    (   acyclic_grounded(Args, Attacks, Members) -> Result = in(Members) ; Result = cyclic ).
request(lint(File), Calls) :-
    undocumented_calls(File, Calls).
request(lint_refusals(File), Refusals) :-    % everything that keeps a rule file from loading, by line
    refusals(File, Refusals).
request(lint_transitions(File), Missing) :-  % operations declared without transition/2 (lint only)
    undeclared_transitions(File, Missing).
request(lint_definitions(File), Defined) :-   % what a rule file would redefine (refused at load)
    driver_definitions(File, Defined).
request(clause_locations, Locs) :-        % where each violation and effect clause of an operation is
    findall(loc(Kind, Op, Name, File, Line),  % (crosscheck/locate.py names it in a disagreement)
            ( op_module(Op, M), clause_location(M, Op, Kind, Name, File, Line) ), Locs).
request(catalogue, Text) :-                 % grounded rules: the precondition catalogue
    catalogue:catalogue_text(Text).
request(echo(Term), Term).                  % the protocol's own round-trip test
request(inferences, N) :-                   % the rules' work so far, a count that does not depend on load
    statistics(inferences, N).
request(vocabulary, vocabulary(Standings, Kinds, Signatures, Layer)) :-
    findall(S, standing_name(S), Standings),
    findall(K, prop_kind(K), Kinds),
    findall(N-Ts, vocabulary:effect_signature(N, Ts), Signatures),
    findall(N-A, vocabulary:layer_predicate(N/A), Layer).
request(effect_kinds, Kinds) :-              % the effect declaration, as Prolog reads it
    findall(k(N, G, D, Fs), vocabulary:effect_kind(N, G, D, Fs), Kinds).

:- use_module(invariants).
:- use_module(queries).
:- use_module(dung).
:- use_module(lint).
:- use_module(catalogue, []).
:- load_operation(ops/observe).
:- load_operation(ops/hypothesize).
:- load_operation(ops/support).
:- load_operation(ops/undermine).
:- load_operation(ops/revise).
:- load_operation(ops/expand_awareness).
:- load_operation(ops/resolve).
:- load_operation(ops/question).
