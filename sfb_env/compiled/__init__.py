"""The compiled core: numba kernels that step a batch of battles (docs/compiled.md).

numba's ``cache=True`` checks only a cached function's own source file, so a kernel cached
before an edit of a module it calls (or of an engine constant it reads) would run stale code.
The cache therefore lives in a folder named after a digest of every source file of
``sfb_env``: any edit starts a fresh cache, and trees with the same sources share one.
``$NUMBA_CACHE_DIR``, if set, is used as the parent of those folders.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def _cache_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    root = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "sfb-env", "numba")
    return Path(root) / digest.hexdigest()[:16]


CACHE_DIR = _cache_dir()
try:
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    numba.config.CACHE_DIR = str(CACHE_DIR)
except OSError:  # a read-only home: numba's default (__pycache__ beside the sources)
    CACHE_DIR = None


def cache_is_cold() -> bool:
    """Whether this tree's kernels have never been cached here (no numba index file in
    ``CACHE_DIR``): the first compiled step then builds them, minutes of one CPU. False where
    the cache folder could not be made (numba's default place: unknown)."""
    return CACHE_DIR is not None and next(CACHE_DIR.rglob("*.nbi"), None) is None
