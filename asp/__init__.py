"""clingo encodings: the reference semantics of a whole history.

This file only makes the directory importable as ``grounded.asp`` so that the
``.lp`` files are found as package data in regular and editable installs.
"""
