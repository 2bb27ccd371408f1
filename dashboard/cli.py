"""The `kvscope` command: one subcommand per module in dashboard/commands/.

Each command module defines NAME, HELP, add_arguments(parser) and run(args) -> int. Bad input
(ValueError, a missing file, a flag argparse refuses) prints one line on stderr, with no usage
block and no traceback, and exits 2; an unreachable source or another OS failure exits 1;
--json output is one JSON object on stdout and nothing else.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import pkgutil
import re
import sys
from types import ModuleType

from dashboard import __version__, commands


class UsageError(Exception):
    """A command line argparse refused; main prints it as one line and exits 2."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and values that merely look negative kept as values.

    NOTE: argparse takes `-5,100` (or `-1e3`, `-0.5:2`) for an unknown option unless it is a plain
    negative number, so `--capacities -5,100` failed with "expected one argument". Any token that
    starts with `-` and a digit is a value here (no kvscope option starts with a digit).
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str):  # type: ignore[override]
        """Raise instead of printing the usage block and exiting."""
        raise UsageError(self.prog, message)


def command_module_names() -> list[str]:
    """Module names of every subcommand, in name order."""
    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))


def command_modules(only: str | None = None) -> list[ModuleType]:
    """Every subcommand module, or just the one `only` names (imports are slow: numba, pandas)."""
    names = command_module_names()
    if only is not None and only.replace("-", "_") in names:
        names = [only.replace("-", "_")]
    return [importlib.import_module(f"dashboard.commands.{name}") for name in names]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand (or only the one being run)."""
    parser = Parser(prog="kvscope", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"kvscope {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages to stderr")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in command_modules(only):
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse argv, run the subcommand, turn bad input into a one-line error and exit code 2."""
    argv = sys.argv[1:] if argv is None else argv
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(only=first)
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"{exc.prog}: error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, stream=sys.stderr)
    try:
        return int(args.run(args) or 0)
    except ValueError as exc:
        return _fail(args, str(exc), 2)
    except (
        FileNotFoundError,
        FileExistsError,
        PermissionError,
        IsADirectoryError,
        NotADirectoryError,
    ) as exc:
        return _fail(args, _os_error(exc), 2)
    except ConnectionError as exc:  # a live source that did not answer: not bad input
        return _fail(args, str(exc), 1)
    except OSError as exc:  # the machine said no (disk full, port taken, …): not bad input
        return _fail(args, _os_error(exc), 1)
    except KeyboardInterrupt:
        print(f"kvscope {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        duckdb = sys.modules.get("duckdb")
        if duckdb is None or not isinstance(exc, duckdb.Error):
            raise
        # NOTE: a store that fails mid-command (a damaged block read late) still gets one line.
        from dashboard.core.config import default_db_path
        from dashboard.store.db import describe_store_error

        path = getattr(args, "source", None) or getattr(args, "db", None) or default_db_path()
        return _fail(args, describe_store_error(path, exc), 2)
    finally:
        # NOTE: the process exits next; freezing spares the interpreter's final collection a walk
        # over numba's and pandas' objects (~0.2 s of a replay's wall time).
        gc.freeze()


def _fail(args: argparse.Namespace, message: str, code: int) -> int:
    """Print `kvscope CMD: error: MESSAGE` (its first line only) on stderr and return code."""
    line = next((ln.strip() for ln in message.splitlines() if ln.strip()), message)
    print(f"kvscope {args.command}: error: {line}", file=sys.stderr)
    return code


def _os_error(exc: OSError) -> str:
    """`PATH: what went wrong`, without Python's `[Errno N]`."""
    reason = (exc.strerror or str(exc)).lower()
    return f"{exc.filename}: {reason}" if exc.filename else reason
