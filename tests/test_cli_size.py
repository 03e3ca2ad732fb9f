"""`infra-gen size` and `infra-gen models` as a user runs them: JSON shape, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from infra_gen.catalog.load import load_catalog
from infra_gen.model_table import KNOWN_MODELS

STACKS = Path(__file__).parent.parent / "stacks"
KEYS = {"weights", "kv_cache", "activations", "gradients", "optimizer", "overhead", "total"}
HEAD = "version: 1\nname: w\nowner: {team: a, project: b, cost_center: c}\n"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "infra_gen", *args], capture_output=True,
                          text=True, timeout=60, check=False)


def test_size_json_has_the_issue_shape_for_every_catalog_accelerator() -> None:
    result = run("size", str(STACKS / "llama7b-full-finetune.yaml"), "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["workload"] == "support-bot-full-ft-7b"
    assert set(report["memory_gib"]) == KEYS
    assert set(load_catalog().accelerators) == {o["accelerator"] for o in report["options"]}
    for opt in report["options"]:
        assert {"accelerator", "gpus", "parallelism", "memory_gib_per_gpu", "fits"} <= set(opt)
        assert set(opt["memory_gib_per_gpu"]) == KEYS
        # sharding never makes a GPU hold more than the unsharded replica
        assert opt["memory_gib_per_gpu"]["total"] <= report["memory_gib"]["total"] + 0.01
    # 2 decimals for display; total is the sum of its terms (within rounding)
    mem = report["memory_gib"]
    assert mem["total"] == round(mem["total"], 2)
    assert abs(sum(v for k, v in mem.items() if k != "total") - mem["total"]) < 0.05
    assert any("16 bytes/param" in note for note in report["assumptions"])


def test_size_one_accelerator_by_alias_and_table_output() -> None:
    result = run("size", str(STACKS / "llama7b-qlora-finetune.yaml"), "--accelerator",
                 "a100-80gb", "--format", "json")
    assert result.returncode == 0, result.stderr
    options = json.loads(result.stdout)["options"]
    assert [(o["accelerator"], o["gpus"], o["fits"]) for o in options] == [("A100-80GB", 1, True)]
    table = run("size", str(STACKS / "llama7b-qlora-finetune.yaml"), "--accelerator", "L4")
    assert table.returncode == 0 and "L4" in table.stdout and "yes" in table.stdout


def test_size_unknown_accelerator_exits_2_with_suggestion() -> None:
    result = run("size", str(STACKS / "llama7b-qlora-finetune.yaml"), "--accelerator", "H10")
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert "unknown accelerator 'H10'" in result.stderr


def test_size_impossible_request_exits_2_naming_what_would_fit(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(HEAD + "type: inference\nmodel: {parameters_b: 400, precision: fp32}\n")
    result = run("size", str(big), "--accelerator", "H100")
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "no allowed accelerator fits" in result.stderr
    assert "would fit with model.precision bf16 on 16 x H100" in result.stderr


def test_size_sequence_beyond_model_context_exits_2(tmp_path: Path) -> None:
    long = tmp_path / "long.yaml"
    long.write_text(HEAD + "type: fine-tuning\nmodel: {name: llama-2-7b}\n"
                    "training: {method: lora, tokens_b: 0.1, seq_len: 16384}\n")
    result = run("size", str(long))
    assert result.returncode == 2
    assert "training.seq_len 16384 exceeds llama-2-7b's maximum context of 4096" in result.stderr


def test_models_lists_the_table() -> None:
    result = run("models", "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["name"] for r in rows] == sorted(KNOWN_MODELS)
    mixtral = next(r for r in rows if r["name"] == "mixtral-8x7b")
    assert (mixtral["experts"], mixtral["experts_active"]) == (8, 2)
    table = run("models")
    assert table.returncode == 0 and "mixtral-8x7b" in table.stdout
