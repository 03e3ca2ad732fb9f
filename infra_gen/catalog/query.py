"""Pure queries over a catalog: filter offers, summarise per accelerator, stable JSON rows.

One predicate (``matches``) does the filtering everywhere, as gpuhunt's ``constraints.matches``
does; the CLI only renders what these functions return.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from infra_gen.catalog.load import offer_key, resolve_accelerator
from infra_gen.catalog.models import Catalog, Offer
from infra_gen.catalog.schema import CLOUDS
from infra_gen.errors import CatalogError


@dataclass(frozen=True)
class OfferFilter:
    """Canonical filter values (None = any); build it with ``make_filter`` from user input."""

    cloud: str | None = None
    region: str | None = None
    accelerator: str | None = None


def make_filter(catalog: Catalog, cloud: str | None = None, region: str | None = None,
                accelerator: str | None = None) -> OfferFilter:
    """Validate user-typed filter values: unknown ones fail with the valid set."""
    if cloud is not None and cloud not in CLOUDS:
        raise CatalogError(f"--cloud: expected one of {' | '.join(CLOUDS)}, got {cloud!r}")
    if region is not None:
        regions = sorted({o.region for o in catalog.offers})
        if region not in regions:
            close = difflib.get_close_matches(region, regions, n=3)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise CatalogError(f"--region: no offers in {region!r}; {hint}"
                               f"regions: {', '.join(regions)}")
    canonical = resolve_accelerator(catalog, accelerator) if accelerator is not None else None
    return OfferFilter(cloud, region, canonical)


def matches(offer: Offer, where: OfferFilter) -> bool:
    return ((where.cloud is None or offer.cloud == where.cloud)
            and (where.region is None or offer.region == where.region)
            and (where.accelerator is None or offer.accelerator == where.accelerator))


def select_offers(catalog: Catalog, where: OfferFilter) -> list[Offer]:
    """Matching offers in the catalog's deterministic order (cloud, region, type, ...)."""
    return sorted((o for o in catalog.offers if matches(o, where)), key=offer_key)


def offer_json(offer: Offer) -> dict[str, Any]:
    """One offer as the stable JSON object of ``catalog list --format json`` (null = unknown)."""
    return {
        "cloud": offer.cloud, "region": offer.region, "instance_type": offer.instance_type,
        "accelerator": offer.accelerator, "accelerators": offer.accelerators,
        "accelerator_memory_gib": offer.accelerator_memory_gib, "vcpus": offer.vcpus,
        "memory_gib": offer.memory_gib, "on_demand_usd_hr": offer.on_demand_usd_hr,
        "spot_usd_hr": offer.spot_usd_hr, "reserved_1y_usd_hr": offer.reserved_1y_usd_hr,
        "reserved_3y_usd_hr": offer.reserved_3y_usd_hr, "source": offer.source,
        "as_of": offer.as_of.isoformat(), "local_disk_gb": offer.local_disk_gb,
        "interconnect": offer.interconnect, "reserved_estimated": offer.reserved_estimated,
        "spot_interruption": offer.spot_interruption,
    }


def catalog_json(catalog: Catalog, offers: Iterable[Offer]) -> dict[str, Any]:
    return {"as_of": catalog.as_of.isoformat(), "offers": [offer_json(o) for o in offers]}


@dataclass(frozen=True)
class GpuRow:
    """Cheapest on-demand and spot offer for one (accelerator, count per instance, cloud)."""

    accelerator: str
    accelerators: int
    cloud: str
    offers: int
    on_demand: Offer
    spot: Offer | None

    def as_json(self) -> dict[str, Any]:
        spot = self.spot
        return {
            "accelerator": self.accelerator, "accelerators": self.accelerators,
            "cloud": self.cloud, "offers": self.offers,
            "accelerator_memory_gib": self.on_demand.accelerator_memory_gib,
            "on_demand_usd_hr": self.on_demand.on_demand_usd_hr,
            "on_demand_instance_type": self.on_demand.instance_type,
            "on_demand_region": self.on_demand.region,
            "spot_usd_hr": spot.spot_usd_hr if spot else None,
            "spot_instance_type": spot.instance_type if spot else None,
            "spot_region": spot.region if spot else None,
        }


def gpu_summary(offers: Iterable[Offer]) -> list[GpuRow]:
    """A SkyPilot ``show-gpus``-like table, sorted by accelerator, count, cloud."""
    groups: dict[tuple[str, int, str], list[Offer]] = {}
    for offer in offers:
        groups.setdefault((offer.accelerator, offer.accelerators, offer.cloud), []).append(offer)
    rows = []
    for (accel, count, cloud), group in sorted(groups.items()):
        cheapest = min(group, key=lambda o: (o.on_demand_usd_hr, offer_key(o)))
        spots = [o for o in group if o.spot_usd_hr is not None]
        spot = min(spots, key=lambda o: (o.spot_usd_hr or 0.0, offer_key(o))) if spots else None
        rows.append(GpuRow(accel, count, cloud, len(group), cheapest, spot))
    return rows
