"""Ports for the servers tests start come from outside the ephemeral range, where no outgoing
connection takes its local port, and no two callers of a session get the same one."""

from __future__ import annotations

import subprocess
import sys

from tests.shared_process import PORTS, REPO, ephemeral_ports, free_port


def taken(first: int, count: int) -> set[int]:
    return set(range(first, first + count))


def test_ports_lie_outside_the_ephemeral_range_and_no_two_callers_share_one():
    mine = [taken(free_port(), 1) for _ in range(3)] + [taken(free_port(3), 3)]
    # another process of the session (as a worker or a shared server would be) asks meanwhile
    other = subprocess.run(
        [sys.executable, "-c", "from tests.shared_process import free_port; print(free_port(2))"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = taken(int(other.stdout), 2)
    ports = [*mine, theirs, taken(free_port(), 1)]
    assert all(p in PORTS for p in set().union(*ports))
    if not set(PORTS) & set(ephemeral_ports()):  # NOTE: true unless the kernel leaves no room outside
        assert not set().union(*ports) & set(ephemeral_ports())
    assert sum(len(p) for p in ports) == len(set().union(*ports))
