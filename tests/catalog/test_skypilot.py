"""SkyPilot catalog import: per-zone rows -> one offer per region, GCP host + GPU summed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from typer.testing import CliRunner

from infra_gen.catalog import load_catalog
from infra_gen.catalog.load import normalize_accelerator_name
from infra_gen.catalog.skypilot import convert, detect_cloud, gcp_host_for, read_rows
from infra_gen.cli import app

FIXTURES = Path(__file__).parent / "fixtures"
DAY = dt.date(2026, 11, 1)


def _convert(name: str):  # type: ignore[no-untyped-def]
    builtin = load_catalog()
    rows = read_rows((FIXTURES / name).read_text("utf-8"), name)
    return convert(rows, detect_cloud(rows), builtin,
                   lambda n: builtin.aliases.get(normalize_accelerator_name(n)), "test", DAY)


def test_aws_cheapest_zone_spot_and_skips() -> None:
    result = _convert("skypilot_aws.csv")
    by_type = {o.instance_type: o for o in result.offers}
    assert set(by_type) == {"g5.xlarge", "p4d.24xlarge"}
    g5 = by_type["g5.xlarge"]
    # Two zones: spot 0.4512 (1a) and 0.397 (1b) -> the cheaper, 0.397.
    assert (g5.on_demand_usd_hr, g5.spot_usd_hr, g5.accelerator) == (1.006, 0.397, "A10G")
    assert round(g5.accelerator_memory_gib, 2) == 22.35  # 22888 MiB / 1024
    p4d = by_type["p4d.24xlarge"]
    assert (p4d.accelerator, p4d.accelerators, p4d.interconnect) == ("A100-40GB", 8, "efa")
    # Reserved: AWS documented ratio 8.05/12.29 -> 32.7726 x 0.65500 = 21.4662.
    assert p4d.reserved_1y_usd_hr == 21.4662 and p4d.reserved_estimated
    assert result.skipped == {"CPU-only or unpriced rows": 1,
                              "unknown accelerator Gaudi HL-205": 1}


def test_gcp_host_and_gpu_rows_are_summed() -> None:
    result = _convert("skypilot_gcp.csv")
    by_type = {(o.instance_type, o.accelerator): o for o in result.offers}
    n1 = by_type[("n1-standard-8", "T4")]
    # on-demand 0.379998 + 0.35 = 0.729998; spot: zone a 0.08 + 0.1563 = 0.2363,
    # zone b 0.076 + 0.11 = 0.186 -> cheapest zone 0.186.
    assert (n1.on_demand_usd_hr, n1.spot_usd_hr) == (0.729998, 0.186)
    a2 = by_type[("a2-highgpu-1g", "A100-40GB")]
    assert a2.on_demand_usd_hr == round(0.749138 + 2.934, 6)  # 3.683138
    # The V100 row's zone has no n1-standard-8 host row: skipped, not invented.
    assert result.skipped == {"GPU rows without a host machine in the zone": 1}


def test_gcp_host_rule() -> None:
    assert gcp_host_for("T4", 4) == "n1-standard-32"
    assert gcp_host_for("L4", 2) == "g2-standard-24"
    assert gcp_host_for("H100", 8) == "a3-highgpu-8g"
    assert gcp_host_for("H100", 1) is None


def test_import_command_writes_a_loadable_extending_catalog(tmp_path: Path) -> None:
    out = tmp_path / "sky.csv"
    result = CliRunner().invoke(app, ["catalog", "import", str(FIXTURES / "skypilot_aws.csv"),
                                      "--format", "skypilot", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 offers" in result.stdout
    catalog = load_catalog(out)
    assert "extends built-in" in catalog.source
    assert len(catalog.offers) == len(load_catalog().offers)  # both rows replace built-ins


def test_import_rejects_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("InstanceType,Price\nx,1\n", "utf-8")
    runner = CliRunner()
    for args in ([str(bad)], [str(FIXTURES / "skypilot_aws.csv"), "--format", "gpuhunt"],
                 [str(tmp_path / "missing.csv")]):
        result = runner.invoke(app, ["catalog", "import", *args, "--out", str(tmp_path / "o")])
        assert result.exit_code == 2, (args, result.output)
        assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
