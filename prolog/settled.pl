/*  settled.pl -- which literals have a resolved explanation, kept as facts.

    settled(L) (prolog/vocabulary.pl) asks whether an argument that explains
    L is resolved.  Asked of explains/2, that walks every explanation of L
    until one is resolved, and it is asked for L each time an operation
    explains L (the driver re-decides L's open problem): N competing
    hypotheses proposed for one question cost N^2, most of a fan of 10^4 was
    spent there.  So the resolved explanations are kept beside the facts, as
    settled_by(Atom, Sign, Arg) in the state module (keyed by the literal's
    atom and sign: first-argument indexing sees only the functor of -(P)),
    changed by the two effects that can change them:

    * add_explains(A, L) with A resolved: A settles L;
    * set_standing(A, S, _): A settles every literal it explains while S is
      resolved; an argument that leaves resolved (weakened or abandoned by a
      later operation) settles none of them any more.

    The facts are an index, not state: state_facts/2 does not report them,
    and a state given as facts (a restored snapshot) has them rebuilt from
    explains/2 and standing/4 (rebuild_settled/0).  A rejected utterance's
    transaction takes them back with the rest.
*/
:- module(settled, [explains_added/2, standing_changed/3, settled_key/1, rebuild_settled/0]).

:- use_module(state).

%!  explains_added(+A, +L) is det.
%
%   A now explains L: the index learns it.
explains_added(A, L) :-
    (   standing(A, resolved, _, _) -> settles(A, L) ; true ).

%!  standing_changed(+A, +Old, +New) is det.
%
%   A went from Old to New: the index follows.
standing_changed(A, Old, New) :-
    (   Old == New
    ->  true
    ;   New == resolved
    ->  forall(explains(A, L), settles(A, L))
    ;   Old == resolved
    ->  forall(explains(A, L), ( literal_key(L, P, Sign), unstore(settled_by(P, Sign, A)) ))
    ;   true
    ).

settles(A, L) :-
    literal_key(L, P, Sign),
    (   settled_by(P, Sign, A) -> true ; store(settled_by(P, Sign, A)) ).

%!  settled_key(+L) is semidet.
%
%   Some resolved argument explains L.
settled_key(L) :-
    literal_key(L, P, Sign),
    settled_by(P, Sign, _), !.

%!  rebuild_settled is det.
%
%   The index of a state given as facts, from scratch.
rebuild_settled :-
    db(M),
    retractall(M:settled_by(_, _, _)),
    forall(( standing(A, resolved, _, _), explains(A, L) ), settles(A, L)).
