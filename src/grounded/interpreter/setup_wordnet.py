"""``python -m grounded.interpreter.setup_wordnet``: WordNet installed where the coverage check reads it.

A module of its own because ``grounded.interpreter`` imports ``wordnet`` when it is imported itself, and
``python -m`` of a module its package has already imported runs it a second time (runpy warns so).
"""

from grounded.interpreter.wordnet import main

if __name__ == "__main__":
    raise SystemExit(main())
