"""``infra-gen catalog refresh``: fetch current prices from a provider's public price API.

The refresh re-prices the instance types the base catalog already describes (their hardware
shape is not in the price APIs) in the requested regions, and writes an overlay catalog
(``# extends: builtin``) atomically: fetch everything, build and validate the new file, then
``os.replace`` it; any failure (network, HTTP error, no prices, Ctrl-C) leaves the old file as
it was. HTTP: httpx with connect/read timeouts, 4 attempts with exponential back-off on
transport errors, 429 and 5xx. Parsing is in ``refresh_parsers.py`` (pure, tested offline).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

from infra_gen.catalog.curated import RESERVED_FACTOR
from infra_gen.catalog.models import Catalog, Offer
from infra_gen.catalog.refresh_parsers import (
    PriceUpdate,
    azure_updates,
    gcp_family,
    gcp_instance_price,
    parse_aws_offer_file,
    parse_azure_page,
    parse_gcp_page,
)
from infra_gen.catalog.store import render_offers_csv, write_catalog_atomic
from infra_gen.errors import CatalogError

AWS_OFFER_URL = ("https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/"
                 "{region}/index.json")
AZURE_URL = "https://prices.azure.com/api/retail/prices"
GCP_URL = "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus"
TIMEOUT = httpx.Timeout(60.0, connect=10.0)
ATTEMPTS = 4


@dataclass
class Fetcher:
    """GETs JSON with retries; ``sleep`` and ``client`` are injectable for offline tests."""

    client: httpx.Client
    sleep: Callable[[float], None] = time.sleep
    on_page: Callable[[], None] = field(default=lambda: None)

    def get_json(self, url: str, params: dict[str, str] | None = None) -> Any:
        for attempt in range(ATTEMPTS):
            try:
                response = self.client.get(url, params=params)
                if response.status_code == 429 or response.status_code >= 500:
                    raise httpx.HTTPStatusError("retryable", request=response.request,
                                                response=response)
                response.raise_for_status()
                self.on_page()
                return response.json()
            except (httpx.TransportError, httpx.HTTPStatusError, ValueError) as err:
                retryable = not isinstance(err, httpx.HTTPStatusError) or (
                    err.response.status_code == 429 or err.response.status_code >= 500)
                if attempt == ATTEMPTS - 1 or not retryable or isinstance(err, ValueError):
                    raise CatalogError(f"refresh: GET {url} failed: {_reason(err)}; "
                                       "the old catalog is untouched") from err
                self.sleep(2.0 ** attempt)
        raise AssertionError("unreachable")


def _reason(err: Exception) -> str:
    if isinstance(err, httpx.HTTPStatusError):
        return f"HTTP {err.response.status_code}"
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def _aws(fetch: Fetcher, regions: list[str], types: set[str]
         ) -> dict[tuple[str, str], PriceUpdate]:
    out = {}
    for region in regions:
        data = fetch.get_json(AWS_OFFER_URL.format(region=region))
        out.update({(region, t): u for t, u in parse_aws_offer_file(data, types).items()})
    return out


def _azure(fetch: Fetcher, regions: list[str], types: set[str]
           ) -> dict[tuple[str, str], PriceUpdate]:
    found: dict[tuple[str, str], dict[str, float]] = {}
    for region in regions:
        query = f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}'"
        url: str | None = AZURE_URL
        params: dict[str, str] | None = {"$filter": query, "currencyCode": "USD"}
        while url:
            page, url = parse_azure_page(fetch.get_json(url, params), types)
            params = None  # NextPageLink already carries the query
            for key, kinds in page.items():
                found.setdefault(key, {}).update(kinds)
    return azure_updates(found)


def _gcp_components(fetch: Fetcher, api_key: str) -> dict[tuple[str, str, str], float]:
    components: dict[tuple[str, str, str], float] = {}
    token: str | None = ""
    while token is not None:
        params = {"key": api_key, "pageSize": "5000", "currencyCode": "USD"}
        if token:
            params["pageToken"] = token
        page, token = parse_gcp_page(fetch.get_json(GCP_URL, params))
        components.update(page)
    return components


def _gcp(fetch: Fetcher, regions: list[str], templates: list[Offer], api_key: str
         ) -> dict[tuple[str, str, str], PriceUpdate]:
    comps = _gcp_components(fetch, api_key)
    out = {}
    for region in regions:
        for t in templates:
            shape = (gcp_family(t.instance_type), t.accelerator, t.accelerators, t.vcpus,
                     t.memory_gib)
            prices = [gcp_instance_price(comps, region, kind, shape)
                      for kind in ("on_demand", "spot", "reserved_1y", "reserved_3y")]
            out[(region, t.instance_type, t.accelerator)] = PriceUpdate(*prices)
    return out


@dataclass(frozen=True)
class RefreshResult:
    offers: list[Offer]
    unpriced: int


def build_offers(cloud: str, base: Catalog, regions: list[str],
                 updates: Callable[[str, Offer], PriceUpdate | None], source: str,
                 today: dt.date) -> RefreshResult:
    """Base shapes x regions, re-priced. Rows without an on-demand price are dropped."""
    templates = _templates(base, cloud)
    old = {(o.region, o.instance_type, o.accelerator): o for o in base.offers if o.cloud == cloud}
    offers, unpriced = [], 0
    for region in regions:
        for t in templates:
            update = updates(region, t)
            if update is None or update.on_demand is None:
                unpriced += 1
                continue
            previous = old.get((region, t.instance_type, t.accelerator))
            offers.append(_priced(t, region, update, previous, source, today))
    return RefreshResult(offers, unpriced)


def _templates(base: Catalog, cloud: str) -> list[Offer]:
    seen: dict[tuple[str, str, int], Offer] = {}
    for o in base.offers:
        if o.cloud == cloud:
            seen.setdefault((o.instance_type, o.accelerator, o.accelerators), o)
    return [seen[k] for k in sorted(seen)]


def _priced(t: Offer, region: str, u: PriceUpdate, previous: Offer | None, source: str,
            today: dt.date) -> Offer:
    od = u.on_demand or 0.0
    spot, note = _capped(u.spot, od), source
    if spot is None and previous is not None and t.cloud == "aws":
        spot = _capped(previous.spot_usd_hr, od)
        note += f"; spot kept from previous catalog ({previous.as_of})" if spot else ""
    r1, r3 = _capped(u.reserved_1y, od), _capped(u.reserved_3y, od)
    estimated = r1 is None or r3 is None
    if estimated:
        f1, f3 = RESERVED_FACTOR[t.cloud]
        r1, r3 = r1 or round(od * f1, 4), r3 or round(od * f3, 4)
        note += "; reserved partly estimated from the documented per-cloud discount"
    return replace(t, region=region, on_demand_usd_hr=od, spot_usd_hr=spot,
                   reserved_1y_usd_hr=r1, reserved_3y_usd_hr=r3, reserved_estimated=estimated,
                   spot_interruption=None, source=note, as_of=today)


def _capped(value: float | None, on_demand: float) -> float | None:
    return value if value is not None and 0 < value <= on_demand else None


def run_refresh(cloud: str, regions: list[str] | None, base: Catalog, out: Path,
                fetch: Fetcher, today: dt.date) -> RefreshResult:
    """Fetch, re-price and write ``out`` atomically; raises CatalogError on any failure."""
    regions = sorted(regions or {o.region for o in base.offers if o.cloud == cloud})
    templates = _templates(base, cloud)
    types = {t.instance_type for t in templates}
    if cloud == "aws":
        aws = _aws(fetch, regions, types)
        result = build_offers(cloud, base, regions, lambda r, t: aws.get((r, t.instance_type)),
                              f"AWS Price List bulk offer file, fetched {today}", today)
    elif cloud == "azure":
        az = _azure(fetch, regions, types)
        result = build_offers(cloud, base, regions, lambda r, t: az.get((r, t.instance_type)),
                              f"Azure Retail Prices API, fetched {today}", today)
    else:
        key = os.environ.get("GOOGLE_API_KEY", "")
        if not key:
            raise CatalogError("refresh --cloud gcp: set GOOGLE_API_KEY to a Google Cloud API "
                               "key (Cloud Billing API enabled)")
        gcp = _gcp(fetch, regions, templates, key)
        result = build_offers(cloud, base, regions,
                              lambda r, t: gcp.get((r, t.instance_type, t.accelerator)),
                              f"GCP Cloud Billing Catalog API, fetched {today}", today)
    if not result.offers:
        raise CatalogError(f"refresh --cloud {cloud}: no prices found for {', '.join(regions)}; "
                           "the old catalog is untouched")
    notes = [f"refreshed {cloud} {', '.join(regions)} on {today}; overlays the built-in catalog"]
    write_catalog_atomic(out, render_offers_csv(result.offers, as_of=today, notes=notes,
                                                extends=True))
    return result
