"""The `bidref` program's entry point: what must happen before anything else.

It stays tiny and imports only the standard library until the command line is
safe, because engines run as the same user and can read this process's
command line in /proc at any time:

1. Ctrl-C from the first instant exits 130 without a traceback (before the
   commands are imported, ~0.3 s, a Ctrl-C would otherwise interrupt an import).
2. The values of ``--seed`` are blanked in this process's command line as the
   kernel shows it (:func:`hide_seeds`), before any engine
   can start; ``sys.argv`` keeps them, so ``bidref match --seed 7`` works as typed.
3. Where this checkout has a fresh compiled build (``make compiled``), the
   rest of the package is imported from it (:func:`select_build`), unless
   ``BIDREF_PURE=1``.
4. Commands that start engines and no other children claim their orphans
   (:func:`bidref.engines.contain.claim_orphans`) and, on the way out, end and
   reap every process left (:func:`bidref.engines.contain.sweep_all`).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # (not `signal`: that imports enum, a few ms more without a handler)
import os
import sys

EXIT_INTERRUPTED = 130


def _leave(signum: int, frame: object) -> None:
    # Nothing is running yet that needs ending: leave at once, quietly.
    os._exit(EXIT_INTERRUPTED)


# First of all, when this is the `bidref` program (not a module someone imports):
# Ctrl-C, SIGTERM and SIGHUP exit 130 until the command is ready for them.
_STOPS = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)
if os.path.basename(sys.argv[0]) == "bidref":
    for _s in _STOPS:
        if _signal.getsignal(_s) is not _signal.SIG_IGN:  # (nohup, a background job)
            _signal.signal(_s, _leave)

import signal  # noqa: E402

# Commands whose process starts engines and no other children.
_CLAIMING = frozenset({"match", "play", "check-engine"})


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def hide_seeds() -> bool:
    """Blank the values of ``--seed`` in this process's command line as other
    processes read it (/proc/PID/cmdline); True if there is none left to see.

    The kernel reads the command line from this process's memory, where the
    arguments were given; they are overwritten in place (what ``setproctitle``
    does), after checking that the memory holds exactly what /proc shows.
    ``--seed 7`` reads ``--seed *`` then; the freed bytes are NULs, so the
    number of digits still shows (see docs/engines.md, "Containment").
    """
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (man 5 proc)
        with open("/proc/self/cmdline", "rb") as f:
            shown = f.read()
    except (OSError, IndexError, ValueError):
        return False  # not Linux: nothing to read it there either
    args = shown.split(b"\0")
    if args[-1] != b"":
        return False  # already rewritten by someone else: leave it
    args.pop()
    new = [b"*" if i and args[i - 1] == b"--seed" else a for i, a in enumerate(args)]
    new = [b"--seed=*" if a.startswith(b"--seed=") else a for a in new]
    if new == args:
        return True
    import ctypes

    if (
        not 0 < start < end
        or end - start != len(shown)
        or ctypes.string_at(start, end - start) != shown
    ):
        return False
    blob = b"\0".join(new) + b"\0"
    ctypes.memmove(start, blob.ljust(len(shown), b"\0"), len(shown))
    return True


def select_build() -> str | None:
    """Import the rest of ``bidref`` from the checkout's compiled build
    (``make compiled``, docs/perf.md) if it is fresh; return its path, or None.

    The build is a copy of this package in which the hot modules are C
    extensions made from the very same sources (``bidref.build.compiled``): a
    replay verifies about twice as many decisions per second on it. Only this
    package and ``bidref.launch`` are imported yet, so pointing the package's
    search path at the copy makes every further ``bidref.*`` import come from
    there. ``BIDREF_PURE=1`` keeps the pure build (a wheel has no build beside it).
    """
    if os.environ.get("BIDREF_PURE") == "1":
        return None
    import importlib.util
    from pathlib import Path

    package = Path(__file__).resolve().parent
    # Loaded by file path: importing bidref.rules would fix the build to the pure one.
    spec = importlib.util.spec_from_file_location(
        "_bidref_compiled", package / "build" / "compiled.py"
    )
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = module.quick_fresh_build(package.parent)
    if found is None or any(m.startswith("bidref.") for m in sys.modules if m != __name__):
        return None
    import bidref

    sys.path.append(str(found))  # the build's shared mypyc runtime, a top-level module
    bidref.__path__[:] = [str(found / "bidref")]
    return str(found)


def _command(argv: list[str]) -> str | None:
    return next((a for a in argv[1:] if not a.startswith("-")), None)


def main() -> None:
    select_build()
    hide_seeds()
    command = _command(sys.argv)
    claimed = False
    if command in _CLAIMING:
        from .engines import contain

        claimed = contain.claim_orphans()
    from .cli import main as cli_main

    # From here on Ctrl-C is KeyboardInterrupt again: a running match turns it
    # into an interrupted result and ends its engines (cli.common). Where engines
    # run, SIGTERM and SIGHUP do the same (the clean-up below must run); other
    # commands get their usual meaning back.
    for s in _STOPS:
        if signal.getsignal(s) is _leave:
            if s == signal.SIGINT:
                signal.signal(s, signal.default_int_handler)
            else:
                signal.signal(s, _interrupt if claimed else signal.SIG_DFL)
    code: int | str | None = 0
    try:
        cli_main()
    except SystemExit as e:
        code = e.code
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    finally:
        if claimed:
            from .engines import contain

            # SIG_IGN: a second Ctrl-C must not stop the clean-up half-way.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            contain.sweep_all()
    sys.exit(code)
