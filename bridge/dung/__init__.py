"""Dung argumentation frameworks and their extensions.

The engine keeps standing by its operations (Lemma 2.4) instead of computing
extensions; this package computes them anyway, so the fast answers can be
held against Dung's semantics: ``Framework`` (arguments, attacks, restriction),
``extensions`` for admissible, complete, grounded, preferred and stable
semantics in ASP, and the acyclic fast path in Prolog and ASP.
"""

from grounded.dung.acyclic import acyclic_grounded_asp, acyclic_grounded_prolog
from grounded.dung.framework import Framework
from grounded.dung.semantics import SEMANTICS, Semantics, credulous, extensions, semantics, skeptical

__all__ = ["SEMANTICS", "Framework", "Semantics", "acyclic_grounded_asp", "acyclic_grounded_prolog",
           "credulous", "extensions", "semantics", "skeptical"]
