"""Pure parsers of the three public price APIs -> ``PriceUpdate`` per (region, instance type).

No I/O here (the fetching is in ``refresh.py``), so each parser is tested on small recorded-
format JSON fixtures. Prices are USD per instance-hour, Linux, shared tenancy.

- AWS Price List bulk offer file (``offers/v1.0/aws/AmazonEC2/current/<region>/index.json``):
  ``products`` filtered to Linux / Shared / no pre-installed software / capacitystatus Used;
  on-demand from ``terms.OnDemand``; reserved from ``terms.Reserved`` standard offerings: 1y No
  Upfront hourly, 3y Partial Upfront effective = hourly + upfront / 26,280 h (the purchase
  options seed 002 quotes). Spot prices are NOT in the price list (they come from the
  credentialed DescribeSpotPriceHistory API), so an AWS refresh keeps the previous spot figure.
- Azure Retail Prices API (``prices.azure.com/api/retail/prices``, OData ``$filter``,
  ``NextPageLink`` paging): Consumption items are on-demand, "... Spot" SKUs are spot, Windows
  and Low Priority items are skipped; Reservation items carry the whole term's price, so
  hourly = retailPrice / (8,760 x years).
- GCP Cloud Billing Catalog (``services/6F81-5844-456A/skus``, ``nextPageToken``): prices are
  per component, so an instance = vCPUs x core price + GiB x RAM price + GPUs x GPU price of the
  machine family, per region and usage type (OnDemand, Preemptible = spot, Commit1Yr/3Yr).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

HOURS_PER_YEAR = 8760  # 365 x 24, the divisor the providers use for term prices


@dataclass(frozen=True)
class PriceUpdate:
    """Fresh prices for one offer; None = the API had no figure (keep or leave empty)."""

    on_demand: float | None = None
    spot: float | None = None
    reserved_1y: float | None = None
    reserved_3y: float | None = None


# --- AWS -----------------------------------------------------------------------------------

def _aws_usd(term: Mapping[str, Any], unit: str) -> float:
    return sum(float(d["pricePerUnit"]["USD"]) for d in term["priceDimensions"].values()
               if d.get("unit") == unit)


def _aws_linux_skus(products: Mapping[str, Any], wanted: set[str]) -> dict[str, str]:
    skus = {}
    for sku, product in products.items():
        a = product.get("attributes", {})
        if (a.get("instanceType") in wanted and a.get("operatingSystem") == "Linux"
                and a.get("tenancy") == "Shared" and a.get("preInstalledSw") == "NA"
                and a.get("capacitystatus", "Used") == "Used"):
            skus[sku] = a["instanceType"]
    return skus


def parse_aws_offer_file(data: Mapping[str, Any], wanted: set[str]) -> dict[str, PriceUpdate]:
    """One region's AmazonEC2 bulk offer file -> {instance type: PriceUpdate}."""
    skus = _aws_linux_skus(data.get("products", {}), wanted)
    terms = data.get("terms", {})
    out: dict[str, PriceUpdate] = {}
    for sku, itype in sorted(skus.items()):
        on_demand = [_aws_usd(t, "Hrs") for t in terms.get("OnDemand", {}).get(sku, {}).values()]
        r1 = r3 = None
        for term in terms.get("Reserved", {}).get(sku, {}).values():
            attrs = term.get("termAttributes", {})
            if attrs.get("OfferingClass") != "standard":
                continue
            if attrs.get("LeaseContractLength") == "1yr" and attrs.get("PurchaseOption") == \
                    "No Upfront":
                r1 = _aws_usd(term, "Hrs")
            if attrs.get("LeaseContractLength") == "3yr" and attrs.get("PurchaseOption") == \
                    "Partial Upfront":
                r3 = _aws_usd(term, "Hrs") + _aws_usd(term, "Quantity") / (3 * HOURS_PER_YEAR)
        if on_demand and max(on_demand) > 0:
            out[itype] = PriceUpdate(max(on_demand), None, _round(r1), _round(r3))
    return out


# --- Azure ---------------------------------------------------------------------------------

def parse_azure_page(data: Mapping[str, Any], wanted: set[str]
                     ) -> tuple[dict[tuple[str, str], dict[str, float]], str | None]:
    """One Retail Prices API page -> ({(region, sku): {kind: USD/h}}, NextPageLink)."""
    found: dict[tuple[str, str], dict[str, float]] = {}
    for item in data.get("Items", []):
        sku, kind = item.get("armSkuName", ""), _azure_kind(item)
        if sku not in wanted or kind is None or item.get("currencyCode", "USD") != "USD":
            continue
        price = float(item.get("retailPrice", 0))
        if kind.startswith("reserved"):
            years = 1 if kind == "reserved_1y" else 3
            price = price / (HOURS_PER_YEAR * years)
        if price > 0:
            found.setdefault((item.get("armRegionName", ""), sku), {})[kind] = price
    return found, data.get("NextPageLink") or None


def _azure_kind(item: Mapping[str, Any]) -> str | None:
    name = f"{item.get('skuName', '')} {item.get('meterName', '')}"
    if "Windows" in item.get("productName", "") or "Low Priority" in name:
        return None
    if item.get("unitOfMeasure") != "1 Hour":
        return None
    if item.get("type") == "Reservation":
        return {"1 Year": "reserved_1y", "3 Years": "reserved_3y"}.get(
            item.get("reservationTerm", ""))
    if item.get("type") == "Consumption":
        return "spot" if "Spot" in name else "on_demand"
    return None


def azure_updates(found: Mapping[tuple[str, str], Mapping[str, float]]
                  ) -> dict[tuple[str, str], PriceUpdate]:
    return {key: PriceUpdate(p.get("on_demand"), p.get("spot"), _round(p.get("reserved_1y")),
                             _round(p.get("reserved_3y"))) for key, p in found.items()}


# --- GCP -----------------------------------------------------------------------------------

# Machine family -> SKU description prefix of its core and RAM SKUs (Compute Engine SKU names).
GCP_FAMILY_SKU = {"n1": "N1 Predefined Instance", "g2": "G2 Instance", "a2": "A2 Instance",
                  "a3-highgpu": "A3 Instance", "a3-megagpu": "A3 Mega Instance",
                  "a3-ultragpu": "A3 Ultra Instance"}
# Canonical accelerator -> GPU SKU description (before " running in ...").
GCP_GPU_SKU = {"T4": "Nvidia Tesla T4 GPU", "V100": "Nvidia Tesla V100 GPU",
               "L4": "Nvidia L4 GPU", "A100-40GB": "Nvidia Tesla A100 GPU",
               "A100-80GB": "Nvidia Tesla A100 80GB GPU", "H100": "Nvidia H100 80GB GPU",
               "H200": "Nvidia H200 141GB GPU"}
_USAGE = {"OnDemand": "on_demand", "Preemptible": "spot", "Commit1Yr": "reserved_1y",
          "Commit3Yr": "reserved_3y"}


def _unit_price(sku: Mapping[str, Any]) -> float:
    rates = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"]
    money = rates[-1]["unitPrice"]
    return int(money.get("units", "0")) + money.get("nanos", 0) / 1e9


def parse_gcp_page(data: Mapping[str, Any]
                   ) -> tuple[dict[tuple[str, str, str], float], str | None]:
    """One skus page -> ({(region, usage kind, component description): USD per unit}, token).

    Component descriptions are normalised: '<prefix> Core', '<prefix> Ram' or the GPU name."""
    found: dict[tuple[str, str, str], float] = {}
    for sku in data.get("skus", []):
        kind = _USAGE.get(sku.get("category", {}).get("usageType", ""))
        desc = re.sub(r" running in .*$", "", sku.get("description", ""))
        desc = re.sub(r"^(Spot Preemptible|Preemptible|Commitment v1:|Commitment:)\s*", "", desc)
        if kind is None or not sku.get("pricingInfo"):
            continue
        for region in sku.get("serviceRegions", []):
            found[(region, kind, desc.strip())] = _unit_price(sku)
    return found, data.get("nextPageToken") or None


def gcp_instance_price(components: Mapping[tuple[str, str, str], float], region: str,
                       kind: str, shape: tuple[str, str, int, int, float]) -> float | None:
    """vCPUs x core + GiB x RAM + GPUs x GPU for (family, accelerator, gpus, vcpus, ram)."""
    family, accel, gpus, vcpus, ram = shape
    prefix, gpu = GCP_FAMILY_SKU.get(family), GCP_GPU_SKU.get(accel)
    if prefix is None or gpu is None:
        return None
    parts = [components.get((region, kind, f"{prefix} Core")),
             components.get((region, kind, f"{prefix} Ram")), components.get((region, kind, gpu))]
    if any(p is None for p in parts):
        return None
    core, mem, per_gpu = (p or 0.0 for p in parts)
    return round(vcpus * core + ram * mem + gpus * per_gpu, 6)


def gcp_family(instance_type: str) -> str:
    """n1-standard-8 -> n1; a3-megagpu-8g -> a3-megagpu; g2-standard-4 -> g2."""
    head = instance_type.split("-")[0]
    return instance_type.rsplit("-", 1)[0] if head == "a3" else head


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def known_types(offers: Iterable[Any], cloud: str) -> set[str]:
    return {o.instance_type for o in offers if o.cloud == cloud}
