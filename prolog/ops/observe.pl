/*  Observe(psi): a hard public announcement [!psi].  A new argument for the
    claim with empty Dep, committed to by the speaker.  `supersedes` is the
    shorthand for Revise(old) + Observe(new) in one step (fact supersession).
*/

operation(observe,
          "A speaker reports a fact; it becomes an argument with empty Dep.",
          [ field(claim, literal, required),
            field(text, text, optional),
            field(supersedes, literals, optional)
          ]).

violation(observe, _, Op, observe_unaware, M) :-
    field(Op, claim, L), atom_of(L, P), latent(P),
    fmt(M, "~w is outside every agent's awareness: use Expand-Awareness, not Observe", [P]).
violation(observe, _, Op, observe_not_a_fact, M) :-
    field(Op, claim, L), kind_of(L, K), memberchk(K, [hypothesis, decision, question]),
    fmt(M, "~w is a ~w, not an observable fact: use Support or Resolve to confirm it, Revise to retract it", [L, K]).
violation(observe, U, Op, observe_redundant, M) :-
    field(Op, claim, L), speaker(U, S),
    once(( claims(A, L), author(A, S), in_standing(A) )), arg_turn(A, T),
    fmt(M, "~w already stands on ~w's own observation at T~w: nothing new to observe", [L, S, T]).
violation(observe, _, Op, observe_contradicts, M) :-
    field(Op, claim, L), negation(L, N), stands(N),
    field(Op, supersedes, Olds, []), \+ memberchk(N, Olds),
    fmt(M, "~w contradicts ~w, which stands: Revise ~w first or list it in supersedes", [L, N, N]).
violation(observe, _, Op, observe_supersedes_unknown, M) :-
    item(Op, supersedes, O), \+ claimed(O),
    fmt(M, "supersedes ~w, but no argument claims ~w", [O, O]).
violation(observe, _, Op, observe_supersedes_self, M) :-
    field(Op, claim, L), field(Op, supersedes, Olds), memberchk(L, Olds),
    fmt(M, "~w cannot supersede itself", [L]).

effect(observe, U, Op, E) :-
    introduces(U, Op, observation, E).
effect(observe, U, Op, E) :-
    field(Op, claim, L), item(Op, supersedes, O),
    retraction_effect(U, O, new, by(L), E).
%  M: [!psi], after the superseded literals were withdrawn and negated.  If
%  psi was retracted before (every argument for it abandoned, its negation
%  announced by that Revise) and nothing stands for the negation, the
%  negation is withdrawn first: observing psi again re-establishes it.
effect(observe, _, Op, withdraw(N)) :-
    world_model, field(Op, claim, L), all_abandoned(L), negation(L, N), \+ stands(N).
effect(observe, _, Op, announce(L)) :-
    world_model, field(Op, claim, L).

%  The transitions observe can emit on the map (an effect, or a standing change
%  From -> To); tests/test_transitions.py generates histories until each fires.
transition(observe, new_prop).
transition(observe, aware).
transition(observe, new_arg).
transition(observe, commit).
transition(observe, set_standing(active, abandoned)).
transition(observe, set_standing(weakened, abandoned)).
transition(observe, set_standing(resolved, abandoned)).
transition(observe, add_attack).
transition(observe, retract_commitment).
