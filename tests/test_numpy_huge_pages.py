"""kvscope runs numpy without transparent huge pages unless the user set NUMPY_MADVISE_HUGEPAGE
(dashboard/__init__.py): a process's first touch of a large array stalled on them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# NOTE: numpy's setter returns the setting it replaces, the one numpy chose when it was imported
# (numpy 2 keeps it in numpy._core, numpy 1.26 in numpy.core).
PROBE = (
    "import dashboard, numpy; core = getattr(numpy, '_core', None) or numpy.core; "
    "print(core.multiarray._set_madvise_hugepage(True))"
)


@pytest.mark.parametrize(("users_setting", "huge_pages"), [(None, "False"), ("1", "True")])
def test_numpy_huge_pages_are_off_unless_the_user_turned_them_on(users_setting, huge_pages):
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    if users_setting is not None:
        env["NUMPY_MADVISE_HUGEPAGE"] = users_setting
    probe = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == huge_pages
