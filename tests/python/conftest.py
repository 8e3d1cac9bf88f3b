"""Shared set-up for the Python suite: writable kernel caches, and every test
leaves the global selector (rules, default strategy) as it found it."""
import os
import tempfile

# Before the first context: PoCL and netcl read these when they start.
_cache = os.path.join(tempfile.gettempdir(), "netcl-python-tests")
os.environ.setdefault("POCL_CACHE_DIR", os.path.join(_cache, "pocl"))
os.environ.setdefault("NETCL_CACHE_DIR", os.path.join(_cache, "netcl"))
# Tuned records a user's netcl-tune left behind would change plans; the suite sees only the shipped profiles.
os.environ.setdefault("NETCL_PROFILE_DIR", os.path.join(_cache, "profiles"))

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import netcl as nc  # noqa: E402


@pytest.fixture(autouse=True)
def clean_selector():
    """Fails a test that leaves a rule registered or a default strategy set, and
    undoes it, so one test's rule cannot decide another's plan."""
    rules_before = nc.KernelSelector.rule_count()
    yield
    leaked_default = nc.default_conv_strategy()
    nc.clear_default_conv_strategy()
    assert nc.KernelSelector.rule_count() == rules_before, "the test left a selector rule registered"
    assert leaked_default is None, f"the test left the default strategy set to {leaked_default}"


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
