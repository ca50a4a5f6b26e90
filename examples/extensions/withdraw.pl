% withdraw.pl -- a speaker takes back their own earlier observation.

operation(withdraw,
          "A speaker takes back their own earlier observation; what rests on it loses that support.",
          [ field(target, literal, required),
            field(text, text, optional)
          ]).

%  withdraw_own(U, T, A): A is an observation of T made by the speaker of U.
withdraw_own(U, T, A) :-
    speaker(U, S), claims(A, T), author(A, S), arg_kind(A, observation).

violation(withdraw, _, Op, withdraw_target_unknown, M) :-
    field(Op, target, T), \+ claimed(T),
    fmt(M, "no argument claims ~w, so there is nothing to withdraw", [T]).
violation(withdraw, _, Op, withdraw_not_observation, M) :-
    field(Op, target, T), claimed(T), \+ ( claims(A, T), arg_kind(A, observation) ),
    kind_of(T, K),
    fmt(M, "~w is a ~w, not an observation: use Revise to retract it", [T, K]).
violation(withdraw, U, Op, withdraw_not_author, M) :-
    field(Op, target, T), once(( claims(A, T), arg_kind(A, observation) )),
    \+ withdraw_own(U, T, _), speaker(U, S),
    findall(G, ( claims(B, T), arg_kind(B, observation), author(B, G) ), Gs0),
    sort(Gs0, Gs), atomic_list_concat(Gs, ', ', Authors),
    fmt(M, "~w did not observe ~w (~w did): only its author may withdraw an observation", [S, T, Authors]).
violation(withdraw, U, Op, withdraw_already_abandoned, M) :-
    field(Op, target, T), once(withdraw_own(U, T, _)),
    \+ ( withdraw_own(U, T, A), \+ standing_of(A, abandoned) ), speaker(U, S),
    fmt(M, "~w's observation of ~w is already abandoned: nothing left to withdraw", [S, T]).

%  Like a Revise limited to the speaker's own observations: they are
%  abandoned (no attacker: nobody contradicted them) and the speaker's
%  commitment to them is released.  Other speakers' observations of T stay.
effect(withdraw, U, Op, set_standing(A, abandoned, none)) :-
    field(Op, target, T), withdraw_own(U, T, A).
effect(withdraw, U, Op, retract_commitment(S, A)) :-
    field(Op, target, T), withdraw_own(U, T, A), speaker(U, S).

%  The transitions withdraw can emit (tests/test_transitions.py sees each fire).
transition(withdraw, set_standing(active, abandoned)).
transition(withdraw, set_standing(weakened, abandoned)).
transition(withdraw, set_standing(resolved, abandoned)).
transition(withdraw, retract_commitment).
