"""Every sizing estimate lands within the stated band of a published figure.

The figures are in tests/data/sizing_reference.csv with their sources; none were measured by
this project (no GPU was available). ``approx`` rows must be within +-25%, ``max`` rows are
"fits in" claims the estimate must not exceed, ``min`` rows "needs more than" claims.
The estimate compared is ``memory_gib.total``: one unsharded replica, overhead included.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from infra_gen.sizing import size
from tests.sizing_helpers import ACCELERATORS, workload

_CSV = Path(__file__).parent / "data" / "sizing_reference.csv"
_UNITS = {"GB": 1e9 / 2**30, "GiB": 1.0, "MiB": 1 / 1024}
_ARCH = ("parameters_b", "layers", "hidden_size", "attention_heads", "kv_heads", "vocab_size",
         "intermediate_size")


def _rows() -> list[dict[str, str]]:
    with _CSV.open(encoding="utf-8") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return list(csv.DictReader(lines))


def _workload(row: dict[str, str]) -> Any:
    model: dict[str, Any] = {"name": row["model"], "precision": row["precision"]}
    for key in _ARCH:
        if row[key]:
            model[key] = float(row[key]) if key == "parameters_b" else int(row[key])
    if row["workload_type"] == "inference":
        return workload("inference", model, inference={
            "input_tokens": int(row["input_tokens"]), "output_tokens": int(row["output_tokens"]),
            "max_concurrency": int(row["batch"])})
    training = {"method": row["method"], "optimizer": row["optimizer"], "tokens_b": 0.01,
                "batch_size": int(row["batch"]), "seq_len": int(row["seq_len"]),
                "gradient_checkpointing": row["checkpointing"] == "true"}
    return workload("fine-tuning", model, training=training)


ROWS = _rows()


def test_reference_table_is_sourced_and_large_enough() -> None:
    assert len(ROWS) >= 20
    for row in ROWS:
        assert row["source_url"] and row["source_title"] and row["measured"], row["id"]
        assert row["unit"] in _UNITS and row["bound"] in ("approx", "max", "min")
    assert "NO GPU" in _CSV.read_text(encoding="utf-8").splitlines()[1]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_estimate_within_band_of_published_figure(row: dict[str, str]) -> None:
    target_gib = float(row["value"]) * _UNITS[row["unit"]]
    estimate = size(_workload(row), ACCELERATORS["H200"]).memory_gib.total
    if row["bound"] == "max":
        assert estimate <= target_gib, f"{estimate:.1f} GiB > {target_gib:.1f} GiB"
    elif row["bound"] == "min":
        assert estimate >= target_gib, f"{estimate:.1f} GiB < {target_gib:.1f} GiB"
    else:
        band = float(row["band"])
        error = estimate / target_gib - 1
        assert abs(error) <= band, f"{estimate:.1f} GiB vs {target_gib:.1f} GiB ({error:+.0%})"


def test_calibration_error_summary_is_tight_on_average() -> None:
    """Mean absolute error over the approx rows stays well inside the band (not just each row)."""
    errors = []
    for row in ROWS:
        if row["bound"] == "approx":
            target = float(row["value"]) * _UNITS[row["unit"]]
            estimate = size(_workload(row), ACCELERATORS["H200"]).memory_gib.total
            errors.append(abs(estimate / target - 1))
    assert sum(errors) / len(errors) < 0.12
