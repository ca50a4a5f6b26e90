"""Dung argumentation frameworks and their extensions.

The engine keeps standing by its operations (Lemma 2.4) instead of computing
extensions; this package computes them anyway, so the fast answers can be
held against Dung's semantics: ``Framework`` (arguments, attacks, restriction),
the grounded labelling in linear time (which also settles complete, preferred
and stable semantics when it leaves nothing undecided, as on every acyclic
framework), ``extensions`` for admissible, complete, grounded, preferred and
stable semantics in ASP, the acyclic fast path in Prolog and ASP, and the
ICCMA file formats (``iccma.py``).
"""

from grounded.dung.acyclic import acyclic_grounded_asp, acyclic_grounded_prolog
from grounded.dung.framework import Framework
from grounded.dung.labelling import Labelling, grounded_labelling
from grounded.dung.semantics import SEMANTICS, Semantics, credulous, extensions, semantics, skeptical

__all__ = ["SEMANTICS", "Framework", "Labelling", "Semantics", "acyclic_grounded_asp", "acyclic_grounded_prolog",
           "credulous", "extensions", "grounded_labelling", "semantics", "skeptical"]
