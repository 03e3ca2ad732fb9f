"""Catalog integrity: one base class of invariants, one subclass per cloud (gpuhunt style).

Each invariant would catch a real data-entry mistake: a per-GPU price typed where a
per-instance price belongs, a spot or reserved price above on-demand, a missing source.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict

from infra_gen.catalog import Offer, load_catalog
from infra_gen.catalog.curated import REF_AS_OF


def _family(offer: Offer) -> str:
    """g5.12xlarge -> g5; a2-highgpu-8g -> a2-highgpu; Standard_NC24ads_A100_v4 -> NC..A100_v4."""
    if offer.cloud == "aws":
        return offer.instance_type.split(".")[0]
    if offer.cloud == "gcp":
        return re.sub(r"-\d+g?$", "", offer.instance_type) + f"+{offer.accelerator}"
    return re.sub(r"\d+", "#", offer.instance_type)


class CatalogInvariants:
    cloud = ""
    families: tuple[str, ...] = ()
    fabrics: dict[str, str] = {}
    min_regions = 2

    def offers(self) -> list[Offer]:
        return [o for o in load_catalog().offers if o.cloud == self.cloud]

    def test_required_families_present(self) -> None:
        types = {o.instance_type for o in self.offers()}
        missing = [f for f in self.families if not any(t.startswith(f) for t in types)]
        assert missing == []

    def test_regions(self) -> None:
        assert len({o.region for o in self.offers()}) >= self.min_regions

    def test_price_order(self) -> None:
        for o in self.offers():
            assert o.on_demand_usd_hr > 0, o
            for discounted in (o.spot_usd_hr, o.reserved_1y_usd_hr, o.reserved_3y_usd_hr):
                assert discounted is None or 0 < discounted <= o.on_demand_usd_hr, o
            if o.reserved_1y_usd_hr and o.reserved_3y_usd_hr:
                assert o.reserved_3y_usd_hr <= o.reserved_1y_usd_hr, o

    def test_prices_are_per_instance(self) -> None:
        """Per accelerator, a multi-accelerator type costs at least 70% of the family's
        single-accelerator price in the same region (a per-GPU figure would be ~1/N of it)."""
        singles: dict[tuple[str, str], float] = {}
        for o in self.offers():
            if o.accelerators == 1:
                key = (o.region, _family(o))
                singles[key] = min(singles.get(key, o.on_demand_usd_hr), o.on_demand_usd_hr)
        checked = 0
        for o in self.offers():
            single = singles.get((o.region, _family(o)))
            if o.accelerators > 1 and single is not None:
                assert o.on_demand_usd_hr / o.accelerators >= 0.7 * single, o
                checked += 1
        assert checked > 0

    def test_price_grows_with_accelerators(self) -> None:
        by_family: dict[tuple[str, str], list[Offer]] = defaultdict(list)
        for o in self.offers():
            by_family[(o.region, _family(o))].append(o)
        for group in by_family.values():
            smallest = min(group, key=lambda o: (o.accelerators, o.on_demand_usd_hr))
            largest = max(group, key=lambda o: (o.accelerators, o.on_demand_usd_hr))
            assert largest.on_demand_usd_hr >= smallest.on_demand_usd_hr

    def test_accelerator_memory_matches_spec(self) -> None:
        specs = load_catalog().accelerators
        for o in self.offers():
            spec = specs[o.accelerator].memory_gib
            assert 0.9 * spec <= o.accelerator_memory_gib <= 2 * spec, o

    def test_every_row_is_sourced_and_dated(self) -> None:
        for o in self.offers():
            assert len(o.source) > 20, o
            assert dt.date(2024, 1, 1) <= o.as_of <= REF_AS_OF, o
            if o.reserved_estimated is False:
                assert "seed 002" in o.source or "rate" in o.source, o
            if "estimate" not in o.source and "SkyPilot" not in o.source:
                raise AssertionError(f"source neither reference nor marked estimate: {o}")

    def test_fabrics(self) -> None:
        fabric = {o.instance_type: o.interconnect for o in self.offers()}
        assert {t: fabric[t] for t in self.fabrics} == self.fabrics


class TestAws(CatalogInvariants):
    cloud = "aws"
    families = ("g4dn.", "g5.", "g6.", "g6e.", "p3.", "p4d.", "p4de.", "p5.", "p5en.", "inf2.",
                "trn1.")
    fabrics = {"p4d.24xlarge": "efa", "p5.48xlarge": "efa", "trn1.32xlarge": "efa",
               "g5.xlarge": "ethernet", "inf2.xlarge": "ethernet"}
    min_regions = 3


class TestGcp(CatalogInvariants):
    cloud = "gcp"
    families = ("n1-standard-", "g2-standard-", "a2-highgpu-", "a2-ultragpu-", "a3-highgpu-",
                "a3-megagpu-", "a3-ultragpu-")
    fabrics = {"a3-highgpu-8g": "gpudirect-tcpx", "a3-megagpu-8g": "gpudirect-tcpx",
               "a2-highgpu-8g": "ethernet", "g2-standard-4": "ethernet"}

    def test_n1_carries_both_t4_and_v100(self) -> None:
        n1 = {(o.instance_type, o.accelerator) for o in self.offers()
              if o.region == "us-central1"}
        assert {("n1-standard-8", "T4"), ("n1-standard-8", "V100")} <= n1


class TestAzure(CatalogInvariants):
    cloud = "azure"
    families = ("Standard_NC4as_T4_v3", "Standard_NV36ads_A10_v5", "Standard_NC24ads_A100_v4",
                "Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4", "Standard_NC40ads_H100_v5",
                "Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5")
    fabrics = {"Standard_ND96asr_v4": "infiniband", "Standard_ND96isr_H100_v5": "infiniband",
               "Standard_NC4as_T4_v3": "ethernet"}
