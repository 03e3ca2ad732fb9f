"""Hardening the plan path: random valid workloads at the edges end in a Plan or a clean error.

The loader is fuzzed in test_loading_fuzz.py; here the inputs are *valid* workload documents
pushed to the schema's edges (0.1B to 2,000B parameters, 1 to 1,000,000 tokens of context,
0 to 24 hours a day, every type and precision), run through ``parse_workload`` (so the
cross-field rules apply) and ``optimizer.plan_workload`` over the built-in catalog. Anything
other than a Plan or an ``InfraGenError`` is a bug. Each Plan must also satisfy invariants that
hold whatever the figures are:

- memory per GPU > 0, every cost >= 0;
- no candidate pays more per hour than its instances at on-demand, and a spot-only candidate
  pays exactly its instances at the catalog's spot price (spot <= on-demand, same capacity);
- the recommendation is the cheapest candidate by the plan's own ranking rule;
- more hours (a longer schedule for services, a longer run for training) never cost less.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from infra_gen.catalog.load import load_catalog
from infra_gen.catalog.models import Catalog, Offer
from infra_gen.errors import CatalogError, InfraGenError
from infra_gen.loading import parse_workload
from infra_gen.optimizer import plan_workload
from infra_gen.plan import Candidate, Plan
from infra_gen.pricing import profile_of
from infra_gen.spec import Workload

ROOT = Path(__file__).resolve().parent.parent
TODAY = dt.date(2025, 2, 1)  # fixed, so staleness warnings do not depend on the calendar
CENT = 0.01 + 1e-9  # displayed money is rounded to cents; hourly figures to 1/100 cent

TYPES = ["training", "fine-tuning", "inference", "batch", "dev"]
PRECISIONS = ["fp32", "fp16", "bf16", "fp8", "int8", "int4"]

# Hypothesis draws the bounds of a range early and often, so the edges are always covered.
# A 0-hour week is a clean WorkloadError (test below); it is kept rare here so most examples
# reach the planner.
parameters_b = st.floats(0.1, 2000.0)
context_tokens = st.integers(1, 1_000_000)
hours_per_day = st.floats(0.0, 24.0, exclude_min=True)
days_per_week = st.integers(1, 7)


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    """A workload document that passes the schema and the cross-field rules."""
    kind = draw(st.sampled_from(TYPES))
    context = draw(context_tokens)
    doc: dict[str, Any] = {
        "version": 1, "name": "edge", "type": kind,
        "owner": {"team": "t", "project": "p", "cost_center": "c"},
        "model": {"parameters_b": draw(parameters_b),
                  "precision": draw(st.sampled_from(PRECISIONS))},
        "schedule": {"hours_per_day": draw(hours_per_day), "days_per_week": draw(days_per_week)},
        "purchasing": {"spot": draw(st.sampled_from(["auto", "never"] if kind == "inference"
                                                    else ["auto", "always", "never"])),
                       "reserved": draw(st.sampled_from(["auto", "none", "1y", "3y"]))},
    }
    if draw(st.integers(0, 15)) == 15:  # now and then, the 0-hour edge
        doc["schedule"][draw(st.sampled_from(["hours_per_day", "days_per_week"]))] = 0
    if kind in ("training", "fine-tuning"):
        doc["training"] = {
            "method": draw(st.sampled_from(["full", "lora", "qlora", "freeze"])),
            "seq_len": context, "batch_size": draw(st.integers(1, 64)),
            "checkpoint_minutes": draw(st.none() | st.integers(1, 240)),
            "runs_per_month": draw(st.sampled_from([0.5, 1, 4, 30])),
        }
        if draw(st.booleans()):
            doc["training"]["duration_hours"] = draw(st.floats(0.1, 2000.0))
        else:
            doc["training"]["tokens_b"] = draw(st.floats(0.001, 2000.0))
    if kind == "inference":
        doc["inference"] = {
            "input_tokens": context, "output_tokens": draw(st.integers(1, 4096)),
            "requests_per_second": draw(st.floats(0.01, 1000.0)),
            "max_concurrency": draw(st.integers(1, 512)),
            "scale_to_zero": draw(st.booleans()),
        }
    if kind == "batch":
        doc["batch"] = {"items": draw(st.integers(1, 10**10)),
                        "items_per_gpu_second": draw(st.floats(0.01, 1e5)),
                        "runs_per_month": draw(st.sampled_from([1, 30]))}
    return doc


def _yaml(document: dict[str, Any]) -> str:
    stream = io.StringIO()
    YAML(typ="safe").dump(document, stream)
    return stream.getvalue()


def _plan(document: dict[str, Any], catalog: Catalog) -> tuple[Workload, Plan] | None:
    """Plan the document, or None after a clean one-line InfraGenError."""
    try:
        workload = parse_workload(_yaml(document), "edge.yaml")
        return workload, plan_workload(workload, catalog, today=TODAY)
    except InfraGenError as err:
        assert str(err) and "\n" not in str(err), repr(str(err))
        return None


def _offer(catalog: Catalog, c: Candidate) -> Offer:
    return next(o for o in catalog.offers if (o.cloud, o.region, o.instance_type)
                == (c.cloud, c.region, c.instance_type))


def _key(plan: Plan, c: Candidate, by_run: bool) -> float:
    assert (c.per_run_usd is not None) or not by_run
    return c.per_run_usd if by_run and c.per_run_usd is not None else c.monthly_usd


def assert_invariants(workload: Workload, plan: Plan, catalog: Catalog) -> None:
    assert plan.requirement.memory_gib.total > 0
    assert plan.requirement.memory_gib_unsharded.total >= plan.requirement.memory_gib.total - 1e-9
    candidates = [plan.recommendation, *plan.alternatives]
    for c in candidates:
        assert c.hourly_usd >= 0 and c.monthly_usd >= 0
        assert c.per_run_usd is None or c.per_run_usd >= 0
        assert c.purchase.total == c.instances >= 1
        offer = _offer(catalog, c)
        if offer.spot_usd_hr is not None:
            assert offer.spot_usd_hr <= offer.on_demand_usd_hr
        # every purchase option costs at most on-demand per running hour
        assert c.hourly_usd <= c.instances * offer.on_demand_usd_hr + 1e-4
        if c.purchase.spot == c.instances:
            assert offer.spot_usd_hr is not None
            assert c.hourly_usd == pytest.approx(c.instances * offer.spot_usd_hr, abs=1e-4)
    by_run = profile_of(workload).rank_by_run
    best = _key(plan, plan.recommendation, by_run)
    for alt in plan.alternatives:
        assert best <= _key(plan, alt, by_run) + CENT, (plan.recommendation, alt)


BUILTIN = ROOT / "infra_gen" / "catalog" / "data" / "offers.csv"


def builtin_catalog() -> Catalog:
    """The built-in catalog by path, so $INFRA_GEN_CATALOG cannot swap it (parsed once)."""
    return load_catalog(BUILTIN)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=workloads())
def test_valid_workloads_at_the_edges_end_in_a_plan_or_clean_error(
    document: dict[str, Any],
) -> None:
    catalog = builtin_catalog()
    outcome = _plan(document, catalog)
    if outcome is not None:
        assert_invariants(*outcome, catalog)


def _longer(document: dict[str, Any]) -> dict[str, Any] | None:
    """The same workload with more hours: schedule for services, run length for training."""
    longer = {**document, "schedule": dict(document["schedule"])}
    if document["type"] in ("inference", "dev"):
        hours = document["schedule"]["hours_per_day"]
        days = document["schedule"]["days_per_week"]
        if hours >= 24 and days >= 7:
            return None
        longer["schedule"] = {"hours_per_day": min(24.0, hours + 4),
                              "days_per_week": min(7, days + 1)}
        return longer
    if document["type"] == "batch":
        longer["batch"] = {**document["batch"], "items": document["batch"]["items"] * 2}
        return longer
    training = dict(document["training"])
    for key in ("duration_hours", "tokens_b"):
        if key in training:
            training[key] = training[key] * 2
    longer["training"] = training
    return longer


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=workloads())
def test_more_hours_never_cost_less(document: dict[str, Any]) -> None:
    catalog = builtin_catalog()
    longer = _longer(document)
    assume(longer is not None)
    assert longer is not None
    shorter_outcome, longer_outcome = _plan(document, catalog), _plan(longer, catalog)
    assume(shorter_outcome is not None and longer_outcome is not None)
    assert shorter_outcome is not None and longer_outcome is not None
    workload, short_plan = shorter_outcome
    by_run = profile_of(workload).rank_by_run
    short_cost = _key(short_plan, short_plan.recommendation, by_run)
    long_cost = _key(longer_outcome[1], longer_outcome[1].recommendation, by_run)
    assert long_cost >= short_cost - CENT, (short_plan.recommendation, longer_outcome[1])


@pytest.mark.parametrize(("schedule", "where"), [
    ("{hours_per_day: 0, days_per_week: 5}", "edge.yaml:6:12: error: schedule.hours_per_day"),
    ("{hours_per_day: 8, days_per_week: 0}", "edge.yaml:6:30: error: schedule.days_per_week"),
])
def test_zero_hour_week_is_a_clean_error(schedule: str, where: str) -> None:
    # Found by the test above: a training run with a 0-hour week got 0 monthly hours, so an
    # offer without a spot price looked priceable for spot-only and planning.costs_micros hit
    # an AssertionError (a traceback from `infra-gen plan`). A week with no hours cannot run.
    text = ("version: 1\nname: edge\ntype: training\nowner: {team: t, project: p, "
            "cost_center: c}\nmodel: {parameters_b: 0.1, precision: fp32}\n"
            f"schedule: {schedule}\npurchasing: {{spot: always}}\ntraining: {{tokens_b: 1}}\n")
    with pytest.raises(InfraGenError) as err:
        parse_workload(text, "edge.yaml")
    assert str(err.value).startswith(where + ": expected a schedule of more than 0 hours a week")


# No shrinking: each example renders a whole stack, and a failure's example is readable as is.
@settings(max_examples=10, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(document=workloads(), cloud=st.sampled_from(["aws", "gcp", "azure"]))
def test_check_at_the_edges_renders_or_fails_cleanly(document: dict[str, Any], cloud: str,
                                                     tmp_path: Path) -> None:
    """The whole `check` path (plan, render under mocks on the cloud, policy rules)."""
    from infra_gen.policy import PolicyConfig
    from infra_gen.policy.check import check_files

    path = tmp_path / "edge.yaml"
    path.write_text(_yaml({**document, "placement": {"clouds": [cloud]}}), "utf-8")
    try:
        report = check_files([path], PolicyConfig(), jobs=1)
    except InfraGenError as err:
        assert "\n" not in str(err)
        return
    assert report.checked == 1
    assert all(v.workload == str(path) and v.policy and v.message for v in report.violations)


# ---------------------------------------------------------------- CLI, a real process
INVALID_WORKLOADS = {
    "params-too-big": "version: 1\nname: x\ntype: dev\nowner: {team: t, project: p, "
                      "cost_center: c}\nmodel: {parameters_b: 20000}\n",
    "hours-over-24": "version: 1\nname: x\ntype: dev\nowner: {team: t, project: p, "
                     "cost_center: c}\nmodel: {parameters_b: 7}\nschedule: {hours_per_day: 25}\n",
    "name-with-shell": "version: 1\nname: 'x; rm -rf /'\ntype: dev\nowner: {team: t, "
                       "project: p, cost_center: c}\nmodel: {parameters_b: 7}\n",
    "nothing-fits": "version: 1\nname: x\ntype: training\nowner: {team: t, project: p, "
                    "cost_center: c}\nmodel: {parameters_b: 10000, precision: fp32}\n"
                    "training: {method: full, tokens_b: 1}\nplacement: {clouds: [azure], "
                    "accelerator: T4}\n",
    "binary": "\x00\x01\x02",
    "list-document": "- 1\n- 2\n",
}


@pytest.mark.parametrize("case", sorted(INVALID_WORKLOADS))
def test_cli_plan_invalid_input_exits_2_with_one_line(case: str, tmp_path: Path) -> None:
    path = tmp_path / f"{case}.yaml"
    path.write_text(INVALID_WORKLOADS[case], "utf-8")
    done = subprocess.run([sys.executable, "-m", "infra_gen", "plan", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "error:" in lines[0], lines
    # Loader errors point at FILE:LINE:COL; planning errors say what to relax instead.
    assert (str(path) + ":" in lines[0]) or (case == "nothing-fits" and "to fix:" in lines[0])


_BAD_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9),
                        st.floats(allow_nan=True, allow_infinity=True),
                        st.text(max_size=20), st.lists(st.integers(), max_size=3))
_PATHS = [("name",), ("type",), ("model", "parameters_b"), ("model", "precision"),
          ("schedule", "hours_per_day"), ("schedule", "timezone"), ("owner", "team"),
          ("guardrails", "budget", "emails"), ("placement", "clouds"),
          ("inference", "input_tokens")]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(_PATHS), value=_BAD_VALUES)
def test_cli_plan_random_field_values_exit_0_or_2_never_a_traceback(
    where: tuple[str, ...], value: object, tmp_path: Path,
) -> None:
    doc: dict[str, Any] = {
        "version": 1, "name": "svc", "type": "inference",
        "owner": {"team": "t", "project": "p", "cost_center": "c"},
        "model": {"parameters_b": 7, "precision": "bf16"}, "inference": {"input_tokens": 512},
        "schedule": {"hours_per_day": 12}, "placement": {"clouds": ["aws"]},
        "guardrails": {"budget": {"emails": ["a@example.com"]}},
    }
    node = doc
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    path = tmp_path / "random.yaml"
    path.write_text(_yaml(doc), "utf-8")
    done = subprocess.run([sys.executable, "-m", "infra_gen", "plan", str(path), "--format",
                           "json"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert "Traceback" not in done.stderr
    if done.returncode == 0:
        assert '"recommendation"' in done.stdout
    else:
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and "error:" in done.stderr



@pytest.mark.parametrize("fmt", ["json", "markdown", "html"])
def test_cli_plan_in_every_format_imports_no_pulumi(fmt: str) -> None:
    """tests/test_planning.py checks the table path in process; this checks the real command
    with the report formats too, from the interpreter's own import log."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "infra_gen", "plan",
                           str(ROOT / "stacks" / "resnet50-inference.yaml"), "--format", fmt],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")]
    assert "infra_gen.optimizer" in imported  # the log is real and covers the plan path
    assert [m for m in imported if m.split(".")[0].startswith("pulumi")] == []


# ---------------------------------------------------------------- catalog robustness
# tests/catalog/test_load.py covers bad cells (file:line and field), duplicates and headers;
# tests/catalog/test_refresh.py covers a failed or interrupted refresh leaving the previous
# catalog byte-for-byte intact (test_failed_refresh_leaves_old_catalog_intact,
# test_invalid_or_interrupted_write_keeps_old_file). Here: damaged *files*.
ROW_ERROR = re.compile(r"^\S+:(\d+): error: [^\n]+$")


def _damaged(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "damaged.csv"
    path.write_bytes(data)
    return path


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 20_000))
def test_a_truncated_catalog_is_an_error_naming_its_line(cut: int, tmp_path: Path) -> None:
    full = BUILTIN.read_bytes()
    data = full[:cut]
    path = _damaged(tmp_path, data)
    try:
        catalog = load_catalog(path)
    except CatalogError as err:
        match = ROW_ERROR.match(str(err))
        assert match, str(err)
        assert 1 <= int(match.group(1)) <= data.count(b"\n") + 2  # +1: a missing header
    else:  # cut at the end of a row (before or after its newline): a smaller valid catalog
        assert data.endswith(b"\n") or full[cut:cut + 1] in (b"\n", b"")
        assert 0 < len(catalog.offers) <= len(load_catalog(BUILTIN).offers)


@pytest.mark.parametrize(("damage", "line", "message"), [
    (b"\xff\xfe not text\n", 5, "expected UTF-8 text, got byte 0xff"),
    (b"aws,us-east-1\x00,g5.xlarge\n", 5, "expected 18 cells, got 3"),
    (b'"an unterminated quote,aws\n', 5, "expected 18 cells, got 1"),
])
def test_corrupted_rows_are_named(damage: bytes, line: int, message: str,
                                  tmp_path: Path) -> None:
    head = b"".join(BUILTIN.read_bytes().splitlines(keepends=True)[:4])  # 2 directives, header, row
    path = _damaged(tmp_path, head + damage)
    with pytest.raises(CatalogError) as err:
        load_catalog(path)
    assert str(err.value) == f"{path}:{line}: error: {message}"


def test_cli_plan_with_a_truncated_catalog_exits_2_naming_the_row(tmp_path: Path) -> None:
    data = BUILTIN.read_bytes()
    cut = data.index(b"\n", 2000) - 10  # ten bytes before the end of a row
    path = _damaged(tmp_path, data[:cut])
    line = data[:cut].count(b"\n") + 1
    done = subprocess.run([sys.executable, "-m", "infra_gen", "plan",
                           str(ROOT / "stacks" / "resnet50-inference.yaml"), "--catalog",
                           str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{path}:{line}: error: "), done.stderr
    assert len(done.stderr.splitlines()) == 1
