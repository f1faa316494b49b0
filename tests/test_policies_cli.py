"""Issue 13: ``sfb policies`` lists every registered policy with a one-line description."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import agents
from agents.base import policy_descriptions, register_policy, registered_policies

ROOT = Path(__file__).resolve().parents[1]


def python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_sfb_policies_lists_every_registered_policy():
    done = python("-m", "sfb_env.cli", "policies")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # the registry of a fresh process (tests may register policies of their own in this one)
    fresh = python("-c", "import json, agents; from agents.base import policy_descriptions; "
                         "print(json.dumps(policy_descriptions()))")
    assert fresh.returncode == 0, fresh.stderr
    registry = json.loads(fresh.stdout)
    assert set(registered_policies()) >= set(registry) >= {"random", "random-fighter", "robot"}
    for name, description in registry.items():
        assert description, f"policy {name!r} has no description"
        assert any(line.split()[:1] == [name] and description in line for line in lines), name
    assert "*.zip" in done.stdout and "module:object" in done.stdout


def test_register_policy_without_description_still_works():
    class Quiet(agents.RandomMaskedPolicy):
        """Quiet test policy."""

    register_policy("test-quiet", Quiet)
    try:
        assert isinstance(agents.make_policy("test-quiet"), Quiet)
        assert policy_descriptions()["test-quiet"] == "Quiet test policy."
    finally:
        from agents import base

        del base._REGISTRY["test-quiet"], base._DESCRIPTIONS["test-quiet"]
