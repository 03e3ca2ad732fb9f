"""Import a SkyPilot catalog CSV (the community-maintained skypilot-catalog ``vms.csv`` files).

Columns read: InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, GpuInfo,
Price, SpotPrice, Region, AvailabilityZone. Rules:

- One SkyPilot row per availability zone becomes one offer per (region, instance type): the
  on-demand price is the zone minimum (zones normally agree), spot the CHEAPEST zone's price.
- AWS and Azure rows carry the instance type and its accelerators together; CPU-only rows are
  skipped. GCP prices host VMs and accelerators in separate rows: a GPU row (no InstanceType)
  is paired with its host machine type in the same zone and the two prices are SUMMED. Hosts:
  A100 -> a2-highgpu-Ng, A100-80GB -> a2-ultragpu-Ng, H100 -> a3-highgpu-8g, H100-MEGA ->
  a3-megagpu-8g, H200 -> a3-ultragpu-8g, L4 -> g2-standard-{4,24,48,96} for 1/2/4/8 GPUs, and
  N1-attached GPUs (T4, V100, P100, P4) -> n1-standard-(8 x count), SkyPilot's default ratio.
- Accelerators we do not know are skipped and counted; reserved prices use the documented
  per-cloud discounts of ``curated.RESERVED_FACTOR`` (flagged estimated); interconnect comes
  from the built-in catalog's row for the same instance type, else plain ethernet.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import cast

from infra_gen.catalog.curated import RESERVED_FACTOR
from infra_gen.catalog.models import Catalog, Interconnect, Offer
from infra_gen.errors import CatalogError

COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB",
           "GpuInfo", "Price", "SpotPrice", "Region", "AvailabilityZone")
_N1_GPUS = {"T4", "V100", "P100", "P4"}
_G2_HOST = {1: "g2-standard-4", 2: "g2-standard-24", 4: "g2-standard-48", 8: "g2-standard-96"}


@dataclass(frozen=True)
class ImportResult:
    offers: list[Offer]
    skipped: dict[str, int]  # reason -> rows


def gcp_host_for(accelerator: str, count: int) -> str | None:
    """The GCP machine type a SkyPilot GPU row is priced with (see module docstring)."""
    name = accelerator.upper()
    if name == "A100":
        return f"a2-highgpu-{count}g"
    if name == "A100-80GB":
        return f"a2-ultragpu-{count}g"
    if name in ("H100", "H100-MEGA", "H200"):
        family = {"H100": "a3-highgpu", "H100-MEGA": "a3-megagpu", "H200": "a3-ultragpu"}[name]
        return f"{family}-{count}g" if count == 8 else None
    if name == "L4":
        return _G2_HOST.get(count)
    if name in _N1_GPUS:
        return f"n1-standard-{min(8 * count, 96)}"
    return None


def detect_cloud(rows: Iterable[Mapping[str, str]]) -> str:
    for row in rows:
        itype = row.get("InstanceType", "")
        if itype.startswith("Standard_"):
            return "azure"
        if "." in itype:
            return "aws"
        if itype:
            return "gcp"
    raise CatalogError("skypilot: cannot tell the cloud from the instance types; use --cloud")


def read_rows(text: str, path: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise CatalogError(f"{path}:1: error: header: expected SkyPilot columns "
                           f"{','.join(COLUMNS)}; missing {', '.join(missing)}")
    return list(reader)


def _price(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if value > 0 else None


def _gpu_memory_gib(info: str) -> float | None:
    """GpuInfo is a JSON-ish dict: {'Gpus': [{'MemoryInfo': {'SizeInMiB': 24576}, ...}]}."""
    try:
        data = json.loads(info.replace("'", '"'))
        gpus = data.get("Gpus") or [data]
        return float(gpus[0]["MemoryInfo"]["SizeInMiB"]) / 1024
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


@dataclass
class _Acc:
    """Prices seen for one (region, instance type, accelerator, count) across zones."""

    row: dict[str, str]
    on_demand: list[float]
    spot: list[float]


def _pair_gcp(rows: list[dict[str, str]]) -> tuple[list[dict[str, str]], int]:
    """GCP: one combined row (host + GPU prices summed) per GPU row whose host is in the zone."""
    hosts = {(r["AvailabilityZone"], r["InstanceType"]): r for r in rows if r["InstanceType"]}
    combined, unpaired = [], 0
    for gpu in (r for r in rows if not r["InstanceType"] and r["AcceleratorName"]):
        host_type = gcp_host_for(gpu["AcceleratorName"], int(float(gpu["AcceleratorCount"])))
        host = hosts.get((gpu["AvailabilityZone"], host_type or ""))
        price, host_price = _price(gpu["Price"]), _price(host["Price"]) if host else None
        if host is None or price is None or host_price is None:
            unpaired += 1
            continue
        spot, host_spot = _price(gpu["SpotPrice"]), _price(host["SpotPrice"])
        both = spot is not None and host_spot is not None
        combined.append({**host, "AcceleratorName": gpu["AcceleratorName"],
                         "AcceleratorCount": gpu["AcceleratorCount"], "GpuInfo": gpu["GpuInfo"],
                         "Price": str(price + host_price),
                         "SpotPrice": str((spot or 0) + (host_spot or 0)) if both else ""})
    return combined, unpaired


def convert(rows: list[dict[str, str]], cloud: str, builtin: Catalog,
            canonical: Callable[[str], str | None], source: str, as_of: dt.date) -> ImportResult:
    """SkyPilot rows -> our offers (pure; see the module docstring for every rule)."""
    skipped: dict[str, int] = {}
    if cloud == "gcp":
        rows, unpaired = _pair_gcp(rows)
        if unpaired:
            skipped["GPU rows without a host machine in the zone"] = unpaired
    groups: dict[tuple[str, str, str, int], _Acc] = {}
    for row in rows:
        name = (row.get("AcceleratorName") or "").strip()
        od = _price(row.get("Price"))
        if not name or not row.get("InstanceType") or od is None:
            skipped["CPU-only or unpriced rows"] = skipped.get("CPU-only or unpriced rows", 0) + 1
            continue
        accel = canonical(name)
        if accel is None:
            key = f"unknown accelerator {name}"
            skipped[key] = skipped.get(key, 0) + 1
            continue
        count = int(float(row["AcceleratorCount"]))
        acc = groups.setdefault((row["Region"], row["InstanceType"], accel, count),
                                _Acc(row, [], []))
        acc.on_demand.append(od)
        spot = _price(row.get("SpotPrice"))
        if spot is not None and spot <= od:
            acc.spot.append(spot)
    offers = [_offer(cloud, key, acc, builtin, source, as_of) for key, acc in groups.items()]
    return ImportResult(offers, skipped)


def _offer(cloud: str, key: tuple[str, str, str, int], acc: _Acc, builtin: Catalog,
           source: str, as_of: dt.date) -> Offer:
    region, itype, accel, count = key
    known = next((o for o in builtin.offers if (o.cloud, o.instance_type, o.accelerator) ==
                  (cloud, itype, accel)), None)
    od = min(acc.on_demand)
    f1, f3 = RESERVED_FACTOR[cloud]
    memory = _gpu_memory_gib(acc.row.get("GpuInfo") or "")
    return Offer(
        cloud=cloud, region=region, instance_type=itype, accelerator=accel, accelerators=count,
        accelerator_memory_gib=memory or builtin.accelerators[accel].memory_gib,
        vcpus=max(1, int(float(acc.row["vCPUs"] or 1))),
        memory_gib=float(acc.row["MemoryGiB"] or 1),
        local_disk_gb=known.local_disk_gb if known else None,
        interconnect=cast(Interconnect, known.interconnect if known else "ethernet"),
        on_demand_usd_hr=round(od, 6), spot_usd_hr=round(min(acc.spot), 6) if acc.spot else None,
        reserved_1y_usd_hr=round(od * f1, 4), reserved_3y_usd_hr=round(od * f3, 4),
        reserved_estimated=True, spot_interruption=None,
        source=source + "; reserved = documented per-cloud discount (estimated)", as_of=as_of,
    )
