"""A plan's warnings (what a person should look at before deploying) and assumptions (every
constant the figures rest on, with its source)."""

from __future__ import annotations

import datetime as dt

from infra_gen import pricing
from infra_gen.catalog.models import Catalog
from infra_gen.optimizer import SearchResult
from infra_gen.plan import Candidate, GuardrailSettings
from infra_gen.spec import Workload

# Seeds 003 and 004 both recommend checkpointing every 15-30 minutes on spot.
LONG_CHECKPOINT_MINUTES = 30


def plan_warnings(
    workload: Workload, catalog: Catalog, result: SearchResult, rec: Candidate,
    guardrails: GuardrailSettings, today: dt.date,
) -> list[str]:
    from infra_gen.catalog.load import catalog_warnings

    warnings = list(catalog_warnings(catalog, today))
    warnings += result.notes
    warnings += _spot_warnings(workload, rec)
    warnings += _deadline_warnings(workload, result)
    warnings += _budget_warnings(workload, rec, guardrails)
    warnings += _reserved_warnings(result, rec)
    warnings += _schedule_warnings(result, rec)
    return warnings


def _spot_warnings(workload: Workload, rec: Candidate) -> list[str]:
    if not rec.purchase.spot:
        return []
    out: list[str] = []
    minutes = workload.training.checkpoint_minutes if workload.training else None
    if minutes is not None and minutes > LONG_CHECKPOINT_MINUTES:
        out.append(
            f"spot chosen with checkpoints every {minutes} min: each interruption loses about "
            f"{minutes / 2:.0f} min of work on {rec.instances} instance(s); seeds 003/004 "
            f"recommend every 15-{LONG_CHECKPOINT_MINUTES} min"
        )
    if workload.is_training and minutes is None:
        out.append("spot chosen (purchasing.spot: always) without training.checkpoint_minutes: "
                   "an interruption loses the run so far")
    if rec.spot_interruption is None:
        out.append(f"no published interruption rate for {rec.instance_type} spot in "
                   f"{rec.region}; rework priced at seed 002's pessimistic 2% per hour")
    return out


def _deadline_warnings(workload: Workload, result: SearchResult) -> list[str]:
    """Spot under a deadline: the plan's run_hours are compute hours; say what the rework the
    price includes does to the clock."""
    limit = result.profile.run_limit_hours
    best = result.ranked[0]
    usage, mix = best.option.usage, best.option.mix
    if limit is None or not mix.spot or usage.run_hours is None:
        return []
    rate = best.prices.interruptions_per_hour
    wall = pricing.expected_run_hours(usage, mix, rate)
    field = "batch.deadline_hours" if workload.batch is not None else "training.max_run_hours"
    return [
        f"spot under {field} {limit:g} h: one run is expected to take {wall:,.1f} h wall-clock, "
        f"{usage.run_hours:,.1f} h of compute + {100 * (wall / usage.run_hours - 1):.0f}% "
        f"rework ({rate:.4g} interruptions/h x {usage.lost_hours:.2f} h lost x {usage.gang} "
        "node(s) rolled back); that is an average, an unlucky run takes longer"
    ]


def _budget_warnings(
    workload: Workload, rec: Candidate, guardrails: GuardrailSettings,
) -> list[str]:
    out: list[str] = []
    budget = workload.guardrails.budget
    explicit = budget.monthly_usd if budget is not None else None
    if explicit is not None and explicit < rec.monthly_usd:
        out.append(
            f"guardrails.budget.monthly_usd {explicit:,.2f} is below the plan's "
            f"monthly cost {rec.monthly_usd:,.2f} USD: the budget alerts will fire every month"
        )
    if guardrails.auto_shutdown_idle_minutes is None:
        out.append("guardrails.auto_shutdown is off: a finished or failed job keeps billing "
                   "until someone notices (seed 003's idle cluster)")
    if guardrails.budget_monthly_usd is None:
        out.append("guardrails.budget is off: no alert will fire on overspend")
    return out


def _reserved_warnings(result: SearchResult, rec: Candidate) -> list[str]:
    mix = result.ranked[0].option.mix
    usage = result.ranked[0].option.usage
    out: list[str] = []
    if mix.reserved > usage.always_on_floor:
        busy = usage.floor_hours if usage.floor else usage.overflow_hours
        idle = max(0.0, pricing.HOURS_PER_MONTH - busy)
        out.append(
            f"reserved capacity above the always-on floor: {mix.reserved} reserved vs "
            f"{usage.always_on_floor} always-on instance(s); the commitment is paid for about "
            f"{idle:.0f} idle hours per instance per month (it still wins on price)"
        )
    if rec.reserved_estimated:
        out.append(f"{rec.instance_type} {rec.purchase.reserved_term} reserved price is an "
                   "estimate from a documented discount, not a published price")
    return out


def _schedule_warnings(result: SearchResult, rec: Candidate) -> list[str]:
    profile = result.profile
    usage = result.ranked[0].option.usage
    if not profile.is_run or usage.run_hours is None:
        return []
    out: list[str] = []
    if usage.run_hours > pricing.HOURS_PER_MONTH and rec.run_hours is not None:
        out.append(
            f"one run takes {usage.run_hours:,.0f} h ({usage.run_hours / 24:,.0f} days) on "
            f"{rec.instances} instance(s), the cheapest count; set training.max_run_hours or "
            "batch.deadline_hours to buy more instances for a shorter run"
        )
    needed = (profile.runs_per_month or 1.0) * usage.run_hours
    if needed > profile.window_hours:
        out.append(
            f"{profile.runs_per_month:g} run(s) of {usage.run_hours:.1f} h need {needed:.0f} h "
            f"a month but the schedule allows {profile.window_hours:.0f} h; monthly cost is the "
            "burn rate while running, per-run cost is the whole run"
        )
    return out


def plan_assumptions(result: SearchResult) -> list[str]:
    best = result.ranked[0]
    lines = [
        f"{pricing.HOURS_PER_MONTH} hours per month; a schedule of H h/day x D days/week runs "
        f"H x D x {pricing.WEEKS_PER_MONTH:.3f} h/month (365/7/12 weeks)",
        "money summed in integer micro-dollars, rounded half-up to cents only in this plan",
        "reserved 1y/3y are billed every hour of the term (730 h per instance per month)",
        "spot rework = spot instance-hours x interruptions/hour x (checkpoint interval / 2 + "
        f"{pricing.RESTART_MINUTES} min restart), x nodes for synchronous training (one "
        "reclaimed node rolls all back); batch loses only the restart",
        "interruptions/month from the AWS Spot Advisor bucket midpoint (<5%: 2.5%, 5-10%: "
        "7.5%, 10-15%: 12.5%, 15-20%: 17.5%, >20%: 30%); unknown: 2%/hour (seed 002)",
        "serving: the floor (replicas at min_requests_per_second) runs the whole schedule; "
        f"overflow instances run {pricing.OVERFLOW_DUTY:.0%} of it (traffic assumed to move "
        "evenly between floor and peak); spot only above an on-demand or reserved floor",
        "egress per GB (seed 002): AWS 0.09, GCP 0.08, Azure 0.087 out of the cloud; 0.02 "
        "across regions; runs move placement.data once per run, services once a month",
        "ranking: expected monthly cost (per-run cost for training with runs_per_month <= 1)",
        "root volume: 100 GiB OS image + published bf16 weights + 2 local training checkpoints",
    ]
    if result.profile.run_limit_hours is not None:
        lines.append(
            "deadline (training.max_run_hours / batch.deadline_hours): every count meets it in "
            "compute hours (run_hours); with any spot instance the expected wall-clock hours, "
            "run x (1 + interruptions/hour x lost hours x nodes rolled back), must meet it too; "
            "a mixed on-demand + spot run counts as all spot (one reclaimed node stalls a gang)"
        )
    lines += [f"sizing ({best.offer.accelerator}): {a}" for a in best.shape.requirement.assumptions]
    return lines
