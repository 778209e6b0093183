"""Every option of `bidref tournament`, in the order of its --help (the network
engines' four are in :mod:`.tournament_remote`), and the groups the command
hands them on in. Light to import: `bidref tournament --help` reads only these."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

if TYPE_CHECKING:
    from ..sandbox.policy import SandboxConfig
    from ..tournament.security import ClusterTrust

DEFAULT_DEALS = 50
DEFAULT_BANK_S = 120.0
DEFAULT_DELAY_S = 10.0
DEFAULT_PLAY = "bidref.tournament.play:play_match"

EnginesArgument = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[ENGINE]...",
        help="Engines: command lines (quoted), programs, .py files or engine files "
        "(.toml/.json); prefix NAME= to name one, e.g. fast=./engine. Then the "
        "--engine ones, in order.",
        show_default=False,
    ),
]
FormatOption = Annotated[
    Literal["round-robin", "gauntlet"] | None,
    typer.Option(
        "--format",
        "-f",
        metavar="[round-robin|gauntlet]",
        help="round-robin (everyone meets everyone) or gauntlet "
        "(the first engine against each other). \\[default: round-robin]",
        show_default=False,
    ),
]
DealsOption = Annotated[
    int | None,
    typer.Option(
        "--deals",
        "-n",
        min=1,
        metavar="N",
        help="Deal seeds per pairing; each is played twice, "
        f"seats swapped. \\[default: {DEFAULT_DEALS}]",
        show_default=False,
    ),
]
SeedOption = Annotated[
    int | None,
    typer.Option(
        metavar="N",
        help="Master seed the deal seeds come from (recorded). \\[default: random]",
        show_default=False,
    ),
]
DealBookOption = Annotated[
    Path | None,
    typer.Option(
        "--deal-book",
        metavar="FILE",
        help="File of deal seeds, one per line (# comments); --deals takes the first N.",
    ),
]
BankOption = Annotated[
    float | None,
    typer.Option(
        metavar="SECONDS",
        help=f"Time bank per engine, seconds. \\[default: {DEFAULT_BANK_S:g}]",
        show_default=False,
    ),
]
DelayOption = Annotated[
    float | None,
    typer.Option(
        metavar="SECONDS",
        help=f"Delay per decision, seconds. \\[default: {DEFAULT_DELAY_S:g}]",
        show_default=False,
    ),
]
MaxRoundsOption = Annotated[
    int | None,
    typer.Option(
        "--max-rounds",
        min=1,
        metavar="N",
        help="Round limit: adjudicated by balance, equal balances is a draw.",
    ),
]
IllegalOption = Annotated[
    Literal["reject", "forfeit"] | None,
    typer.Option(
        metavar="[reject|forfeit]",
        help="reject (error reply, decide again) or forfeit (the first illegal "
        "request loses). \\[default: reject]",
        show_default=False,
    ),
]
TransportOption = Annotated[
    Literal["pipe", "pty"] | None,
    typer.Option(
        metavar="[pipe|pty]",
        help="pipe, or pty for engines that buffer stdout on pipes. \\[default: pipe]",
        show_default=False,
    ),
]
OutOption = Annotated[
    Path,
    typer.Option(
        "--out", "-o", metavar="DIR", help="Output folder: results.jsonl and transcripts/."
    ),
]
ResumeOption = Annotated[
    bool,
    typer.Option(
        metavar="",
        help="Continue the tournament in --out: play exactly the missing matches.",
    ),
]
ForceOption = Annotated[
    bool,
    typer.Option(
        metavar="",
        help="Overwrite what is there: --export files, and (without --resume) a "
        "tournament in --out: its results.jsonl, transcripts/ and debug/ are deleted "
        "first.",
    ),
]
ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        "-j",
        min=1,
        metavar="N",
        help="Matches at once. \\[default: the number of cores; "
        "with --cluster: the cluster's threads]",
        show_default=False,
    ),
]
ClusterOption = Annotated[
    str | None,
    typer.Option(
        metavar="ADDRESS",
        help="Run on this dask.distributed scheduler, e.g. tcp://10.0.0.5:8786; "
        "workers send results and transcripts back here (see --ship-engines).",
    ),
]
ShipEnginesOption = Annotated[
    bool,
    typer.Option(
        "--ship-engines",
        metavar="",
        help="With --cluster: send the engines' files to the workers (cached there by "
        "sha256), so they need only bidref; else each worker needs the recorded build "
        "at the same path.",
    ),
]
SprtOption = Annotated[
    tuple[float, float, float, float] | None,
    typer.Option(
        metavar="ELO0 ELO1 ALPHA BETA",
        help="Stop when decided whether the first engine is >= ELO1 (H1) or <= ELO0 (H0) "
        "Elo stronger, on pair statistics; two engines only.",
        show_default=False,
    ),
]
RatingIntervalOption = Annotated[
    int,
    typer.Option(
        "--rating-interval",
        min=0,
        metavar="N",
        help="When the output is not a terminal: standings after every N finished "
        "matches (0: only at the end).",
    ),
]
StderrDirOption = Annotated[
    Path | None,
    typer.Option(
        "--stderr-dir",
        metavar="DIR",
        file_okay=False,
        help="Keep each engine's stderr (capped) per match in this folder.",
    ),
]
DebugOption = Annotated[
    bool,
    typer.Option(
        "--debug",
        metavar="",
        help="Write every line to and from the engines, timed, to OUT/debug/, one file per match.",
    ),
]
JsonOption = Annotated[
    bool,
    typer.Option(
        "--json",
        metavar="",
        help="Print one JSON object with the results instead of tables.",
    ),
]
ExportOption = Annotated[
    list[Path] | None,
    typer.Option(
        metavar="FILE",
        help="Write the pairwise table to FILE.csv or FILE.json (repeatable).",
    ),
]
HtmlOption = Annotated[
    Path | None,
    typer.Option(
        "--html",
        metavar="REPORT.html",
        help=(
            "At the end, write an HTML report (each match links to its transcript; "
            "`bidref tournament-report DIR --serve` shows their replays)."
        ),
    ),
]
MaxAttemptsOption = Annotated[
    int,
    typer.Option(
        "--max-attempts",
        min=1,
        metavar="N",
        help="Tries per match in this run when matches are aborted (referee timing faults).",
    ),
]
PlayFunctionOption = Annotated[
    str,
    typer.Option(
        "--play-function", hidden=True, help="module:function that plays one match (testing)."
    ),
]


@dataclass(frozen=True)
class Outputs:
    """Where the tournament goes and what is shown and written about it."""

    out: Path
    resume: bool
    force: bool
    export: list[Path]
    html: Path | None
    as_json: bool
    rating_interval: int
    stderr_dir: Path | None
    debug: bool


@dataclass(frozen=True)
class Running:
    """Where and how the matches run, and the network engines' listeners."""

    play_function: str
    concurrency: int | None
    cluster: str | None
    max_attempts: int
    connect_info: Path | None
    tls_cert: Path | None
    tls_key: Path | None
    startup: float | None
    ship_engines: bool = False  # --cluster workers get the engines' files from here
    freeze_idle: bool = False  # the engine not on move is stopped (--freeze-idle)
    sandbox: SandboxConfig | None = None  # the engines' jail (--sandbox and the limits)
    trust: ClusterTrust | None = None  # --cluster: TLS, --insecure, --exclude-bad-workers

    @property
    def real_engines(self) -> bool:
        """The default play function: real engines, whose programs must exist here."""
        return self.play_function == DEFAULT_PLAY
