"""``infra-gen plan`` for people: the Plan as Rich tables (sizing, recommendation, alternatives,
guardrails, purchases, TCO, warnings, assumptions). Machine output is ``Plan.to_json()``.

Rendering lives here, not in the engine; the report module (markdown/html) may absorb it.
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from infra_gen.plan import Candidate, Plan
from infra_gen.report_format import mix_text

WIDTH = 120  # fixed so the same plan always prints the same text


def render_plan_table(plan: Plan) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=WIDTH, force_terminal=False, color_system=None,
                      highlight=False)
    console.print(f"[bold]{plan.workload}[/bold] ({plan.workload_type}) - catalog "
                  f"{plan.catalog.source} as of {plan.catalog.as_of}, {plan.catalog.offers} "
                  f"offers, {plan.candidates_priced} candidates priced")
    console.print(_sizing(plan))
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
            for line in lines:
                console.print(f"  - {line}", soft_wrap=False)
    return buffer.getvalue()


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:,.2f}"


def _sizing(plan: Plan) -> Table:
    req = plan.requirement
    table = Table(title="Sizing (GiB per GPU, recommended accelerator)", title_justify="left")
    for column in ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead",
                   "total", "parallelism", "GPUs/replica", "replicas", "GPU-h/run"):
        table.add_column(column, justify="right")
    m = req.memory_gib
    table.add_row(*(f"{v:.1f}" for v in (m.weights, m.kv_cache, m.activations, m.gradients,
                                           m.optimizer, m.overhead, m.total)),
                  req.parallelism, str(req.gpus_per_replica),
                  f"{req.replicas} (floor {req.replicas_floor})",
                  "-" if req.gpu_hours_per_run is None else f"{req.gpu_hours_per_run:,.1f}")
    return table


def _recommendation(plan: Plan) -> Table:
    rec, base = plan.recommendation, plan.baselines
    table = Table(title="Recommendation", title_justify="left", show_header=False)
    table.add_column("field")
    table.add_column("value")
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
    table = Table(title="Alternatives (ascending cost)", title_justify="left")
    for column, justify in (("cloud", "left"), ("region", "left"), ("instance", "left"),
                            ("n", "right"), ("purchase", "left"), ("$/h", "right"),
                            ("$/month", "right"), ("$/run", "right"), ("vs best", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for alt in plan.alternatives:
        table.add_row(*_alternative_row(alt))
    return table


def _alternative_row(alt: Candidate) -> list[str]:
    return [alt.cloud, alt.region, alt.instance_type, str(alt.instances), mix_text(alt.purchase),
            _usd(alt.hourly_usd), _usd(alt.monthly_usd), _usd(alt.per_run_usd),
            alt.why.split(";")[0]]


def _guardrails(plan: Plan) -> Table:
    g = plan.guardrails
    table = Table(title="Guardrails", title_justify="left", show_header=False)
    table.add_column("field")
    table.add_column("value")
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
    table = Table(title=f"Cloud vs on-prem ({tco.accelerator}, per productive GPU-hour)",
                  title_justify="left", show_header=False)
    table.add_column("field")
    table.add_column("value")
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
