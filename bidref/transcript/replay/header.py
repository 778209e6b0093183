"""The header: the format, the versions and the settings the replay checks against."""

from __future__ import annotations

from ...protocol.messages import PROTOCOL_VERSION
from ...rules import RULES_VERSION, TimeControl
from ..lines import FORMATS, Header
from .report import Mismatch


def check_header(n: int, h: Header) -> tuple[TimeControl, tuple[TimeControl, TimeControl] | None]:
    """Check the header line; return its time control, and each seat's own when
    the seats' clocks differ (a handicap match)."""
    if h.format not in FORMATS:
        raise Mismatch(n, f"format {h.format!r}: this replay reads {' and '.join(FORMATS)}")
    for key, said, mine in (
        ("rules", h.rules, RULES_VERSION),
        ("protocol", h.protocol, PROTOCOL_VERSION),
    ):
        if said != mine:
            raise Mismatch(n, f"{key} {said!r}: this replay checks {mine!r}")
    if h.t_ns != 0:
        raise Mismatch(n, f"the header's t_ns is {h.t_ns!r}: time starts at 0 there")
    try:
        control = TimeControl(h.time_control.bank_ns, h.time_control.delay_ns)
    except ValueError as e:
        raise Mismatch(n, str(e)) from None
    controls: tuple[TimeControl, TimeControl] | None = None
    if h.time_controls is not None:
        if len(h.time_controls) != 2:
            raise Mismatch(n, f"time_controls has {len(h.time_controls)} entries: one per seat")
        try:
            a, b = (TimeControl(t.bank_ns, t.delay_ns) for t in h.time_controls)
        except ValueError as e:
            raise Mismatch(n, str(e)) from None
        controls = (a, b)
    if h.max_rounds is not None and h.max_rounds < 1:
        raise Mismatch(n, f"max_rounds {h.max_rounds!r} is not a round limit")
    if h.illegal not in ("reject", "forfeit"):
        raise Mismatch(n, f"illegal-action policy {h.illegal!r}: expected 'reject' or 'forfeit'")
    if h.explicit_deals < 0:
        raise Mismatch(n, f"explicit_deals {h.explicit_deals!r} is not a number of rounds")
    if h.seeded != (h.seed_commitment is not None):
        raise Mismatch(n, "'seeded' and 'seed_commitment' disagree")
    return control, controls
