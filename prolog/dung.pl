/*  dung.pl -- the acyclic fast path for Dung semantics (restriction A2).

    On an acyclic attack graph the grounded extension is the only complete
    extension, hence also the only preferred and the only stable one.  It is
    computed in one pass in topological order: an argument is labelled once
    all its attackers are, and it is in iff none of its attackers is in.
    Linear in the size of the framework (up to the log factor of assoc).

    The bridge calls this for any framework, not only the engine's, so the
    framework arrives as a term af(Arguments, Attacks) with Attacks a list of
    Attacker-Target pairs.
*/
:- module(dung, [acyclic_grounded/3]).

:- use_module(library(apply)).
:- use_module(library(assoc)).

%!  acyclic_grounded(+Args:list, +Attacks:list, -In:list) is semidet.
%
%   In is the grounded extension, sorted.  Fails when the attack graph has a cycle (then some argument is
%  never labelled).
acyclic_grounded(Args, Attacks, In) :-
    empty_assoc(E),
    foldl(add_edge, Attacks, E-E, Targets-Attackers),
    foldl(count_attackers(Attackers), Args, []-E, Ready-Pending),
    label(Ready, Targets, Attackers, Pending, E, Labels),
    assoc_to_keys(Labels, Labelled),
    length(Labelled, N), length(Args, N),
    findall(A, (gen_assoc(A, Labels, in)), In0),
    sort(In0, In).

add_edge(X-Y, T0-A0, T-A) :-
    push(X, Y, T0, T),
    push(Y, X, A0, A).

push(Key, Value, Assoc0, Assoc) :-
    (   get_assoc(Key, Assoc0, Vs) -> true ; Vs = [] ),
    put_assoc(Key, Assoc0, [Value|Vs], Assoc).

count_attackers(Attackers, A, Ready0-P0, Ready-P) :-
    (   get_assoc(A, Attackers, Bs)
    ->  length(Bs, N), put_assoc(A, P0, N, P), Ready = Ready0
    ;   P = P0, Ready = [A|Ready0]
    ).

%  label(+Ready, +Targets, +Attackers, +Pending, +Labels0, -Labels): Ready
%  holds the arguments whose attackers are all labelled.
label([], _, _, _, Labels, Labels).
label([A|Ready], Targets, Attackers, Pending0, Labels0, Labels) :-
    (   get_assoc(A, Attackers, Bs), member(B, Bs), get_assoc(B, Labels0, in)
    ->  L = out
    ;   L = in
    ),
    put_assoc(A, Labels0, L, Labels1),
    (   get_assoc(A, Targets, Ts) -> true ; Ts = [] ),
    foldl(release, Ts, Ready-Pending0, Ready1-Pending1),
    label(Ready1, Targets, Attackers, Pending1, Labels1, Labels).

release(T, Ready0-P0, Ready-P) :-
    get_assoc(T, P0, N0),
    N is N0 - 1,
    put_assoc(T, P0, N, P),
    (   N =:= 0 -> Ready = [T|Ready0] ; Ready = Ready0 ).
