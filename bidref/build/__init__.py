"""Building the optional compiled (mypyc) copy of the package: :mod:`.compiled`.

Kept out of :mod:`bidref.rules`, which is pure and does no I/O: building runs a
compiler in a subprocess, writes and deletes folders.
"""
