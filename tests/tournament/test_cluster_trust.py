"""What a coordinator trusts (issue 37): the address (tls://, or tcp:// only on
loopback unless --insecure), the same build on every worker, and each result's
worker and jails recorded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bidref.cli import app
from bidref.outcome import AbortCause
from bidref.rules import RULES_VERSION
from bidref.tournament import MatchReport
from bidref.tournament.cluster import Shipment, play_task
from bidref.tournament.security import ClusterTrust, address_problem, is_loopback

from .conftest import MakePlan
from .test_shipping import _job, file_play


@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("tcp://10.0.0.5:8786", True),
        ("tcp://scheduler.example:8786", True),  # a name is not known to be here
        ("ws://192.168.1.4:8786", True),
        ("tcp://127.0.0.1:8786", False),
        ("tcp://127.3.2.1:8786", False),
        ("tcp://localhost:8786", False),
        ("tcp://[::1]:8786", False),
        ("tls://10.0.0.5:8786", False),
        ("inproc://10.0.0.5/1/2", False),
    ],
)
def test_tcp_off_this_machine_is_refused_unless_insecure(address: str, refused: bool) -> None:
    problem = address_problem(address, ClusterTrust())
    assert (problem is not None) == refused, problem
    if refused:
        assert "neither encrypted nor authenticated" in str(problem) and "--insecure" in problem
    assert address_problem(address, ClusterTrust(insecure=True)) is None


def test_loopback_is_recognised() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("10.0.0.1") and not is_loopback("0.0.0.0")


def test_the_cli_refuses_a_remote_tcp_scheduler_before_it_connects(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["tournament", "a=fake", "b=fake", "--out", str(out), "--play-function"]
    args += ["tests.tournament.tournament_fakes:fake_play", "--cluster", "tcp://10.0.0.5:8786"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "neither encrypted nor authenticated" in result.output
    assert not out.exists()  # said before anything was tried or written


def test_tls_files_are_for_a_tls_scheduler_all_three_and_existing(tmp_path: Path) -> None:
    pem = tmp_path / "x.pem"
    pem.write_text("not read before the connection")
    base = ["tournament", "a=fake", "b=fake", "--out", str(tmp_path / "t"), "--play-function"]
    base += ["tests.tournament.tournament_fakes:fake_play"]
    tcp = CliRunner().invoke(
        app, [*base, "--cluster", "tcp://127.0.0.1:1", "--tls-ca-file", str(pem)]
    )
    assert tcp.exit_code == 2 and "are for a tls:// scheduler" in tcp.output, tcp.output
    partial = CliRunner().invoke(
        app, [*base, "--cluster", "tls://127.0.0.1:1", "--tls-ca-file", str(pem)]
    )
    assert partial.exit_code == 2 and "needs all three" in partial.output, partial.output
    missing = CliRunner().invoke(
        app,
        [*base, "--cluster", "tls://127.0.0.1:1", "--tls-ca-file", str(tmp_path / "no.pem")],
    )
    assert missing.exit_code == 2 and "no such file" in missing.output, missing.output
    local = CliRunner().invoke(app, [*base, "--insecure"])
    assert local.exit_code == 2 and "are for --cluster" in local.output, local.output


def test_a_worker_with_other_rules_refuses_naming_both_builds(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    job, _script = _job(make_plan, tmp_path)
    other = Shipment(sys.executable, rules_version="spectacular-bid/0")
    refused = play_task(file_play, job, other)
    assert isinstance(refused, MatchReport) and refused.detail["cause"] == AbortCause.ENGINE_REFUSED
    problem = str(refused.detail["problem"])
    assert f"rules {RULES_VERSION}" in problem and "rules spectacular-bid/0" in problem
    assert not Path(job.transcript).exists()


def test_a_workers_report_names_the_jail_it_gave_each_seat(
    make_plan: MakePlan, tmp_path: Path
) -> None:
    job, _script = _job(make_plan, tmp_path)
    report = play_task(file_play, job, Shipment(sys.executable))
    assert isinstance(report, MatchReport)
    played_on = report.extra["played_on"]
    assert isinstance(played_on, dict)
    assert played_on["worker"] == "here" and played_on["jails"] == ["sandbox: off"] * 2


def test_the_verifier_pool_follows_the_coordinators_cores() -> None:
    from bidref.tournament.security import default_verifiers

    assert [default_verifiers(c) for c in (1, 2, 4, 9, 64)] == [2, 2, 3, 8, 8]
