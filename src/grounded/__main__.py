"""``python -m grounded``: the same as the ``grounded`` command."""

from grounded.cli import main

main()
