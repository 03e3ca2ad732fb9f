"""Load, validate and cache the catalog; resolve accelerator names; warn when it is stale.

Which catalog is used:

1. ``load_catalog(path)`` with a path (the CLI's ``--catalog FILE``) loads that file;
2. otherwise the file named by the environment variable ``INFRA_GEN_CATALOG``;
3. otherwise the built-in ``data/offers.csv`` shipped with the package.

A user catalog file REPLACES the built-in offers, unless its header carries the directive
``# extends: builtin``: then its rows are laid over the built-in ones, a user row replacing the
built-in row with the same (cloud, region, instance_type, accelerator, accelerators) key, e.g.
to record negotiated enterprise discounts for a few instance types. Accelerator specs always
come from the built-in ``data/accelerators.csv``.

Header directives (comment lines before the CSV header): ``# format: infra-gen-catalog/1``,
``# as_of: YYYY-MM-DD`` (the date the catalog's prices were read; defaults to the OLDEST row's
``as_of``, so that a catalog mixing fresh and old figures is judged by its oldest) and
``# extends: builtin``. Each file is parsed once per process (cache keyed on path and
modification time).
"""

from __future__ import annotations

import csv
import datetime as dt
import difflib
import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from infra_gen.catalog.models import Accelerator, Catalog, Offer
from infra_gen.catalog.schema import (
    ACCELERATOR_COLUMNS,
    ACCELERATORS_FORMAT,
    OFFER_COLUMNS,
    OFFERS_FORMAT,
    RowError,
    parse_accelerator,
    parse_offer,
    where,
)
from infra_gen.errors import CatalogError

ENV_VAR = "INFRA_GEN_CATALOG"
DATA_DIR = Path(__file__).with_name("data")
BUILTIN_OFFERS = DATA_DIR / "offers.csv"
BUILTIN_ACCELERATORS = DATA_DIR / "accelerators.csv"
# The staleness rule: prices older than this many days earn a warning.
STALE_AFTER_DAYS = 90
REFRESH_HINT = (
    "refresh with `infra-gen catalog refresh --cloud aws|azure|gcp --out FILE` "
    f"and point --catalog or {ENV_VAR} at FILE"
)
_DIRECTIVES = ("format", "as_of", "extends")
_PREFIXES = ("nvidia", "tesla", "amd", "instinct", "aws", "google")


@dataclass(frozen=True)
class _Table:
    path: str
    directives: dict[str, str]
    rows: list[tuple[int, dict[str, str]]]


def load_catalog(path: str | Path | None = None) -> Catalog:
    """The catalog to plan with: ``path``, else $INFRA_GEN_CATALOG, else the built-in one."""
    chosen = path if path is not None else (os.environ.get(ENV_VAR) or None)
    if chosen is None:
        return _load_cached(str(BUILTIN_OFFERS), _mtime(BUILTIN_OFFERS))
    file = Path(chosen)
    if not file.is_file():
        raise CatalogError(f"{file}: error: catalog file not found (from {_origin(path)})")
    return _load_cached(str(file), _mtime(file))


def clear_cache() -> None:
    """Forget parsed catalogs (tests that rewrite a file within one mtime tick use this)."""
    _load_cached.cache_clear()
    _accelerators.cache_clear()


def _origin(path: str | Path | None) -> str:
    return "--catalog" if path is not None else f"${ENV_VAR}"


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError as err:
        raise CatalogError(f"{path}: error: cannot read catalog file: {err.strerror}") from err


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int) -> Catalog:
    del mtime_ns  # part of the cache key only: an edited file is parsed again
    accelerators, aliases = _accelerators()
    table = _read_table(Path(path), OFFER_COLUMNS, OFFERS_FORMAT)
    offers = _parse_offers(table, accelerators, aliases)
    as_of = _as_of(table, offers)
    if path == str(BUILTIN_OFFERS) or table.directives.get("extends") != "builtin":
        if not offers:
            raise where(path, 1, "expected at least one offer row, got none")
        return Catalog(as_of, accelerators, tuple(offers), _source_name(path), aliases)
    builtin = _load_cached(str(BUILTIN_OFFERS), _mtime(BUILTIN_OFFERS))
    merged = _merge(builtin.offers, offers)
    return Catalog(min(as_of, builtin.as_of), accelerators, merged,
                   f"{_source_name(path)} (extends built-in)", aliases)


def _source_name(path: str) -> str:
    """The catalog's name in plans and warnings: the file name, not where it sits, so a plan's
    JSON is the same on every machine and in every checkout (determinism)."""
    return "built-in" if path == str(BUILTIN_OFFERS) else Path(path).name


def _as_of(table: _Table, offers: list[Offer]) -> dt.date:
    declared = table.directives.get("as_of")
    if declared:
        try:
            return dt.date.fromisoformat(declared)
        except ValueError:
            raise where(table.path, 1,
                        f"as_of: expected a date YYYY-MM-DD, got {declared!r}") from None
    if not offers:
        raise where(table.path, 1, "expected at least one offer row, got none")
    return min(o.as_of for o in offers)


def offer_key(offer: Offer) -> tuple[str, str, str, str, int]:
    """Offers are unique on this key. The accelerator is part of it because a GCP N1 machine
    type (e.g. n1-standard-8) is offered with a T4 or a V100 attached."""
    return (offer.cloud, offer.region, offer.instance_type, offer.accelerator, offer.accelerators)


def _merge(base: Iterable[Offer], overlay: Iterable[Offer]) -> tuple[Offer, ...]:
    by_key = {offer_key(o): o for o in base}
    by_key.update((offer_key(o), o) for o in overlay)
    return tuple(sorted(by_key.values(), key=offer_key))


def _parse_offers(
    table: _Table, accelerators: dict[str, Accelerator], aliases: dict[str, str]
) -> list[Offer]:
    resolved: dict[str, str | None] = {}  # a catalog names a few accelerators on many rows

    def canonical(name: str) -> str | None:
        if name not in resolved:
            resolved[name] = aliases.get(normalize_accelerator_name(name))
        return resolved[name]

    offers: list[Offer] = []
    seen: dict[tuple[str, str, str, str, int], int] = {}
    for line, row in table.rows:
        try:
            offer = parse_offer(row, canonical, accelerators)
        except RowError as err:
            raise where(table.path, line, str(err)) from None
        key = offer_key(offer)
        if key in seen:
            name = "/".join(map(str, key))
            raise where(table.path, line,
                        f"instance_type: duplicate offer {name} (first at line {seen[key]})")
        seen[key] = line
        offers.append(offer)
    offers.sort(key=offer_key)
    return offers


@functools.lru_cache(maxsize=1)
def _accelerators() -> tuple[dict[str, Accelerator], dict[str, str]]:
    """The built-in accelerator specs and the alias map (normalized name -> canonical)."""
    table = _read_table(BUILTIN_ACCELERATORS, ACCELERATOR_COLUMNS, ACCELERATORS_FORMAT)
    accelerators: dict[str, Accelerator] = {}
    aliases: dict[str, str] = {}
    for line, row in table.rows:
        try:
            accel, names = parse_accelerator(row)
        except RowError as err:
            raise where(table.path, line, str(err)) from None
        accelerators[accel.name] = accel
        for name in (accel.name, *names):
            key = normalize_accelerator_name(name)
            if aliases.setdefault(key, accel.name) != accel.name:
                raise where(table.path, line, f"aliases: {name!r} already names {aliases[key]}")
    return accelerators, aliases


def _read_lines(path: Path) -> list[str]:
    """The file's lines; a non-UTF-8 byte is reported at its line, like any bad row."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CatalogError(f"{path}: error: cannot read catalog file: {err}") from err
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise where(str(path), line, f"expected UTF-8 text, got byte 0x{data[err.start]:02x}"
                    ) from None


def _read_table(path: Path, columns: tuple[str, ...], fmt: str) -> _Table:
    """Header directives, then a CSV header that must hold exactly ``columns`` (any order)."""
    lines = _read_lines(path)
    directives, start = _directives(lines)
    declared = directives.get("format", fmt)
    if declared != fmt:
        raise where(str(path), 1, f"format: expected {fmt}, got {declared!r}")
    if directives.get("extends", "builtin") != "builtin":
        raise where(str(path), 1, f"extends: expected builtin, got {directives['extends']!r}")
    reader = csv.reader(lines[start:])
    header = [h.strip() for h in next(reader, [])]
    _check_header(str(path), start + 1, header, columns)
    rows = []
    for cells in reader:
        line = start + reader.line_num
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise where(str(path), line, f"expected {len(header)} cells, got {len(cells)}")
        rows.append((line, dict(zip(header, cells, strict=True))))
    return _Table(str(path), directives, rows)


def _directives(lines: list[str]) -> tuple[dict[str, str], int]:
    directives: dict[str, str] = {}
    index = 0
    while index < len(lines) and (lines[index].startswith("#") or not lines[index].strip()):
        key, sep, value = lines[index].lstrip("#").partition(":")
        if sep and key.strip() in _DIRECTIVES:
            directives[key.strip()] = value.strip()
        index += 1
    return directives, index


def _check_header(path: str, line: int, header: list[str], columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in header]
    extra = [c for c in header if c not in columns]
    if missing or extra:
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unknown {', '.join(extra)}"] if extra else [])
        raise where(path, line, f"header: expected columns {','.join(columns)}; "
                    + "; ".join(parts))


def normalize_accelerator_name(name: str) -> str:
    """'NVIDIA A100 80GB', 'nvidia-a100-80gb' and 'A100-80GB' all become 'a10080gb'."""
    key = re.sub(r"[^a-z0-9]", "", name.lower())
    stripped = True
    while stripped:
        stripped = False
        for prefix in _PREFIXES:
            if key.startswith(prefix) and len(key) > len(prefix):
                key, stripped = key[len(prefix):], True
    return key


def resolve_accelerator(catalog: Catalog, name: str) -> str:
    """Canonical accelerator name for a user-typed one. Bare 'A100' means A100-40GB (the AWS
    p4d / GCP a2-highgpu / SkyPilot convention); 'H100' is the SXM part, 'H100-NVL' and
    'H100-PCIe' are separate accelerators."""
    known = {normalize_accelerator_name(n): n for n in catalog.accelerators}
    known.update(catalog.aliases)
    key = normalize_accelerator_name(name)
    if key in known and known[key] in catalog.accelerators:
        return known[key]
    close = difflib.get_close_matches(key, list(known), n=3, cutoff=0.6)
    suggestions = sorted({known[c] for c in close})
    hint = f"did you mean {' or '.join(suggestions)}? " if suggestions else ""
    valid = ", ".join(sorted(catalog.accelerators))
    raise CatalogError(f"unknown accelerator {name!r}; {hint}valid: {valid}")


def catalog_warnings(catalog: Catalog, today: dt.date) -> list[str]:
    """Warnings to show with every plan: stale prices (older than 90 days) and how to refresh."""
    age = catalog.age_days(today)
    if age <= STALE_AFTER_DAYS:
        return []
    return [
        f"catalog {catalog.source} has prices as of {catalog.as_of.isoformat()}, {age} days old "
        f"(over {STALE_AFTER_DAYS}); {REFRESH_HINT}"
    ]
