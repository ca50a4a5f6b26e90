"""Term data as Python values: what grounded.solvers.terms puts into Prolog and reads back, named apart from
it, which declares the C interface (ctypes): code that only names them (the flat reader, the rule bridge's
types) is imported without it, as a query answered from a snapshot is.
"""

from __future__ import annotations

Value = object
"""A term as Python data: str, PlString, int, tuple (compound) or list."""


Shape = object
"""How a term is expected to look (see ``Terms.read``)."""


class PlString(str):
    """A Python str that goes into Prolog as a string, not an atom."""
