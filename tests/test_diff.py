"""``infra-gen diff``: added, removed and changed workloads, totals checked by hand from the
golden catalog, stable JSON, the Markdown PR comment, and the CI guardrail's exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from infra_gen.cli import app
from tests.test_report import check_golden

ROOT = Path(__file__).resolve().parents[1]
STACKS = ROOT / "stacks"
CATALOG = str(ROOT / "tests" / "golden" / "catalog.csv")
GOLDEN = ROOT / "tests" / "golden" / "reports"


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """base/: ResNet-50 serving + 7B QLoRA. head/: ResNet-50 pinned to GCP (changed), QLoRA
    deleted (removed), the hyper-parameter sweep new (added). Relative paths keep JSON stable."""
    base, head = tmp_path / "base", tmp_path / "head"
    base.mkdir()
    head.mkdir()
    for name in ("resnet50-inference", "llama7b-qlora-finetune"):
        shutil.copy(STACKS / f"{name}.yaml", base / f"{name}.yaml")
    # Renamed file, same workload name: still paired with base's resnet50-inference.yaml.
    (head / "serving.yaml").write_text(
        (STACKS / "resnet50-inference.yaml").read_text() + "placement: {clouds: [gcp]}\n")
    shutil.copy(STACKS / "hparam-sweep.yaml", head / "hparam-sweep.yaml")
    (head / "Pulumi.dev.yaml").write_text("config: {}\n")  # stack config, not a workload
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str) -> Any:
    return CliRunner().invoke(app, ["diff", *args, "--catalog", CATALOG])


def as_json(*args: str) -> dict[str, Any]:
    result = run(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_directories_pair_by_name_with_hand_checked_figures(trees: Path) -> None:
    report = as_json("base", "head")
    rows = {r["workload"]: r for r in report["workloads"]}
    assert [r["workload"] for r in report["workloads"]] == sorted(rows)
    assert {n: r["status"] for n, r in rows.items()} == {
        "petsnap-qlora-7b": "removed", "petsnap-resnet50-serving": "changed",
        "ranker-hparam-sweep": "added"}
    serving = rows["petsnap-resnet50-serving"]
    # Base: AWS g4dn.xlarge 3y reserved 0.2247 x 730 = 164.03. Pinned to GCP: n1-standard-4 +
    # T4, 3y 0.243 x 730 = 177.39. Delta 177.39 - 164.03 = +13.36 = 8.1% of 164.03.
    assert (serving["base"]["instance_type"], serving["base"]["monthly_usd"]) == (
        "g4dn.xlarge", 164.03)
    assert (serving["head"]["cloud"], serving["head"]["instance_type"],
            serving["head"]["monthly_usd"]) == ("gcp", "n1-standard-4", 177.39)
    assert serving["head"]["purchase"] == {"reserved": 1, "on_demand": 0, "spot": 0,
                                           "reserved_term": "3y"}
    assert (serving["monthly_delta_usd"], serving["monthly_delta_percent"]) == (13.36, 8.1)
    assert serving["base"]["file"] == str(Path("base/resnet50-inference.yaml"))
    removed, added = rows["petsnap-qlora-7b"], rows["ranker-hparam-sweep"]
    assert removed["head"] is None and removed["monthly_delta_percent"] == -100.0
    assert removed["monthly_delta_usd"] == -removed["base"]["monthly_usd"]
    assert added["base"] is None and added["monthly_delta_percent"] is None
    # Totals: base 164.03 + QLoRA; head 177.39 + sweep; summed in cents, exact.
    qlora, sweep = removed["base"]["monthly_usd"], added["head"]["monthly_usd"]
    total = report["total"]
    assert total["base_monthly_usd"] == round(164.03 + qlora, 2)
    assert total["head_monthly_usd"] == round(177.39 + sweep, 2)
    assert total["monthly_delta_usd"] == round(13.36 - qlora + sweep, 2)
    assert total["monthly_delta_percent"] == round(
        100 * total["monthly_delta_usd"] / total["base_monthly_usd"], 1)


def test_json_fields_are_stable(trees: Path) -> None:
    report = as_json("base", "head")
    assert set(report) == {"workloads", "total"}
    assert set(report["total"]) == {"base_monthly_usd", "head_monthly_usd",
                                    "monthly_delta_usd", "monthly_delta_percent"}
    for row in report["workloads"]:
        assert set(row) == {"workload", "status", "base", "head", "monthly_delta_usd",
                            "monthly_delta_percent"}
        for side in (row["base"], row["head"]):
            assert side is None or set(side) == {
                "file", "cloud", "region", "instance_type", "accelerator", "instances", "gpus",
                "purchase", "hourly_usd", "monthly_usd", "per_run_usd"}


def test_goldens_json_and_markdown(trees: Path, update_golden: bool) -> None:
    check_golden(GOLDEN / "diff.json", run("base", "head", "--format", "json").stdout,
                 update_golden)
    markdown = run("base", "head", "--format", "markdown").stdout
    check_golden(GOLDEN / "diff.md", markdown, update_golden)
    assert markdown.startswith("<!-- infra-gen-cost-diff -->\n")
    assert "| petsnap-resnet50-serving | changed |" in markdown
    assert "| +$13.36 | +8.1% |" in markdown


def test_files_and_unchanged(trees: Path) -> None:
    same = as_json("base/resnet50-inference.yaml", str(STACKS / "resnet50-inference.yaml"))
    assert [r["status"] for r in same["workloads"]] == ["unchanged"]
    assert same["total"]["monthly_delta_usd"] == 0
    table = run("base", "base")
    assert table.exit_code == 0 and "total: $" in table.stdout and "(+$0.00" not in table.stdout
    markdown = run("base", "base", "--format", "markdown", "--fail-above-usd", "0")
    assert markdown.exit_code == 0
    assert "No workload's plan or cost changed." in markdown.stdout


def _total(*args: str) -> dict[str, Any]:
    return as_json(*args)["total"]


def test_guardrail_exit_codes(trees: Path) -> None:
    total = _total("base", "head")
    delta, percent = total["monthly_delta_usd"], total["monthly_delta_percent"]
    assert delta > 0
    # Strictly above the threshold fails; equal passes.
    assert run("base", "head", "--fail-above-usd", f"{delta}").exit_code == 0
    failed = run("base", "head", "--fail-above-usd", f"{delta - 0.01:.2f}")
    assert failed.exit_code == 1
    assert "cost guardrail: monthly cost rises by" in failed.stderr
    assert run("base", "head", "--fail-above-percent", f"{percent}").exit_code == 0
    assert run("base", "head", "--fail-above-percent", f"{percent - 0.1:.1f}").exit_code == 1
    # A cost decrease never fails, whatever the threshold.
    assert run("head", "base", "--fail-above-usd", "0", "--fail-above-percent", "0"
               ).exit_code == 0


def test_added_from_empty_base_is_an_infinite_percent_rise(trees: Path) -> None:
    (trees / "empty").mkdir()
    total = _total("empty", "head")
    assert total["base_monthly_usd"] == 0 and total["monthly_delta_percent"] is None
    assert run("empty", "head", "--fail-above-percent", "1000").exit_code == 1
    assert run("empty", "head").exit_code == 0


@pytest.mark.parametrize("args, message", [
    (("base", "base/resnet50-inference.yaml"), "expected BASE and HEAD both files or both"),
    (("base", "missing"), "missing:1:1: error: expected a workload file or directory"),
    (("base", "head", "--fail-above-usd", "-1"), "greater than or equal to 0"),
])
def test_bad_input_exits_2(trees: Path, args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_duplicate_names_and_invalid_files_exit_2(trees: Path) -> None:
    shutil.copy(STACKS / "hparam-sweep.yaml", trees / "head" / "copy.yaml")
    result = run("base", "head")
    assert result.exit_code == 2
    assert "expected workload names unique" in result.stderr
    (trees / "head" / "copy.yaml").write_text("version: 1\nname: [oops\n")
    result = run("base", "head")
    assert result.exit_code == 2 and "copy.yaml:" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_ci_workflow_runs_diff_and_check_with_pinned_actions() -> None:
    from ruamel.yaml import YAML

    workflow = YAML(typ="safe").load((ROOT / ".github" / "workflows" / "cost-diff.yml").read_text())
    assert "pull_request" in workflow["on"]
    steps = workflow["jobs"]["cost-diff"]["steps"]
    for step in steps:
        if "uses" in step:  # pinned by full commit SHA, not a mutable tag
            action, _, ref = step["uses"].partition("@")
            assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), step["uses"]
    scripts = "\n".join(step.get("run", "") for step in steps)
    assert 'infra-gen diff "base/$WORKLOADS" "head/$WORKLOADS" --format markdown' in scripts
    assert "--fail-above-usd" in scripts and 'infra-gen check "head/$WORKLOADS"' in scripts
    comment = next(s for s in steps if s.get("uses", "").startswith("actions/github-script@"))
    from infra_gen.diff import MARKER

    assert MARKER in comment["with"]["script"]  # updates its own comment, found by the marker
