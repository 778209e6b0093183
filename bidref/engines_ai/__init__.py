"""Playing policies built on the rules core: greedy play and Monte Carlo search.

These are libraries for engines (``sample_engines/python_strong``) and for the
strength benchmark; they never read real time themselves (the search takes a
clock function) and do no I/O.
"""

from .greedy import greedy_action, random_action
from .search import SearchLimits, StrongPlayer

__all__ = ["SearchLimits", "StrongPlayer", "greedy_action", "random_action"]
