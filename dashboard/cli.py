"""The `kvscope` command: one subcommand per module in dashboard/commands/.

Each command module defines NAME, HELP, add_arguments(parser) and run(args) -> int. Bad input
(ValueError, a missing file) prints one line on stderr and exits 2, an unreachable source 1; --json output is one JSON
object on stdout and nothing else.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import pkgutil
import sys
from types import ModuleType

from dashboard import __version__, commands


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
    parser = argparse.ArgumentParser(prog="kvscope", description=__doc__.splitlines()[0])
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
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, stream=sys.stderr)
    try:
        return int(args.run(args) or 0)
    except (ValueError, FileNotFoundError, PermissionError) as exc:
        print(f"kvscope {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ConnectionError as exc:  # a live source that did not answer: not bad input
        print(f"kvscope {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"kvscope {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        # NOTE: the process exits next; freezing spares the interpreter's final collection a walk
        # over numba's and pandas' objects (~0.2 s of a replay's wall time).
        gc.freeze()
