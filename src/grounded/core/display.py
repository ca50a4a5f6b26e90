"""Rich display in notebooks, without the lower layers knowing how to draw.

Jupyter shows an object through its ``_repr_html_``, ``_repr_markdown_`` and
``_repr_svg_`` methods.  The objects worth showing (the Engine, an Update, a
Verify or Affected* answer, a plausibility model) live in layers below
``grounded.present``, which does the drawing, and a layer may not import the
layers above it.  So the classes inherit ``Displayable`` from here, and
``grounded.present.notebook`` registers, per class and format, the function
that renders it.  The package's facade (``grounded/__init__.py``), which every
``import grounded.x`` runs first, hands ``on_first_use`` the import of
``grounded.present.notebook``: the renderers are registered when the first
object is shown, and a command line that shows nothing never imports them.

Views a lower layer hands out but cannot draw itself (``Engine.show``: the
picture) are registered the same way, by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grounded.core.errors import GroundedError

FORMATS = ("html", "markdown", "svg")

_renderers: dict[tuple[type, str], Callable[[Any], str | None]] = {}
_views: dict[str, Callable[..., Any]] = {}
_pending: list[Callable[[], None]] = []


def on_first_use(load: Callable[[], None]) -> None:
    """Call ``load`` (which registers renderers and views) before the first ``render`` or ``view``."""
    _pending.append(load)


def _load_pending() -> None:
    while _pending:
        _pending.pop(0)()


def register(cls: type, fmt: str, render: Callable[[Any], str | None]) -> None:
    """Show instances of ``cls`` (and its subclasses) in format ``fmt`` with ``render``."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown display format {fmt!r} (expected one of {', '.join(FORMATS)})")
    _renderers[(cls, fmt)] = render


def render(obj: Any, fmt: str) -> str | None:
    """``obj`` in format ``fmt``, by the renderer registered for the nearest class; None when there is none
    (Jupyter then falls back to the next format, or to ``repr``)."""
    _load_pending()
    for cls in type(obj).__mro__:
        fn = _renderers.get((cls, fmt))
        if fn is not None:
            return fn(obj)
    return None


def register_view(name: str, fn: Callable[..., Any]) -> None:
    _views[name] = fn


def view(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call the view registered as ``name`` (e.g. ``picture``)."""
    _load_pending()
    fn = _views.get(name)
    if fn is None:
        raise GroundedError(f"no {name} view is registered: import grounded.present.notebook")
    return fn(*args, **kwargs)


class Displayable:
    """Mixin: rich notebook display through the renderers registered above."""

    __slots__ = ()

    def _repr_html_(self) -> str | None:
        return render(self, "html")

    def _repr_markdown_(self) -> str | None:
        return render(self, "markdown")

    def _repr_svg_(self) -> str | None:
        return render(self, "svg")
