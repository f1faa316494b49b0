"""Which shipped scenarios run the per-scenario PettingZoo API, seed and fuzz tests (the
``test_fuzz.py`` runs, which replaced the 1,000-step mask tests) in the CI suite, and which
only under ``-m slow`` (issue #7: the full-size graduate pairings added 18 scenarios, about
9 s each in those tests, well over the ~60 s budget).

Only the full-size graduate pairings beyond the original three against the Klingon D7 are
tiered: one representative per graduate race runs in CI, chosen to cover the most graduate
rules; the rest run with ``python -m pytest -m slow``. Every other scenario is unchanged.
"""

from __future__ import annotations

import pytest

FULL_GRAD_REPRESENTATIVES = frozenset({
    "grad-lyran-full-vs-romulan",  # ESG against a cloak (G23.62, G23.621)
    "grad-hydran-full-vs-kzinti",  # fighters against drones (J4.0, FD)
    "grad-isc-full-vs-lyran",  # PPD against ESGs: both graduate technologies (E11, G23)
})


def slow_only(name: str) -> bool:
    """A full-size graduate pairing (``grad-<race>-full-vs-<other>``, not the original ones
    against the Klingon) that is not its race's CI representative."""
    return (name.startswith("grad-") and "-full-vs-" in name
            and not name.endswith("-full-vs-klingon")
            and name not in FULL_GRAD_REPRESENTATIVES)


def ci_params(names: list[str]) -> list:
    """``names`` as parametrize values, the ``slow_only`` ones marked ``slow``."""
    return [pytest.param(n, marks=pytest.mark.slow) if slow_only(n) else n for n in names]
