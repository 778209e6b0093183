"""A finished run as one JSON object (``bidref tournament --json``)."""

from __future__ import annotations

from .runner import RESULTS_FILE, Plan, RunSummary


def result_dict(
    plan: Plan, summary: RunSummary, workers: dict[str, dict[str, object]] | None = None
) -> dict[str, object]:
    """Where the results are, the run's counts, the deals' origin and the standings;
    on a cluster, each worker's statistics (``workers``: by worker, with ``flagged``)."""
    assert summary.standings is not None  # (the runner sets them when it returns)
    return {
        "results": str(plan.out_dir / RESULTS_FILE),
        **summary.to_dict(),
        "master_seed": plan.header.master_seed,
        "deal_book": plan.header.deal_book,
        **summary.standings.to_dict(plan.sprt, hero=plan.hero),
        **({} if workers is None else {"workers": workers}),
    }
