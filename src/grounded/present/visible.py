"""Text from a conversation, shown on a terminal as characters, never as commands to it.

A log's texts, ids and speakers are whatever its writer put there; an ESC or a CSI in one, printed as it is,
moves the cursor, rewrites what was printed before, retitles the window or hides lines.  Each control
character (C0 but tab and newline, DEL, C1) is shown instead as one visible character of its own: the C0 ones
and DEL as their Control Pictures (U+2400 + code, U+2421: ``␛[2J``), C1 as U+FFFD.  One character for one, so
the styled spans of a rich ``Text`` still fall where they did.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.segment import Segment

VISIBLE = {c: 0x2400 + c for c in range(0x20) if c not in (0x09, 0x0A)}
VISIBLE[0x7F] = 0x2421
VISIBLE.update({c: 0xFFFD for c in range(0x80, 0xA0)})


def visible(text: str) -> str:
    """``text`` with each control character but tab and newline replaced by a visible one."""
    return text.translate(VISIBLE)


class VisibleConsole(Console):
    """A rich console whose printed text is ``visible``: the styles and cursor moves it makes itself are
    written as they are, the text of what it prints never as control characters."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:  # rich's one place text becomes output
        return super()._render_buffer(
            Segment(text.translate(VISIBLE), style, control) if not control else Segment(text, style, control)
            for text, style, control in buffer)
