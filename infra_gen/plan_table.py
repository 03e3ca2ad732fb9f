"""``infra-gen plan`` for people: the Plan as Rich tables (sizing, recommendation, alternatives,
guardrails, purchases, TCO, warnings, assumptions). Machine output is ``Plan.to_json()``.

Rendering lives here, not in the engine; the report module (markdown/html) may absorb it.
"""

from __future__ import annotations

import io
import os
import sys

from rich.console import Console
from rich.table import Table

from infra_gen.plan import Candidate, Plan
from infra_gen.report_format import mix_text

# Width when stdout is not a terminal (a pipe, a file, CI logs) and COLUMNS is unset: fixed, so
# the same plan always prints the same text there. Rich's own fallback is 80.
DEFAULT_WIDTH = 100
MIN_WIDTH = 40  # narrower than this and no table reads well; wrap instead of failing


def terminal_width() -> int:
    """The width to render at: COLUMNS when set (as Rich honours it), else the terminal's
    width when stdout is one, else DEFAULT_WIDTH."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    if sys.stdout.isatty():
        return max(os.get_terminal_size(sys.stdout.fileno()).columns, MIN_WIDTH)
    return DEFAULT_WIDTH


def render_plan_table(plan: Plan, width: int | None = None) -> str:
    """The plan as text tables, laid out for ``width`` columns (``terminal_width()`` if None);
    every line fits in it and no header is cut."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or terminal_width(), force_terminal=False,
                      color_system=None, highlight=False)
    console.print(f"[bold]{plan.workload}[/bold] ({plan.workload_type}) - catalog "
                  f"{plan.catalog.source} as of {plan.catalog.as_of}, {plan.catalog.offers} "
                  f"offers, {plan.candidates_priced} candidates priced")
    console.print(_memory(plan))
    console.print(_shape(plan))
    console.print(_recommendation(plan))
    if plan.alternatives:
        console.print(_alternatives(plan))
    console.print(_guardrails(plan))
    if plan.tco is not None:
        console.print(_tco(plan))
    for title, lines in (("Commitments", [p.note for p in plan.purchases_to_make]),
                         ("Warnings", plan.warnings), ("Assumptions", plan.assumptions)):
        if lines:
            console.print(f"[bold]{title}[/bold]")
            console.print(_bullets(lines))
    # Rich pads titles and wrapped lines to the full width; trailing blanks help no one.
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def _bullets(lines: list[str]) -> Table:
    """One bullet per line, wrapped under its own text (a hanging indent), not under the dash."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    for line in lines:
        table.add_row("  -", line)
    return table


def _key_value(title: str) -> Table:
    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("field", no_wrap=True)
    table.add_column("value", overflow="fold")
    return table


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:,.2f}"


def _memory(plan: Plan) -> Table:
    """Memory by term: per GPU on the recommended accelerator, and before sharding."""
    per_gpu, whole = plan.requirement.memory_gib, plan.requirement.memory_gib_unsharded
    table = Table(title="Sizing: memory (recommended accelerator)", title_justify="left")
    table.add_column("term", no_wrap=True)
    table.add_column("GiB per GPU", justify="right", no_wrap=True)
    table.add_column("GiB unsharded", justify="right", no_wrap=True)
    for term in ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead",
                 "total"):
        table.add_row(term, f"{getattr(per_gpu, term):.1f}", f"{getattr(whole, term):.1f}")
    return table


def _shape(plan: Plan) -> Table:
    req = plan.requirement
    table = _key_value("Sizing: GPUs")
    table.add_row("parallelism", req.parallelism)
    table.add_row("GPUs/replica", str(req.gpus_per_replica))
    table.add_row("replicas", f"{req.replicas} (floor {req.replicas_floor})")
    table.add_row("GPU-h/run",
                  "-" if req.gpu_hours_per_run is None else f"{req.gpu_hours_per_run:,.1f}")
    return table


def _recommendation(plan: Plan) -> Table:
    rec, base = plan.recommendation, plan.baselines
    table = _key_value("Recommendation")
    gpus = rec.instances * rec.accelerators_per_instance
    rows = [
        ("where", f"{rec.cloud} {rec.region}"),
        ("instances", f"{rec.instances}x {rec.instance_type} ({gpus}x {rec.accelerator}, "
                      f"{rec.memory_utilization:.0%} memory per GPU, {rec.interconnect})"),
        ("purchase", mix_text(rec.purchase)),
        ("cost", f"{_usd(rec.hourly_usd)}/h  {_usd(rec.monthly_usd)}/month  "
                 f"{_usd(rec.per_run_usd)}/run"
                 + (f"  ({rec.run_hours:,.1f} h per run)" if rec.run_hours else "")),
        ("baseline", f"{_usd(base.on_demand_always_on_monthly_usd)}/month on demand, always "
                     f"on: saves {base.savings_percent:.1f}%"),
        ("idle risk", f"{_usd(base.idle_usd_per_day)} per idle day; auto-shutdown caps an "
                      f"idle spell at {_usd(base.auto_shutdown_idle_cost_usd)}"),
        ("why", rec.why),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


def _alternatives(plan: Plan) -> Table:
    """One row per alternative: what and where in the first column (it wraps), money in
    narrow right-aligned columns, so the table reads at 80 columns as well as at 200."""
    table = Table(title="Alternatives (ascending cost)", title_justify="left", show_lines=True)
    table.add_column("instances, where, purchase, vs best", overflow="fold", ratio=1)
    for column in ("$/h", "$/month", "$/run"):
        table.add_column(column, justify="right", no_wrap=True)
    for alt in plan.alternatives:
        table.add_row(*_alternative_row(alt))
    return table


def _alternative_row(alt: Candidate) -> list[str]:
    what = (f"{alt.instances}x {alt.instance_type}\n{alt.cloud} {alt.region}, "
            f"{mix_text(alt.purchase)}\n{alt.why.split(';')[0]}")
    return [what, _usd(alt.hourly_usd), _usd(alt.monthly_usd), _usd(alt.per_run_usd)]


def _guardrails(plan: Plan) -> Table:
    g = plan.guardrails
    table = _key_value("Guardrails")
    shutdown = ("off" if g.auto_shutdown_idle_minutes is None else
                f"after {g.auto_shutdown_idle_minutes} min below {g.gpu_utilization_below:g}% GPU")
    budget = ("off" if g.budget_monthly_usd is None else
              f"{_usd(g.budget_monthly_usd)}/month, alerts at "
              f"{', '.join(f'{p}%' for p in g.alert_percent)}")
    table.add_row("auto-shutdown", shutdown)
    table.add_row("budget", budget)
    table.add_row("max hourly", _usd(g.max_hourly_usd))
    table.add_row("root volume", f"{plan.root_volume_gib} GiB")
    return table


def _tco(plan: Plan) -> Table:
    tco = plan.tco
    assert tco is not None
    table = _key_value(f"Cloud vs on-prem ({tco.accelerator}, per productive GPU-hour)")
    table.add_row("utilisation", f"{tco.utilization:.0%}")
    table.add_row("cloud (this plan)", _usd(tco.cloud_usd_per_gpu_hour))
    table.add_row("on-prem", _usd(tco.on_prem_usd_per_gpu_hour))
    even = tco.on_prem_break_even_utilization
    table.add_row("on-prem break-even", f"{even:.0%} utilisation" if even <= 1 else
                  "never (cheaper in the cloud even at 100% utilisation)")
    if tco.reserved_break_even_utilization is not None:
        table.add_row("3y reserved break-even",
                      f"{tco.reserved_break_even_utilization:.0%} of hours running")
    return table
