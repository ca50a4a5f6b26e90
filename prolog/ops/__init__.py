"""One rule file per operation (see ``prolog/__init__.py`` for why this file exists)."""
