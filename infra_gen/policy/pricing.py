"""Catalog prices for the rules: what one instance of a type costs per hour, by how it is bought.

The same dated catalog the optimizer prices plans from (``infra_gen.catalog``), indexed by
(cloud, region, instance type). The CrossGuard pack loads it lazily on first use; ``infra-gen
check`` passes the one it planned with (``--catalog``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from infra_gen.errors import InfraGenError

if TYPE_CHECKING:
    from infra_gen.catalog.models import Catalog, Offer


@dataclass(frozen=True)
class PriceBook:
    offers: dict[tuple[str, str, str], Offer]
    as_of: str
    by_type: dict[tuple[str, str], Offer] = field(default_factory=dict)
    # cloud -> {accelerator: memory GiB per GPU} over the catalog's offers
    accelerators: dict[str, dict[str, float]] = field(default_factory=dict)

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> PriceBook:
        offers: dict[tuple[str, str, str], Offer] = {}
        by_type: dict[tuple[str, str], Offer] = {}
        accelerators: dict[str, dict[str, float]] = {}
        for offer in catalog.offers:
            if _planned_by_default(catalog, offer):
                accelerators.setdefault(offer.cloud, {})[offer.accelerator] = (
                    offer.accelerator_memory_gib
                )
            offers.setdefault((offer.cloud, offer.region, offer.instance_type), offer)
            key = (offer.cloud, offer.instance_type)
            # Any region's offer stands in when the stack's region is missing: the cheapest
            # on-demand one, so the estimate never overstates (documented in the message).
            if key not in by_type or offer.on_demand_usd_hr < by_type[key].on_demand_usd_hr:
                by_type[key] = offer
        return cls(offers, catalog.as_of.isoformat(), by_type, accelerators)

    def smaller_fits(
        self, cloud: str, need_gib: float, below_gib: float
    ) -> list[tuple[str, float]]:
        """Accelerators offered on ``cloud`` with at least ``need_gib`` and less than
        ``below_gib`` of memory per GPU, smallest first."""
        found = [
            (mem, name)
            for name, mem in self.accelerators.get(cloud, {}).items()
            if need_gib <= mem < below_gib
        ]
        return [(name, mem) for mem, name in sorted(found)]

    def offer(self, cloud: str, region: str, instance_type: str) -> Offer | None:
        return self.offers.get((cloud, region, instance_type)) or self.by_type.get(
            (cloud, instance_type)
        )

    def hourly_usd(self, offer: Offer, market: str, reserved_term: str | None = None) -> float:
        """USD per instance-hour: ``spot`` (on-demand where the catalog has no spot price),
        ``reserved`` at the term's price (on-demand without a term), else on-demand."""
        if market == "spot" and offer.spot_usd_hr is not None:
            return offer.spot_usd_hr
        if market == "reserved":
            price = {"1y": offer.reserved_1y_usd_hr, "3y": offer.reserved_3y_usd_hr}.get(
                reserved_term or ""
            )
            if price is not None:
                return price
        return offer.on_demand_usd_hr


def _planned_by_default(catalog: Catalog, offer: Offer) -> bool:
    """Only accelerators the planner picks unpinned (stock CUDA) are right-sizing suggestions:
    Trainium, Inferentia or TPUs would mean porting the workload to another SDK."""
    from infra_gen.placement import DEFAULT_VENDORS

    accelerator = catalog.accelerators.get(offer.accelerator)
    return accelerator is not None and accelerator.vendor.lower() in DEFAULT_VENDORS


def default_price_book() -> PriceBook | None:
    """The configured catalog (``INFRA_GEN_CATALOG`` or built-in), or None when it cannot load:
    the cost rule then falls back to the plan's own estimate in the stack facts."""
    try:
        from infra_gen.catalog.load import load_catalog

        return PriceBook.from_catalog(load_catalog())
    except (ImportError, InfraGenError, OSError):
        return None
