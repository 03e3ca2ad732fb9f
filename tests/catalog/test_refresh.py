"""Refresh from the public price APIs, offline: recorded-format fixtures via MockTransport."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from infra_gen.catalog import load_catalog
from infra_gen.catalog.load import BUILTIN_OFFERS
from infra_gen.catalog.refresh import Fetcher, run_refresh
from infra_gen.catalog.refresh_parsers import parse_aws_offer_file
from infra_gen.catalog.store import write_catalog_atomic
from infra_gen.errors import CatalogError

FIXTURES = Path(__file__).parent / "fixtures"
TODAY = dt.date(2026, 11, 20)


def _fixture(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((FIXTURES / name).read_text("utf-8"))  # type: ignore[no-any-return]


def _fetcher(handler: Callable[[httpx.Request], httpx.Response],
             sleeps: list[float] | None = None) -> Fetcher:
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return Fetcher(client, sleep=(sleeps.append if sleeps is not None else lambda s: None))


def _by_type(path: Path, region: str) -> dict[str, object]:
    return {o.instance_type: o for o in load_catalog(path).offers
            if o.region == region and o.source.startswith(("AWS Price", "Azure Retail", "GCP"))}


def test_aws_offer_file_parser() -> None:
    prices = parse_aws_offer_file(_fixture("aws_offer_us-east-1.json"),
                                  {"g5.xlarge", "p5.48xlarge"})
    g5 = prices["g5.xlarge"]
    # Linux only (Windows SKU2 at 1.19 ignored); 3y partial upfront: 0.20/h + 5256/26280 h = 0.40.
    assert (g5.on_demand, g5.reserved_1y, g5.reserved_3y) == (1.006, 0.634, 0.4)
    assert prices["p5.48xlarge"].on_demand == 55.04 and prices["p5.48xlarge"].reserved_1y is None


def test_aws_refresh_keeps_previous_spot(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/AmazonEC2/current/us-east-1/index.json")
        return httpx.Response(200, json=_fixture("aws_offer_us-east-1.json"))

    out = tmp_path / "aws.csv"
    result = run_refresh("aws", ["us-east-1"], load_catalog(), out, _fetcher(handler), TODAY)
    assert {o.instance_type for o in result.offers} == {"g5.xlarge", "p5.48xlarge"}
    g5 = {o.instance_type: o for o in load_catalog(out).offers if o.region == "us-east-1"}[
        "g5.xlarge"]
    assert (g5.on_demand_usd_hr, g5.spot_usd_hr, g5.as_of) == (1.006, 0.397, TODAY)
    assert "spot kept from previous catalog" in g5.source and not g5.reserved_estimated


def test_azure_paging_spot_and_reservation_terms(tmp_path: Path) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        page = "azure_page2.json" if "skip" in str(request.url) else "azure_page1.json"
        return httpx.Response(200, json=_fixture(page))

    out = tmp_path / "azure.csv"
    run_refresh("azure", ["eastus"], load_catalog(), out, _fetcher(handler), TODAY)
    assert "armRegionName+eq+%27eastus%27" in seen[0] and "skip=1000" in seen[1]
    t4 = _by_type(out, "eastus")["Standard_NC4as_T4_v3"]
    # 1y: 2891.64 / 8760 h = 0.3301; 3y: 5575.32 / 26280 h = 0.21215 -> 0.2122 (4 dp).
    assert (t4.on_demand_usd_hr, t4.spot_usd_hr, t4.reserved_1y_usd_hr,  # type: ignore[attr-defined]
            t4.reserved_3y_usd_hr) == (0.526, 0.0526, 0.3301, 0.2122)  # type: ignore[attr-defined]


def test_gcp_components_summed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.params["key"] == "test-key"
        token = request.url.params.get("pageToken")
        return httpx.Response(200, json=_fixture(
            "gcp_skus_page2.json" if token == "page-2" else "gcp_skus_page1.json"))

    out = tmp_path / "gcp.csv"
    run_refresh("gcp", ["us-central1"], load_catalog(), out, _fetcher(handler), TODAY)
    n1 = [o for o in load_catalog(out).offers if o.source.startswith("GCP")
          and (o.instance_type, o.accelerator) == ("n1-standard-8", "T4")][0]
    # 8 x 0.031611 + 30 GiB x 0.004237 + 1 x 0.35 = 0.729998 (the REF figure was 0.73);
    # spot: 8 x 0.006655 + 30 x 0.000892 + 0.14 = 0.22.
    assert (n1.on_demand_usd_hr, n1.spot_usd_hr) == (0.729998, 0.22)
    assert n1.reserved_estimated  # no Commit1Yr/3Yr SKUs in the fixture


def test_retries_then_succeeds(tmp_path: Path) -> None:
    calls: list[int] = []
    sleeps: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            return httpx.Response(503)
        return httpx.Response(200, json=_fixture("aws_offer_us-east-1.json"))

    run_refresh("aws", ["us-east-1"], load_catalog(), tmp_path / "a.csv",
                _fetcher(handler, sleeps), TODAY)
    assert sleeps == [1.0, 2.0]


def test_failed_refresh_leaves_old_catalog_intact(tmp_path: Path) -> None:
    out = tmp_path / "aws.csv"
    out.write_text("OLD CATALOG\n", "utf-8")

    def broken(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("network down", request=request)

    with pytest.raises(CatalogError, match="failed: ConnectError: network down; the old"):
        run_refresh("aws", ["us-east-1"], load_catalog(), out, _fetcher(broken), TODAY)
    with pytest.raises(CatalogError, match="HTTP 403"):
        run_refresh("aws", ["us-east-1"], load_catalog(), out,
                    _fetcher(lambda r: httpx.Response(403)), TODAY)
    assert out.read_text("utf-8") == "OLD CATALOG\n"
    assert [p.name for p in tmp_path.iterdir()] == ["aws.csv"]  # no temp files left


def test_invalid_or_interrupted_write_keeps_old_file(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "c.csv"
    out.write_text("OLD\n", "utf-8")
    with pytest.raises(CatalogError, match="header"):
        write_catalog_atomic(out, "not,a,catalog\n")

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("infra_gen.catalog.store.os.replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_catalog_atomic(out, BUILTIN_OFFERS.read_text("utf-8"))
    assert out.read_text("utf-8") == "OLD\n"
    assert [p.name for p in tmp_path.iterdir()] == ["c.csv"]


def test_gcp_needs_api_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(CatalogError, match="set GOOGLE_API_KEY"):
        run_refresh("gcp", None, load_catalog(), tmp_path / "g.csv",
                    _fetcher(lambda r: httpx.Response(500)), TODAY)
