"""The Pulumi program (__main__.py) under mocks, with stack config set as `pulumi up` would.

Runs the real program file: config -> workload -> built-in catalog -> plan -> GpuWorkload ->
stack exports, and checks the exports against the plan and the rendered resources.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pulumi
import pytest
from ruamel.yaml import YAML

from infra_gen.render import _RecordingMocks, _run
from tests.factories import sample_plan

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "__main__.py"
STACK_FILES = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))


def run_program(config: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                mocks: _RecordingMocks | None = None) -> tuple[dict[str, Any], _RecordingMocks]:
    """Run __main__.py under mocks; return its resolved stack exports and the mocks."""
    mocks = mocks or _RecordingMocks("us-east-1")
    pulumi.runtime.set_mocks(mocks, project="infra-gen", stack="test", preview=True)
    pulumi.runtime.set_all_config({f"infra-gen:{k}": v for k, v in config.items()})
    exports: dict[str, Any] = {}

    def export(name: str, value: Any) -> None:
        pulumi.Output.from_input(value).apply(lambda v: exports.__setitem__(name, v))

    monkeypatch.setattr(pulumi, "export", export)
    try:
        _run(lambda: runpy.run_path(str(PROGRAM), run_name="__main__"))
    finally:
        pulumi.runtime.set_all_config({})
    return exports, mocks


def test_program_exports_plan_costs_and_resource_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload

    config = {"workload": "stacks/hparam-sweep.yaml", "cloud": "aws"}
    exports, mocks = run_program(config, monkeypatch)
    plan = plan_workload(load_workload(ROOT / config["workload"]), load_catalog(), cloud="aws")
    rec = plan.recommendation
    assert exports["cloud"] == "aws"
    assert exports["region"] == rec.region
    assert exports["instance_type"] == rec.instance_type
    assert exports["instance_count"] == rec.instances
    assert exports["hourly_usd"] == rec.hourly_usd
    assert exports["monthly_usd"] == rec.monthly_usd
    assert exports["purchase_mix"] == rec.purchase.model_dump(mode="json")
    # The sweep runs 12 h x 5 days, so even one instance is a group with scheduled actions.
    assert exports["autoscaling_group_name"] == "ranker-hparam-sweep-asg"
    assert exports["launch_template_id"] == "ranker-hparam-sweep-lt-id"
    assert exports["security_group_id"] == "ranker-hparam-sweep-sg-id"
    assert exports["budget_name"] == "infra-gen-ranker-hparam-sweep"
    types = {r.type for r in mocks.resources}
    assert "infra-gen:index:GpuWorkload" in types
    schedules = [r for r in mocks.resources if r.type == "aws:autoscaling/schedule:Schedule"]
    assert sorted(s.inputs["recurrence"] for s in schedules) == [
        "0 21 * * 1,2,3,4,5", "0 9 * * 1,2,3,4,5"]  # 09:00 + 12 h, Monday to Friday
    group = next(r for r in mocks.resources if r.type == "aws:autoscaling/group:Group")
    assert group.inputs["maxSize"] == rec.instances


def test_bad_workload_stops_before_any_resource(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nname: Bad_Name\n", encoding="utf-8")
    mocks = _RecordingMocks("us-east-1")
    with pytest.raises(pulumi.RunError, match=r"bad\.yaml:\d+:\d+: error: ") as info:
        run_program({"workload": str(bad)}, monkeypatch, mocks)
    assert "\n" not in str(info.value)
    assert mocks.resources == []


def test_cost_summary_lines() -> None:
    program = runpy.run_path(str(PROGRAM), run_name="program")
    lines = program["cost_summary"](sample_plan("aws"))
    # 1 x g5.xlarge at $1.006/h; x 730 h = $734.38/month.
    assert lines == [
        "petsnap-serving: 1x g5.xlarge (1x A10G) on aws us-east-1 [1 on-demand]: "
        "$1.01/h, $734.38/month",
        "petsnap-serving: budget $1,000.00/month, idle shutdown after 30 min below 5% GPU",
    ]


def test_importing_the_program_does_no_work() -> None:
    namespace = runpy.run_path(str(PROGRAM), run_name="not_main")
    assert callable(namespace["main"])


@pytest.mark.parametrize("stack_file", STACK_FILES, ids=lambda p: p.name)
def test_stack_files_point_at_valid_workloads(stack_file: Path) -> None:
    from infra_gen.loading import load_workload

    config = YAML(typ="safe").load(stack_file.read_text(encoding="utf-8"))["config"]
    workload_path = ROOT / config["infra-gen:workload"]
    workload = load_workload(workload_path)
    assert stack_file.name == f"Pulumi.{workload_path.stem}.yaml"
    assert config["infra-gen:cloud"] in workload.placement.clouds


def test_every_example_workload_has_a_stack_file() -> None:
    workloads = {p.stem for p in (ROOT / "stacks").glob("*.yaml")
                 if not p.name.startswith("Pulumi.")}
    assert {p.name[len("Pulumi."):-len(".yaml")] for p in STACK_FILES} == workloads
    project = YAML(typ="safe").load((ROOT / "Pulumi.yaml").read_text(encoding="utf-8"))
    assert project["stackConfigDir"] == "stacks"
    assert project["runtime"]["name"] == "python"


def test_render_cli_prints_engine_inputs_as_json() -> None:
    from typer.testing import CliRunner

    from infra_gen.cli import app

    result = CliRunner().invoke(app, ["render", str(ROOT / "stacks/resnet50-inference.yaml"),
                                      "--cloud", "aws", "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    types = [r["type"] for r in payload["resources"]]
    assert types == sorted(types)  # deterministic order
    assert "aws:ec2/launchTemplate:LaunchTemplate" in types or "aws:ec2/instance:Instance" in types
    budget = next(r for r in payload["resources"] if r["type"] == "aws:budgets/budget:Budget")
    assert budget["inputs"]["limitAmount"] == "1500.00"  # guardrails.budget.monthly_usd: 1500
    assert set(payload["resources"][0]) == {"type", "name", "inputs"}


@pytest.mark.parametrize("args", [["missing.yaml"], ["stacks/hparam-sweep.yaml", "--cloud", "awz"]])
def test_render_cli_bad_input_exits_2(args: list[str]) -> None:
    from typer.testing import CliRunner

    from infra_gen.cli import app

    result = CliRunner().invoke(app, ["render", *args])
    assert result.exit_code == 2
    assert "error:" in result.output and "Traceback" not in result.output


def test_azure_budget_starts_this_month_unless_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    """Azure rejects a budget that starts in a past month, so a real deploy starts it now."""
    import datetime as dt

    config = {"workload": "stacks/resnet50-inference.yaml", "cloud": "azure",
              "ssh-key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIProgramTestKeyProgramTestKey00 t"}
    _, mocks = run_program(config, monkeypatch, _RecordingMocks("eastus"))
    budget = "azure-native:consumption:Budget"
    starts = {r.inputs["timePeriod"]["startDate"] for r in mocks.resources if r.type == budget}
    assert starts == {dt.date.today().replace(day=1).isoformat() + "T00:00:00Z"}

    config["azure-budget-start"] = "2027-03-01"
    _, mocks = run_program(config, monkeypatch, _RecordingMocks("eastus"))
    starts = {r.inputs["timePeriod"]["startDate"] for r in mocks.resources if r.type == budget}
    assert starts == {"2027-03-01T00:00:00Z"}


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure"])
def test_render_cli_previews_every_cloud_without_stack_settings(cloud: str) -> None:
    """Offline previews use placeholder stack settings (SSH key, billing account) like check."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "infra_gen", "render", "stacks/llama7b-qlora-finetune.yaml",
         "--cloud", cloud, "--format", "json"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    types = {r["type"] for r in json.loads(result.stdout)["resources"]}
    budget = {"aws": "aws:budgets/budget:Budget", "gcp": "gcp:billing/budget:Budget",
              "azure": "azure-native:consumption:Budget"}[cloud]
    assert budget in types
