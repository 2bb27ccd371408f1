"""`python -m bench.ab_engine`: the renamed copies it times import only themselves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.ab_engine import copy_package, renamed

REPO = Path(__file__).resolve().parent.parent


def test_renaming_points_every_import_form_at_the_copy():
    source = (
        "import dashboard\nfrom dashboard import cli\nfrom dashboard.engine import replay\n"
        "import dashboard.core.types as t\nMODULE = 'dashboard.engine.readers.parquet'\nmydashboard.x = 1\n"
    )
    assert renamed(source, "kvnew") == (
        "import kvnew\nfrom kvnew import cli\nfrom kvnew.engine import replay\n"
        "import kvnew.core.types as t\nMODULE = 'kvnew.engine.readers.parquet'\nmydashboard.x = 1\n"
    )


def test_a_copy_of_the_working_tree_loads_none_of_the_original(tmp_path):
    # NOTE: imports and every trace reader the registry names, but no kernel call: a copy compiles
    # its kernels afresh, minutes that the tool spends and this test need not
    home = copy_package(None, "kvcopy", tmp_path)
    assert copy_package(None, "kvcopy", tmp_path) == home  # NOTE: kept, with its kernels, for the next run
    script = (
        "import sys\n"
        "import kvcopy.cli, kvcopy.services.replay, kvcopy.engine.mrc_sampled\n"
        "from kvcopy.engine import readers\n"
        "[readers.reader(fmt) for fmt in readers.READERS]\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('dashboard', 'kvcopy')}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "['kvcopy']"


def test_rounds_below_one_and_an_unknown_ref_are_one_line_exit_2():
    for args, message in (
        (["HEAD", "--rounds", "0"], "ab_engine: --rounds must be at least 1, got 0\n"),
        (["no-such-ref"], "ab_engine: git archive found no dashboard/ at 'no-such-ref'\n"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "bench.ab_engine", *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (done.returncode, done.stderr, done.stdout) == (2, message, ""), args
