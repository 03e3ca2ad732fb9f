"""The `infra-gen` command as a user runs it: real processes, exit codes, stderr lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from infra_gen import __version__

EXAMPLES = sorted(p for p in Path("stacks").glob("*.yaml") if not p.name.startswith("Pulumi."))


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "infra_gen", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60, check=False,
    )


def test_validate_prints_one_line_per_valid_file() -> None:
    result = run("validate", *map(str, EXAMPLES))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(EXAMPLES)
    assert lines[0] == f"{EXAMPLES[0]}: ok (catalog-embeddings-nightly, batch)"


def test_validate_bad_file_exits_2_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "version: 1\nname: x\ntype: inference\n"
        "owner: {team: a, project: b, cost_center: c}\nmodel: {parameters_b: -7}\n"
    )
    result = run("validate", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"{bad}:5:9: error: model.parameters_b: expected a number > 0, got -7\n"
    )


def test_validate_missing_file_exits_2() -> None:
    result = run("validate", "does-not-exist.yaml")
    assert result.returncode == 2
    assert result.stderr == (
        "does-not-exist.yaml:1:1: error: expected a workload file, got no such file\n"
    )
    assert "Traceback" not in result.stderr


def test_version_and_help() -> None:
    assert run("--version").stdout == f"infra-gen {__version__}\n"
    help_text = run("--help").stdout
    for command in ("validate", "schema", "init"):
        assert command in help_text
    assert run("validate", "--help").returncode == 0


def test_unknown_command_is_a_usage_error() -> None:
    result = run("deploy-everything")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_schema_is_valid_json_schema_that_accepts_every_example() -> None:
    result = run("schema")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    yaml = YAML(typ="safe")
    for path in EXAMPLES:
        validator.validate(yaml.load(path.read_text()))
    # ... and rejects what the loader rejects: unknown fields and bad enums.
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"version": 1, "name": "x", "type": "nope",
                            "owner": {"team": "a", "project": "b", "cost_center": "c"},
                            "model": {"parameters_b": 1}})


@pytest.mark.parametrize("kind", ["training", "fine-tuning", "inference", "batch", "dev"])
def test_init_writes_a_commented_file_that_validates(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "workload.yaml"
    result = run("init", "--type", kind, "-o", str(target))
    assert result.returncode == 0, result.stderr
    text = target.read_text()
    assert text.startswith("# infra-gen workload file")
    assert f"type: {kind}" in text
    assert run("validate", str(target)).returncode == 0


def test_init_never_overwrites_without_force(tmp_path: Path) -> None:
    target = tmp_path / "workload.yaml"
    target.write_text("keep me")
    result = run("init", "-o", str(target))
    assert result.returncode == 2
    assert target.read_text() == "keep me"
    assert "use --force" in result.stderr
    assert run("init", "-o", str(target), "--force").returncode == 0


def test_init_rejects_unknown_type(tmp_path: Path) -> None:
    result = run("init", "--type", "gaming", "-o", str(tmp_path / "w.yaml"))
    assert result.returncode == 2
    assert "expected one of training | fine-tuning | inference | batch | dev" in result.stderr
    assert not (tmp_path / "w.yaml").exists()
