"""Two versions of the replay engine timed in one process, alternating call by call.

This shared machine's pace drifts by 10-50% within minutes, so two processes run one after the
other can disagree by more than a change is worth. Here both versions live in one process as two
renamed copies of the package (`kvold`, `kvnew`), their outcomes are checked equal array for
array, and their `simulate` calls alternate.

Whichever copy's kernels load first runs 5-30% faster, even between identical copies
(docs/engine.md, "Speed"). So each load order runs in a child process of its own, and the figure
is the geometric mean of the two orders' median ratios. Each copy compiles its kernels once, into
its own folder under ~/.cache/kvscope/ab named by its sources' digest (about two minutes each).

    python -m bench.ab_engine HEAD~1            # the working tree against HEAD~1
    python -m bench.ab_engine HEAD~1 --new HEAD --rounds 25
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

from bench.bench_replay import TRACE
from bench.bench_replay_path import EIGHT_PODS, ONE_POD

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path.home() / ".cache" / "kvscope" / "ab"  # the copies, each compiled once
# NOTE: `make bench`'s replay-path rows (bench_replay_path.py), as keyword arguments for each copy's
# own ReplayRequest, and two variants of the 8-pod row
CONFIGS = {
    "one pod (the control)": asdict(ONE_POD),
    "8 pods, round robin, CPU tier": asdict(replace(EIGHT_PODS, router="round_robin")),
    "8 pods, prefix router, CPU tier": asdict(EIGHT_PODS),
    "8 pods, prefix router, HBM alone": asdict(replace(EIGHT_PODS, cpu_blocks=0)),
}


def renamed(source: str, package: str) -> str:
    """source with every import of the `dashboard` package pointed at `package`."""
    source = re.sub(r"\bdashboard\.", f"{package}.", source)
    source = re.sub(r"^from dashboard import", f"from {package} import", source, flags=re.M)
    return re.sub(r"^import dashboard$", f"import {package}", source, flags=re.M)


def copy_package(ref: str | None, package: str, into: Path) -> Path:
    """dashboard/ at git ref (None: the working tree) as package `package`, in a folder under into
    named by its sources' digest, kept for the next run (its compiled kernels with it); that folder."""
    sources = {}
    if ref is None:
        for path in sorted((ROOT / "dashboard").rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                sources[path.relative_to(ROOT / "dashboard").as_posix()] = path.read_bytes()
    else:
        archive = subprocess.run(
            ["git", "archive", ref, "dashboard"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            for member in tar.getmembers():
                if member.isfile():
                    sources[member.name.removeprefix("dashboard/")] = tar.extractfile(member).read()
    for name, data in sources.items():
        if name.endswith(".py"):
            sources[name] = renamed(data.decode(), package).encode()
    digest = hashlib.sha1(b"".join(n.encode() + b"\0" + d for n, d in sorted(sources.items()))).hexdigest()
    home = into / f"{package}-{digest[:12]}"
    if not (home / package / "__init__.py").is_file():
        staging = Path(tempfile.mkdtemp(dir=into))
        for name, data in sources.items():
            (staging / package / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / package / name).write_bytes(data)
        staging.rename(home)  # NOTE: whole or not at all: a run cut short leaves no half copy behind
    return home


def child(first: str, rounds: int) -> None:
    """Runs in the child: load `first` copy's kernels first, then time both; print each
    configuration's median ratio (new / old) as JSON."""
    import statistics
    import time

    import kvnew.engine.replay as new_replay
    import kvnew.services.replay as new_services
    import kvold.engine.replay as old_replay
    import kvold.services.replay as old_services
    import numpy as np
    from kvold.engine.readers.mooncake import read_mooncake

    trace = read_mooncake(TRACE)
    sides = {
        "old": (old_replay.simulate, old_services),
        "new": (new_replay.simulate, new_services),
    }
    order = [first, "new" if first == "old" else "old"]

    def config(side: str, name: str):
        services = sides[side][1]
        return services.cluster_config(services.ReplayRequest(**CONFIGS[name]), trace.block_tokens)

    for side in order:  # NOTE: the load order is the point: its copy's kernels load first
        sides[side][0](trace, config(side, "one pod (the control)"))
    out = {}
    for name in CONFIGS:
        configs = {side: config(side, name) for side in sides}
        outcomes = {side: sides[side][0](trace, configs[side]) for side in order}
        for field in ("pod", "hit_blocks", "stored_blocks", "ttft_s"):
            if not np.array_equal(getattr(outcomes["old"], field), getattr(outcomes["new"], field)):
                raise SystemExit(f"{name}: the two versions' {field} differ")
        times = {"old": [], "new": []}
        for k in range(rounds):
            for side in order if k % 2 == 0 else order[::-1]:
                started = time.perf_counter()
                sides[side][0](trace, configs[side])
                times[side].append(time.perf_counter() - started)
        ratios = [n / o for o, n in zip(times["old"], times["new"], strict=True)]
        out[name] = statistics.median(ratios)
    print(json.dumps(out))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ab_engine", description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="git ref of the version to compare against, e.g. HEAD")
    parser.add_argument("--new", default=None, help="git ref of the new version (default: the working tree)")
    parser.add_argument(
        "--rounds", type=int, default=21, help="alternating calls per configuration (default 21)"
    )
    parser.add_argument("--child", choices=("old", "new"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        print(f"ab_engine: --rounds must be at least 1, got {args.rounds}", file=sys.stderr)
        return 2
    if args.child:
        child(args.child, args.rounds)
        return 0
    CACHE.mkdir(parents=True, exist_ok=True)
    try:
        homes = [copy_package(args.old, "kvold", CACHE), copy_package(args.new, "kvnew", CACHE)]
    except subprocess.CalledProcessError as exc:
        print(f"ab_engine: git archive found no dashboard/ at {exc.cmd[2]!r}", file=sys.stderr)
        return 2
    runs = {}
    for first in ("old", "new"):
        print(f"ab_engine: {first} loaded first (a new copy compiles its kernels, ~2 min) …", file=sys.stderr)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.ab_engine",
                args.old,
                "--child",
                first,
                "--rounds",
                str(args.rounds),
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([*map(str, homes), str(ROOT)])},
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            last = done.stderr.strip().splitlines()[-1:] or ["the timing process failed"]
            print(f"ab_engine: {last[0]}", file=sys.stderr)
            return 1
        runs[first] = json.loads(done.stdout)
    print(f"{'configuration':36s} {'old first':>10s} {'new first':>10s} {'new / old':>10s}")
    for name in CONFIGS:
        a, b = runs["old"][name], runs["new"][name]
        print(f"{name:36s} {a:10.3f} {b:10.3f} {math.sqrt(a * b):10.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
