"""Engine jails (issue 28): each engine in its own namespaces (bubblewrap), under
its seat's own account when the referee is root, with resource limits (cgroups
v1/v2, else rlimits) and its own cores (a cpuset). See docs/match.md
"Containment" for what each ``--sandbox`` level stops and what it needs.

Modules: :mod:`.policy` (levels, limits, what the machine allows),
:mod:`.bwrap` (the command line), :mod:`.cgroups`, :mod:`.accounts`,
:mod:`.jail` (one engine's jail), :mod:`.breach` (which limit an engine that
ended ran into, and how the referee knows).
"""

from __future__ import annotations

from .policy import Level, Limits, Plan, SandboxConfig, SandboxError, machine, plan

__all__ = ["Level", "Limits", "Plan", "SandboxConfig", "SandboxError", "machine", "plan"]
