/*  vocabulary.plt -- plunit tests of the author layer (prolog/vocabulary.pl), run without Python.

    swipl -g run_tests -t halt prolog/tests/vocabulary.plt  (tests/test_plunit.py runs it).

    Each predicate an operation is written in, read against a state the
    driver built: the documented modes and determinism, and the type errors
    of the entry points that check their arguments (must_be/2).
*/
:- use_module(library(plunit)).
:- prolog_load_context(directory, Dir),
   atom_concat(Dir, '/../grounded', Driver),
   use_module(Driver, []),
   atom_concat(Dir, '/../vocabulary', Vocabulary),
   use_module(Vocabulary).

%  story: o1, o2 observed by alice; h1 (bob) rests on o1 and explains o2; carol undermines o1 by o2.
story :-
    gensym(vocabulary_state_, M),
    grounded:new_state(M, [agent(alice, true), agent(bob, false), agent(carol, false), arg_count(0)]),
    grounded:use_state(M),
    say(1, alice, [op(observe, [claim=o1]), op(observe, [claim=o2])]),
    say(2, bob, [op(hypothesize, [claim=h1, deps=[o1], explains=[o2]])]),
    say(3, carol, [op(undermine, [target=o1, by=o2])]).

say(Turn, Speaker, Ops) :-
    grounded:apply_utterance(utterance(Turn, Speaker, Ops), false, Result),
    Result = accepted(_, _).

:- begin_tests(literals).

test(atom_of) :- atom_of(-(o5), A), A == o5, atom_of(o5, B), B == o5.
test(negation, [true(N == -(o5))]) :- negation(o5, N).
test(negation_back, [true(P == o5)]) :- negation(-(o5), P).
test(fmt_writes_a_negated_literal, [true(M == "-o5 and o6")]) :- fmt(M, "~w and ~w", [-(o5), o6]).
test(fmt_wants_a_list, [error(type_error(list, o5))]) :- fmt(_, "~w", o5).

:- end_tests(literals).

:- begin_tests(fields).

test(field, [true(V == o1)]) :- field(op(x, [target=o1]), target, V).
test(field_missing, [fail]) :- field(op(x, [target=o1]), by, _).
test(field_default, [true(V == none)]) :- field(op(x, []), by, V, none).
test(items, [all(X == [a, b])]) :- item(op(x, [deps=[a, b]]), deps, X).
test(speaker_and_turn, [true(S-T == bob-4)]) :- speaker(u(4, bob), S), turn(u(4, bob), T).

:- end_tests(fields).

:- begin_tests(state).

test(claims_and_standing, [setup(story)]) :-
    claims(A, o1), standing_of(A, weakened),
    claims(H, h1), in_standing(H), stands(h1), \+ stands(o1),
    author(H, bob), arg_kind(H, hypothesis), arg_turn(H, 2).
test(current_arg_falls_back_to_the_weakened, [setup(story), true(A == 1)]) :-
    current_arg(o1, A).
test(speaks_for_the_newest_in_good_standing, [setup(story), true(A == 2)]) :-
    speaks_for(A, o2).
test(dep_explains_attacks, [setup(story)]) :-
    claims(H, h1), rests_on(H, o1), explains(H, o2),
    attacks(B, A), claims(B, o2), claims(A, o1).
test(claim_standing_and_note, [setup(story), true(Note == "weakened at T3 by o2")]) :-
    claim_standing(o1, weakened, 3, by(o2)),
    standing_note(o1, Note).
test(open_problems, [setup(story)]) :-
    is_open(o2), some_open_problem, \+ settled(o2).
test(kinds, [setup(story), true(K-D == hypothesis-question)]) :-
    kind_of(h1, K), claim_kind(q9, question, D), known(-(h1)), \+ known(zz).
test(claim_kind_wants_a_kind, [setup(story), error(type_error(_, rumour))]) :-
    claim_kind(q9, rumour, _).
test(fresh_id_skips_known_ids, [setup(story), true(A == o3)]) :-
    fresh_id(o3, A).
test(fresh_id_wants_an_atom, [setup(story), error(type_error(atom, 3))]) :-
    fresh_id(3, _).
test(reaches_over_dep, [setup(story)]) :-
    claims(H, h1), claims(O, o1),
    reaches([X, Y]>>rests_on_arg(X, Y), H, O).
test(reaches_wants_a_closure, [error(type_error(callable, 3))]) :-
    reaches(3, a, b).
test(authority, [setup(story), all(G == [alice])]) :-
    has_authority(G).
test(no_world_model, [setup(story), fail]) :-
    world_model.

rests_on_arg(A, B) :- rests_on(A, L), claims(B, L).

:- end_tests(state).
