"""Loading, validation, replace/extend rules, aliases and staleness warnings."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from infra_gen.catalog import catalog_warnings, load_catalog, resolve_accelerator
from infra_gen.catalog.load import ENV_VAR
from infra_gen.errors import CatalogError
from tests.catalog.conftest import ROW, write_catalog


def _offer(catalog, cloud, region, instance_type):  # type: ignore[no-untyped-def]
    return next(o for o in catalog.offers
                if (o.cloud, o.region, o.instance_type) == (cloud, region, instance_type))


def test_known_rows_are_per_instance_hour() -> None:
    catalog = load_catalog()
    g5 = _offer(catalog, "aws", "us-east-1", "g5.xlarge")
    assert (g5.on_demand_usd_hr, g5.spot_usd_hr, g5.accelerators) == (1.006, 0.397, 1)
    p4d = _offer(catalog, "aws", "us-east-1", "p4d.24xlarge")
    # 8 x A100-40GB per instance; 32.7726 is the instance price (4.0966 per GPU-hour).
    assert (p4d.on_demand_usd_hr, p4d.accelerator, p4d.accelerators) == (32.7726, "A100-40GB", 8)
    assert p4d.interconnect == "efa"
    a3 = _offer(catalog, "gcp", "us-central1", "a3-megagpu-8g")  # source name was H100-MEGA
    assert (a3.accelerator, a3.on_demand_usd_hr, a3.interconnect) == (
        "H100", 92.21427, "gpudirect-tcpx")
    nd = _offer(catalog, "azure", "eastus", "Standard_ND96isr_H100_v5")
    assert (nd.on_demand_usd_hr, nd.spot_usd_hr, nd.interconnect) == (98.32, None, "infiniband")


def test_p5_reserved_uses_seed_002_published_rates() -> None:
    p5 = _offer(load_catalog(), "aws", "us-east-1", "p5.48xlarge")
    # 8 GPUs x $8.05 = $64.40 (1y); 8 x $5.25 = $42.00 (3y); on-demand 8 x 12.29 = 98.32.
    assert (p5.reserved_1y_usd_hr, p5.reserved_3y_usd_hr) == (64.4, 42.0)
    assert p5.reserved_estimated is False
    g5 = _offer(load_catalog(), "aws", "us-east-1", "g5.xlarge")
    # Estimated: 1.006 x 8.05/12.29 = 0.65893 -> 0.6589; 1.006 x 5.25/12.29 = 0.42974 -> 0.4297
    assert (g5.reserved_1y_usd_hr, g5.reserved_3y_usd_hr, g5.reserved_estimated) == (
        0.6589, 0.4297, True)


def test_loaded_once_per_process() -> None:
    assert load_catalog() is load_catalog()


def test_user_file_replaces_builtin(tmp_path: Path) -> None:
    catalog = load_catalog(write_catalog(tmp_path, ROW))
    assert [o.on_demand_usd_hr for o in catalog.offers] == [0.9]
    assert catalog.as_of == dt.date(2026, 10, 1)


def test_user_file_extends_builtin(tmp_path: Path) -> None:
    builtin = load_catalog()
    path = write_catalog(tmp_path, ROW, directives="# extends: builtin\n")
    catalog = load_catalog(path)
    assert len(catalog.offers) == len(builtin.offers)  # replaced one row, added none
    assert _offer(catalog, "aws", "us-east-1", "g5.xlarge").on_demand_usd_hr == 0.9
    assert _offer(catalog, "aws", "us-west-2", "g5.xlarge").on_demand_usd_hr == 1.006
    assert "extends built-in" in catalog.source


def test_env_var_names_the_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(write_catalog(tmp_path, ROW)))
    assert len(load_catalog().offers) == 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("0.9,0.35", ",0.35"), ":2: error: on_demand_usd_hr: expected a positive number, got "
                                "an empty cell"),
        (("0.9,0.35", "-1,0.35"), ":2: error: on_demand_usd_hr: expected a positive number, "
                                  "got '-1'"),
        (("0.9,0.35", "0.9,1.5"), ":2: error: spot_usd_hr: expected at most on_demand_usd_hr "
                                  "0.9, got 1.5"),
        ((",0.6,", ",0.95,"), ":2: error: reserved_1y_usd_hr: expected at most "
                              "on_demand_usd_hr 0.9, got 0.95"),
        (("A10G", "A10X"), ":2: error: accelerator: unknown accelerator 'A10X'"),
        (("2026-10-01", "2026-13-01"), ":2: error: as_of: expected a date YYYY-MM-DD, got "
                                       "'2026-13-01'"),
        (("ethernet", "myrinet"), ":2: error: interconnect: expected one of efa | infiniband"),
    ],
)
def test_bad_rows_name_file_line_and_field(tmp_path: Path, edit: tuple[str, str],
                                           message: str) -> None:
    path = write_catalog(tmp_path, ROW.replace(*edit))
    with pytest.raises(CatalogError) as err:
        load_catalog(path)
    assert str(err.value).startswith(str(path) + message)
    assert "\n" not in str(err.value)


def test_duplicate_and_directives_counted_in_line_numbers(tmp_path: Path) -> None:
    path = write_catalog(tmp_path, ROW, ROW, directives="# format: infra-gen-catalog/1\n")
    with pytest.raises(CatalogError, match=r"user.csv:4: error: instance_type: duplicate .*"
                                           r"first at line 3"):
        load_catalog(path)


def test_header_and_format_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("cloud,region\naws,us-east-1\n", "utf-8")
    with pytest.raises(CatalogError, match=r"bad.csv:1: error: header: .*missing instance_type"):
        load_catalog(bad)
    with pytest.raises(CatalogError, match=r"format: expected infra-gen-catalog/1, got 'v9'"):
        load_catalog(write_catalog(tmp_path, ROW, directives="# format: v9\n"))
    with pytest.raises(CatalogError, match="catalog file not found"):
        load_catalog(tmp_path / "missing.csv")


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [("a100", "A100-40GB"), ("A100 80GB", "A100-80GB"), ("nvidia-h100-80gb", "H100"),
     ("h100", "H100"), ("a10g", "A10G"), ("A10", "A10"), ("H100-MEGA", "H100"),
     ("nvidia-tesla-t4", "T4"), ("NVIDIA L40S", "L40S"), ("h100 nvl", "H100-NVL"),
     ("inf2", "Inferentia2"), ("trn1", "Trainium"), ("H200", "H200")],
)
def test_resolve_accelerator_aliases(typed: str, canonical: str) -> None:
    assert resolve_accelerator(load_catalog(), typed) == canonical


def test_resolve_accelerator_suggests_and_lists() -> None:
    with pytest.raises(CatalogError) as err:
        resolve_accelerator(load_catalog(), "H10")
    text = str(err.value)
    assert "did you mean" in text and "H100" in text
    assert "valid: A10, A100-40GB, A100-80GB, A10G" in text


def test_staleness_warning() -> None:
    catalog = load_catalog()
    fresh = catalog.as_of + dt.timedelta(days=90)
    assert catalog_warnings(catalog, fresh) == []
    [warning] = catalog_warnings(catalog, fresh + dt.timedelta(days=1))
    assert "91 days old" in warning and "infra-gen catalog refresh" in warning
