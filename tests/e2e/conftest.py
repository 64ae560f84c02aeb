"""pytest fixtures for the end-to-end tests (see gemmad_e2e.py)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import gemmad_e2e as e2e  # noqa: E402


@pytest.fixture(scope="module")
def server():
    """One server per test module: the e2e model as google/gemma-4-E2B-it with the seed's tool
    calling and reasoning flags."""
    s = e2e.Server([e2e.DEFAULT_REPO] + e2e.TOOL_FLAGS, name="module")
    s.start()
    yield s
    rc = s.stop()
    assert rc == 0, f"gemmad serve exited with {rc}:\n{s.log()}"


@pytest.fixture(scope="module")
def client(server):
    return server.client()
