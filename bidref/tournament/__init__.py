"""Engine tournaments: schedules with paired deals, ratings, a results store, runners.

Layers, from pure to effectful:

* :mod:`.schedule` — pairings (round-robin, gauntlet), deal seeds, match keys.
* :mod:`.ratings` — Elo, 95 % intervals, LOS, pentanomial pairs, SPRT (pure maths).
* :mod:`.standings` — per engine and per pairing statistics from records.
* :mod:`.store` — the append-only JSONL results file.
* :mod:`.runner` — the loop that plays the missing matches on a backend;
  :mod:`.local` (processes/threads) and :mod:`.cluster` (dask.distributed).
* :mod:`.play` — the play function that runs one match with the referee.
"""

from .model import EngineEntry, MatchJob, MatchRecord, MatchReport, MatchSettings, PlayFn
from .ratings import Pentanomial, Sprt, Trinomial, elo_to_score, score_to_elo
from .runner import Plan, Progress, RunSummary, TournamentError, new_header, run
from .schedule import MatchKey, Pairing, gauntlet, round_robin, schedule, seeds_from_master
from .standings import Standings, compute
from .store import ResultsError, ResultsStore

__all__ = [
    "EngineEntry",
    "MatchJob",
    "MatchKey",
    "MatchRecord",
    "MatchReport",
    "MatchSettings",
    "Pairing",
    "Pentanomial",
    "Plan",
    "PlayFn",
    "Progress",
    "ResultsError",
    "ResultsStore",
    "RunSummary",
    "Sprt",
    "Standings",
    "TournamentError",
    "Trinomial",
    "compute",
    "elo_to_score",
    "gauntlet",
    "new_header",
    "round_robin",
    "run",
    "schedule",
    "score_to_elo",
    "seeds_from_master",
]
