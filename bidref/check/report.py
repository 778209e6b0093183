"""What ``bidref check-engine`` reports, and the terms it checks an engine on."""

from __future__ import annotations

from dataclasses import dataclass, field

from bidref.rules import MILLISECOND, SECOND


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One item of the report."""

    item: str
    passed: bool
    detail: str
    skipped: bool = False  # never run (``detail`` says why); not passed either

    @classmethod
    def skip(cls, item: str, because: str) -> CheckResult:
        """An item that was not run, and why: not a failure of its own."""
        return cls(item, False, f"skipped (because {because})", skipped=True)

    @property
    def status(self) -> str:
        return "skipped" if self.skipped else "pass" if self.passed else "fail"

    def to_dict(self) -> dict[str, object]:
        return {
            "item": self.item,
            "passed": self.passed,
            "status": self.status,
            "detail": self.detail,
        }


@dataclass
class CheckReport:
    engine: str
    command: list[str]
    results: list[CheckResult] = field(default_factory=list)
    engine_name: str | None = None  # from the engine's hello

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    def failed_items(self) -> list[str]:
        """The items that ran and failed (not the ones skipped)."""
        return [r.item for r in self.results if not r.passed and not r.skipped]

    def skipped_items(self) -> list[str]:
        return [r.item for r in self.results if r.skipped]

    def to_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "command": self.command,
            "name": self.engine_name,
            "passed": self.passed,
            "items": [r.to_dict() for r in self.results],
        }


@dataclass(frozen=True)
class CheckSettings:
    """The time control the check announces and enforces, and the start-up timeout."""

    bank: int = 2 * SECOND
    delay: int = 200 * MILLISECOND
    startup: int = 10 * SECOND
    transport: str = "pipe"
    # Stop the engine after each answer, resume it with the next line it is sent
    # (as --freeze-idle does in a match: the engine must not mind being stopped).
    freeze_idle: bool = False
