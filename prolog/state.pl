/*  state.pl -- where each engine's dependency map lives (internal).

    Several engines may share one process, and SWI-Prolog is one rule base
    per process.  Each engine therefore keeps its facts in a module of its
    own (a *state module*, named by the bridge); the rules read and write
    "the current state" through the accessors below, which look up the one
    state module in force (db/1).  Handing the rules to another engine is a
    single fact change: nothing is copied, dumped or reloaded.

    Nothing in prolog/ops, and no extension, calls these predicates: rule
    files read the state through the documented layer in vocabulary.pl.
*/
:- module(state,
          [ agent/2, open_agents/0, option/1, prop/2, aware/1, argument/5, standing/4,
            dep/2, explains/2, att/2, committed/2, dissent/2, open_problem/1,
            last_turn/1, arg_count/1, dep_level/3, att_level/2, cycle_found/1,
            rested_on/2, settled_by/3, fresh_from/2, opposed_by/2,
            store/1, unstore/1, literal_key/3, saved_counters/1, restore_counters/1,
            db/1, use_state/1, new_state/2, add_facts/2, clear_state/1, forget_state/1, state_facts/2,
            tidy_state/0, store_aware_prop/2, store_argument/6
          ]).


%!  db(?Module) is semidet.
%
%   Module is the state module the rules read now.
:- dynamic db/1.

%  The facts of D_t = (M, AF, Cm, Dep), as the state module stores them.  The
%  plausibility model M is not among them: it lives in the bridge, which
%  reads each operation in it while the rules decide the utterance (see
%  world_read/3 in grounded.pl).  Arguments are never deleted: only their
%  standing changes.
state_predicate(agent/2).       % agent(Name, HasDecisionAuthority)
state_predicate(open_agents/0). % no agents declared: a speaker joins on first word
state_predicate(option/1).      % option(acyclic_attacks), option(world_model)
state_predicate(prop/2).        % prop(Atom, Kind): Prop_t
state_predicate(aware/1).       % aware(Atom): in every agent's awareness set
state_predicate(argument/5).    % argument(Id, Claim, Kind, Speaker, Turn)
state_predicate(standing/4).    % standing(Id, Standing, SinceTurn, Cause)
state_predicate(dep/2).         % dep(Id, Literal): Dep_t
state_predicate(explains/2).    % explains(Id, Literal)
state_predicate(att/2).         % att(Attacker, Target): Att_t
state_predicate(committed/2).   % committed(Agent, Id): Cm_t
state_predicate(dissent/2).     % dissent(DecisionId, Agent)
state_predicate(open_problem/1). % open_problem(Literal): the abductive-problem queue
state_predicate(last_turn/1).
state_predicate(arg_count/1).

%  What the rules keep beside the facts to decide quickly, derived from them
%  (prolog/invariants.pl, prolog/settled.pl): levels that keep Dep and the
%  attacks acyclic, the mark of a cycle found during the utterance being
%  run, and the resolved explanations of each literal.  Cleared with a
%  state, rebuilt when a state is given as facts, never reported as facts.
index_predicate(dep_level/3).   % dep_level(Atom, pos|neg, Level)
index_predicate(att_level/2).   % att_level(Arg, Level)
index_predicate(cycle_found/1). % cycle_found(dep|att)
index_predicate(rested_on/2).   % rested_on(Atom, pos|neg): some argument's Dep holds the literal
index_predicate(settled_by/3).  % settled_by(Atom, pos|neg, Arg): Arg explains the literal and is resolved
index_predicate(opposed_by/3).  % opposed_by(Arg, Agent, N): Agent is committed to N arguments attacking Arg
index_predicate(fresh_from/2).  % fresh_from(Base, N): Base, Base_2 .. Base_(N-1) are all known ids
index_predicate(tidy_at/1).     % tidy_at(N): tidy_state/0 gives back outgrown indexes at N arguments
index_predicate(tidy_seen/2).   % tidy_seen(Name/Arity, Arg-Buckets list): the indexes tidy_state/0 saw last

%  Where two facts of the state are kept, keyed by their literal (below).
stored_predicate(claimed/6).     % claimed(Id, Atom, pos|neg, Kind, Speaker, Turn): argument/5
stored_predicate(problem_key/2). % problem_key(Atom, pos|neg): open_problem/1
stored_predicate(aware_prop/2).  % aware_prop(Atom, Kind): prop/2 and aware/1 of one atom
stored_predicate(latent_prop/2). % latent_prop(Atom, Kind): prop/2 of an atom outside the awareness
stored_predicate(aware_only/1).  % aware_only(Atom): aware/1 of an atom that is no proposition (yet)
stored_predicate(unowned/1).     % unowned(Id): Id's speaker is not committed to it by committed/2's default

kept_predicate(P) :- state_predicate(P) ; index_predicate(P) ; stored_predicate(P).

%!  literal_key(?Literal, ?Atom, ?Sign) is det.
%
%   Literal is Atom with Sign: the key a fact keyed by a literal is kept under.
%
%  Negative literals.  SWI-Prolog indexes a clause argument holding -(P) by
%  its functor only, as soon as atoms share that argument: looking up
%  argument(_, -(p7), ...) among arguments for both atoms and negations then
%  tries every argument for a negation, and a conversation that observes 10^4
%  negations took time n^2 (each Observe asks whether its negation stands).
%  So the facts keyed by a literal -- argument/5 by its claim, open_problem/1
%  -- are kept under the literal's atom and sign instead (claimed/6,
%  problem_key/2), and their accessors rebuild the literal from the key.  A
%  key kept beside each fact (as it was) doubled the clauses of both, and
%  so their share of resident memory.
literal_key(-(P), P, neg) :- !.
literal_key(P, P, pos).

%  Awareness.  Nearly every proposition enters every agent's awareness with
%  the operation that introduces it (its effects new_prop(P, K), aware(P),
%  one after the other); only a header's props with aware: false wait for
%  an Expand-Awareness.  A clause for each of prop/2 and aware/1 cost 7 MB
%  of the rules' memory at 10^5 utterances, so a proposition is
%  one clause: aware_prop/2, or latent_prop/2 until it becomes aware (the
%  clause then moves: rare, so no clause garbage to collect per utterance).
%  The two facts given one after the other are stored as one clause
%  (store_aware_prop/2, from the driver and from add_facts/2); aware/1 of an
%  atom that is not a proposition is kept as given (aware_only/1).
%
%  Most propositions come with the argument that first claims them (Observe,
%  Hypothesize, Resolve: new_prop(P, K), aware(P), new_arg(Id, L, K) of one
%  operation, L's atom P), and a clause for each was a fifth of the rules'
%  clauses.  Such a proposition has no clause of its own: every
%  claimed atom is a proposition (an argument needs its claim known), so an
%  atom claimed by some argument and without a clause of the three above is
%  an aware proposition of the kind of the first argument claiming it
%  (the driver stores it so only when that argument's kind is the
%  proposition's; a state given as facts keeps a clause per proposition).

prop_in(M, P, K) :-
    (   nonvar(P)
    ->  (   M:aware_prop(P, K0) -> K = K0
        ;   M:latent_prop(P, K0) -> K = K0
        ;   M:claimed(_, P, _, K0, _, _) -> K = K0
        )
    ;   ( M:aware_prop(P, K) ; M:latent_prop(P, K) ; claimed_prop(M, P, K) )
    ).

aware_in(M, P) :-
    (   nonvar(P)
    ->  (   M:aware_prop(P, _) -> true
        ;   M:latent_prop(P, _) -> fail
        ;   M:aware_only(P) -> true
        ;   M:claimed(_, P, _, _, _, _) -> true
        )
    ;   ( M:aware_prop(P, _) ; M:aware_only(P) ; claimed_prop(M, P, _) )
    ).

%  claimed_prop(+M, -Atom, -Kind): the propositions kept with the argument first claiming them.
claimed_prop(M, P, K) :-
    M:claimed(A, P, _, K, _, _),
    \+ M:aware_prop(P, _), \+ M:latent_prop(P, _),
    once(M:claimed(First, P, _, _, _, _)), First == A.

%!  store_aware_prop(+Atom, +Kind) is det.
%
%   store(prop(Atom, Kind)), then store(aware(Atom)), as one clause.
store_aware_prop(P, K) :- db(M), store_aware_prop(M, P, K).

store_aware_prop(M, P, K) :-
    (   prop_in(M, P, _)
    ->  store_fact(M, prop(P, K)), store_fact(M, aware(P))
    ;   retractall(M:aware_only(P)), assertz(M:aware_prop(P, K))
    ).

%  Commitments.  Nearly every argument is committed to by its speaker in
%  the operation that makes it (Observe, Hypothesize, Undermine, Resolve:
%  the effects new_arg(Id, ..) and commit(Speaker, Id) of one operation),
%  and a clause for each such commitment was a sixth of the rules' clauses
%  (and of their resident memory).  So an argument's speaker is committed to
%  it by default, with no clause of its own, unless unowned(Id) says
%  otherwise: the argument was made without that commitment (an argument
%  given as a fact, or an operation that does not commit its speaker), or
%  the speaker took it back.  committed/2 clauses hold the other
%  commitments, in the order they came: a speaker who commits to their own
%  argument after others did is stored there too, so that the commitments
%  to one argument are read in the order they came.

committed_in(M, G, A) :-
    (   default_commitment(M, G, A)
    ;   M:committed(G, A)
    ).

%  default_commitment(+Module, ?Speaker, +Id): Speaker made Id and is
%  committed to it by default (no unowned(Id)): the one condition that
%  says when a commitment has no clause of its own.
default_commitment(M, G, A) :-
    M:claimed(A, _, _, _, G, _), \+ M:unowned(A).

%!  store_argument(+Id, +Literal, +Kind, +Speaker, +Turn, +Committed) is det.
%
%   The argument, and with Committed == true its speaker's commitment to it
%   (the effects new_arg and commit(Speaker, Id) of one operation, in one
%   clause).
store_argument(A, L, K, S, T, Committed) :- db(M), store_argument(M, A, L, K, S, T, Committed).

store_argument(M, A, L, K, S, T, Committed) :-
    literal_key(L, P, Sign),
    assertz(M:claimed(A, P, Sign, K, S, T)),
    (   Committed == true -> true ; assertz(M:unowned(A)) ).

%  Standing.  An argument stands active from its turn, with no cause, until
%  the rules change that: that standing is the default and is not stored
%  (three in four arguments of a long conversation never change standing,
%  and a clause each cost 10% of the rules' memory).  standing/4
%  clauses are kept for the arguments whose standing changed, and read first.

standing_in(M, A, S, T, C) :-
    (   nonvar(A)
    ->  (   M:standing(A, S0, T0, C0) -> true ; M:claimed(A, _, _, _, _, T0), S0 = active, C0 = none )
    ;   M:claimed(A, _, _, _, _, T1),
        (   M:standing(A, S0, T0, C0) -> true ; S0 = active, T0 = T1, C0 = none )
    ),
    S = S0, T = T0, C = C0.

%!  agent(?Agent, ?Authority) is nondet.
%!  open_agents is semidet.
%!  option(?Option) is nondet.
%!  prop(?Atom, ?Kind) is nondet.
%!  aware(?Atom) is nondet.
%!  argument(?A, ?Literal, ?Kind, ?Speaker, ?Turn) is nondet.
%!  standing(?A, ?Standing, ?Turn, ?Cause) is nondet.
%!  dep(?A, ?Literal) is nondet.
%!  explains(?A, ?Literal) is nondet.
%!  att(?B, ?A) is nondet.
%!  committed(?Agent, ?A) is nondet.
%!  dissent(?A, ?Agent) is nondet.
%!  open_problem(?Literal) is nondet.
%!  last_turn(-Turn) is semidet.
%!  arg_count(-N) is semidet.
%!  dep_level(?Atom, ?Sign, ?Level) is nondet.
%!  att_level(?A, ?Level) is nondet.
%!  cycle_found(?Graph) is nondet.
%!  rested_on(?Atom, ?Sign) is nondet.
%!  settled_by(?Atom, ?Sign, ?A) is nondet.
%!  fresh_from(?Base, ?N) is nondet.
%!  opposed_by(?A, ?Agent) is nondet.
%
%   The facts of the current state module (db/1), as the driver and the
%   author layer read them (rule files read them only through the layer).
agent(G, Authority)        :- db(M), M:agent(G, Authority).
open_agents                :- db(M), M:open_agents.
option(O)                  :- db(M), M:option(O).
prop(P, K)                 :- db(M), prop_in(M, P, K).
aware(P)                   :- db(M), aware_in(M, P).
argument(A, L, K, S, T)    :-
    db(M),
    (   ( var(L) ; nonvar(A) )
    ->  M:claimed(A, P, Sign, K, S, T), literal_key(L, P, Sign)
    ;   literal_key(L, P, Sign), M:claimed(A, P, Sign, K, S, T)
    ).
standing(A, S, T, C)       :- db(M), standing_in(M, A, S, T, C).
dep(A, L)                  :- db(M), M:dep(A, L).
explains(A, L)             :- db(M), M:explains(A, L).
att(B, A)                  :- db(M), M:att(B, A).
committed(G, A)            :- db(M), committed_in(M, G, A).
dissent(A, G)              :- db(M), M:dissent(A, G).
open_problem(L)            :-
    db(M),
    (   var(L)
    ->  M:problem_key(P, Sign), literal_key(L, P, Sign)
    ;   literal_key(L, P, Sign), M:problem_key(P, Sign)
    ).
last_turn(T)               :- db(M), nb_getval(M, counters(T, _)), T \== none.
arg_count(N)               :- db(M), nb_getval(M, counters(_, N)), N \== none.
dep_level(P, Sign, N)      :- db(M), M:dep_level(P, Sign, N).
att_level(A, N)            :- db(M), M:att_level(A, N).
cycle_found(G)             :- db(M), M:cycle_found(G).
rested_on(P, Sign)         :- db(M), M:rested_on(P, Sign).
settled_by(P, Sign, A)     :- db(M), M:settled_by(P, Sign, A).
fresh_from(B, N)           :- db(M), M:fresh_from(B, N).
opposed_by(A, G)           :- db(M), M:opposed_by(A, G, _).

%!  store(+Fact) is det.
%!  unstore(?Fact) is semidet.
%
%   Change the current state: Fact is added, or taken back.
%
%  last_turn/1 and arg_count/1 change with nearly every utterance.  Kept as
%  clauses, each change would leave an erased clause behind, and clause
%  garbage collection, run that often, rescans every predicate with erased
%  clauses (standing/4 among them, one clause per argument): a cost that
%  grows with the conversation.  So the two counters live in a global
%  variable named after the state module, counters(LastTurn, ArgCount)
%  (none: no such fact), read and written through the same accessors and
%  reported by state_facts/2 as the facts they stand for.  A transaction
%  does not roll a global variable back: apply_utterance/3 saves the
%  counters before an utterance and restores them when it is not accepted
%  (saved_counters/1, restore_counters/1).
store(last_turn(T)) :- !, db(M), nb_getval(M, counters(_, N)), nb_setval(M, counters(T, N)).
store(arg_count(N)) :- !, db(M), nb_getval(M, counters(T, _)), nb_setval(M, counters(T, N)).
store(F)   :- db(M), store_fact(M, F).
unstore(last_turn(T)) :- !, db(M), nb_getval(M, counters(T0, N)), T0 \== none, T = T0,
    nb_setval(M, counters(none, N)).
unstore(arg_count(N)) :- !, db(M), nb_getval(M, counters(T, N0)), N0 \== none, N = N0,
    nb_setval(M, counters(T, none)).
unstore(open_problem(L)) :- !, db(M),
    literal_key(L, P, Sign), retract(M:problem_key(P, Sign)), !.
unstore(standing(A, S, T, C)) :- !, db(M),
    (   retract(M:standing(A, S, T, C))
    ->  true
    ;   \+ M:standing(A, _, _, _), M:claimed(A, _, _, _, _, T0), !, S = active, T = T0, C = none
    ).
unstore(committed(G, B)) :- !, db(M),
    (   retract(M:committed(G, B)) -> true
    ;   default_commitment(M, G, B), assertz(M:unowned(B))
    ), !,
    forall(M:att(B, A), count_opposition(M, A, G, -1)).
unstore(F) :- db(M), retract(M:F), !.

%  store_fact(+Module, +Fact): a fact, under its key if it has one
%  (arguments are never deleted, so theirs is never taken back).
store_fact(M, argument(A, L, K, S, T)) :- !,
    store_argument(M, A, L, K, S, T, false).
store_fact(M, prop(P, K)) :- !,
    (   retract(M:aware_only(P)) -> assertz(M:aware_prop(P, K)) ; assertz(M:latent_prop(P, K)) ).
store_fact(M, aware(P)) :- !,
    (   retract(M:latent_prop(P, K)) -> assertz(M:aware_prop(P, K))
    ;   aware_in(M, P) -> true
    ;   assertz(M:aware_only(P))
    ).
store_fact(M, standing(A, active, T, none)) :-
    M:claimed(A, _, _, _, _, T), \+ M:standing(A, _, _, _), !.
store_fact(M, open_problem(L)) :- !,
    literal_key(L, P, Sign), assertz(M:problem_key(P, Sign)).
store_fact(M, att(B, A)) :- !,
    assertz(M:att(B, A)),
    forall(committed_in(M, G, B), count_opposition(M, A, G, 1)).
store_fact(M, committed(G, B)) :- !,
    (   default_commitment(M, G, B)
    ->  true                            % stored with the argument (store_argument/6)
    ;   (   M:claimed(B, _, _, _, G, _), \+ M:committed(_, B)
        ->  retract(M:unowned(B))       % the first commitment to B: its speaker's, by default
        ;   assertz(M:committed(G, B))
        ),
        forall(M:att(B, A), count_opposition(M, A, G, 1))
    ).
store_fact(M, F) :- assertz(M:F).

%  count_opposition(+Module, +Arg, +Agent, +Delta): one pair of an attack on
%  Arg and Agent's commitment to the attacker came (1) or went (-1).  A
%  Resolve asks which agents are committed to an argument attacking its
%  target; walking the attackers made that cost grow with how many there
%  are (a claim attacked 10^4 times), while this count answers per agent.
count_opposition(M, A, G, D) :-
    (   retract(M:opposed_by(A, G, N0)) -> N is N0 + D ; N = D ),
    (   N =:= 0 -> true ; assertz(M:opposed_by(A, G, N)) ).

%!  tidy_state is det.
%
%   Give back the clause indexes the current state outgrew.
%
%  When a predicate's clause index grows, SWI-Prolog (9.0) keeps the table
%  it outgrew for readers that may still hold it, and frees it only when it
%  collects that predicate's erased clauses.  A predicate that only grows
%  (claimed/6, aware_prop/2: never retracted) so keeps every table it
%  ever had, about 60 bytes per clause: 20 MB of the rules' 75 at 10^5
%  utterances.  Each time the arguments (whose count grows with
%  every predicate of the state, and is read in O(1): counting a
%  predicate's clauses walks them) have grown by a 32nd since the last
%  time, the predicates whose hash indexes were rebuilt since (their bucket
%  counts differ from those seen last, tidy_seen/2) get one erased clause
%  each (a clause of '$tidy' atoms, asserted and erased at once: no reader
%  sees it, and a ground clause leaves the indexes as they are) and the
%  clauses are collected, the old tables with them.  Collecting walks only
%  the predicates with erased clauses, so each predicate is walked once per
%  rebuild of its index (once per doubling), and a table outgrown is held
%  for a 32nd's growth at most: walking every predicate at each quarter's
%  growth held 1.3 MB of old tables at 10^5 utterances, once the rebuilds
%  were staggered (stagger_indexes/1), and took longer.
tidy_state :-
    db(M),
    nb_getval(M, counters(_, N)),
    integer(N),
    (   M:tidy_at(At) -> N >= At ; N >= 256 ),
    !,
    (   retract(M:tidy_at(_)) -> true ; N < 4096 -> stagger_indexes(M) ; true ),
    Next is N + N // 32,
    assertz(M:tidy_at(Next)),
    findall(Name/A, ( kept_predicate(Name/A), A > 0, rebuilt_since(M, Name, A) ), Rebuilt),
    (   Rebuilt == []
    ->  true
    ;   forall(member(Name/A, Rebuilt), tidy_predicate(M, Name, A)),
        garbage_collect_clauses
    ).
tidy_state.

%  rebuilt_since(+Module, +Name, +Arity): the predicate's hash indexes are
%  not those tidy_seen/2 saw last (which now holds them).
rebuilt_since(M, Name, A) :-
    Name \== tidy_seen,
    functor(H, Name, A),
    (   predicate_property(M:H, indexed(Indexes))
    ->  findall(Arg-Buckets, member(Arg-hash(Buckets, _, _, _), Indexes), Seen)
    ;   Seen = []
    ),
    (   M:tidy_seen(Name/A, Before) -> true ; Before = [] ),
    Seen \== Before,
    retractall(M:tidy_seen(Name/A, _)),
    assertz(M:tidy_seen(Name/A, Seen)).

tidy_predicate(M, Name, A) :-
    length(Args, A), maplist(=('$tidy'), Args), H =.. [Name|Args],
    assertz(M:H, Ref), erase(Ref).

%  stagger_indexes(+Module): the grown predicates' indexes rebuilt at sizes
%  of their own, so that their later rebuilds fall apart.
%
%  SWI-Prolog (9.0) drops a clause index once it holds twice the clauses it
%  was built over, and the next call rebuilds it from every clause (sorting
%  their keys to assess it): a step of time in proportion to the predicate,
%  a constant per clause over the doublings.  A state
%  grown from empty has every index built at the same small size, so the
%  predicates that grow one clause per argument (claimed/6 twice, dep/2,
%  explains/2, dep_level/3, rested_on/2, committed/2, aware_prop/2 in a Dep
%  chain) are all rebuilt in the same few utterances: eight rebuilds at
%  98,304 arguments, one long pause (docs/reliability.md has the figures).  At
%  the first tidy step (256 arguments), the Ith of the K predicates holding
%  64 clauses or more has its indexes rebuilt once over 2^(J + I/K) clauses,
%  J the least that reaches twice its clauses: padding clauses, each keyed
%  by a negative integer no fact holds, are added up to that size (enough
%  to drop an index built over the clauses held so far), each indexed
%  argument is called (its index is rebuilt over the clauses and the
%  padding, keys spread as the facts' are), and the padding is erased,
%  collected with the rest of the step.  Each later rebuild comes at twice
%  the last one's size: the K predicates' rebuilds fall at K sizes evenly
%  apart on a log scale (of seven, at most two within a growth by a tenth;
%  tests/test_index_rebuilds.py).  A state restored from facts (4,096
%  arguments or more at its first step) is left as it is: padding it would
%  cost the whole state again.
stagger_indexes(M) :-
    findall(Name/A-Args, ( kept_predicate(Name/A), A > 0, functor(H, Name, A),
                           predicate_property(M:H, number_of_clauses(C)), C >= 64,
                           predicate_property(M:H, indexed(Indexes)),
                           findall(Arg, member(single(Arg)-_, Indexes), Args) ), Grown),
    length(Grown, K),
    forall(nth0(I, Grown, Name/A-Args), stagger_predicate(M, Name/A, Args, I / K)).

stagger_predicate(M, Name/A, Args, I / K) :-
    functor(H, Name, A),
    predicate_property(M:H, number_of_clauses(C)),
    Log is log(2 * C) / log(2) - I / K,
    Size is max(2 * C, truncate(2 ** (ceiling(Log) + I / K))),
    Pads is Size - C,
    findall(Ref, ( between(1, Pads, P), Key is -P, padding(Name, A, Key, Pad), assertz(M:Pad, Ref) ), Refs),
    forall(member(Arg, Args), ( functor(Call, Name, A), arg(Arg, Call, -1), once(M:Call) )),
    maplist(erase, Refs).

padding(Name, A, Key, Pad) :-
    length(Keys, A), maplist(=(Key), Keys), Pad =.. [Name|Keys].

%!  saved_counters(-Counters) is det.
%
%   The counters (last turn, argument count) before an utterance.
saved_counters(C) :- db(M), nb_getval(M, C).
%!  restore_counters(+Counters) is det.
%
%   Put back the counters saved_counters/1 gave, when the utterance is not accepted.
restore_counters(C) :- db(M), nb_setval(M, C).

counter_fact(last_turn(_)).
counter_fact(arg_count(_)).

%!  use_state(+Module) is det.
%
%   Read and write the state Module from now on.
use_state(M) :-
    (   db(M) -> true ; retractall(db(_)), assertz(db(M)) ).

%!  forget_state(+Module) is det.
%
%   Module is gone, its facts and counters with it.
forget_state(M) :-
    clear_state(M),
    (   db(M) -> retractall(db(_)) ; true ).

%!  new_state(+Module, +Facts) is det.
%
%   A new state Module holding Facts.
new_state(M, Facts) :-
    forall(kept_predicate(N/A), dynamic(M:N/A)),
    clear_state(M),
    add_facts(M, Facts).

%!  add_facts(+Module, +Facts) is det.
%
%   More facts of a state being restored in parts.
add_facts(_, []) :- !.
add_facts(M, [prop(P, K), aware(P)|Facts]) :- atom(P), !,
    store_aware_prop(M, P, K),
    add_facts(M, Facts).
add_facts(M, [F|Facts]) :-
    (   state_fact(F) -> store_in(M, F)
    ;   level_fact(F) -> assertz(M:F)
    ;   type_error(state_fact, F)
    ),
    add_facts(M, Facts).

%  level_fact(+Fact): one of the index facts rebuild_levels/0 makes from a
%  state's facts, given with them instead by a sender that computed them
%  itself (a server, off the rules' thread): the last part then says so,
%  and the levels are not rebuilt (the request add_facts/3 in grounded.pl).
level_fact(F) :- callable(F), functor(F, N, A), memberchk(N/A, [dep_level/3, att_level/2, rested_on/2]).

store_in(M, F) :-
    (   counter_fact(F)
    ->  setup_call_cleanup(db_push(M, Old), store(F), db_pop(Old))
    ;   store_fact(M, F)
    ).

db_push(M, Old) :- ( db(Old) -> true ; Old = none ), retractall(db(_)), assertz(db(M)).
db_pop(Old) :- retractall(db(_)), ( Old == none -> true ; assertz(db(Old)) ).

state_fact(F) :- callable(F), functor(F, N, A), state_predicate(N/A).

%  stored_fact(+Module, ?Fact): a fact of Module, as stored (an open problem under its key).
stored_fact(M, argument(A, L, K, S, T)) :- !, M:claimed(A, P, Sign, K, S, T), literal_key(L, P, Sign).
stored_fact(M, standing(A, S, T, C)) :- !, standing_in(M, A, S, T, C).
stored_fact(M, prop(P, K)) :- !, prop_in(M, P, K).
stored_fact(M, aware(P)) :- !, aware_in(M, P).
stored_fact(M, committed(G, A)) :- !, committed_in(M, G, A).
stored_fact(M, open_problem(L)) :- !, M:problem_key(P, Sign), literal_key(L, P, Sign).
stored_fact(M, H) :- catch(M:H, _, fail).

%!  clear_state(+Module) is det.
%
%   Module holds no fact any more.
clear_state(M) :-
    forall(kept_predicate(N/A), ( functor(H, N, A), ( counter_fact(H) -> true ; retractall(M:H) ) )),
    nb_setval(M, counters(none, none)).

%!  state_facts(+Module, -Facts) is det.
%
%   Every fact of Module, sorted, as the bridge reads them.
%   cross-checks: the rules' copy of a state, compared with the bridge's).
state_facts(M, Facts) :-
    findall(H, ( state_predicate(N/A), functor(H, N, A), \+ counter_fact(H), stored_fact(M, H) ), Hs),
    nb_getval(M, counters(T, C)),
    findall(F, ( T \== none, F = last_turn(T) ; C \== none, F = arg_count(C) ), Cs),
    append(Hs, Cs, All),
    msort(All, Facts).
