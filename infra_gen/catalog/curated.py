"""The hand-curated inputs of the built-in catalog, and the generator of ``data/offers.csv``.

Regenerate with ``python -m infra_gen.catalog.curated > infra_gen/catalog/data/offers.csv``;
a test checks the shipped file equals this output, so every figure in the CSV traces to a line
here with its source. Nothing here runs at plan time (the loader reads only the CSV).

Where the figures come from (the ``source`` cell of each row names one of these):

- ``REF``: /work/shared/reference/gpu-prices.csv, the public SkyPilot catalog CSVs (AWS v7,
  GCP v7, Azure v6 snapshots) read in 2026 and copied here 2026-11-21 (exact snapshot day not
  recorded, so ``as_of`` is the copy date). Spot = cheapest zone in the region at snapshot time.
  GCP figures are host + attached accelerators. AWS P4/P5 figures PREDATE AWS's mid-2025 P4/P5
  price cut (announced June 2025, "up to 45%"), so they overstate current on-demand prices.
- ``LIST``: from the provider's public on-demand list price as known in 2024-2025; not verified
  against the live price list (``as_of`` 2025-01-01). GCP N1 rows are composed from the list
  component prices (n1 vCPU $0.031611/h, RAM $0.004237/GiB-h, T4 $0.35/h, V100 $2.48/h in
  us-central1), which reproduce the REF n1-standard-8 + T4 figure ($0.73) to 4 decimals.
- Region and spot derivations are written out on each row (ratio and the rows it comes from).

Reserved / committed prices: AWS p5.48xlarge uses the effective rates quoted in seed 002
($12.29 on-demand, $8.05 1y no-upfront, $5.25 3y partial-upfront per GPU-hour). Every other
row applies a documented discount per cloud and term and sets ``reserved_estimated``.
Spot interruption classes are left empty: no dated Spot Advisor figures were available.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import sys
from dataclasses import dataclass

REF_AS_OF = dt.date(2026, 11, 21)
LIST_AS_OF = dt.date(2025, 1, 1)
REF = "SkyPilot catalog snapshot read 2026 (reference/gpu-prices.csv)"
REF_PRECUT = REF + "; AWS list price before the mid-2025 P4/P5 price cut"
LIST = "estimate from {cloud} public on-demand list price, 2024-2025; not verified"

# Reserved discounts off on-demand, per cloud and term, where no published rate is recorded.
# AWS: the p5.48xlarge ratios of seed 002 (8.05/12.29 and 5.25/12.29 per GPU-hour).
# GCP: resource-based committed use discount rates for GPUs, 37% (1y) and 55% (3y), applied to
#      the whole instance (Compute Engine CUD documentation, as known in 2024-2025).
# Azure: midpoints of the 1y 30-40% / 3y 50-60% reserved VM discounts in seeds 001/002/004.
RESERVED_FACTOR = {
    "aws": (8.05 / 12.29, 5.25 / 12.29),
    "gcp": (1 - 0.37, 1 - 0.55),
    "azure": (1 - 0.35, 1 - 0.55),
}
# Published effective rates (USD per instance-hour): seed 002, p5.48xlarge = 8 x per-GPU rate.
PUBLISHED_RESERVED = {("aws", "p5.48xlarge"): (8 * 8.05, 8 * 5.25)}

# Europe-west AWS rows: us-east-1 price x 1.123/1.006, the g5.xlarge eu-west-1 / us-east-1 list
# price ratio (both AWS public list prices, 2024-2025; not verified).
AWS_EU_FACTOR = 1.123 / 1.006
# GCP a3-highgpu-8g us-central1: REF europe-west4 price / (a3-megagpu europe-west4 / us-central1
# REF ratio 117.51354 / 92.21427), i.e. assumes the same regional uplift for both A3 shapes.
A3_EU_UPLIFT = 117.51354 / 92.21427


@dataclass(frozen=True)
class Shape:
    """Hardware of one instance type (memory per accelerator, in GiB)."""

    family: str
    accelerator: str
    accelerators: int
    accelerator_memory_gib: float
    vcpus: int
    memory_gib: float
    local_disk_gb: float | None
    interconnect: str


def _shapes() -> dict[tuple[str, str, str], Shape]:
    from infra_gen.catalog.curated_shapes import SHAPES

    return {(c, t, s.accelerator): s for c, t, s in SHAPES}


@dataclass(frozen=True)
class Price:
    cloud: str
    region: str
    instance_type: str
    accelerator: str
    on_demand: float
    spot: float | None
    source: str
    as_of: dt.date


def _prices() -> list[Price]:
    from infra_gen.catalog.curated_prices import PRICES

    return [Price(*row) for row in PRICES]


def _spot_ratios(prices: list[Price], shapes: dict[tuple[str, str, str], Shape]
                 ) -> dict[tuple[str, str, str], tuple[float, str]]:
    """Per (cloud, region, family): spot/on-demand of the REF row with a spot price."""
    ratios: dict[tuple[str, str, str], tuple[float, str]] = {}
    for p in prices:
        if p.spot is not None and p.source.startswith(REF):
            family = shapes[(p.cloud, p.instance_type, p.accelerator)].family
            ratios.setdefault((p.cloud, p.region, family), (p.spot / p.on_demand, p.instance_type))
    return ratios


def _row(p: Price, shape: Shape, spot_ratio: tuple[float, str] | None) -> list[str]:
    source, spot = p.source, p.spot
    if spot is None and spot_ratio is not None and not p.source.startswith(REF):
        ratio, sibling = spot_ratio
        spot = round(p.on_demand * ratio, 4)
        source += f"; spot estimated at {sibling}'s REF spot/on-demand ratio {ratio:.4f}"
    published = PUBLISHED_RESERVED.get((p.cloud, p.instance_type))
    if published:
        r1, r3 = published
        source += "; reserved 1y/3y = seed 002 effective rates ($8.05/$5.25 per GPU-h)"
    else:
        f1, f3 = RESERVED_FACTOR[p.cloud]
        r1, r3 = round(p.on_demand * f1, 4), round(p.on_demand * f3, 4)
    return [
        p.cloud, p.region, p.instance_type, shape.accelerator, str(shape.accelerators),
        _fmt(shape.accelerator_memory_gib), str(shape.vcpus), _fmt(shape.memory_gib),
        _fmt(shape.local_disk_gb), shape.interconnect, _fmt(p.on_demand), _fmt(spot),
        _fmt(r1), _fmt(r3), "false" if published else "true", "", source, p.as_of.isoformat(),
    ]


def _fmt(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else repr(round(float(value), 6))


def render() -> str:
    """The built-in offers CSV, deterministic (sorted by the loader's offer key)."""
    from infra_gen.catalog.schema import OFFER_COLUMNS, OFFERS_FORMAT

    shapes, prices = _shapes(), _prices()
    ratios = _spot_ratios(prices, shapes)
    rows = []
    for p in prices:
        shape = shapes[(p.cloud, p.instance_type, p.accelerator)]
        rows.append(_row(p, shape, ratios.get((p.cloud, p.region, shape.family))))
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[3], int(r[4])))
    out = io.StringIO()
    out.write(f"# format: {OFFERS_FORMAT}\n")
    out.write("# Built-in catalog: see infra_gen/catalog/curated.py for every source and "
              "assumption. Prices: USD per instance-hour, Linux.\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(OFFER_COLUMNS)
    writer.writerows(rows)
    return out.getvalue()


if __name__ == "__main__":
    sys.stdout.write(render())
