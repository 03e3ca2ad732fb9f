"""Cost reports people read: Markdown for a pull-request comment, one self-contained HTML page.

    render_markdown(plan) -> str   # ``infra-gen plan FILE --format markdown``
    render_html(plan) -> str       # ``infra-gen plan FILE --format html [-o report.html]``

Both are Jinja2 templates (``templates/report.md.j2``, ``templates/report.html.j2``) fed the
same view of the Plan built here; the numbers are the Plan's own (rounded to cents by
``plan.py``), never recomputed, so a report cannot disagree with ``--format json``.

Escaping is not left to the template author:
- HTML renders with autoescape on; the charts are geometry computed in ``report_charts`` and
  drawn by the template, so every label goes through the same escaping.
- Markdown has no autoescape, so the environment's ``finalize`` hook escapes every printed
  string (``md_escape``): workload names, tags, e-mails and warnings cannot open a link, a
  table cell, an HTML tag or an @-mention in a PR comment. Text the template builds on purpose
  is ``MdText``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePath
from typing import Any

import jinja2

from infra_gen.plan import Candidate, Plan
from infra_gen.report_charts import cost_chart, memory_chart, utilization_chart
from infra_gen.report_format import (
    CLOUD_NAMES,
    MEMORY_LABELS,
    MEMORY_TERMS,
    gib,
    hourly,
    md_escape,
    mix_text,
    percent,
    ranking_cost,
    ranks_by_run,
    usd,
)
from infra_gen.startup import _load_template  # one place knows where the templates live


class MdText(str):
    """Markdown the report built itself (already safe); ``finalize`` prints it as is."""


def _md_finalize(value: Any) -> Any:
    if isinstance(value, MdText) or value is None:
        return value if value is not None else ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return md_escape(value)


# --------------------------------------------------------------------------- the view
def _candidate_view(plan: Plan, c: Candidate, rank: int) -> dict[str, Any]:
    best = ranking_cost(plan, plan.recommendation)
    delta = ranking_cost(plan, c) - best
    return {
        "rank": rank, "recommended": rank == 1, "cloud": c.cloud,
        "cloud_name": CLOUD_NAMES.get(c.cloud, c.cloud), "region": c.region,
        "instance_type": c.instance_type, "accelerator": c.accelerator,
        "instances": c.instances, "gpus": c.instances * c.accelerators_per_instance,
        "purchase": mix_text(c.purchase), "hourly": hourly(c.hourly_usd),
        "monthly": usd(c.monthly_usd), "per_run": usd(c.per_run_usd),
        "delta": "—" if rank == 1 else f"+{usd(delta)}" if delta >= 0 else usd(delta),
        "delta_percent": "" if rank == 1 or not best else f"{100 * delta / best:+.0f}%",
        "memory_utilization": percent(c.memory_utilization),
        "reserved_estimated": c.reserved_estimated, "why": c.why,
    }


def _memory_rows(plan: Plan) -> list[dict[str, str]]:
    per_gpu, whole = plan.requirement.memory_gib, plan.requirement.memory_gib_unsharded
    return [{"term": MEMORY_LABELS[t], "per_gpu": gib(getattr(per_gpu, t)),
             "unsharded": gib(getattr(whole, t))} for t in MEMORY_TERMS]


def _guardrail_lines(plan: Plan) -> list[str]:
    g = plan.guardrails
    lines = [
        "auto-shutdown: off" if g.auto_shutdown_idle_minutes is None else
        f"auto-shutdown after {g.auto_shutdown_idle_minutes} min with every GPU below "
        f"{g.gpu_utilization_below:g}% utilisation",
        "budget: off" if g.budget_monthly_usd is None else
        f"budget {usd(g.budget_monthly_usd)}/month, alerts at "
        f"{', '.join(f'{p}%' for p in g.alert_percent)}"
        + (f" to {', '.join(g.emails)}" if g.emails else ""),
    ]
    if g.max_hourly_usd is not None:
        lines.append(f"max hourly cost {hourly(g.max_hourly_usd)}")
    s = g.schedule
    lines.append(f"schedule {s.hours_per_day:g} h/day x {s.days_per_week} days/week"
                 + ("" if s.hours_per_day >= 24 and s.days_per_week == 7
                    else f" from {s.start_hour:02d}:00 {s.timezone}"))
    if g.checkpoint_minutes is not None:
        lines.append(f"checkpoint every {g.checkpoint_minutes} min; spot notice gives the job "
                     f"{g.checkpoint_deadline_seconds} s to save")
    if g.max_run_hours is not None:
        lines.append(f"hard stop after {g.max_run_hours:g} h per run")
    lines.append(f"root volume {plan.root_volume_gib} GiB")
    return lines


def _tco_view(plan: Plan) -> dict[str, Any] | None:
    tco = plan.tco
    if tco is None:
        return None
    even = tco.on_prem_break_even_utilization
    return {
        "accelerator": tco.accelerator, "utilization": percent(tco.utilization),
        "cloud": usd(tco.cloud_usd_per_gpu_hour), "on_prem": usd(tco.on_prem_usd_per_gpu_hour),
        "break_even": f"{even:.0%} utilisation" if even <= 1
        else "never (the cloud is cheaper even at 100% utilisation)",
        "reserved_break_even": None if tco.reserved_break_even_utilization is None
        else f"{tco.reserved_break_even_utilization:.0%} of hours running",
        "assumptions": tco.assumptions,
    }


def report_view(plan: Plan) -> dict[str, Any]:
    """Everything the templates print, as display strings (both formats share it)."""
    rec, base, req = plan.recommendation, plan.baselines, plan.requirement
    candidates = [rec, *plan.alternatives]
    saved = base.on_demand_always_on_monthly_usd - rec.monthly_usd
    return {
        "plan": plan, "rec": _candidate_view(plan, rec, 1),
        "candidates": [_candidate_view(plan, c, i + 1) for i, c in enumerate(candidates)],
        "ranked_by": "per run" if ranks_by_run(plan) else "per month",
        "is_service": rec.per_run_usd is None,
        "run_hours": None if rec.run_hours is None else f"{rec.run_hours:,.1f}",
        "baseline": usd(base.on_demand_always_on_monthly_usd),
        "savings_percent": f"{base.savings_percent:.1f}%", "savings_usd": usd(saved),
        "idle_per_day": usd(base.idle_usd_per_day),
        "idle_capped": usd(base.auto_shutdown_idle_cost_usd),
        "memory_rows": _memory_rows(plan), "memory_total": gib(req.memory_gib.total),
        "memory_unsharded_total": gib(req.memory_gib_unsharded.total),
        "gpu_hours_per_run": None if req.gpu_hours_per_run is None
        else f"{req.gpu_hours_per_run:,.1f}",
        "guardrails": _guardrail_lines(plan), "tco": _tco_view(plan),
        "catalog_source": _source_name(plan.catalog.source),
    }


def _source_name(source: str) -> str:
    """A catalog file's name, not the runner's absolute path (reports are shared)."""
    return source if source == "built-in" else PurePath(source).name


# --------------------------------------------------------------------------- rendering
@lru_cache(maxsize=2)
def _environment(kind: str) -> jinja2.Environment:
    markdown = kind == "markdown"
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_load_template),
        autoescape=not markdown,
        undefined=jinja2.StrictUndefined,
        finalize=_md_finalize if markdown else None,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["usd"] = usd
    return env


def render_markdown(plan: Plan) -> str:
    """Compact report for a pull-request comment (GitHub-flavoured Markdown)."""
    text = _environment("markdown").get_template("report.md.j2").render(**report_view(plan))
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def render_html(plan: Plan) -> str:
    """One self-contained HTML page: inline CSS and SVG, no scripts, no network."""
    view = report_view(plan)
    view.update(memory_chart=memory_chart(plan), cost_chart=cost_chart(plan),
                utilization_chart=utilization_chart(plan))
    return _environment("html").get_template("report.html.j2").render(**view)
