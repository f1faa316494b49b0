"""Rules data: charts and ship sheets as YAML files, validated on load.

Every file here encodes numbers from ``shared/reference/CTH-DATA.md`` (facts only, no rules text).
Loading goes through :func:`load_data_file`, and every field is read through the ``require_*``
helpers, so a missing or mistyped field raises :class:`DataFileError` naming the file and the
field path (e.g. ``weapons.yaml: phaser-1.rows[3]: expected 11 integers, got 10``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

DATA_DIR = Path(__file__).resolve().parent
# libyaml's parser where PyYAML was built with it: the same data, some ten times faster (every
# env reset of a new scenario and every scenario listing parses YAML). A file it refuses is
# parsed again by the pure-Python parser, whose message quotes the line under a caret.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DataFileError(ValueError):
    """A rules-data file is malformed; the message names the file and the field."""

    def __init__(self, file: str | Path, field: str, problem: str) -> None:
        self.file = str(file)
        self.field = field
        self.problem = problem
        super().__init__(f"{Path(file).name}: field '{field}': {problem}")


def load_data_file(path: str | Path) -> Any:
    """Parse a YAML data file; a syntax error or a missing file raises :class:`DataFileError`."""
    path = Path(path)
    if not path.is_absolute() and not path.exists():
        path = DATA_DIR / path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataFileError(path, "<file>", f"cannot read: {exc.strerror or exc}") from exc
    try:
        return yaml.load(text, Loader=_FAST_LOADER)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        pass
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DataFileError(path, "<file>", f"invalid YAML: {exc}") from exc


def require(
    node: Any, key: str, kind: type | tuple[type, ...], file: str | Path, where: str
) -> Any:
    """Return ``node[key]`` checked against ``kind``; ``where`` is the field path of ``node``."""
    field = f"{where}.{key}" if where else key
    if not isinstance(node, Mapping):
        raise DataFileError(
            file, where or "<root>", f"expected a mapping, got {type(node).__name__}"
        )
    if key not in node:
        raise DataFileError(file, field, "missing")
    value = node[key]
    # bool is an int subclass; a YAML "yes" must never pass as a number.
    if isinstance(value, bool) and bool not in _as_tuple(kind):
        raise DataFileError(file, field, f"expected {_kind_name(kind)}, got bool {value!r}")
    if not isinstance(value, kind):
        raise DataFileError(
            file, field, f"expected {_kind_name(kind)}, got {type(value).__name__} {value!r}"
        )
    return value


def require_int_list(
    node: Any,
    key: str,
    file: str | Path,
    where: str,
    length: int | None = None,
    minimum: int | None = None,
) -> list[int]:
    """Return ``node[key]`` as a list of ints, optionally of a fixed length and lower bound."""
    values = require(node, key, list, file, where)
    field = f"{where}.{key}" if where else key
    return check_int_list(values, file, field, length=length, minimum=minimum)


def check_int_list(
    values: Sequence[Any],
    file: str | Path,
    field: str,
    length: int | None = None,
    minimum: int | None = None,
) -> list[int]:
    """Validate that ``values`` is a list of ints (length and minimum optional)."""
    if not isinstance(values, list) or any(
        isinstance(v, bool) or not isinstance(v, int) for v in values
    ):
        raise DataFileError(file, field, f"expected a list of integers, got {values!r}")
    if length is not None and len(values) != length:
        raise DataFileError(file, field, f"expected {length} integers, got {len(values)}")
    if minimum is not None and any(v < minimum for v in values):
        raise DataFileError(file, field, f"values must be >= {minimum}, got {values!r}")
    return list(values)


def require_choice(
    node: Any, key: str, choices: Sequence[str], file: str | Path, where: str
) -> str:
    """Return ``node[key]``, a string that must be one of ``choices``."""
    value = require(node, key, str, file, where)
    if value not in choices:
        field = f"{where}.{key}" if where else key
        raise DataFileError(
            file, field, f"unknown value {value!r}; expected one of {list(choices)}"
        )
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _as_tuple(kind))
