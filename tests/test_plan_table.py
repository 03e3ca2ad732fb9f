"""The Rich table of ``infra-gen plan``: follows the terminal width, and at 80 columns every
line fits, no header or figure is cut with an ellipsis, and the key figures are all there."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from infra_gen.plan import Plan
from infra_gen.plan_table import DEFAULT_WIDTH, render_plan_table, terminal_width

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "spec.yaml").exists())


def _plan(case: str) -> Plan:
    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload

    return plan_workload(load_workload(GOLDEN / case / "spec.yaml"),
                         load_catalog(GOLDEN / "catalog.csv"), today=dt.date(2025, 2, 1))


def _row(text: str, label: str) -> list[str]:
    """The cells of the table row whose first cell is ``label``."""
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line)[1:-1]]
        if cells and cells[0] == label:
            return cells
    raise AssertionError(f"no row {label!r} in:\n{text}")


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("case", CASES)
def test_every_line_fits_and_nothing_is_cut(case: str, width: int) -> None:
    text = render_plan_table(_plan(case), width=width)
    lines = text.splitlines()
    too_long = [line for line in lines if len(line) > width]
    assert not too_long, f"{len(too_long)} line(s) over {width} columns:\n" + "\n".join(too_long)
    assert "…" not in text, text  # Rich's ellipsis: a header or a value was truncated
    for header in ("term", "GiB per GPU", "GiB unsharded", "parallelism", "GPUs/replica",
                   "replicas", "GPU-h/run", "$/h", "$/month", "$/run"):
        assert header in text


def test_key_figures_at_80_columns() -> None:
    plan = _plan("resnet50-inference")
    text = render_plan_table(plan, width=80)
    per_gpu, whole = plan.requirement.memory_gib, plan.requirement.memory_gib_unsharded
    for term in ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead",
                 "total"):
        assert _row(text, term) == [term, f"{getattr(per_gpu, term):.1f}",
                                    f"{getattr(whole, term):.1f}"]
    req = plan.requirement
    assert _row(text, "GPUs/replica") == ["GPUs/replica", str(req.gpus_per_replica)]
    assert _row(text, "replicas") == ["replicas", f"{req.replicas} (floor {req.replicas_floor})"]
    # The golden figure, by hand in test_planning: 3y reserved g4dn.xlarge 0.2247 x 730 = 164.03.
    assert "$164.03/month" in _row(text, "cost")[1]
    assert _row(text, "where")[1].startswith(plan.recommendation.cloud)
    for alt in plan.alternatives:  # each alternative's type and monthly cost on one row
        row = next(line for line in text.splitlines() if alt.instance_type in line)
        assert f"${alt.monthly_usd:,.2f}" in row


def test_width_follows_columns_then_tty_then_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "93")
    assert terminal_width() == 93
    monkeypatch.setenv("COLUMNS", "not-a-number")
    assert terminal_width() == DEFAULT_WIDTH == 100  # pytest captures stdout: not a terminal
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() == 100
    plan = _plan("resnet50-inference")
    monkeypatch.setenv("COLUMNS", "80")
    assert render_plan_table(plan) == render_plan_table(plan, width=80)
    assert max(len(line) for line in render_plan_table(plan).splitlines()) <= 80
