"""The Engine: one conversation's dependency map, updated per utterance by the rules.

engine.py holds ``Engine`` and ``Update``; world.py carries the world model M
along with the rules' decisions; whatif.py answers hypothetical utterances.
"""

from grounded.engine.engine import Engine, Update
from grounded.engine.whatif import WhatIf

__all__ = ["Engine", "Update", "WhatIf"]
