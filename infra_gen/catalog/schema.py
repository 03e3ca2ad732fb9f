"""The published CSV formats of the catalog: explicit column lists and typed row parsers.

The column lists are written out here rather than derived from the dataclasses in
``models.py``, so that adding a field to a model cannot silently change the file format
(the same choice as gpuhunt's ``_internal/storage.py``). Every parse error names the file,
the line and the column, and says what was expected.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Mapping
from typing import TypeVar, cast, get_args

from infra_gen.catalog.models import Accelerator, Interconnect, InterruptionClass, Offer
from infra_gen.errors import CatalogError

OFFERS_FORMAT = "infra-gen-catalog/1"
ACCELERATORS_FORMAT = "infra-gen-accelerators/1"
CLOUDS = ("aws", "azure", "gcp")
INTERCONNECTS: tuple[str, ...] = get_args(Interconnect)
INTERRUPTION_CLASSES: tuple[str, ...] = get_args(InterruptionClass)

OFFER_COLUMNS = (
    "cloud", "region", "instance_type", "accelerator", "accelerators",
    "accelerator_memory_gib", "vcpus", "memory_gib", "local_disk_gb", "interconnect",
    "on_demand_usd_hr", "spot_usd_hr", "reserved_1y_usd_hr", "reserved_3y_usd_hr",
    "reserved_estimated", "spot_interruption", "source", "as_of",
)
ACCELERATOR_COLUMNS = (
    "name", "vendor", "memory_gib", "memory_bandwidth_gb_s", "bf16_dense_tflops",
    "fp16_dense_tflops", "fp8_dense_tflops", "int8_dense_tops", "bf16_supported",
    "intra_node_link", "intra_node_bw_gb_s_bidir", "mig", "aliases", "source",
)

T = TypeVar("T")


class RowError(ValueError):
    """A bad cell; the reader adds the file and line."""

    def __init__(self, column: str, message: str) -> None:
        self.column = column
        super().__init__(f"{column}: {message}")


def where(path: str, line: int, message: str) -> CatalogError:
    """The one-line error every catalog problem becomes: ``FILE:LINE: error: ...``."""
    return CatalogError(f"{path}:{line}: error: {message}")


def _cell(row: Mapping[str, str], column: str) -> str:
    return (row.get(column) or "").strip()


def _parse(row: Mapping[str, str], column: str, kind: Callable[[str], T], expected: str) -> T:
    text = _cell(row, column)
    if not text:
        raise RowError(column, f"expected {expected}, got an empty cell")
    try:
        return kind(text)
    except ValueError:
        raise RowError(column, f"expected {expected}, got {text!r}") from None


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def positive(row: Mapping[str, str], column: str) -> float:
    value = _parse(row, column, _finite, "a positive number")
    if value <= 0:
        raise RowError(column, f"expected a positive number, got {_cell(row, column)!r}")
    return value


def optional_positive(row: Mapping[str, str], column: str) -> float | None:
    return positive(row, column) if _cell(row, column) else None


def optional_non_negative(row: Mapping[str, str], column: str) -> float | None:
    if not _cell(row, column):
        return None
    value = _parse(row, column, _finite, "a number >= 0")
    if value < 0:
        raise RowError(column, f"expected a number >= 0, got {_cell(row, column)!r}")
    return value


def positive_int(row: Mapping[str, str], column: str) -> int:
    value = _parse(row, column, int, "a whole number >= 1")
    if value < 1:
        raise RowError(column, f"expected a whole number >= 1, got {_cell(row, column)!r}")
    return value


def boolean(row: Mapping[str, str], column: str, default: bool = False) -> bool:
    text = _cell(row, column).lower()
    if not text:
        return default
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    raise RowError(column, f"expected true or false, got {_cell(row, column)!r}")


def choice(row: Mapping[str, str], column: str, allowed: tuple[str, ...]) -> str:
    text = _cell(row, column)
    if text not in allowed:
        raise RowError(column, f"expected one of {' | '.join(allowed)}, got {text!r}")
    return text


def iso_date(row: Mapping[str, str], column: str) -> dt.date:
    return _parse(row, column, dt.date.fromisoformat, "a date YYYY-MM-DD")


def text(row: Mapping[str, str], column: str) -> str:
    value = _cell(row, column)
    if not value:
        raise RowError(column, "expected a value, got an empty cell")
    return value


def parse_accelerator(row: Mapping[str, str]) -> tuple[Accelerator, list[str]]:
    """One accelerators.csv row -> (Accelerator, its input aliases)."""
    accel = Accelerator(
        name=text(row, "name"),
        vendor=text(row, "vendor"),
        memory_gib=positive(row, "memory_gib"),
        memory_bandwidth_gb_s=positive(row, "memory_bandwidth_gb_s"),
        bf16_dense_tflops=optional_positive(row, "bf16_dense_tflops"),
        fp16_dense_tflops=optional_positive(row, "fp16_dense_tflops"),
        fp8_dense_tflops=optional_positive(row, "fp8_dense_tflops"),
        int8_dense_tops=optional_positive(row, "int8_dense_tops"),
        bf16_supported=boolean(row, "bf16_supported"),
        intra_node_link=text(row, "intra_node_link"),
        intra_node_bw_gb_s_bidir=optional_positive(row, "intra_node_bw_gb_s_bidir"),
        mig=boolean(row, "mig"),
        source=text(row, "source"),
    )
    aliases = [a.strip() for a in _cell(row, "aliases").split("|") if a.strip()]
    return accel, aliases


def parse_offer(
    row: Mapping[str, str], canonical: Callable[[str], str | None],
    accelerators: Mapping[str, Accelerator],
) -> Offer:
    """One offers CSV row -> Offer. ``canonical`` maps an accelerator name or alias to its
    canonical name (None when unknown). Blank accelerator memory defaults to the spec sheet."""
    name = text(row, "accelerator")
    accel = canonical(name)
    if accel is None:
        known = ", ".join(sorted(accelerators))
        raise RowError("accelerator", f"unknown accelerator {name!r}; known: {known}")
    on_demand = positive(row, "on_demand_usd_hr")
    memory = optional_positive(row, "accelerator_memory_gib")
    offer = Offer(
        cloud=choice(row, "cloud", CLOUDS),
        region=text(row, "region"),
        instance_type=text(row, "instance_type"),
        accelerator=accel,
        accelerators=positive_int(row, "accelerators"),
        accelerator_memory_gib=memory if memory is not None else accelerators[accel].memory_gib,
        vcpus=positive_int(row, "vcpus"),
        memory_gib=positive(row, "memory_gib"),
        local_disk_gb=optional_non_negative(row, "local_disk_gb"),
        interconnect=cast(Interconnect, choice(row, "interconnect", INTERCONNECTS)),
        on_demand_usd_hr=on_demand,
        spot_usd_hr=_not_above(row, "spot_usd_hr", on_demand),
        reserved_1y_usd_hr=_not_above(row, "reserved_1y_usd_hr", on_demand),
        reserved_3y_usd_hr=_not_above(row, "reserved_3y_usd_hr", on_demand),
        reserved_estimated=boolean(row, "reserved_estimated"),
        spot_interruption=_interruption(row),
        source=text(row, "source"),
        as_of=iso_date(row, "as_of"),
    )
    return offer


def _not_above(row: Mapping[str, str], column: str, on_demand: float) -> float | None:
    """Spot and reserved prices are discounts: never above the on-demand price of the row."""
    value = optional_positive(row, column)
    if value is not None and value > on_demand:
        raise RowError(
            column, f"expected at most on_demand_usd_hr {on_demand:g}, got {value:g}"
        )
    return value


def _interruption(row: Mapping[str, str]) -> InterruptionClass | None:
    if not _cell(row, "spot_interruption"):
        return None
    return cast(InterruptionClass, choice(row, "spot_interruption", INTERRUPTION_CLASSES))


def _number(value: float | None) -> str:
    """Shortest round-tripping text for a price or size; blank for unknown."""
    if value is None:
        return ""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def offer_cells(offer: Offer) -> list[str]:
    """Offer -> the cells of one CSV row, in OFFER_COLUMNS order."""
    return [
        offer.cloud, offer.region, offer.instance_type, offer.accelerator,
        str(offer.accelerators), _number(offer.accelerator_memory_gib), str(offer.vcpus),
        _number(offer.memory_gib), _number(offer.local_disk_gb), offer.interconnect,
        _number(offer.on_demand_usd_hr), _number(offer.spot_usd_hr),
        _number(offer.reserved_1y_usd_hr), _number(offer.reserved_3y_usd_hr),
        "true" if offer.reserved_estimated else "false", offer.spot_interruption or "",
        offer.source, offer.as_of.isoformat(),
    ]
