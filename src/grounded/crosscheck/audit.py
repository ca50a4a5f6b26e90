"""The standing audit: each argument's standing read against its place in AF_t, by Dung's reading.

Python, Prolog and ASP are written from one reading of the paper, so a
misreading they share passes the three-way check.  This audit reads neither
the rules nor their twin: only the arguments, their standings (with the
cause each standing change recorded) and the attacks, as the engine's state
holds them and as the rules' own facts hold them (a rule that wrote the
rules' state behind the driver's back shows in the second), and reports
what the paper excludes:

* a **weakened** argument no attack is recorded on: the paper weakens only
  by an attack (Undermine), and an unattacked argument is in every Dung
  extension, so the map would show as weakened what every extension accepts;
* an argument **abandoned by** a literal (``by(L)``) with no attack recorded
  on it: the cause names an attacker that AF_t does not hold (a retraction
  that names no cause, the speaker withdrawing its own claim, records none);
* an argument **in good standing attacked by one in good standing** (Lemma
  2.4: S_t is conflict-free).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from grounded.core.vocabulary import GOOD_STANDING


@dataclass(frozen=True)
class Standing:
    standing: str
    cause: str | None
    """The literal a ``by(L)`` cause names, or None."""


def audit_framework(where: str, standings: Mapping[int, Standing], attacks: Iterable[tuple[int, int]],
                    claims: Mapping[int, str]) -> list[str]:
    """The arguments whose standing the paper excludes given the attacks, one line each, by argument."""
    attackers: dict[int, list[int]] = {}
    for b, a in attacks:
        attackers.setdefault(a, []).append(b)

    def name(a: int) -> str:
        return f"{claims.get(a, '?')} #{a}"

    out = []
    for a in sorted(standings):
        s = standings[a]
        on = sorted(attackers.get(a, ()))
        if s.standing == "weakened" and not on:
            out.append(f"audit ({where}): {name(a)} is weakened with no attack recorded on it: Dung's semantics "
                       "accept an unattacked argument in every extension, and only an attack weakens")
        elif s.standing == "abandoned" and s.cause is not None and not on:
            out.append(f"audit ({where}): {name(a)} is abandoned by {s.cause} with no attack recorded on it")
        elif s.standing in GOOD_STANDING:
            standing_attackers = [b for b in on if b in standings and standings[b].standing in GOOD_STANDING]
            if standing_attackers:
                out.append(f"audit ({where}): {name(a)} is {s.standing} while attacked by "
                           f"{', '.join(name(b) for b in standing_attackers)}, in good standing (Lemma 2.4: S_t "
                           "is conflict-free)")
    return out


def audit(engine) -> list[str]:
    """The audit of an engine's state, as Python holds it and as the rules' facts hold it."""
    dm = engine.state
    claims = {r.id: r.claim for r in dm.args}
    python = {r.id: Standing(r.standing, (r.history[-1][2] if r.history else None)) for r in dm.args}
    out = audit_framework("Python", python, ((b, a) for b, a, _ in dm.attacks), claims)
    rules: dict[int, Standing] = {}
    attacks: list[tuple[int, int]] = []
    for fact in engine.rules.facts():
        if fact[0] == "standing":
            _, a, s, _, cause = fact
            rules[int(a)] = Standing(str(s), _literal(cause))
        elif fact[0] == "att":
            attacks.append((int(fact[1]), int(fact[2])))
    return out + audit_framework("Prolog", rules, attacks, claims)


def _literal(cause: object) -> str | None:
    """``by(L)`` as term data -> L written as everywhere (-o5); ``none`` -> None."""
    if not isinstance(cause, tuple):
        return None
    literal = cause[1]
    if isinstance(literal, tuple):  # -(P)
        return f"-{literal[1]}"
    return str(literal)
