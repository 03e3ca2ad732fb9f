"""``infra-gen diff BASE HEAD``: what a change to workload files does to their plans and cost.

BASE and HEAD are two workload files, or two directories whose workload files (``*.yaml``,
``*.yml``, minus Pulumi's own ``Pulumi*.yaml``) are paired by workload *name*, so a renamed
file is still the same workload and a repository gets one summary: added, removed, changed
and unchanged workloads. Each side is planned with ``optimizer.plan_workload`` over the same
catalog, so only the workload change moves the figures.

Money is summed in integer cents (the Plan's figures are already cents), so the total is the
exact sum of the rows. The CI guardrail compares the *total* monthly increase with
``--fail-above-usd`` / ``--fail-above-percent``; an increase from $0 counts as infinite percent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra_gen.catalog.models import Catalog
from infra_gen.errors import InfraGenError, PlanningError, WorkloadError
from infra_gen.plan import Plan, PurchaseMix
from infra_gen.report_format import md_escape, mix_text, usd

STATUSES = ("added", "removed", "changed", "unchanged")
MARKER = "<!-- infra-gen-cost-diff -->"  # lets a CI job find and update its own PR comment


@dataclass(frozen=True)
class Side:
    """One side of a pair: the file and its plan's headline figures."""

    file: str
    summary: dict[str, Any]

    @property
    def monthly_cents(self) -> int:
        return round(self.summary["monthly_usd"] * 100)


def workload_files(path: Path) -> list[Path]:
    """A file as given; a directory's workload files, sorted (an empty directory is allowed:
    a base branch may have none yet)."""
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file()
                      and p.suffix in (".yaml", ".yml") and not p.name.startswith("Pulumi."))
    return [path]


def plan_summary(plan: Plan) -> dict[str, Any]:
    """The fields a reviewer compares: where, what, how it is bought, what it costs."""
    rec = plan.recommendation
    return {
        "cloud": rec.cloud, "region": rec.region, "instance_type": rec.instance_type,
        "accelerator": rec.accelerator, "instances": rec.instances,
        "gpus": rec.instances * rec.accelerators_per_instance,
        "purchase": rec.purchase.model_dump(mode="json"),
        "hourly_usd": rec.hourly_usd, "monthly_usd": rec.monthly_usd,
        "per_run_usd": rec.per_run_usd,
    }


def _plan_side(path: Path, catalog: Catalog) -> tuple[str, Side]:
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload

    workload = load_workload(path)
    try:
        plan = plan_workload(workload, catalog)
    except WorkloadError:
        raise
    except InfraGenError as err:
        raise PlanningError(f"{path}: {err}") from err
    return workload.name, Side(str(path), plan_summary(plan))


def _plan_all(path: Path, catalog: Catalog) -> dict[str, Side]:
    sides: dict[str, Side] = {}
    for file in workload_files(path):
        name, side = _plan_side(file, catalog)
        if name in sides:
            raise WorkloadError(str(file), 1, 1, "name", f"expected workload names unique "
                                f"within {path}, got {name!r} also in {sides[name].file}")
        sides[name] = side
    return sides


def diff_paths(base: Path, head: Path, catalog: Catalog) -> dict[str, Any]:
    """The diff as JSON-ready data (see ``diff_report``)."""
    for path in (base, head):
        if not path.exists():
            raise WorkloadError(str(path), 1, 1, "", "expected a workload file or directory, "
                                "got nothing at this path")
    if base.is_dir() != head.is_dir():
        raise WorkloadError(str(head), 1, 1, "", f"expected BASE and HEAD both files or both "
                            f"directories; {base} is a {_kind(base)}, {head} a {_kind(head)}")
    if base.is_dir():
        return diff_report(_plan_all(base, catalog), _plan_all(head, catalog))
    base_name, base_side = _plan_side(base, catalog)
    head_name, head_side = _plan_side(head, catalog)
    return diff_report({head_name: base_side}, {head_name: head_side})


def _kind(path: Path) -> str:
    return "directory" if path.is_dir() else "file"


def _percent(delta_cents: int, base_cents: int) -> float | None:
    return None if base_cents == 0 else round(100 * delta_cents / base_cents, 1)


def _row(name: str, base: Side | None, head: Side | None) -> dict[str, Any]:
    base_cents = base.monthly_cents if base else 0
    delta = (head.monthly_cents if head else 0) - base_cents
    if base is None:
        status = "added"
    elif head is None:
        status = "removed"
    else:
        status = "unchanged" if base.summary == head.summary else "changed"
    return {
        "workload": name, "status": status,
        "base": None if base is None else {"file": base.file, **base.summary},
        "head": None if head is None else {"file": head.file, **head.summary},
        "monthly_delta_usd": delta / 100,
        "monthly_delta_percent": None if base is None else _percent(delta, base_cents),
    }


def diff_report(base: dict[str, Side], head: dict[str, Side]) -> dict[str, Any]:
    """Rows sorted by workload name, and totals summed in cents."""
    rows = [_row(name, base.get(name), head.get(name)) for name in sorted({*base, *head})]
    base_cents = sum(s.monthly_cents for s in base.values())
    head_cents = sum(s.monthly_cents for s in head.values())
    return {
        "workloads": rows,
        "total": {
            "base_monthly_usd": base_cents / 100, "head_monthly_usd": head_cents / 100,
            "monthly_delta_usd": (head_cents - base_cents) / 100,
            "monthly_delta_percent": _percent(head_cents - base_cents, base_cents),
        },
    }


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def guardrail_breach(
    report: dict[str, Any], *, above_usd: float | None, above_percent: float | None,
) -> str | None:
    """Why the total increase breaks a ``--fail-above-*`` threshold, or None."""
    total = report["total"]
    delta, percent = total["monthly_delta_usd"], total["monthly_delta_percent"]
    rise = f"monthly cost rises by {usd(delta)}" + (
        "" if percent is None else f" ({percent:+.1f}%)")
    if above_usd is not None and delta > above_usd:
        return f"cost guardrail: {rise}, above --fail-above-usd {above_usd:g}"
    if above_percent is not None and delta > 0 and (percent is None or percent > above_percent):
        return f"cost guardrail: {rise}, above --fail-above-percent {above_percent:g}"
    return None


# --------------------------------------------------------------------------- text renderings
def side_text(side: dict[str, Any] | None) -> str:
    if side is None:
        return "—"
    mix = PurchaseMix(**side["purchase"])
    return (f"{side['instances']}x {side['instance_type']} ({side['cloud']} {side['region']}, "
            f"{mix_text(mix)}) {usd(side['monthly_usd'])}/month")


def signed_usd(value: float) -> str:
    return ("+" if value > 0 else "") + usd(value)


def percent_text(value: float | None, delta: float) -> str:
    if value is None:
        return "new" if delta > 0 else "—"
    return f"{value:+.1f}%"


def render_markdown(report: dict[str, Any]) -> str:
    """The PR comment: one summary line, one row per workload that is not unchanged."""
    total, rows = report["total"], report["workloads"]
    counts = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    lines = [MARKER, "### infra-gen cost diff", "",
             f"Monthly cost **{usd(total['base_monthly_usd'])} → "
             f"{usd(total['head_monthly_usd'])}** ({signed_usd(total['monthly_delta_usd'])}, "
             f"{percent_text(total['monthly_delta_percent'], total['monthly_delta_usd'])}) "
             f"over {len(rows)} workload(s): "
             + ", ".join(f"{counts[s]} {s}" for s in STATUSES), ""]
    shown = [r for r in rows if r["status"] != "unchanged"]
    if not shown:
        return "\n".join([*lines, "No workload's plan or cost changed."]) + "\n"
    lines += ["| workload | status | base | head | Δ $/month | Δ % |",
              "|---|---|---|---|---:|---:|"]
    lines += [f"| {md_escape(r['workload'])} | {r['status']} | {md_escape(side_text(r['base']))}"
              f" | {md_escape(side_text(r['head']))} | {signed_usd(r['monthly_delta_usd'])} | "
              f"{percent_text(r['monthly_delta_percent'], r['monthly_delta_usd'])} |"
              for r in shown]
    return "\n".join(lines) + "\n"
