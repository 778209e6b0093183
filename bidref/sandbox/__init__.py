"""Engine jails (issue 28): each engine in its own namespaces (bubblewrap), under
its seat's own account when the referee is root, with resource limits (cgroups
v1/v2, else rlimits) and its own cores (a cpuset). See docs/match.md
"Containment" for what each ``--sandbox`` level stops and what it needs.

Modules: :mod:`.policy` (levels, limits, what the machine allows),
:mod:`.limits` (the one table of limits and what enforces each), :mod:`.spec`
(one jail as a pure value, built by one pure function), :mod:`.bwrap` (that
value as the bubblewrap command line), :mod:`.environ` (the engine's
allow-listed environment), :mod:`.seccomp` (the system-call filter),
:mod:`.cgroups`, :mod:`.accounts` (uids leased per jail, keyrings),
:mod:`.copies` (a private copy of a folder closed to the jail's account),
:mod:`.netns`, :mod:`.spares`, :mod:`.jail` (the parts a spec names, made and
removed), :mod:`.breach` (which limit an engine that ended ran into, and how
the referee knows).
"""

from __future__ import annotations

from .policy import Level, Limits, Plan, SandboxConfig, SandboxError, machine, plan

__all__ = ["Level", "Limits", "Plan", "SandboxConfig", "SandboxError", "machine", "plan"]
