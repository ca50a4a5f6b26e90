/*  driver.plt -- plunit tests of the driver (prolog/grounded.pl), run without Python.

    swipl -g run_tests -t halt prolog/tests/driver.plt  (tests/test_plunit.py runs it).

    An utterance is atomic: one failing operation leaves every fact as it was
    before the utterance, the counters included.  Effects that would change
    nothing are dropped by the driver, never reported.  A rule file cannot
    redefine a predicate of the driver or of the author layer.
*/
:- use_module(library(plunit)).
:- prolog_load_context(directory, Dir),
   atom_concat(Dir, '/../grounded', Driver),
   use_module(Driver, []).

%  fresh(-M): a state module with alice (decision authority) and bob.
fresh(M) :-
    gensym(plunit_state_, M),
    grounded:new_state(M, [agent(alice, true), agent(bob, false), arg_count(0)]),
    grounded:use_state(M).

say(Turn, Speaker, Ops, Result) :-
    grounded:apply_utterance(utterance(Turn, Speaker, Ops), false, Result).

facts(M, Facts) :- grounded:state_facts(M, Facts).

%  rule_file(-File, +Codes): a temporary rule file holding Codes.
rule_file(File, Text) :-
    tmp_file_stream(text, File, Out),
    format(Out, "~s", [Text]),
    close(Out).

:- begin_tests(atomicity).

test(a_failing_operation_rolls_back_the_ones_before_it) :-
    fresh(M),
    say(1, alice, [op(observe, [claim=o1])], accepted(_, _)),
    facts(M, Before),
    say(2, bob, [op(observe, [claim=o2]), op(support, [target=nothing, by=o1])], R),
    assertion(R = rejected([v(1, support, support_target_unknown, _)])),
    facts(M, After),
    assertion(After == Before).

test(a_broken_invariant_rolls_back_too) :-
    fresh(M),
    say(1, alice, [op(observe, [claim=o1])], accepted(_, _)),
    say(2, bob, [op(observe, [claim=o2])], accepted(_, _)),
    facts(M, Before),
    % o2 attacks o1 and then supports it: the support is refused (support_contradicts)
    say(3, bob, [op(undermine, [target=o1, by=o2]), op(support, [target=o1, by=o2])], R),
    assertion(R = rejected([v(1, support, support_contradicts, _)])),
    facts(M, After),
    assertion(After == Before).

test(an_accepted_utterance_keeps_every_operation) :-
    fresh(M),
    say(1, alice, [op(observe, [claim=o1]), op(observe, [claim=o2])], accepted(_, _)),
    facts(M, Facts),
    assertion(memberchk(argument(1, o1, observation, alice, 1), Facts)),
    assertion(memberchk(argument(2, o2, observation, alice, 1), Facts)),
    assertion(memberchk(last_turn(1), Facts)).

:- end_tests(atomicity).

:- begin_tests(no_op_dropping).

test(redundant_effects_are_dropped) :-
    fresh(_),
    say(1, alice, [op(observe, [claim=o1])], accepted(_, _)),
    grounded:drop_redundant([commit(alice, 1), commit(bob, 1), new_prop(o1, observation), aware(o1)], Kept),
    assertion(Kept == [commit(bob, 1)]).

test(a_second_observation_reports_no_proposition) :-
    fresh(_),
    say(1, alice, [op(observe, [claim=o1])], accepted(_, _)),
    say(2, bob, [op(observe, [claim=o1])], accepted(Ts, _)),
    assertion(memberchk(o(0, Es), Ts)),
    memberchk(o(0, Es), Ts),
    assertion(\+ memberchk(new_prop(_, _), Es)),
    assertion(\+ memberchk(aware(_), Es)),
    assertion(memberchk(new_arg(2, o1, observation), Es)).

test(an_operation_that_changes_nothing_is_left_out) :-
    rule_file(File, `operation(reaffirm, "commit again", [field(target, literal, required)]).
effect(reaffirm, U, Op, commit(S, A)) :- field(Op, target, T), speaker(U, S), standing_arg(T, A).
`),
    grounded:request(load_extension(File), true),
    fresh(_),
    say(1, alice, [op(observe, [claim=o1])], accepted(_, _)),     % alice commits to it
    say(2, alice, [op(reaffirm, [target=o1]), op(reaffirm, [target=o1])], R),
    grounded:request(unload_extension(File), true),
    assertion(R == accepted([o(-1, [turn(2)])], [])).

:- end_tests(no_op_dropping).

:- begin_tests(rule_modules).

test(a_file_redefining_a_driver_predicate_is_refused_by_name) :-
    rule_file(File, `operation(rogue, "x", [field(target, literal, required)]).\ncreates(_).\n`),
    grounded:request(load_extension(File), Reply),
    assertion(Reply = refused(2, _)),
    Reply = refused(_, Why),
    assertion(sub_string(Why, _, _, _, "creates/1")),
    assertion(\+ grounded:op_module(rogue, _)),
    % the driver's own creates/1 is untouched
    assertion(grounded:order_effects([add_dep(new, o1), new_arg(h1, hypothesis)],
                                     [new_arg(h1, hypothesis), add_dep(new, o1)])).

test(a_file_redefining_the_layer_is_refused_by_name) :-
    rule_file(File, `operation(rogue, "x", []).\nstands(_).\n`),
    grounded:request(load_extension(File), refused(2, Why)),
    assertion(sub_string(Why, _, _, _, "stands/1")).

test(the_vocabulary_exports_exactly_the_author_layer) :-
    module_property(vocabulary, exports(Exports)),
    findall(P, vocabulary:layer_predicate(P), Layer),
    msort(Exports, E), msort(Layer, L),
    assertion(E == L).

:- end_tests(rule_modules).
