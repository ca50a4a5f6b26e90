/*  wire.pl -- the wire format: utterances, facts and replies as flat text.

    The bridge sends a batch of utterances, or the facts of a state, as one
    string of tokens (grounded.solvers.flat) rather than as a term (a term
    costs a foreign call per node), and reads the accepted utterances back
    the same way.  This module turns that text into terms and back; the
    driver (grounded.pl) never sees the tokens.  Nothing is read as Prolog
    text: a token becomes an integer, an atom or a literal.
*/
:- module(wire, [batch_utterances/2, flat_apply/5, flat_facts/2, flat_reply/2]).

:- use_module(library(lists)).
:- use_module(library(apply)).

%!  batch_utterances(+Batch, -Utterances) is det.
%
%   Utterances is a batch as the bridge sends it:
%  flat(Text, N), N tokens each followed by the separator (see grounded.solvers.flat):
%      <utterances>, per utterance <turn> <speaker> <ops>, per op <name>
%      <fields>, per field <key> = <literal> or <key> # <n> <literal>...
%  A token becomes an integer, an atom, or -(Atom) for a literal written -P;
%  nothing is read as Prolog text.  A text that does not split into N
%  tokens, or does not decode to exactly its utterances, is an error.
batch_utterances(flat(Text, N), Utterances) :-
    split_string(Text, "\x1f\", "", Parts),
    (   length(Parts, N1), N1 =:= N + 1,
        phrase(flat_batch(Utterances), Parts, [""])
    ->  true
    ;   throw(error(format("a malformed flat batch of ~w tokens", [N]), _))
    ).

flat_batch(Us) --> flat_int(K), flat_utterances(K, Us).

%!  flat_apply(+Text, -Module, -Record, -Behind, -Utterance) is det.
%
%   A live request as
%  the bridge sends it (RuleState.apply): one string, so that building it
%  costs the bridge one foreign call rather than one per node.  Its tokens,
%  each followed by the separator: the state module, true or false (record
%  the utterance), the turn to catch up on or none, the count N of the
%  tokens that follow, then one utterance as batch_utterances/2 reads a
%  batch of one.  A text that does not split into exactly that, or does not
%  decode to one utterance, is an error.
flat_apply(Text, Module, Record, Behind, Utterance) :-
    split_string(Text, "\x1f\", "", Parts0),
    (   Parts0 = [MS, RS, BS, NS|Parts],
        atom_string(Module, MS), memberchk(RS-Record, ["true"-true, "false"-false]),
        ( BS == "none" -> Behind = none ; number_string(Behind, BS), integer(Behind) ),
        number_string(N, NS), integer(N),
        length(Parts, N1), N1 =:= N + 1,
        phrase(flat_batch([Utterance]), Parts, [""])
    ->  true
    ;   throw(error(format("a malformed flat request: ~q", [Text]), _))
    ).

flat_utterances(0, []) --> !.
flat_utterances(K, [utterance(T, S, Ops)|Us]) -->
    flat_int(T), flat_atom(S), flat_int(NOps), flat_ops(NOps, Ops),
    { K1 is K - 1 },
    flat_utterances(K1, Us).

flat_ops(0, []) --> !.
flat_ops(N, [op(Name, Fields)|Ops]) -->
    flat_atom(Name), flat_int(NF), flat_fields(NF, Fields),
    { N1 is N - 1 },
    flat_ops(N1, Ops).

flat_fields(0, []) --> !.
flat_fields(N, [Key=Value|Fields]) -->
    flat_atom(Key), [Mark], flat_field_value(Mark, Value),
    { N1 is N - 1 },
    flat_fields(N1, Fields).

flat_field_value("=", L) --> flat_literal(L).
flat_field_value("#", Ls) --> flat_int(N), flat_literals(N, Ls).

flat_literals(0, []) --> !.
flat_literals(N, [L|Ls]) --> flat_literal(L), { N1 is N - 1 }, flat_literals(N1, Ls).

flat_int(I) --> [S], { number_string(I, S), integer(I) }.
flat_atom(A) --> [S], { atom_string(A, S) }.
flat_literal(L) --> [S],
    {   sub_string(S, 0, 1, After, "-")
    ->  sub_string(S, 1, After, 0, P), atom_string(A, P), L = -(A)
    ;   atom_string(L, S)
    }.

%!  flat_facts(+Flat, -Facts) is det.
%
%   Facts of a state as the bridge
%  sends them to restore it (grounded.solvers.flat, flat_facts): per fact its
%  name, its arity and its values; a value is a<atom>, i<integer>, -<atom>
%  for -(Atom), or b followed by the value inside by(...).
flat_facts(flat(Text, N), Facts) :-
    split_string(Text, "\x1f\", "", Parts),
    (   length(Parts, N1), N1 =:= N + 1,
        phrase(flat_fact_list(Facts), Parts, [""])
    ->  true
    ;   throw(error(format("a malformed flat list of facts of ~w tokens", [N]), _))
    ).

flat_fact_list([F|Fs]) --> flat_fact(F), !, flat_fact_list(Fs).
flat_fact_list([]) --> [].

flat_fact(F) -->
    flat_atom(Name), flat_int(Arity), flat_values(Arity, Values),
    { compound_name_arguments(F0, Name, Values), ( Arity =:= 0 -> F = Name ; F = F0 ) }.

flat_values(0, []) --> !.
flat_values(N, [V|Vs]) --> flat_tagged(V), { N1 is N - 1 }, flat_values(N1, Vs).

flat_tagged(V) --> [S],
    {   sub_string(S, 0, 1, After, Tag),
        sub_string(S, 1, After, 0, Rest)
    },
    flat_tagged(Tag, Rest, V).

flat_tagged("a", Rest, A) --> { atom_string(A, Rest) }.
flat_tagged("i", Rest, I) --> { number_string(I, Rest), integer(I) }.
flat_tagged("-", Rest, -(A)) --> { atom_string(A, Rest) }.
flat_tagged("b", "", by(L)) --> flat_tagged(L).

%!  flat_reply(+Accepted, -Reply) is det.
%
%   Reply is what the accepted utterances did, read back
%  by the bridge in one piece instead of term by term (a term costs the
%  bridge a foreign call per node: several per effect).  Reply is
%  flat(Text, N): N tokens, each followed by the separator (unit separator,
%  U+001F).  Per utterance: the number of effects; per effect its operation
%  index, its name and its values; then the number of claims that left S_t,
%  and those claims.  A value is an integer or atom as written, a literal
%  -(P) as -P (the bridge's spelling), a cause by(L) as +L and none as none.
%  The bridge reads each value by the effect's declared shape
%  (grounded.dmap.effects), so an atom that looks like a number stays text.
%  If a value is not atomic or an atom holds the separator (the text would
%  then split into more than N tokens), Reply is terms(Accepted) instead.
%  The tokens are listed with their separators and joined into a string in
%  one pass: no atom of the whole text, and no second pass splitting it
%  again to count them (each atom is checked for the separator instead).
flat_reply(Accepted, Reply) :-
    (   flat_accepted(Accepted, Tokens, [])
    ->  length(Tokens, L), N is L // 2,
        atomics_to_string(Tokens, Text),
        Reply = flat(Text, N)
    ;   Reply = terms(Accepted)
    ).

flat_accepted([]) --> [].
flat_accepted([Ts-Left|As]) -->
    { count_effects(Ts, 0, NE), length(Left, NL) },
    [NE, '\x1f\'], flat_transitions(Ts), [NL, '\x1f\'], flat_values(Left),
    flat_accepted(As).

count_effects([], N, N).
count_effects([o(_, Es)|Ts], N0, N) :-
    length(Es, K), N1 is N0 + K,
    count_effects(Ts, N1, N).

flat_transitions([]) --> [].
flat_transitions([o(I, Es)|Ts]) --> flat_effects(Es, I), flat_transitions(Ts).

flat_effects([], _) --> [].
flat_effects([E|Es], I) -->
    { compound_name_arguments(E, Name, Values) },
    [I, '\x1f\', Name, '\x1f\'], flat_values(Values),
    flat_effects(Es, I).

%  A value is tested for what it is in line, the usual ones first (an atom,
%  then an integer): three inferences for an atom value rather than seven
%  through a clause per shape (atomic, not a string, an atom holding the
%  separator?), and a reply holds several values per effect.
flat_values([]) --> [].
flat_values([V|Vs]) -->
    {   atom(V) -> \+ sub_atom(V, _, _, _, '\x1f\'), T = V
    ;   integer(V) -> T = V
    ;   flat_value(V, T)
    },
    [T, '\x1f\'], flat_values(Vs).

flat_value(-(P), T) :- !, atom(P), \+ sub_atom(P, _, _, _, '\x1f\'), atom_concat(-, P, T).
flat_value(by(L), T) :- !, flat_value_or_atom(L, T0), atom_concat(+, T0, T).
flat_value(V, V) :- atomic(V), \+ string(V).       % a float or a reserved symbol ([]), as before

flat_value_or_atom(L, T) :-
    (   atom(L) -> \+ sub_atom(L, _, _, _, '\x1f\'), T = L ; flat_value(L, T), atom(T) ).
