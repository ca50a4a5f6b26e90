/*  grounded.pl -- the runtime semantics of one utterance.

    The Python bridge hands this module one utterance at a time.  For every
    operation in it the module asks the operation's rules (the files in prolog/ops)
    which preconditions fail and, if none does, which effects it has; it
    applies those effects to its own copy of the dependency map so that the
    next operation of the same utterance sees them, checks the invariants the
    paper proves (prolog/invariants.pl) and reports the effects back.  Any
    violation anywhere rolls the whole utterance back: an utterance is atomic.

    The bridge mirrors every reported effect in Python (its reverse index and
    histories answer Verify and Affected*); it never decides an effect itself.
    Adding an operation therefore means adding rules: see docs/extending.md.
*/
:- module(grounded,
          [ bridge_call/3,              % +Name, +InText, -OutText
            apply_utterance_string/2,   % +UtteranceText, -ResultText
            load_state_string/1,        % +FactsText
            dump_state_string/1,        % -FactsText
            load_extension/1,           % +File
            unload_extension/1,         % +File
            operation_schema_string/1,  % -SchemaText
            standing_invariant_holds/0
          ]).

:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(rbtrees)).
:- use_module(library(aggregate)).
:- use_module(library(assoc)).

/* The dependency map D_t = (M, AF, Cm, Dep) as facts: AF (arguments, attacks,
   standing), Cm, Dep, Prop_t with awareness, and the open problems.  The
   plausibility model M is not among them: it lives in the bridge, which reads
   each operation in it and passes what it found in the operation's
   `epistemic` field (only when the conversation declares a world model:
   option(world_model)).  Rules decide what an operation does to M through
   the model effects below.  Arguments are never deleted: only their standing
   changes. */
:- dynamic
    agent/2,            % agent(Name, HasDecisionAuthority)
    open_agents/0,      % no agents declared: a speaker joins on first word
    option/1,           % option(acyclic_attacks): the paper's restriction A2
    prop/2,             % prop(Atom, Kind): Prop_t
    aware/1,            % aware(Atom): in every agent's awareness set
    argument/5,         % argument(Id, Claim, Kind, Speaker, Turn)
    standing/4,         % standing(Id, Standing, SinceTurn, Cause)
    dep/2,              % dep(Id, Literal): Dep_t
    explains/2,         % explains(Id, Literal)
    att/2,              % att(Attacker, Target): Att_t
    committed/2,        % committed(Agent, Id): Cm_t
    dissent/2,          % dissent(DecisionId, Agent)
    open_problem/1,     % open_problem(Literal): the abductive-problem queue
    last_turn/1,
    arg_count/1.

%  The hooks every operation file contributes to.
:- multifile operation/3, violation/5, effect/4.
:- discontiguous operation/3, violation/5, effect/4.

state_predicate(agent/2).      state_predicate(open_agents/0).
state_predicate(option/1).     state_predicate(prop/2).
state_predicate(aware/1).      state_predicate(argument/5).
state_predicate(standing/4).   state_predicate(dep/2).
state_predicate(explains/2).   state_predicate(att/2).
state_predicate(committed/2).  state_predicate(dissent/2).
state_predicate(open_problem/1).
state_predicate(last_turn/1).  state_predicate(arg_count/1).

                 /*******************************
                 *   VOCABULARY FOR RULE FILES  *
                 *******************************/

%  Literals are atoms (o5) or their negation (-a3).
atom_of(-P, P) :- !.
atom_of(P, P).

negation(-P, P) :- !.
negation(P, -P).

%  An operation arrives as op(Name, [Field=Value, ...]) and its utterance as
%  u(Turn, Speaker).
field(op(_, Fields), Key, Value) :- memberchk(Key=Value, Fields).

field(Op, Key, Value, Default) :-
    (   field(Op, Key, V) -> Value = V ; Value = Default ).

speaker(u(_, Speaker), Speaker).
turn(u(Turn, _), Turn).

%  Arguments and their standing.  S_t holds the active and resolved ones.
claims(A, Literal) :- argument(A, Literal, _, _, _).
claimed(Literal) :- once(argument(_, Literal, _, _, _)).
good_standing(active).
good_standing(resolved).
in_standing(A) :- standing(A, S, _, _), good_standing(S).
standing_of(A, S) :- standing(A, S, _, _).
standing_arg(Literal, A) :- argument(A, Literal, _, _, _), in_standing(A).
stands(Literal) :- standing_arg(Literal, _), !.

all_abandoned(Literal) :-
    claimed(Literal),
    \+ ( claims(A, Literal), \+ standing(A, abandoned, _, _) ).

%  current_arg(L, A): the arguments an operation on L acts upon: those in
%  good standing, or, when none is, the weakened ones.
current_arg(Literal, A) :-
    (   stands(Literal)
    ->  standing_arg(Literal, A)
    ;   claims(A, Literal), standing(A, weakened, _, _)
    ).

%  speaks_for(A, L): the one argument that voices L when L attacks or
%  supports something: the newest in good standing, else the newest not
%  abandoned, else the newest.
speaks_for(A, Literal) :-
    (   aggregate_all(max(X), standing_arg(Literal, X), A0)
    ->  A = A0
    ;   aggregate_all(max(X), (claims(X, Literal), \+ standing(X, abandoned, _, _)), A0)
    ->  A = A0
    ;   aggregate_all(max(X), claims(X, Literal), A)
    ).

%  Propositions, kinds and awareness.
known(Literal) :- atom_of(Literal, P), prop(P, _), !.
latent(P) :- prop(P, _), \+ aware(P).
kind_of(Literal, Kind) :- atom_of(Literal, P), prop(P, Kind).
claim_kind(Literal, Default, Kind) :-
    (   kind_of(Literal, K) -> Kind = K ; Kind = Default ).

has_authority(Agent) :- agent(Agent, true).

%  world_model: the conversation declares a world model, so operations
%  report what they do to M (announce/upgrade/withdraw/refine effects) and
%  may carry epistemic verdicts.
world_model :- option(world_model).

%  epistemic(+Op, -Verdict): one verdict the bridge read in the world model
%  for this operation (see bridge/epistemic/conversation.py).
epistemic(Op, Verdict) :- field(Op, epistemic, Vs), member(Verdict, Vs).

%  introduces(+U, +Op, +Kind, -Effect): the effects of an operation whose
%  `claim` becomes a new argument: the proposition (of kind Kind unless
%  declared otherwise), its place in every agent's awareness, the argument
%  itself and the speaker's commitment to it.
introduces(_, Op, Kind, new_prop(P, Kind)) :- field(Op, claim, L), atom_of(L, P).
introduces(_, Op, _, aware(P))             :- field(Op, claim, L), atom_of(L, P).
introduces(_, Op, Kind, new_arg(L, K))     :- field(Op, claim, L), claim_kind(L, Kind, K).
introduces(U, _, _, commit(S, new))        :- speaker(U, S).

%  Open abductive problems (DESIGN.md section 2): a question, or an
%  observation in good standing, until an argument that explains it is
%  resolved (competing hypotheses leave it open).
is_open(Q) :-
    prop(Q, question), !,
    \+ ( explains(A, Q), standing(A, resolved, _, _) ).
is_open(L) :-
    argument(A, L, observation, _, _), in_standing(A), !,
    \+ ( explains(E, L), standing(E, resolved, _, _) ).

some_open_problem :- open_problem(_), !.

%  standing_note(L, Note): how the newest argument for L reached its
%  standing, e.g. "abandoned at T9 by o9"; used in messages.
standing_note(Literal, Note) :-
    aggregate_all(max(A), claims(A, Literal), A),
    standing(A, S, T, Cause),
    (   Cause = by(E)
    ->  format(string(Note), "~w at T~w by ~w", [S, T, E])
    ;   format(string(Note), "~w at T~w", [S, T])
    ).

%  fmt(-Message, +Format, +Args): messages are single lines.
fmt(Message, Format, Args) :- format(string(Message), Format, Args).

%  reaches(:Step, +From, +To): To is reachable from From by zero or more
%  call(Step, X, Y) steps; each node is expanded once.
:- meta_predicate reaches(2, +, +).
reaches(Step, From, To) :-
    rb_empty(Seen),
    reaches_(Step, [From], To, Seen).

reaches_(Step, [X|Stack], To, Seen) :-
    (   X == To
    ->  true
    ;   rb_insert_new(Seen, X, true, Seen1)
    ->  findall(Y, call(Step, X, Y), Ys),
        append(Ys, Stack, Stack1),
        reaches_(Step, Stack1, To, Seen1)
    ;   reaches_(Step, Stack, To, Seen)
    ).

attack_step(X, Y) :- att(X, Y).

%  A claim depends on the literals in the Dep of any argument for it.
depends_step(Claim, Literal) :- argument(A, Claim, _, _, _), dep(A, Literal).

                 /*******************************
                 *           EFFECTS            *
                 *******************************/

%  effect_signature(Name, ArgumentTypes): the transition vocabulary.  Rules
%  may emit only these; `arg` positions may name the operation's new
%  argument as `new`.  The bridge applies each of them to its mirror.
effect_signature(new_prop,           [atom, kind]).
effect_signature(aware,              [atom]).
effect_signature(new_arg,            [literal, kind]).
effect_signature(set_standing,       [arg, standing, cause]).
effect_signature(add_dep,            [arg, literal]).
effect_signature(add_explains,       [arg, literal]).
effect_signature(add_attack,         [arg, arg]).
effect_signature(commit,             [agent, arg]).
effect_signature(retract_commitment, [agent, arg]).
effect_signature(dissent,            [arg, agent]).
%  What an operation does to the world model M (reported only with a declared
%  model; the bridge carries them out, in order):
effect_signature(announce,           [literal]).          % [!L], hard public announcement
effect_signature(upgrade,            [literal, mode]).    % [^L] (lexicographic) or [up L] (conservative)
effect_signature(withdraw,           [literal]).          % lift earlier announcements of L
effect_signature(refine,             [atom]).             % refine W on a new atom (awareness)
effect_signature(abduce,             [literal]).          % read Definition A.2 for L in M
%                                      (against what the operation explains)

%  Effects that would change nothing are dropped, so rules need not check.
redundant(new_prop(P, _))              :- prop(P, _).
redundant(aware(P))                    :- aware(P).
redundant(set_standing(A, S, _))       :- standing(A, S, _, _).
redundant(add_dep(A, L))               :- dep(A, L).
redundant(add_explains(A, L))          :- explains(A, L).
redundant(add_attack(F, T))            :- att(F, T).
redundant(commit(G, A))                :- committed(G, A).
redundant(retract_commitment(G, A))    :- \+ committed(G, A).
redundant(dissent(A, G))               :- dissent(A, G).

apply_effect(_, new_prop(P, K))          :- assertz(prop(P, K)).
apply_effect(_, aware(P))                :- assertz(aware(P)).
apply_effect(u(T, S), new_arg(Id, L, K)) :-
    retractall(arg_count(_)), assertz(arg_count(Id)),
    assertz(argument(Id, L, K, S, T)),
    assertz(standing(Id, active, T, none)).
apply_effect(u(T, _), set_standing(A, S, C)) :-
    retract(standing(A, _, _, _)), assertz(standing(A, S, T, C)).
apply_effect(_, add_dep(A, L))           :- assertz(dep(A, L)).
apply_effect(_, add_explains(A, L))      :- assertz(explains(A, L)).
apply_effect(_, add_attack(F, T))        :- assertz(att(F, T)).
apply_effect(_, commit(G, A))            :- assertz(committed(G, A)).
apply_effect(_, retract_commitment(G, A)) :- retract(committed(G, A)).
apply_effect(_, dissent(A, G))           :- assertz(dissent(A, G)).
apply_effect(_, announce(_)).            % M lives in the bridge
apply_effect(_, upgrade(_, _)).
apply_effect(_, withdraw(_)).
apply_effect(_, refine(_)).
apply_effect(_, abduce(_)).
apply_effect(_, problem(L, open))        :- assertz(open_problem(L)).
apply_effect(_, problem(L, closed))      :- retract(open_problem(L)).
apply_effect(_, new_agent(G))            :- assertz(agent(G, false)).
apply_effect(_, turn(T))                 :- retractall(last_turn(_)), assertz(last_turn(T)).

                 /*******************************
                 *            DRIVER            *
                 *******************************/

%  apply_utterance_string(+In, -Out): In is utterance(Turn, Speaker, Ops)
%  as text.  Out is "accepted" or "rejected" followed by one tab-separated
%  line per transition (Index, Name, Args...) or violation (Index, Op,
%  Code, Message).  Text keeps the foreign interface to one string each way.
apply_utterance_string(In, Out) :-
    term_string(Utterance, In),
    apply_utterance(Utterance, Result),
    result_text(Result, Out).

apply_utterance(utterance(Turn, Speaker, Ops), Result) :-
    catch(transaction(run_utterance(Turn, Speaker, Ops, Transitions)),
          rejected(Violations), true),
    (   var(Violations)
    ->  Result = accepted(Transitions)
    ;   Result = rejected(Violations)
    ).

run_utterance(Turn, Speaker, Ops, Transitions) :-
    U = u(Turn, Speaker),
    findall(v(-1, utterance, C, M), utterance_violation(U, C, M), V0),
    run_body(U, Ops, V0, Violations, Transitions),
    (   Violations == [] -> true ; throw(rejected(Violations)) ).

%  run_body(+U, +Ops, +V0, -Violations, -Transitions): admit the speaker and
%  the turn, then every operation in order.
run_body(U, Ops, V0, Violations, Transitions) :-
    findall(t(-1, E), admission(U, E), Admit),
    maplist(apply_tagged(U), Admit),
    run_ops(Ops, 0, U, V0, Violations, Admit, Transitions).

%  simulate_utterance_string(+In, -Out): a dry run.  The utterance runs on a
%  snapshot of the state, which is always discarded, and Out lists the
%  transitions of every operation that passed its preconditions (the others
%  are skipped, as in a real run).  The bridge uses it to learn what the
%  operations of an utterance do to the world model before it reads each
%  operation in the model left by the ones before it.
simulate_utterance_string(In, Out) :-
    term_string(utterance(Turn, Speaker, Ops), In),
    snapshot(run_body(u(Turn, Speaker), Ops, [], _, Transitions)),
    result_text(accepted(Transitions), Out).

utterance_violation(u(T, _), turn_order, M) :-
    last_turn(Last), T =< Last,
    fmt(M, "turn ~w does not come after turn ~w", [T, Last]).
utterance_violation(u(_, S), unknown_speaker, M) :-
    \+ open_agents, \+ agent(S, _),
    findall(G, agent(G, _), Gs),
    fmt(M, "~w is not a declared agent (agents: ~w)", [S, Gs]).

admission(u(_, S), new_agent(S)) :- open_agents, \+ agent(S, _).
admission(u(T, _), turn(T)).

apply_tagged(U, t(_, E)) :- apply_effect(U, E).

run_ops([], _, _, Vs, Vs, Ts, Ts).
run_ops([Op|Ops], I, U, Vs0, Vs, Ts0, Ts) :-
    Op = op(Name, _),
    findall(v(I, Name, C, M), op_violation(Name, U, Op, C, M), OpVs),
    (   OpVs == []
    ->  run_effects(I, Name, U, Op, OpTs, EffVs)
    ;   OpTs = [], EffVs = OpVs
    ),
    append(Vs0, EffVs, Vs1),
    append(Ts0, OpTs, Ts1),
    I1 is I + 1,
    run_ops(Ops, I1, U, Vs1, Vs, Ts1, Ts).

op_violation(Name, _, _, unknown_operation, M) :-
    \+ operation(Name, _, _), !,
    findall(N, operation(N, _, _), Ns),
    fmt(M, "~w is not an operation (known: ~w)", [Name, Ns]).
op_violation(Name, _, Op, missing_field, M) :-
    operation(Name, _, Fields),
    member(field(F, _, required), Fields),
    \+ field(Op, F, _),
    fmt(M, "~w needs the field ~w", [Name, F]).
op_violation(Name, U, Op, Code, M) :-
    violation(Name, U, Op, Code, M).
%  Any operation that announces L: the bridge found L impossible (no world of
%  the model satisfies it after the operations before it) or false in the
%  declared actual world.  A hard announcement must be truthful.
op_violation(Name, U, Op, announce_impossible, M) :-
    epistemic(Op, impossible(L)), effect(Name, U, Op, announce(L)),
    fmt(M, "announcing ~w leaves no possible world: the world model already rules it out", [L]).
op_violation(Name, U, Op, announce_false, M) :-
    epistemic(Op, false(L)), effect(Name, U, Op, announce(L)),
    fmt(M, "~w is false in the actual world the world model declares", [L]).

%  run_effects(+I, +Name, +U, +Op, -Transitions, -Violations): ask the rules
%  for the effects (all read the state before the operation), apply them,
%  then check the invariants and update the open problems they touch.
run_effects(I, Name, U, Op, Transitions, Violations) :-
    findall(E, effect(Name, U, Op, E), Es0),
    dedupe(Es0, Es00),
    order_effects(Es00, Es1),
    (   \+ well_formed(Es1)
    ->  malformed_effects(Name, Es1, Bad),
        findall(v(I, Name, C, M), member(C-M, Bad), Violations),
        Transitions = []
    ;   bind_new_argument(Es1, Es2),
        exclude(redundant, Es2, Es),
        foldl(apply_checked(U), Es, [], Broken),
        findall(C-M, (member(E, Es), broken_invariant(E, C, M)), After),
        append(Broken, After, Bad),
        findall(v(I, Name, C, M), member(C-M, Bad), Violations),
        problem_updates(Es, Ps),
        maplist(apply_effect(U), Ps),
        append(Es, Ps, All),
        findall(t(I, E), member(E, All), Transitions)
    ).

%  New propositions and the new argument come first, so that the other
%  effects of the operation may refer to them.
order_effects(Es, Ordered) :-
    partition(creates, Es, First, Rest),
    append(First, Rest, Ordered).

creates(new_prop(_, _)).
creates(aware(_)).
creates(new_arg(_, _)).

%  dedupe(+List, -Set): first occurrences in order (effect lists are short).
dedupe([], []).
dedupe([X|Xs], [X|Ys]) :-
    exclude(==(X), Xs, Rest),
    dedupe(Rest, Ys).

%  Catch rule-author mistakes: unknown effects, unbound values, two new
%  arguments from one operation.
well_formed(Es) :-
    forall(member(E, Es), valid_effect(E)),
    \+ ( select(new_arg(_, _), Es, Rest), memberchk(new_arg(_, _), Rest) ).

malformed_effects(Name, Es, Bad) :-
    findall(unknown_effect-M,
            ( member(E, Es), \+ valid_effect(E),
              fmt(M, "~w emitted ~q, which is not an effect (see effect_signature/2)", [Name, E]) ),
            B1),
    aggregate_all(count, member(new_arg(_, _), Es), NewArgs),
    (   NewArgs > 1
    ->  fmt(M2, "~w creates ~w arguments; an operation creates at most one", [Name, NewArgs]),
        Bad = [two_new_arguments-M2|B1]
    ;   Bad = B1
    ).

valid_effect(E) :-
    ground(E), compound(E),
    compound_name_arity(E, F, N),
    effect_signature(F, Types), length(Types, N).

bind_new_argument(Es0, Es) :-
    (   memberchk(new_arg(_, _), Es0)
    ->  arg_count(N0), Id is N0 + 1,
        maplist(bind_new(Id), Es0, Es)
    ;   Es = Es0
    ).

bind_new(Id, new_arg(L, K), new_arg(Id, L, K)) :- !.
bind_new(Id, E0, E) :-
    E0 =.. [F|As0],
    effect_signature(F, Types),
    maplist(bind_position(Id), Types, As0, As),
    E =.. [F|As].

bind_position(Id, arg, new, Id) :- !.
bind_position(_, _, X, X).

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
%  whose status these effects may have changed.
problem_updates(Es, Ps) :-
    findall(L, (member(E, Es), touched(E, L)), Ls0),
    list_to_set(Ls0, Ls),
    findall(P, (member(L, Ls), problem_change(L, P)), Ps).

touched(new_arg(_, L, _), L).
touched(add_explains(_, L), L).
touched(new_prop(P, question), P).
touched(set_standing(A, _, _), L) :- ( claims(A, L) ; explains(A, L) ).

problem_change(L, problem(L, open))   :- is_open(L), \+ open_problem(L).
problem_change(L, problem(L, closed)) :- open_problem(L), \+ is_open(L).

                 /*******************************
                 *            OUTPUT            *
                 *******************************/

%  result_text(+Result, -Text): lines joined by atomic_list_concat, which is
%  several times cheaper than format/2 on a redirected stream.
result_text(accepted(Ts), Text) :-
    maplist(transition_line, Ts, Lines),
    atomic_list_concat([accepted|Lines], '\n', Text).
result_text(rejected(Vs), Text) :-
    maplist(violation_line, Vs, Lines),
    atomic_list_concat([rejected|Lines], '\n', Text).

transition_line(t(I, E), Line) :-
    E =.. [F|As],
    maplist(field_text, As, Ts),
    atomic_list_concat([I, F|Ts], '\t', Line).

violation_line(v(I, Op, C, M), Line) :-
    atomic_list_concat([I, Op, C, M], '\t', Line).

field_text(by(L), T) :- !, field_text(L, T).
field_text(none, '') :- !.
field_text(-P, T) :- !, atom_concat('-', P, T).
field_text(X, X).

                 /*******************************
                 *       FOREIGN INTERFACE      *
                 *******************************/

%  bridge_call(+Name, +In, -Out): the one entry point the Python bridge
%  calls.  Each request is text in, text out; an exception or a failure
%  comes back as "error<TAB>..." instead of crossing the foreign interface.
bridge_call(Name, In, Out) :-
    catch(( request(Name, In, Out0) -> Out = Out0 ; Out = "error\tfailed" ),
          E,
          ( error_line(E, Line), format(string(Out), "error\t~w", [Line]) )).

%  error_line(+Error, -Line): SWI-Prolog's own message for Error, on one line.
error_line(E, Line) :-
    (   catch('$messages':translate_message(E, Lines, []), _, fail)
    ->  with_output_to(string(S), print_message_lines(current_output, '', Lines)),
        split_string(S, "\n\t", " ", Parts0),
        exclude(==(""), Parts0, Parts),
        atomic_list_concat(Parts, ' ', Line)
    ;   format(string(Line), "~q", [E])
    ).

request(apply, In, Out)             :- apply_utterance_string(In, Out).
request(simulate, In, Out)          :- simulate_utterance_string(In, Out).
request(load_state, In, "ok")       :- load_state_string(In).
request(dump_state, _, Out)         :- dump_state_string(Out).
request(schema, _, Out)             :- operation_schema_string(Out).
request(load_extension, In, "ok")   :- atom_string(File, In), load_extension(File).
request(unload_extension, In, "ok") :- atom_string(File, In), unload_extension(File).
request(queries, _, Out)           :- queries_text(Out).
request(standings, _, Out)         :- standings_text(Out).
request(acyclic_grounded, In, Out) :- acyclic_grounded_string(In, Out).
request(invariant, _, Out) :-
    (   standing_invariant_holds -> Out = "true" ; Out = "false" ).

                 /*******************************
                 *        STATE TRANSFER        *
                 *******************************/

%  load_state_string(+Text): replace the whole state by the facts in Text
%  (a Prolog list).  The bridge uses it to start an engine from a header and
%  to hand the rules a different engine's state.
load_state_string(Text) :-
    term_string(Facts, Text),
    clear_state,
    forall(member(F, Facts), assertz(F)).

clear_state :-
    forall(state_predicate(N/A),
           ( functor(H, N, A), retractall(H) )).

dump_state_string(Text) :-
    findall(H, ( state_predicate(N/A), functor(H, N, A), call(H) ), Hs),
    msort(Hs, Sorted),
    with_output_to(string(Text),
                   forall(member(H, Sorted), format("~q.~n", [H]))).

%  Extensions are plain rule files loaded into this module, exactly as the
%  built-in operations in ops/ are.
load_extension(File) :- load_files(grounded:File, [if(true)]).
unload_extension(File) :- unload_file(File).

%  operation_schema_string(-Text): one line per operation, "Name<TAB>Doc<TAB>
%  field:type:required,...", from which the bridge builds its models.
operation_schema_string(Text) :-
    with_output_to(string(Text),
                   forall(operation(N, Doc, Fields),
                          ( format("~w\t~w\t", [N, Doc]),
                            forall(nth1(I, Fields, field(F, T, R)),
                                   ( I > 1 -> format(",~w:~w:~w", [F, T, R])
                                   ; format("~w:~w:~w", [F, T, R]) )),
                            nl ))).

:- ensure_loaded(invariants).
:- ensure_loaded(queries).
:- ensure_loaded(dung).
:- ensure_loaded(ops/observe).
:- ensure_loaded(ops/hypothesize).
:- ensure_loaded(ops/support).
:- ensure_loaded(ops/undermine).
:- ensure_loaded(ops/revise).
:- ensure_loaded(ops/expand_awareness).
:- ensure_loaded(ops/resolve).
:- ensure_loaded(ops/question).
