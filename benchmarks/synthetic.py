"""Synthetic inputs for the benchmarks: big catalogs and many workload files.

Catalogs are the built-in offers (real shapes, real accelerators) copied into made-up regions
with prices scaled by a fixed pseudo-random factor between 0.90 and 1.09, so the optimizer sees
the same kinds of offers it sees in practice, just more of them, and no two copies tie. Nothing
here is random at run time: the same size gives the same catalog, so runs are comparable.

Workload files cycle through the example workloads in stacks/ with distinct names and one cloud
each (aws, gcp, azure in turn), so ``check`` over the directory renders on all three clouds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from infra_gen.catalog.load import load_catalog
from infra_gen.catalog.models import Catalog, Offer

ROOT = Path(__file__).resolve().parent.parent
STACKS = ROOT / "stacks"
CLOUDS = ("aws", "gcp", "azure")


def example_workloads() -> list[Path]:
    """The example workload files (stacks/Pulumi.*.yaml are stack configs, not workloads)."""
    return sorted(p for p in STACKS.glob("*.yaml") if not p.name.startswith("Pulumi."))


def _scaled(price: float | None, factor: float) -> float | None:
    return None if price is None else round(price * factor, 4)


def _copy(offer: Offer, copy: int) -> Offer:
    # 9973 is prime, so factors cycle through 0.900..1.099 without lining up with the offers.
    factor = 0.9 + ((copy * 9973) % 200) / 1000
    return dataclasses.replace(
        offer, region=f"{offer.region}-syn{copy}",
        on_demand_usd_hr=_scaled(offer.on_demand_usd_hr, factor) or offer.on_demand_usd_hr,
        spot_usd_hr=_scaled(offer.spot_usd_hr, factor),
        reserved_1y_usd_hr=_scaled(offer.reserved_1y_usd_hr, factor),
        reserved_3y_usd_hr=_scaled(offer.reserved_3y_usd_hr, factor),
    )


def synthetic_catalog(size: int) -> Catalog:
    """Exactly ``size`` offers: the built-in ones first, then scaled copies in new regions."""
    base = load_catalog()
    offers: list[Offer] = []
    copy = 0
    while len(offers) < size:
        batch = base.offers if copy == 0 else tuple(_copy(o, copy) for o in base.offers)
        offers.extend(batch[: size - len(offers)])
        copy += 1
    return dataclasses.replace(base, offers=tuple(offers), source=f"synthetic-{size}")


def write_catalog_csv(catalog: Catalog, path: Path) -> Path:
    """The catalog as a user catalog file (the published CSV format), for ``--catalog``."""
    from infra_gen.catalog.store import render_offers_csv

    path.write_text(render_offers_csv(catalog.offers, as_of=catalog.as_of), "utf-8")
    return path


def write_workload_files(directory: Path, count: int) -> list[Path]:
    """``count`` workload files cycling through the examples, each pinned to one cloud."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    examples = example_workloads()
    written: list[Path] = []
    for index in range(count):
        source = examples[index % len(examples)]
        document = yaml.load(source.read_text("utf-8"))
        cloud = CLOUDS[index % len(CLOUDS)]
        document["name"] = f"{str(document['name'])[:30]}-{index:03d}"
        placement = document.setdefault("placement", {})
        placement["clouds"] = [cloud]
        placement.pop("regions", None)
        placement.pop("instance_type", None)
        target = directory / f"{index:03d}-{cloud}-{source.name}"
        with target.open("w", encoding="utf-8") as handle:
            yaml.dump(document, handle)
        written.append(target)
    return written
