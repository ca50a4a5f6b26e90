"""``python -m grounded``: the same as the ``grounded`` command."""

from .cli import main

main()
