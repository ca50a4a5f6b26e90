/*  vocabulary.pl -- the predicates an operation's rules are written in.

    An operation is one file (prolog/ops/<op>.pl, or an extension) that
    declares operation/3, violation/5 and effect/4.  Its clauses read the
    dependency map only through the predicates of this file, and emit only
    the effects of effect_signature/2 below.  The built-in operations use
    nothing else; docs/extending.md documents every predicate here, and
    tests/test_vocabulary.py holds each operation file to this layer.

    How the state is stored (prolog/state.pl) and how an utterance is run
    (prolog/grounded.pl) may change; these names and meanings do not.  The
    ASP twin (asp/vocabulary.lp) names the same concepts the same way.

    Arguments are identified by integers; literals are atoms (o5) or their
    negation (-(o5), written -o5).
*/
:- module(vocabulary,
          [ field/3, field/4, item/3, speaker/2, turn/2, claims/2, claimed/1, author/2, arg_kind/2,
            arg_turn/2, standing_of/2, in_standing/1, standing_arg/2, stands/1, all_abandoned/1,
            current_arg/2, speaks_for/2, claim_standing/4, standing_note/2, rests_on/2, attacks/2,
            dissents/2, known/1, kind_of/2, claim_kind/3, latent/1, some_open_problem/0, is_open/1,
            settled/1, has_authority/1, world_model/0, epistemic/2, introduces/4,
            retraction_effect/5, atom_of/2, negation/2, good_standing/1, standing_name/1,
            prop_kind/1, fmt/3, reaches/3, fresh_id/2, opposes/2
          ]).

%  The layer's readings of the state that are stored facts as they are
%  (prolog/state.pl) are passed on unchanged:
%
%!  explains(?A, ?Literal) is nondet.
%   Argument A explains Literal.
%!  committed(?Agent, ?A) is nondet.
%   Agent is committed to argument A (Cm_t).
%!  aware(?Atom) is nondet.
%   Atom is in every agent's awareness set.
%!  open_problem(?Literal) is nondet.
%   Literal is an open abductive problem now (is_open/1 decides whether it
%   should be; the driver keeps the two in step).
:- reexport(state, [explains/2, committed/2, aware/1, open_problem/1]).

:- use_module(state).
:- use_module(settled, [settled_key/1]).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(aggregate)).
:- use_module(library(rbtrees)).
:- use_module(library(error)).

%  The layer's predicates that are det in every mode, declared so: SWI-Prolog
%  raises a determinism error should a change leave a choice point behind or
%  fail (plunit runs them, prolog/tests/vocabulary.plt).  The others are det
%  in their output mode and semidet as tests (negation(+, +) asks whether
%  two literals are each other's negation), which det/1 cannot say.
:- det((fresh_id/2, fmt/3)).

%  layer_predicate(?Name/Arity): the documented layer, for the checker in
%  tests/test_vocabulary.py and for docs/extending.md.
layer_predicate(field/3).          layer_predicate(field/4).
layer_predicate(item/3).           layer_predicate(speaker/2).
layer_predicate(turn/2).           layer_predicate(claims/2).
layer_predicate(claimed/1).        layer_predicate(author/2).
layer_predicate(arg_kind/2).       layer_predicate(arg_turn/2).
layer_predicate(standing_of/2).    layer_predicate(in_standing/1).
layer_predicate(standing_arg/2).   layer_predicate(stands/1).
layer_predicate(all_abandoned/1).  layer_predicate(current_arg/2).
layer_predicate(speaks_for/2).     layer_predicate(claim_standing/4).
layer_predicate(standing_note/2).  layer_predicate(rests_on/2).
layer_predicate(explains/2).       layer_predicate(attacks/2).
layer_predicate(committed/2).      layer_predicate(dissents/2).
layer_predicate(known/1).          layer_predicate(kind_of/2).
layer_predicate(claim_kind/3).     layer_predicate(aware/1).
layer_predicate(latent/1).         layer_predicate(open_problem/1).
layer_predicate(some_open_problem/0). layer_predicate(is_open/1).
layer_predicate(settled/1).
layer_predicate(has_authority/1).  layer_predicate(world_model/0).
layer_predicate(epistemic/2).      layer_predicate(introduces/4).
layer_predicate(retraction_effect/5). layer_predicate(atom_of/2).
layer_predicate(negation/2).       layer_predicate(good_standing/1).
layer_predicate(standing_name/1).  layer_predicate(prop_kind/1).
layer_predicate(fmt/3).            layer_predicate(reaches/3).
layer_predicate(fresh_id/2).       layer_predicate(opposes/2).

                 /*******************************
                 *     STANDINGS, KINDS         *
                 *******************************/

%  The paper's four standing labels; S_t holds the active and resolved
%  arguments.  Python (grounded.core.vocabulary) and ASP use the same words.
%!  standing_name(?Standing) is nondet.
%
%   The paper's four standing labels.
standing_name(active).
standing_name(weakened).
standing_name(abandoned).
standing_name(resolved).

%!  good_standing(?Standing) is nondet.
%
%   Standing keeps an argument in S_t: active or resolved.
good_standing(active).
good_standing(resolved).

%!  prop_kind(?Kind) is nondet.
%
%   The kinds a proposition may have.
prop_kind(observation).
prop_kind(hypothesis).
prop_kind(assumption).
prop_kind(decision).
prop_kind(position).
prop_kind(constraint).
prop_kind(question).

                 /*******************************
                 *           LITERALS           *
                 *******************************/

%!  atom_of(+Literal, -Atom) is det.
%
%   The atom of a literal: o5 for o5 and -o5.
atom_of(-P, P) :- !.
atom_of(P, P).

%!  negation(+Literal, -Negation) is det.
%
%   -o5 for o5, o5 for -o5.
negation(-P, P) :- !.
negation(P, -P).

                 /*******************************
                 *   THE OPERATION AND SPEAKER  *
                 *******************************/

%  An operation arrives as op(Name, [Field=Value, ...]) and its utterance as
%  u(Turn, Speaker).  A list field's items are item/3.
%!  field(+Op, +Key, -Value) is semidet.
%
%   The operation's field Key, if given.
field(op(_, Fields), Key, Value) :- memberchk(Key=Value, Fields).

%!  field(+Op, +Key, -Value, +Default) is det.
%
%   The field Key, or Default when it is not given.
field(Op, Key, Value, Default) :-
    (   field(Op, Key, V) -> Value = V ; Value = Default ).

%!  item(+Op, +Key, -Item) is nondet.
%
%   An item of the list field Key.
item(Op, Key, X) :- field(Op, Key, Xs), member(X, Xs).

%!  speaker(+U, -Speaker) is det.
%
%   Who speaks the utterance.
speaker(u(_, Speaker), Speaker).

%!  turn(+U, -Turn) is det.
%
%   The utterance's turn.
turn(u(Turn, _), Turn).

                 /*******************************
                 *          ARGUMENTS           *
                 *******************************/

%!  claims(?A, ?Literal) is nondet.
%
%   Argument A claims Literal.
claims(A, Literal) :- argument(A, Literal, _, _, _).

%!  claimed(+Literal) is semidet.
%
%   Some argument claims Literal.
claimed(Literal) :- once(argument(_, Literal, _, _, _)).

%!  author(?A, ?Speaker) is nondet.
%
%   Speaker made argument A.
author(A, Speaker) :- argument(A, _, _, Speaker, _).

%!  arg_kind(?A, ?Kind) is nondet.
%
%   The kind of argument A's claim when A was made.
arg_kind(A, Kind) :- argument(A, _, Kind, _, _).

%!  arg_turn(?A, ?Turn) is nondet.
%
%   The turn argument A was made at.
arg_turn(A, Turn) :- argument(A, _, _, _, Turn).

%!  standing_of(?A, ?Standing) is nondet.
%
%   Argument A's standing now.
standing_of(A, S) :- standing(A, S, _, _).

%!  in_standing(?A) is nondet.
%
%   Argument A is in S_t (active or resolved).
in_standing(A) :- standing(A, S, _, _), good_standing(S).

%!  standing_arg(?Literal, ?A) is nondet.
%
%   A claims Literal and is in S_t.
standing_arg(Literal, A) :- argument(A, Literal, _, _, _), in_standing(A).

%!  stands(+Literal) is semidet.
%
%   Some argument for Literal is in S_t.
stands(Literal) :- standing_arg(Literal, _), !.

%!  all_abandoned(+Literal) is semidet.
%
%   Literal is claimed and every argument for it is abandoned.
all_abandoned(Literal) :-
    claimed(Literal),
    \+ ( claims(A, Literal), \+ standing(A, abandoned, _, _) ).

%!  current_arg(+Literal, -A) is nondet.
%
%   A is an argument an operation on Literal acts upon: one in good
%   standing, or, when none is, a weakened one.
current_arg(Literal, A) :-
    (   stands(Literal)
    ->  standing_arg(Literal, A)
    ;   claims(A, Literal), standing(A, weakened, _, _)
    ).

%!  speaks_for(-A, +Literal) is semidet.
%
%   A is the one argument that voices Literal when Literal attacks or
%   supports something: the newest in good standing, else the newest not
%   abandoned, else the newest.  (The output comes first, as in claims/2
%   and in the ASP twin's speaks_for/3: the order is part of the layer.)
speaks_for(A, Literal) :-
    (   aggregate_all(max(X), standing_arg(Literal, X), A0)
    ->  A = A0
    ;   aggregate_all(max(X), (claims(X, Literal), \+ standing(X, abandoned, _, _)), A0)
    ->  A = A0
    ;   aggregate_all(max(X), claims(X, Literal), A)
    ).

%!  claim_standing(+Literal, -Standing, -Turn, -Cause) is semidet.
%
%   How the newest argument for Literal reached its standing: Standing at
%   Turn, Cause by(L) or none.  The bridge reads the same triple from its
%   own history (grounded.dmap.model.StandingNote) and a test holds the two
%   equal.
claim_standing(Literal, S, T, Cause) :-
    aggregate_all(max(A), claims(A, Literal), A),
    standing(A, S, T, Cause).

%!  standing_note(+Literal, -Note) is semidet.
%
%   claim_standing/4 as text for messages, e.g. "abandoned at T9 by o9".
standing_note(Literal, Note) :-
    claim_standing(Literal, S, T, Cause),
    (   Cause = by(E)
    ->  fmt(Note, "~w at T~w by ~w", [S, T, E])
    ;   fmt(Note, "~w at T~w", [S, T])
    ).

                 /*******************************
                 *    DEP, ATTACKS, COMMITMENTS *
                 *******************************/

%  rests_on(A, L): L is in Dep(A).  explains(A, L), committed(G, A) and
%  open_problem(L) are read from the state directly (prolog/state.pl).
%!  rests_on(?A, ?Literal) is nondet.
%
%   Literal is in Dep(A).
rests_on(A, Literal) :- dep(A, Literal).

%!  attacks(?B, ?A) is nondet.
%
%   Argument B attacks argument A (Att_t).
attacks(B, A) :- att(B, A).

%!  dissents(?A, ?Agent) is nondet.
%
%   Agent dissents from decision argument A.
dissents(A, G) :- dissent(A, G).

                 /*******************************
                 *  PROPOSITIONS AND AWARENESS  *
                 *******************************/

%!  opposes(?Agent, +A) is nondet.
%
%   Agent is committed to an argument attacking A; each agent once, in time
%   that does not grow with the attackers (state.pl keeps the count).
opposes(G, A) :- opposed_by(A, G).

%!  known(+Literal) is semidet.
%
%   Literal's atom is a proposition (in Prop_t).
known(Literal) :- atom_of(Literal, P), prop(P, _), !.

%!  fresh_id(+Base, -Atom) is det.
%
%   Atom is the first of Base, Base_2, Base_3, ... that is not a known
%   proposition.  Resolving one claim k times by authority made ids
%   decide_p .. decide_p_k, and trying them all from the first made each
%   Resolve cost O(k).  Propositions are never taken back (a rejected
%   utterance's are, with the transaction that also takes back the hint), so
%   the ids found known stay known: fresh_from/2 remembers where the last
%   search stopped and the next one starts there.  The hint is an index
%   beside the facts: a state restored without it searches from 1 once.
fresh_id(Base, Atom) :-
    must_be(atom, Base),
    (   fresh_from(Base, N0) -> Hint = true ; N0 = 1, Hint = false ),
    fresh_search(Base, N0, N, Atom),
    (   N =:= N0 -> true
    ;   ( Hint == true -> unstore(fresh_from(Base, N0)) ; true ),
        store(fresh_from(Base, N))
    ).

fresh_search(Base, N, Found, Atom) :-
    (   N =:= 1 -> Candidate = Base ; format(atom(Candidate), "~w_~w", [Base, N]) ),
    (   known(Candidate) -> N1 is N + 1, fresh_search(Base, N1, Found, Atom) ; Found = N, Atom = Candidate ).

%!  latent(?Atom) is nondet.
%
%   Atom is a proposition outside every agent's awareness.
latent(P) :- prop(P, _), \+ aware(P).

%!  kind_of(+Literal, -Kind) is semidet.
%
%   The kind of Literal's proposition.
kind_of(Literal, Kind) :- atom_of(Literal, P), prop(P, Kind).

%!  claim_kind(+Literal, +Default, -Kind) is det.
%
%   The kind of Literal's proposition, or Default when it is new.
claim_kind(Literal, Default, Kind) :-
    must_be(oneof([observation, hypothesis, assumption, decision, position, constraint, question]), Default),
    (   kind_of(Literal, K) -> Kind = K ; Kind = Default ).

%!  has_authority(?Agent) is nondet.
%
%   Agent has decision authority (the header says so).
has_authority(Agent) :- agent(Agent, true).

                 /*******************************
                 *         OPEN PROBLEMS        *
                 *******************************/

%!  is_open(+Literal) is semidet.
%
%  Open abductive problems (DESIGN.md section 2): an observation in S_t, and
%  every question, is open until it is settled: an argument that explains it
%  is resolved (or, for an observation, it leaves S_t).  A hypothesis in good
%  standing that explains it does not close it, so competing explanations of
%  one symptom may all be proposed; they attack each other only when a
%  speaker says so (Undermine, Revise).
is_open(Q) :-
    prop(Q, question), !,
    \+ settled(Q).
is_open(L) :-
    argument(A, L, observation, _, _), in_standing(A), !,
    \+ settled(L).

%!  settled(+Literal) is semidet.
%
%   An argument that explains Literal is resolved.  Read from the index of
%   resolved explanations (prolog/settled.pl): asked of explains/2, it
%   would walk every explanation of Literal.
settled(L) :- settled_key(L).

%!  some_open_problem is semidet.
%
%   Some abductive problem is open.
some_open_problem :- open_problem(_), !.

                 /*******************************
                 *         WORLD MODEL          *
                 *******************************/

%!  world_model is semidet.
%
%   The conversation declares a world model, so operations report what
%   they do to M (announce/upgrade/withdraw/refine effects) and may carry
%   epistemic verdicts.
world_model :- option(world_model).

%!  epistemic(+Op, -Verdict) is nondet.
%
%   Verdict is one verdict the bridge read in the world model for Op (see
%   src/grounded/engine/world.py).  Only violation/5 sees them: they arrive
%   once the operation's effects are known.
epistemic(Op, Verdict) :- field(Op, epistemic, Vs), member(Verdict, Vs).

                 /*******************************
                 *        SHARED EFFECTS        *
                 *******************************/

%!  introduces(+U, +Op, +Kind, -Effect) is nondet.
%
%   Effect is one effect of an operation whose `claim` becomes a new
%   argument: the proposition (of kind Kind unless declared otherwise), its
%   place in every agent's awareness, the argument itself and the
%   speaker's commitment to it.
introduces(_, Op, Kind, new_prop(P, Kind)) :- field(Op, claim, L), atom_of(L, P).
introduces(_, Op, _, aware(P))             :- field(Op, claim, L), atom_of(L, P).
introduces(_, Op, Kind, new_arg(L, K))     :- field(Op, claim, L), claim_kind(L, Kind, K).
introduces(U, _, _, commit(S, new))        :- speaker(U, S).

%!  retraction_effect(+U, +Target, +AttackerArg, +Cause, -Effect) is nondet.
%
%   Effect is one effect of retracting Target: abandon every argument for
%   it, record the attack from AttackerArg (or `none`) and release the
%   speaker's own commitment.  Used by Revise and by Observe's
%   `supersedes`.
retraction_effect(_, T, _, Cause, set_standing(A, abandoned, Cause)) :-
    claims(A, T), \+ standing_of(A, abandoned).
retraction_effect(_, T, B, _, add_attack(B, A)) :-
    B \== none, claims(A, T).
retraction_effect(U, T, _, _, retract_commitment(S, A)) :-
    speaker(U, S), claims(A, T), committed(S, A).
%  M: [!~gamma].  A hard fact cannot be unlearned by announcing its negation
%  (no world would be left), so earlier announcements of gamma are withdrawn
%  first: the model becomes what it would be had gamma never been announced.
retraction_effect(_, T, _, _, withdraw(T)) :-
    world_model.
retraction_effect(_, T, _, _, announce(N)) :-
    world_model, negation(T, N).

                 /*******************************
                 *            HELPERS           *
                 *******************************/

%!  fmt(-Message, +Format, +Args:list) is det.
%
%   Message is Format filled with Args, one line.  A literal is written as
%   everywhere else (-o5; plain ~w would write -(o5) as "- o5").
fmt(Message, Format, Args) :-
    must_be(list, Args),
    maplist(shown, Args, Shown),
    format(string(Message), Format, Shown).

shown(X, X) :- var(X), !.
shown(-(P), S) :- atom(P), !, atom_concat(-, P, S).
shown(L, S) :- is_list(L), !, maplist(shown, L, S).
shown(X, X).

%!  reaches(:Step, +From, +To) is semidet.
%
%   To is reachable from From by zero or more call(Step, X, Y) steps; each
%   node is expanded once.
:- meta_predicate reaches(2, +, +).
reaches(Step, From, To) :-
    must_be(callable, Step),
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

                 /*******************************
                 *      THE EFFECT VOCABULARY   *
                 *******************************/

%  effect_signature(Name, ArgumentTypes): the transitions rules may emit, as
%  they write them (no `created` field).  An `arg` position may name the
%  operation's new argument as `new`.  The driver checks every emitted effect
%  against its types (value_type/2) and drops those that would change nothing;
%  the bridge mirrors the rest.  Compiled from effect_kind/4 as each fact is
%  read (a fact, not a rule: the driver asks it for every effect it checks).
:- discontiguous effect_kind/4, effect_signature/2.
term_expansion(effect_kind(Name, Group, Doc, Fields), Clauses) :-
    (   Group == driver
    ->  Clauses = [effect_kind(Name, Group, Doc, Fields)]
    ;   findall(T, ( member(_:T, Fields), T \== created ), Types),
        Clauses = [effect_kind(Name, Group, Doc, Fields), effect_signature(Name, Types)]
    ).

%  effect_kind(Name, Group, Doc, [Field:Type, ...]): every effect, declared
%  once.  The bridge generates its typed effect classes (src/grounded/dmap/effects.py)
%  and the ASP terms (src/grounded/solvers/facts.py) from these facts, and a test
%  holds asp/vocabulary.lp and asp/history.lp to them.  Python reads this
%  file as text: write Doc as a double-quoted string without newlines.
%  Group says who emits the effect and what it changes: `map` (rules; the dependency map), `model` (rules, only under world_model;
%  the world model M, which the bridge carries out in order), `reading` (rules;
%  read in M, changes nothing) and `driver` (the driver's own, never a rule's).
%  A `created` field is filled in by the driver: the id of the new argument.
effect_kind(new_prop,           map,     "A new proposition of a kind.", [atom:atom, kind:kind]).
effect_kind(aware,              map,     "An atom enters every agent's awareness.", [atom:atom]).
effect_kind(new_arg,            map,     "A new argument for a claim.", [arg:created, claim:literal, kind:kind]).
effect_kind(set_standing,       map,     "An argument's standing changes; cause: the literal whose argument caused it (by(L)), or none.", [arg:arg, standing:standing, cause:cause]).
effect_kind(add_dep,            map,     "A literal enters Dep of an argument.", [arg:arg, literal:literal]).
effect_kind(add_explains,       map,     "An argument explains a literal.", [arg:arg, literal:literal]).
effect_kind(add_attack,         map,     "An attack between two arguments.", [attacker:arg, target:arg]).
effect_kind(commit,             map,     "An agent commits to an argument.", [agent:agent, arg:arg]).
effect_kind(retract_commitment, map,     "An agent releases a commitment.", [agent:agent, arg:arg]).
effect_kind(dissent,            map,     "An agent dissents from a decision argument.", [arg:arg, agent:agent]).
effect_kind(announce,           model,   "[!L]: a hard public announcement in the world model.", [literal:literal]).
effect_kind(upgrade,            model,   "[^L] (lexicographic) or [up L] (conservative).", [literal:literal, mode:mode]).
effect_kind(withdraw,           model,   "Lift earlier announcements of L.", [literal:literal]).
effect_kind(refine,             model,   "Refine the worlds on a new atom (awareness).", [atom:atom]).
effect_kind(abduce,             reading, "Read Definition A.2 for L in the world model, against what the operation explains.", [literal:literal]).
effect_kind(problem,            driver,  "An open problem opened or closed (the driver re-decides them).", [literal:literal, status:status]).
effect_kind(new_agent,          driver,  "A speaker joins an open conversation.", [agent:agent]).
effect_kind(turn,               driver,  "The utterance's turn.", [turn:turn]).

%  value_type(+Type, @Value): Value is a well-formed value of Type.
value_type(atom, X)     :- atom(X), X \== [].
value_type(agent, X)    :- atom(X), X \== [].
value_type(literal, X)  :- ( X = -(P) -> value_type(atom, P) ; value_type(atom, X) ).
value_type(kind, X)     :- atom(X), prop_kind(X).
value_type(standing, X) :- atom(X), standing_name(X).
value_type(cause, X)    :- ( X == none -> true ; X = by(L), value_type(literal, L) ).
value_type(arg, X)      :- ( X == new -> true ; integer(X), X > 0 ).
value_type(mode, X)     :- ( X == lexicographic ; X == conservative ), !.
value_type(status, X)   :- ( X == open ; X == closed ), !.
value_type(turn, X)     :- integer(X), X >= 0.
