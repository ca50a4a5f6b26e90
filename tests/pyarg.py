"""A framework in PyArg's classes (python-argumentation), the independent oracle.

PyArg enumerates extensions in pure Python; the tests, bench/compare.py and
bench/crosscheck.py hold the ASP encodings against it.  It is a dependency of the
tests and the benchmarks (the bench extra), not of the package, so it lives here.
"""

from __future__ import annotations

from grounded.dung.framework import Framework


def to_py_arg(af: Framework):
    from py_arg.abstract_argumentation_classes.abstract_argumentation_framework import (
        AbstractArgumentationFramework,
    )
    from py_arg.abstract_argumentation_classes.argument import Argument
    from py_arg.abstract_argumentation_classes.defeat import Defeat

    args = {a: Argument(str(a)) for a in sorted(af.arguments)}
    return AbstractArgumentationFramework("af", list(args.values()),
                                          [Defeat(args[a], args[b]) for a, b in sorted(af.attacks)])


def from_py_arg_extensions(extensions) -> set[frozenset[int]]:
    return {frozenset(int(a.name) for a in ext) for ext in extensions}
