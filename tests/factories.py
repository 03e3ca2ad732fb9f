"""Hand-built Plans for provider, policy and report tests, independent of the optimizer.

Figures are chosen by hand (not produced by the code under test): e.g. the default AWS plan is
one g5.xlarge on-demand in us-east-1 at the catalog's $1.006/h, 730 h/month = $734.38.
"""

from __future__ import annotations

from typing import Any

from infra_gen.plan import (
    Baselines,
    Candidate,
    CatalogInfo,
    GuardrailSettings,
    Owner,
    Plan,
    PurchaseMix,
    RequirementSummary,
    ScheduleSettings,
)
from infra_gen.sizing import MemoryBreakdown

_DEFAULTS: dict[str, dict[str, Any]] = {
    "aws": {"region": "us-east-1", "instance_type": "g5.xlarge", "accelerator": "A10G",
            "accelerators_per_instance": 1, "hourly_usd": 1.006},
    "gcp": {"region": "us-central1", "instance_type": "g2-standard-4", "accelerator": "L4",
            "accelerators_per_instance": 1, "hourly_usd": 0.70683},
    "azure": {"region": "eastus", "instance_type": "Standard_NC4as_T4_v3", "accelerator": "T4",
              "accelerators_per_instance": 1, "hourly_usd": 0.526},
}


def memory(total: float = 14.0) -> MemoryBreakdown:
    return MemoryBreakdown(weights=total - 4, kv_cache=2, activations=1, gradients=0,
                           optimizer=0, overhead=1, total=total)


def sample_plan(
    cloud: str = "aws",
    *,
    purchase: PurchaseMix | None = None,
    workload_type: str = "inference",
    guardrails: GuardrailSettings | None = None,
    commit: bool = False,
    **candidate: Any,
) -> Plan:
    """A plausible plan on ``cloud``; keyword arguments override the recommendation's fields."""
    fields = dict(_DEFAULTS[cloud])
    fields.update(candidate)
    mix = purchase or PurchaseMix(on_demand=1)
    hourly = fields.pop("hourly_usd") * mix.total
    rec = Candidate(
        cloud=cloud, instances=mix.total, purchase=mix, hourly_usd=round(hourly, 4),
        monthly_usd=round(hourly * 730, 2),
        per_run_usd=None if workload_type in ("inference", "dev") else round(hourly * 8, 2),
        memory_utilization=0.6, why="hand-built test plan", **fields,
    )
    return Plan(
        workload="petsnap-serving" if workload_type == "inference" else "petsnap-train",
        workload_type=workload_type,
        owner=Owner(team="ml-platform", project="petsnap", cost_center="ml-prod"),
        catalog=CatalogInfo(as_of="2026-10-01", offers=100),
        requirement=RequirementSummary(memory_gib=memory(), memory_gib_unsharded=memory(),
                                       parallelism="single", gpus_per_replica=1,
                                       gpu_hours_per_run=None, replicas=mix.total),
        recommendation=rec,
        alternatives=[],
        baselines=Baselines(on_demand_always_on_monthly_usd=round(hourly * 730, 2),
                            savings_percent=0.0),
        guardrails=guardrails or GuardrailSettings(
            auto_shutdown_idle_minutes=30, gpu_utilization_below=5.0,
            budget_monthly_usd=1000.0, alert_percent=[50, 80, 100],
            emails=["ml-oncall@example.com"], max_hourly_usd=None,
            schedule=ScheduleSettings(hours_per_day=24, days_per_week=7),
            checkpoint_minutes=30 if workload_type != "inference" else None,
        ),
        commit=commit,
        root_volume_gib=200,
    )
