"""`bidref validate`: move files, verdicts, exit codes, and no traceback on any input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion
from typer.testing import CliRunner

from bidref.cli import app
from bidref.movefile.parse import MoveFileError, parse_move_file
from bidref.movefile.validate import validate_bytes, validate_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args), input=input)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, r.stderr


def test_score_sheet_is_valid(snapshot: SnapshotAssertion) -> None:
    code, out, err = run("validate", str(EXAMPLES / "score-sheet.txt"))
    assert code == 0 and err == ""
    assert out.replace(str(EXAMPLES), "examples") == snapshot


def test_score_sheet_json_verdict() -> None:
    code, out, _ = run("validate", "--json", str(EXAMPLES / "score-sheet.txt"))
    v = json.loads(out)
    assert code == 0 and v["ok"] is True and v["actions"] == 41
    assert v["rounds"][0]["reason"] == "domino" and v["rounds"][0]["winner"] == 1
    assert v["result"] == {
        "kind": "match_ended",
        "winner": 0,
        "reason": "round_limit",
        "balances": [195, 105],
        "rounds": 1,
    }
    assert sum(v["balances"]) == 300


def test_text_and_json_files_agree() -> None:
    a = validate_text((EXAMPLES / "seeded.txt").read_text())
    b = validate_text((EXAMPLES / "seeded.json").read_text())
    assert a.ok and b.ok and a.balances == b.balances == (165, 135) and a.actions == 5


def test_illegal_action_names_line_action_state_and_rule() -> None:
    code, _, err = run("validate", str(EXAMPLES / "illegal.txt"))
    assert code == 1
    assert err.startswith(
        f"{EXAMPLES / 'illegal.txt'}:9: illegal: 'play 1-3 6-6:branch_a' "
        "in round 1, play phase, player B to act: "
    )
    assert "(RULES.md §3)" in err


@pytest.mark.parametrize(
    ("text", "line", "col", "fragment"),
    [
        ("seed: 7\nopen 6-6x\n", 2, 6, "'6-6x' is not a tile"),
        ("seed: 7\nopen 5-5\nplay 2-5 5-5:line_z\n", 3, 14, "'line_z' is not a side"),
        ("seed: seven\n", 1, 7, "not a whole number"),
        ("balances: 200 200\nseed: 1\n", 1, 11, "add up to 300"),
        ("open 5-5\n", 1, 1, "gives no deal"),
        ("hand A: 0-0 1-1\nhand B: 2-2\n", 1, 1, "hand A has 2 tiles"),
        ('{"seed": 7, "actions": ["open 5-5",\n  "fly away"]}', 2, 4, "not an action"),
        ('{"seed": 7, "actions": [', 1, 25, "not valid JSON"),
        ("seed: 7\nopen 5-5\nseed: 8\n", 3, 1, "header line after the first action"),
        ('{"seed": 7,\n "seed": 8, "actions": []}', 2, 2, "'seed' is given twice"),
        ('[{"seed": 7, "actions": []}]', 1, 1, "one object"),
    ],
)
def test_malformed_input_gets_line_and_column(
    text: str, line: int, col: int, fragment: str
) -> None:
    v = validate_text(text)
    assert v.problem is not None and v.problem.kind == "malformed", v.problem
    assert (v.problem.line, v.problem.col) == (line, col), v.problem
    assert fragment in v.problem.message
    assert v.exit_code == 2
    assert v.problem.format("f.txt").startswith(f"f.txt:{line}:{col}: ")


def test_cli_malformed_exit_2_and_unreadable_file(tmp_path: Path) -> None:
    p = tmp_path / "m.txt"
    p.write_bytes(b"seed: 7\nopen \xff\n")
    code, _, err = run("validate", str(p))
    assert code == 2 and err.startswith(f"{p}:2:6: not UTF-8")
    code, _, err = run("validate", str(tmp_path / "missing.txt"))
    assert code == 2 and "cannot read" in err


def test_draws_name_tiles_when_the_boneyard_is_unknown() -> None:
    sheet = (EXAMPLES / "score-sheet.txt").read_text()
    # A draw that does not say what was drawn cannot be checked.
    v = validate_text(sheet.replace("A: draw 2-3", "A: draw", 1))
    assert v.problem is not None and v.problem.kind == "malformed"
    assert "must name its tile" in v.problem.message
    # A tile that is not in the boneyard cannot be drawn.
    v = validate_text(sheet.replace("A: draw 2-3", "A: draw 5-6", 1))
    assert v.problem is not None and v.problem.kind == "illegal"
    assert "5-6 is not in the boneyard, it is on the table" in v.problem.message


def test_seeded_draw_that_disagrees_with_the_deal_is_a_mismatch() -> None:
    lines = [
        "seed: 168137",
        "open 5-5",
        "play 2-5 5-5:line_b",
        "play 0-5 5-5:line_a",
        "play 5-6 5-5:branch_a",
        "play 3-6 5-6:high",
        "play 0-6 0-5:low",
        "draw 2-3",
    ]
    v = validate_text("\n".join(lines))
    assert v.problem is not None and v.problem.kind == "mismatch" and v.problem.line == 8
    assert "the deal's boneyard gives 6-6 here" in v.problem.message
    lines[-1] = "draw 6-6"
    assert validate_text("\n".join(lines)).ok


def test_player_prefix_passes_and_round_markers_are_checked() -> None:
    v = validate_text("seed: 168137\nB: open 5-5\n")
    assert v.problem is not None and "player A's turn" in v.problem.message
    v = validate_text("seed: 7\nround 2\n")
    assert v.problem is not None and v.problem.kind == "mismatch"
    v = validate_text("seed: 168137\nA: open 5-5\npass\n")
    assert v.problem is not None and v.problem.kind == "illegal" and v.problem.rule == "§5"
    sheet = (EXAMPLES / "score-sheet.txt").read_text()
    assert "A: pass" in sheet and validate_text(sheet).ok
    v = validate_text(sheet.replace("A: pass", "B: pass"))
    assert v.problem is not None and "player A's, not B's" in v.problem.message


def test_deal_blocks_for_later_rounds() -> None:
    sheet = (EXAMPLES / "score-sheet.txt").read_text().replace("max rounds: 1", "")
    # Round 2 needs a deal, but only once the file goes on with it.
    v = validate_text(sheet + "A: bid 20\n")
    assert v.problem is not None and v.problem.kind == "malformed"
    assert v.problem.line == len(sheet.splitlines()) + 1
    assert "no deal given for round 2" in v.problem.message
    more = sheet + (
        "\nhand A: 0-5 0-6 1-2 1-3 2-6 3-3 6-6\n"
        "hand B: 0-0 2-3 2-5 3-4 3-5 3-6 4-5\nA: decline\nA: open 1-2\n"
    )
    v = validate_text(more)
    # B dominoed round 1 and is the jockey: A declines, so B opens, not A.
    assert v.problem is not None and v.problem.kind == "illegal"
    assert v.problem.line == len(more.splitlines())
    assert "player B's turn" in v.problem.message
    v = validate_text(more.replace("A: decline\n", "A: bid 20\nB: accept\n"))
    assert v.ok and v.round == 2 and v.balances == (175, 125), v.problem


def test_parse_errors_are_only_movefile_errors() -> None:
    with pytest.raises(MoveFileError):
        parse_move_file("hand A: 0-0 0-0 0-1 0-2 0-3 0-4 0-5\nhand B: 1-1")


_lines = st.sampled_from(
    [
        "seed: 7",
        "seed: -3",
        "balances: 150 150",
        "max rounds: 2",
        "round 1",
        "pass",
        "draw",
        "draw 2-3",
        "A: open 5-5",
        "open 6-6",
        "B: play 2-5 5-5:line_b",
        "play 0-5 5-5:line_a",
        "bid 20",
        "accept",
        "decline",
        "hand A: 0-1 0-4 0-5 1-1 1-4 3-6 5-5",
        "hand B: 0-3 0-6 2-5 2-6 3-5 4-6 5-6",
        "boneyard: 1-2",
        "# comment",
        "",
        "{",
        "}",
        "play 9-9 1-1:bb",
        "raise ²",
        "round ³",
        "max rounds: ¹",
        '{"seed": 1, "actions": [1]}',
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_no_traceback_on_random_bytes(data: bytes) -> None:
    v = validate_bytes(data)
    assert v.ok or v.problem is not None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_lines, st.text(max_size=30)), max_size=25))
def test_no_traceback_on_random_line_soup(lines: list[str]) -> None:
    v = validate_text("\n".join(lines))
    assert v.ok or v.problem is not None
    json.dumps(v.to_dict())


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=3000), st.data())
def test_no_traceback_on_truncated_or_mangled_examples(cut: int, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(["score-sheet.txt", "seeded.json", "illegal.txt"]))
    raw = (EXAMPLES / name).read_bytes()
    mangled = raw[:cut]
    if data.draw(st.booleans()) and mangled:
        i = data.draw(st.integers(min_value=0, max_value=len(mangled) - 1))
        mangled = mangled[:i] + data.draw(st.binary(min_size=1, max_size=3)) + mangled[i + 1 :]
    v = validate_bytes(mangled)
    assert v.ok or v.problem is not None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.one_of(
        st.binary(max_size=200),
        st.lists(_lines, max_size=12).map(lambda ls: "\n".join(ls).encode()),
    )
)
def test_cli_never_raises(data: bytes, tmp_path: Path) -> None:
    p = tmp_path / "fuzz.txt"
    p.write_bytes(data)
    for args in (["validate", str(p)], ["validate", "--json", str(p)]):
        r = runner.invoke(app, args)
        assert isinstance(r.exception, SystemExit | None), r.exception
        assert r.exit_code in (0, 1, 2)


def test_svg_pictures_of_every_placement(tmp_path: Path) -> None:
    code, _, _ = run(
        "validate", "--svg", str(tmp_path / "svg"), "--no-picture", str(EXAMPLES / "seeded.txt")
    )
    svgs = sorted((tmp_path / "svg").glob("*.svg"))
    assert code == 0 and len(svgs) == 5  # five placements
    page = (tmp_path / "svg" / "index.html").read_text()
    assert page.count("<svg") == 5 and "play 3-6 5-6:high" in page


def test_a_score_sheet_of_one_round_without_a_round_limit_is_valid() -> None:
    """The file stops at the end of round 1 and gives no deal for round 2: valid, and the
    verdict says where the game stands (round 2 not dealt), not 'malformed'."""
    sheet = (EXAMPLES / "score-sheet.txt").read_text().replace("max rounds: 1", "")
    v = validate_text(sheet)
    assert v.ok and v.problem is None and v.exit_code == 0, v.problem
    assert v.actions == 41 and [r.reason for r in v.rounds] == ["domino"]
    assert v.balances == (195, 105) and v.result is None
    assert (v.round, v.phase, v.to_act) == (2, "not dealt", None)
    assert v.layout is not None and len(v.layout.placed) == 27  # all but A's last tile
    code, out, err = run("validate", "--no-picture", "-", input=sheet)
    assert code == 0 and err == "", err
    assert "Round 2 is not dealt in the file" in out


def test_a_byte_order_mark_is_not_part_of_the_file() -> None:
    """Windows editors start UTF-8 files with a BOM: text and JSON files still validate."""
    for name in ("seeded.txt", "seeded.json"):
        v = validate_bytes(b"\xef\xbb\xbf" + (EXAMPLES / name).read_bytes())
        assert v.ok and v.balances == (165, 135), (name, v.problem)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_numbers_count_real_line_breaks_only(newline: str) -> None:
    """A form feed, a vertical tab or a Unicode line separator inside a line is not a line
    break for an editor, so it must not shift the FILE:LINE of later lines."""
    lines = [
        "seed: 168137",
        "A: open 5-5  \f",
        "\v B: play 2-5 5-5:line_b \u2028",
        "B: play 0-5 5-5:line_a\x1c",
    ]
    v = validate_text(newline.join(lines) + newline)
    assert v.problem is not None and v.problem.kind == "illegal", v.problem
    assert v.problem.line == 4 and "player A's turn, not B's" in v.problem.message


@pytest.mark.parametrize(
    "text",
    [
        "seed: 7\nopen " + "5" * 100_000 + "\n",
        "hand A: " + "1-" * 50_000 + "\n",
        '{"seed": 7, "actions": ["open ' + "5" * 100_000 + '"]}',
        '{"deals": [{"hands": [["' + "5" * 100_000 + '"], []]}]}',
    ],
)
def test_a_huge_line_gets_a_short_message(text: str) -> None:
    """The message quotes the input, but never a whole megabyte of it."""
    v = validate_text(text)
    assert v.problem is not None and v.problem.kind == "malformed"
    assert len(v.problem.message) < 400, len(v.problem.message)


def test_a_blocked_round_with_its_passes_written_and_no_next_deal_is_valid() -> None:
    """Both forced passes of a block are written after the round has ended (and the next,
    undealt, round has begun): they are still checked against the block, not refused."""
    import random

    from bidref.rules import Match, Passed, RoundEnded, RoundStarted

    m, rng = Match.new(22), random.Random(22)
    deal = next(e for e in m.start_events if isinstance(e, RoundStarted)).deal
    assert deal is not None
    names = [
        " ".join(f"{t.low}-{t.high}" for t in ts)
        for ts in (deal.hands[0], deal.hands[1], deal.boneyard)
    ]
    lines = [f"hand A: {names[0]}", f"hand B: {names[1]}", f"boneyard: {names[2]}"]
    ended = None
    while ended is None:
        p, action = m.to_act, rng.choice(m.legal_actions())
        events = m.apply(action)
        lines.append(f"{'AB'[p]}: {action}")
        lines += [f"{'AB'[e.player]}: pass" for e in events if isinstance(e, Passed)]
        ended = next((e for e in events if isinstance(e, RoundEnded)), None)
    assert ended.reason == "block" and lines[-2:] == ["A: pass", "B: pass"]
    v = validate_text("\n".join(lines))
    assert v.ok, v.problem
    assert [r.reason for r in v.rounds] == ["block"] and v.phase == "not dealt"
    v = validate_text("\n".join([*lines[:-1], "A: pass"]))
    assert v.problem is not None and "player B's, not A's" in v.problem.message


def test_a_bad_tile_in_a_json_deal_is_placed_at_its_line_and_column() -> None:
    text = (
        '{"deals": [{"hands": [["0-1", "0-4", "0-5", "1-1", "1-4", "3-6", "5-5"],\n'
        '                      ["0-3", "0-6", "2-5", "9-9", "3-5", "4-6", "5-6"]]}],\n'
        ' "actions": []}'
    )
    v = validate_text(text)
    assert v.problem is not None and v.problem.kind == "malformed"
    assert (v.problem.line, v.problem.col) == (2, 46), v.problem  # at 9-9


def test_a_json_number_too_long_to_read_is_malformed_input_at_its_place() -> None:
    # Found by the fuzz test: json.loads raised ValueError (the int digit limit).
    text = '{"seed": 1,\n "max_rounds": ' + "9" * 5000 + ',\n "actions": []}'
    v = validate_text(text)
    assert v.problem is not None and v.problem.kind == "malformed"
    assert (v.problem.line, v.problem.col) == (2, 16), v.problem
    assert "number" in v.problem.message
