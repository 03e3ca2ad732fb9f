"""`infra-gen catalog list|gpus`: stable JSON, filters, table output and exit-2 errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from infra_gen.cli import app
from tests.catalog.conftest import ROW, write_catalog

runner = CliRunner()
LIST_KEYS = ["cloud", "region", "instance_type", "accelerator", "accelerators",
             "accelerator_memory_gib", "vcpus", "memory_gib", "on_demand_usd_hr", "spot_usd_hr",
             "reserved_1y_usd_hr", "reserved_3y_usd_hr", "source", "as_of"]


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, ["catalog", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_list_json_shape_and_known_row() -> None:
    data = _json("list", "--cloud", "aws", "--region", "us-east-1", "--accelerator", "a10g")
    assert data["as_of"] == "2025-01-01"  # the oldest row's date: the curated estimates
    offers = data["offers"]
    assert all(list(o)[:14] == LIST_KEYS for o in offers)
    assert [o["instance_type"] for o in offers] == sorted(o["instance_type"] for o in offers)
    g5 = next(o for o in offers if o["instance_type"] == "g5.xlarge")
    assert (g5["on_demand_usd_hr"], g5["spot_usd_hr"], g5["accelerators"]) == (1.006, 0.397, 1)
    assert {o["accelerator"] for o in offers} == {"A10G"}


def test_list_json_null_where_unknown() -> None:
    offers = _json("list", "--cloud", "azure", "--region", "eastus",
                   "--accelerator", "H100")["offers"]
    [nd] = [o for o in offers if o["instance_type"] == "Standard_ND96isr_H100_v5"]
    assert nd["spot_usd_hr"] is None and nd["spot_interruption"] is None


def test_list_is_deterministic() -> None:
    first = runner.invoke(app, ["catalog", "list", "--format", "json"]).stdout
    assert first == runner.invoke(app, ["catalog", "list", "--format", "json"]).stdout


def test_list_with_user_catalog(tmp_path: Path) -> None:
    path = write_catalog(tmp_path, ROW)
    offers = _json("list", "--catalog", str(path))["offers"]
    assert [o["on_demand_usd_hr"] for o in offers] == [0.9]


def test_list_table() -> None:
    result = runner.invoke(app, ["catalog", "list", "--cloud", "aws", "--accelerator", "H100"])
    assert result.exit_code == 0
    assert "p5.48xlarge" in result.stdout and "98.32" in result.stdout


def test_gpus_cheapest_per_accelerator_count_and_cloud() -> None:
    rows = _json("gpus", "--accelerator", "A10G")["gpus"]
    one = next(r for r in rows if r["accelerators"] == 1)
    # g5.xlarge $1.006 is the cheapest 1x A10G on-demand; spot: us-west-2 $0.357 < us-east-1.
    assert (one["on_demand_instance_type"], one["on_demand_usd_hr"]) == ("g5.xlarge", 1.006)
    assert (one["spot_region"], one["spot_usd_hr"]) == ("us-west-2", 0.357)
    h100 = _json("gpus", "--accelerator", "h100")["gpus"]
    assert {(r["cloud"], r["accelerators"]) for r in h100} == {
        ("aws", 8), ("azure", 8), ("gcp", 8)}


def test_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    for args in (["list", "--cloud", "ibm"], ["list", "--accelerator", "A1000"],
                 ["gpus", "--catalog", str(tmp_path / "none.csv")]):
        result = runner.invoke(app, ["catalog", *args])
        assert result.exit_code == 2, args
        assert len(result.stderr.strip().splitlines()) == 1
        assert "Traceback" not in result.output
