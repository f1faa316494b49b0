"""On a terminal, the CLI says before the compiled core's first build on a machine that it is
coming (minutes of one CPU, then cached) and how to play without it; never when the kernels are
cached, the game runs on the reference engine, or stderr is captured."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from sfb_env import compiled
from sfb_env.backends import BACKEND_VARIABLE
from sfb_env.commands.play import cold_build_notice


def test_cache_is_cold_until_numba_writes_an_index(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "CACHE_DIR", tmp_path)
    assert compiled.cache_is_cold()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "batch._step_batch-440.py311.nbi").write_bytes(b"")
    assert not compiled.cache_is_cold()
    monkeypatch.setattr(compiled, "CACHE_DIR", None)  # numba's default place: not known
    assert not compiled.cache_is_cold()


@pytest.mark.parametrize("cold, backend, says", [(True, "compiled", True),
                                                 (True, "reference", False),
                                                 (False, "compiled", False)])
def test_play_notice_only_before_a_compiled_first_build(monkeypatch, capsys, tmp_path, cold,
                                                          backend, says):
    monkeypatch.setattr(compiled, "CACHE_DIR", tmp_path)
    monkeypatch.setattr(compiled, "cache_is_cold", lambda: cold)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    cold_build_notice("sfb play", SimpleNamespace(backend=backend))
    err = capsys.readouterr().err
    assert ("first use" in err) is says
    if says:
        assert str(tmp_path) in err and "--backend reference" in err


@pytest.mark.parametrize("default, says", [("auto", True), ("compiled", True),
                                           ("reference", False)])
def test_bench_notice_follows_the_default_backend(monkeypatch, capsys, default, says):
    monkeypatch.setenv(BACKEND_VARIABLE, default)
    monkeypatch.setattr(compiled, "cache_is_cold", lambda: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    cold_build_notice("sfb bench")
    assert ("sfb bench: the compiled core is built" in capsys.readouterr().err) is says


def test_no_notice_on_a_captured_stderr(monkeypatch, capsys):
    """A refusal's one line on stderr (tests, pipes) is not preceded by the notice."""
    monkeypatch.setattr(compiled, "cache_is_cold", lambda: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    cold_build_notice("sfb play", SimpleNamespace(backend="compiled"))
    assert capsys.readouterr().err == ""
