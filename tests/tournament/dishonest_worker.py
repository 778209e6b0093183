"""A dask worker plugin (``dask worker --preload THIS_FILE``) that makes its worker
dishonest: every rated match it plays comes back with the winner swapped, in the
report and in the transcript's result line (the rest of the transcript intact).
A coordinator that believed it would count the loser as the winner."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace
from typing import Any


def _swap_result(data: bytes) -> bytes:
    from bidref.transcript.files import decompress

    lines = decompress(data, "").decode().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        line = json.loads(lines[i])
        if line.get("type") == "result" and line.get("winner") in (0, 1):
            line["winner"] = 1 - line["winner"]
            line["balances"] = list(reversed(line["balances"]))
            lines[i] = json.dumps(line, separators=(",", ":"))
            break
    return gzip.compress(("\n".join(lines) + "\n").encode())


def dask_setup(worker: Any) -> None:
    from bidref.tournament import cluster

    honest = cluster._play_privately

    def lying(play: Any, job: Any, engines: Any, local: Any) -> Any:
        report = honest(play, job, engines, local)
        if not report.rated or report.winner is None:
            return report
        outputs = tuple(
            (path, _swap_result(data) if path == job.transcript else data)
            for path, data in report.outputs
        )
        return replace(
            report,
            winner=1 - report.winner,
            balances=(report.balances[1], report.balances[0]),
            outputs=outputs,
        )

    cluster._play_privately = lying
