"""``infra-gen check`` end to end: plan, render under mocks, check, exit codes, JSON.

One real subprocess run covers the command as CI calls it (examples plus broken files on all
three clouds); the other cases run in-process (Typer's runner) so the SDKs load once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from infra_gen.cli import app

ROOT = Path(__file__).resolve().parents[2]
DATA = Path("tests/policy/data")


def _pipeline_ready() -> bool:
    try:
        from infra_gen.optimizer import plan_workload  # noqa: F401
        from infra_gen.providers.aws import AwsProvider  # noqa: F401
    except ImportError:
        return False
    return True


pytestmark = pytest.mark.skipif(
    not _pipeline_ready(), reason="needs the optimizer and providers (issues 5, 7-9)"
)


def check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


def test_examples_pass_and_broken_files_fail_with_the_rule_id_on_every_cloud() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "infra_gen", "check", "stacks", str(DATA), "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["checked"] == 7 + 6
    mandatory = sorted(
        (v["workload"], v["policy"]) for v in report["violations"] if v["level"] == "mandatory"
    )
    assert mandatory == [
        (f"{DATA}/no-budget-{c}.yaml", "budget-required") for c in ("aws", "azure", "gcp")
    ] + [
        (f"{DATA}/no-shutdown-{c}.yaml", "gpu-auto-shutdown-required")
        for c in ("aws", "azure", "gcp")
    ]
    for v in report["violations"]:
        assert v["message"].startswith(f"[{v['policy']}] ")
        assert f"policies/README.md#{v['policy']}" in v["message"]
    shutdown = {
        v["workload"]: v
        for v in report["violations"]
        if v["policy"] == "gpu-auto-shutdown-required"
    }
    assert shutdown[f"{DATA}/no-shutdown-gcp.yaml"]["resource"] == "broken-no-shutdown-gcp-vm"
    assert [v["workload"] for v in report["violations"]] == sorted(
        v["workload"] for v in report["violations"]
    )


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure"])
def test_examples_rendered_for_each_cloud_have_no_mandatory_violation(cloud: str) -> None:
    # A reserved-baseline service and a spot training run: the two shapes most rules look at.
    files = ["stacks/llama70b-serving.yaml", "stacks/llama7b-full-finetune.yaml"]
    code, out, err = check(*files, "--cloud", cloud, "--format", "json")
    assert code == 0, out + err
    report = json.loads(out)
    assert report["checked"] == 2
    assert all(v["level"] == "advisory" for v in report["violations"])
    again = check(*files, "--cloud", cloud, "--format", "json")
    assert again[1] == out  # same input, same report


def test_table_output_and_config_that_disables_the_failing_rule(tmp_path: Path) -> None:
    broken = str(DATA / "no-budget-aws.yaml")
    code, out, _ = check(broken)
    assert code == 1
    assert "budget-required" in out
    assert "1 workload file(s) checked: 1 mandatory" in out
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"budget-required": "advisory"}))
    code, out, _ = check(broken, "--config", str(config))
    assert code == 0
    assert "0 mandatory, 1 advisory" in out


def test_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    code, _, err = check(str(tmp_path / "nope.yaml"))
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "expected a workload file, got no such file" in err
    config = tmp_path / "policy.json"
    config.write_text('{"max-hourly-cost": {"max_hourly_usd": "cheap"}}')
    code, _, err = check("stacks/resnet50-inference.yaml", "--config", str(config))
    assert code == 2
    assert err.strip() == (
        f'infra-gen: error: {config}: max-hourly-cost.max_hourly_usd: expected number, got "cheap"'
    )
    code, _, err = check(str(tmp_path))
    assert code == 2 and "expected a directory with workload files" in err
    code, _, err = check("stacks", "--cloud", "oracle")
    assert code == 2 and "--cloud: expected one of aws | gcp | azure, got 'oracle'" in err


def test_max_hourly_cap_from_config_fails_the_expensive_example(tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"max-hourly-cost": {"max_hourly_usd": 1.0}}))
    code, out, _ = check(
        "stacks/llama70b-serving.yaml",
        "--cloud",
        "aws",
        "--config",
        str(config),
        "--format",
        "json",
    )
    assert code == 1
    [violation] = [v for v in json.loads(out)["violations"] if v["policy"] == "max-hourly-cost"]
    assert "exceeds the $1.00/h cap from policy config max_hourly_usd" in violation["message"]
