"""Geometry of the HTML report's three SVG charts; ``templates/report.html.j2`` draws them.

Python computes coordinates and label text, the template emits the SVG elements with
autoescape on, so no label can break out of the markup. Nothing here fetches fonts or
scripts: the page stays one self-contained file.

- ``memory_chart``: GPU memory per GPU on the recommended accelerator, one stacked bar with a
  segment per non-zero term (weights, KV cache, ...) over the GPU's full memory.
- ``cost_chart``: monthly cost of the recommendation and each alternative, one bar each,
  coloured by cloud and labelled with the purchase mix, with the always-on on-demand baseline.
- ``utilization_chart``: monthly cost against utilisation (share of the month the GPUs do
  work): cloud on demand, cloud at the plan's price per productive GPU-hour, and on-prem from
  seed 002's TCO model (``infra_gen.tco``), with the break-even point marked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from infra_gen.plan import Plan
from infra_gen.pricing import HOURS_PER_MONTH
from infra_gen.report_format import (
    CLOUD_NAMES,
    MEMORY_LABELS,
    MEMORY_TERMS,
    mix_text,
    ranking_cost,
    ranks_by_run,
    usd,
)

WIDTH = 900
# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
TERM_COLOURS = {"weights": "#0072B2", "kv_cache": "#E69F00", "activations": "#009E73",
                "gradients": "#CC79A7", "optimizer": "#D55E00", "overhead": "#7F7F7F"}
CLOUD_COLOURS = {"aws": "#E69F00", "gcp": "#009E73", "azure": "#0072B2"}
SERIES_COLOURS = {"on_demand": "#D55E00", "plan": "#0072B2", "on_prem": "#009E73"}
UTILIZATION_STEPS = 10  # points at 0%, 10%, ..., 100%


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    colour: str
    title: str  # tooltip and accessible name of the segment


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str
    anchor: str = "start"


@dataclass(frozen=True)
class Series:
    name: str
    colour: str
    points: str  # SVG polyline "x,y x,y ..."
    count: int
    dashed: bool = False


@dataclass(frozen=True)
class Marker:
    x: float
    y: float
    colour: str
    label: str
    title: str


@dataclass(frozen=True)
class LegendItem:
    name: str
    colour: str


@dataclass(frozen=True)
class Chart:
    id: str
    title: str
    desc: str
    width: float
    height: float
    bars: list[Bar] = field(default_factory=list)
    backgrounds: list[Bar] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    series: list[Series] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    rules: list[Bar] = field(default_factory=list)  # thin reference lines (baseline)
    legend: list[LegendItem] = field(default_factory=list)
    plot: tuple[float, float, float, float] = (0, 0, 0, 0)  # left, top, width, height
    x_label: str = ""
    y_label: str = ""
    caption: str = ""


def nice_max(value: float, ticks: int = 5) -> tuple[float, float]:
    """(axis maximum, step): a 1/2/2.5/5 x 10^k step with at most ``ticks`` steps."""
    if value <= 0:
        return 1.0, 0.2
    raw = value / ticks
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return step * math.ceil(value / step - 1e-9), step


def _axis_number(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:,.0f}k"
    return f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:,.1f}"


def _ticks(maximum: float, step: float, to_pixel: float, origin: float,
           fmt: str = "{}") -> list[Tick]:
    count = round(maximum / step)
    return [Tick(origin + i * step * to_pixel, fmt.format(_axis_number(i * step)))
            for i in range(count + 1)]


# --------------------------------------------------------------------------- memory
def memory_chart(plan: Plan) -> Chart:
    rec, memory = plan.recommendation, plan.requirement.memory_gib
    capacity = rec.accelerator_memory_gib or (
        memory.total / rec.memory_utilization if rec.memory_utilization else 0.0)
    left, top, width, height = 150.0, 30.0, WIDTH - 190.0, 44.0
    maximum, step = nice_max(max(capacity, memory.total))
    scale = width / maximum
    bars, x = [], left
    for term in MEMORY_TERMS:
        gib = getattr(memory, term)
        if gib <= 0:
            continue
        bars.append(Bar(x, top, gib * scale, height, TERM_COLOURS[term],
                        f"{MEMORY_LABELS[term]}: {gib:,.2f} GiB"))
        x += gib * scale
    backgrounds = [Bar(left, top, capacity * scale, height, "#EEEEEE",
                       f"{rec.accelerator} memory: about {capacity:,.1f} GiB")]
    labels = [Label(left - 8, top + height / 2 + 4, f"per GPU ({rec.accelerator})", "end"),
              Label(left + min(x - left + 6, width - 4), top - 8,
                    f"{memory.total:,.2f} GiB = {rec.memory_utilization:.0%} of "
                    f"{capacity:,.1f} GiB")]
    used = [t for t in MEMORY_TERMS if getattr(memory, t) > 0]
    return Chart(
        id="memory-chart", title=f"GPU memory per GPU on {rec.accelerator}",
        desc=(f"Stacked bar of {len(bars)} memory terms totalling {memory.total:,.2f} GiB per "
              f"GPU, against about {capacity:,.1f} GiB of {rec.accelerator} memory."),
        width=WIDTH, height=150, bars=bars, backgrounds=backgrounds, labels=labels,
        x_ticks=_ticks(maximum, step, scale, left), plot=(left, top, width, height),
        legend=[LegendItem(MEMORY_LABELS[t], TERM_COLOURS[t]) for t in used],
        x_label="GiB per GPU",
        caption=(f"{plan.requirement.parallelism}, {plan.requirement.gpus_per_replica} GPU(s) "
                 f"per replica; one unsharded replica needs "
                 f"{plan.requirement.memory_gib_unsharded.total:,.2f} GiB. GPU memory is the "
                 "per-GPU total divided by the plan's memory utilisation."),
    )


# --------------------------------------------------------------------------- cost
def cost_chart(plan: Plan) -> Chart:
    candidates = [plan.recommendation, *plan.alternatives]
    by_run = ranks_by_run(plan)
    unit = "run" if by_run else "month"
    costs = [ranking_cost(plan, c) for c in candidates]
    baseline = None if by_run else plan.baselines.on_demand_always_on_monthly_usd
    left, top, row = 230.0, 20.0, 34.0
    width, height = WIDTH - left - 170.0, row * len(candidates)
    maximum, step = nice_max(max([baseline or 0.0, *costs]))
    scale = width / maximum
    bars, labels = [], []
    for i, (c, cost) in enumerate(zip(candidates, costs, strict=True)):
        y = top + i * row + 5
        name = f"{'★ ' if i == 0 else ''}{CLOUD_NAMES.get(c.cloud, c.cloud)} {c.instance_type}"
        bars.append(Bar(left, y, max(cost * scale, 1.0), row - 10,
                        CLOUD_COLOURS.get(c.cloud, "#7F7F7F"),
                        f"{name} ({c.region}), {c.instances}x, {mix_text(c.purchase)}: "
                        f"{usd(cost)}/{unit}"))
        labels.append(Label(left - 8, y + row / 2 - 5, name, "end"))
        labels.append(Label(left + cost * scale + 6, y + row / 2 - 5,
                            f"{usd(cost)} · {mix_text(c.purchase)}"))
    rules = [] if baseline is None else [Bar(
        left + baseline * scale, top - 6, 0, height + 6, "#444444",
        f"always-on on-demand baseline of the recommendation: {usd(baseline)}/month")]
    clouds = sorted({c.cloud for c in candidates})
    return Chart(
        id="cost-chart", title=f"Cost per {unit} of the recommendation and the alternatives",
        desc=(f"{len(candidates)} bars, one per candidate, coloured by cloud"
              + ("." if baseline is None else f"; the dashed line is the always-on on-demand "
                 f"baseline at {usd(baseline)} per month.")),
        width=WIDTH, height=top + height + 50, bars=bars, labels=labels, rules=rules,
        x_ticks=_ticks(maximum, step, scale, left, "${}"), plot=(left, top, width, height),
        legend=[LegendItem(CLOUD_NAMES.get(c, c), CLOUD_COLOURS.get(c, "#7F7F7F"))
                for c in clouds],
        x_label=f"USD per {unit} (bar label: purchase mix)",
        caption=("Ranked by cost per run (one-off training). " if by_run else
                 f"Dashed line: the recommended capacity on demand every hour, {usd(baseline)}"
                 "/month. ") + "★ marks the recommendation.",
    )


# --------------------------------------------------------------------------- utilisation
@dataclass(frozen=True)
class _Curves:
    gpus: int
    on_demand_usd_per_month: float  # at 100% utilisation
    plan_usd_per_gpu_hour: float  # the plan's price per productive GPU-hour
    plan_utilization: float


def _curves(plan: Plan) -> _Curves:
    rec = plan.recommendation
    gpus = rec.instances * rec.accelerators_per_instance
    used = min(rec.hours_per_month / HOURS_PER_MONTH, 1.0) if rec.hours_per_month else 1.0
    if plan.tco is not None:  # the optimizer's own figure (plan --tco)
        per_gpu_hour, used = plan.tco.cloud_usd_per_gpu_hour, plan.tco.utilization
    else:
        per_gpu_hour = rec.monthly_usd / (gpus * used * HOURS_PER_MONTH)
    return _Curves(gpus, plan.baselines.on_demand_always_on_monthly_usd, per_gpu_hour, used)


def utilization_chart(plan: Plan) -> Chart:
    from infra_gen.tco import ON_PREM

    curves, model = _curves(plan), ON_PREM.get(plan.recommendation.accelerator)
    steps = [i / UTILIZATION_STEPS for i in range(UTILIZATION_STEPS + 1)]
    lines: dict[str, list[float]] = {
        "on_demand": [curves.on_demand_usd_per_month * u for u in steps],
        "plan": [curves.plan_usd_per_gpu_hour * curves.gpus * HOURS_PER_MONTH * u
                 for u in steps],
    }
    if model is not None:  # fixed per month + power and network per productive hour
        lines["on_prem"] = [curves.gpus * (model.fixed_usd_per_gpu_year / 12
                                           + model.variable_usd_per_gpu_hour
                                           * HOURS_PER_MONTH * u) for u in steps]
    left, top, width, height = 90.0, 20.0, WIDTH - 130.0, 250.0
    maximum, step = nice_max(max(max(v) for v in lines.values()))
    x_of = lambda u: left + u * width  # noqa: E731
    y_of = lambda usd_: top + height - usd_ / maximum * height  # noqa: E731
    names = {"on_demand": "cloud on demand",
             "plan": f"cloud at this plan's {usd(curves.plan_usd_per_gpu_hour)}/GPU-h",
             "on_prem": f"on-prem {plan.recommendation.accelerator} (seed 002 TCO)"}
    series = [Series(names[k], SERIES_COLOURS[k],
                     " ".join(f"{x_of(u):.1f},{y_of(v):.1f}" for u, v in zip(steps, vals,
                                                                             strict=True)),
                     len(vals), dashed=k == "on_demand") for k, vals in lines.items()]
    plan_y = curves.plan_usd_per_gpu_hour * curves.gpus * HOURS_PER_MONTH * curves.plan_utilization
    markers = [Marker(x_of(curves.plan_utilization), y_of(plan_y), SERIES_COLOURS["plan"],
                      f"this plan: {curves.plan_utilization:.0%}",
                      f"this plan: {curves.plan_utilization:.0%} utilisation, "
                      f"{usd(plan_y)}/month")]
    caption, even = _on_prem_caption(plan, curves)
    if model is not None and even is not None and even <= 1:
        even_y = curves.plan_usd_per_gpu_hour * curves.gpus * HOURS_PER_MONTH * even
        markers.append(Marker(x_of(even), y_of(even_y), "#000000",
                              f"break-even {even:.0%}",
                              f"on-prem break-even: {even:.0%} utilisation, {usd(even_y)}/month"))
    return Chart(
        id="utilization-chart", title="Monthly cost against utilisation: cloud vs on-prem",
        desc=(f"{len(series)} lines of monthly cost for {curves.gpus} GPUs from 0% to 100% "
              f"utilisation, {UTILIZATION_STEPS + 1} points each; {len(markers)} marked points."),
        width=WIDTH, height=top + height + 60, series=series, markers=markers,
        x_ticks=[Tick(x_of(u), f"{u:.0%}") for u in steps[::2]],
        y_ticks=[Tick(y_of(i * step), f"${_axis_number(i * step)}")
                 for i in range(round(maximum / step) + 1)],
        plot=(left, top, width, height),
        legend=[LegendItem(s.name, s.colour) for s in series],
        x_label="utilisation (share of the month the GPUs do productive work)",
        y_label="USD per month", caption=caption,
    )


_CLOUD_LINES = ("Cloud lines: the same work at the on-demand price and at this plan's price per "
                "productive GPU-hour (a reservation is billed every hour; the line shows the "
                "rate, the dot what this plan pays).")


def _on_prem_caption(plan: Plan, curves: _Curves) -> tuple[str, float | None]:
    from infra_gen.tco import ON_PREM

    accelerator = plan.recommendation.accelerator
    model = ON_PREM.get(accelerator)
    if model is None:
        return (_CLOUD_LINES + f" No on-prem line: seed 002's TCO model has hardware figures for "
                f"{', '.join(sorted(ON_PREM))} only, not {accelerator}.", None)
    even = (plan.tco.on_prem_break_even_utilization if plan.tco is not None
            else model.break_even_utilization(curves.plan_usd_per_gpu_hour))
    where = (f"on-prem is cheaper above {even:.0%} utilisation" if even <= 1
             else "the cloud stays cheaper even at 100% utilisation")
    return (_CLOUD_LINES + f" On-prem ({model.source}): hardware amortised over "
            f"{model.amortization_years:g} years, staff {model.staff_usd_per_gpu_year:,.0f} "
            "USD/GPU/year, power "
            f"{model.gpu_power_kw} kW x PUE {model.pue} x {model.usd_per_kwh} USD/kWh, network "
            f"{model.network_usd_per_gpu_hour} USD/GPU-h. Against this plan's price per "
            f"productive GPU-hour, {where}.", even)
