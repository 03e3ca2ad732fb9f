"""Stack facts: what the rules need to know about a workload that no cloud resource records.

Whether a workload is latency-critical, whether it checkpoints, how much GPU memory the sizing
needs and how many instances must run every hour are properties of the workload and its plan,
not of any launch template. The ``GpuWorkload`` component carries them as one input and output
property, ``infraGenFacts`` (``FACTS_KEY``), built here from the Plan. Both doors read them from
the component: ``infra-gen check`` from its recorded inputs, CrossGuard's stack policies from its
registered outputs (``AnalyzeStack`` sees outputs) and resource policies from its inputs.

This module imports only the Plan model and ``cost_tags``, so the component can build facts
without importing the policy engine or ``pulumi_policy``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from infra_gen.providers.base import cost_tags

if TYPE_CHECKING:
    from infra_gen.plan import Plan

FACTS_KEY = "infraGenFacts"
COMPONENT_TYPE = "infra-gen:index:GpuWorkload"
HOURS_PER_WEEK = 168.0


@dataclass(frozen=True)
class StackFacts:
    """The workload's facts, in the component's property under camelCase names."""

    workload: str
    workload_type: str  # training | fine-tuning | inference | batch | dev
    cloud: str
    region: str
    instance_type: str
    accelerator: str
    accelerators_per_instance: int
    needed_memory_gib_per_gpu: float  # the sizing's per-GPU total for this accelerator
    instances_peak: int
    always_on_floor_instances: int  # instances that must run every hour of the week
    reserved_instances: int
    hourly_usd: float  # the plan's estimate, all instances at the mix's prices
    commit: bool  # purchasing.commit: the workload asks for irreversible commitments
    tags: dict[str, str] = field(default_factory=dict)
    # Optional facts last: Pulumi drops None-valued properties, so they may be absent.
    accelerator_memory_gib: float | None = None  # per GPU; None without a utilisation
    reserved_term: str | None = None
    checkpoint_minutes: int | None = None
    max_hourly_usd: float | None = None  # the workload file's own cap

    @property
    def interruptible(self) -> bool:
        """Checkpointed training, or batch (items are retried): spot-safe by design."""
        if self.workload_type == "batch":
            return True
        return self.workload_type in ("training", "fine-tuning") and bool(self.checkpoint_minutes)

    @property
    def latency_critical(self) -> bool:
        return self.workload_type == "inference"

    def to_props(self) -> dict[str, Any]:
        return {_camel(k): v for k, v in asdict(self).items()}

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> StackFacts | None:
        """Facts from the component's property, or None when absent or not ours (a stack
        policy must not crash on a hand-edited or older component)."""
        raw = props.get(FACTS_KEY) if isinstance(props, Mapping) else None
        if not isinstance(raw, Mapping):
            return None
        try:
            values = {
                name: raw[_camel(name)] for name in cls.__dataclass_fields__ if _camel(name) in raw
            }
            for name in _INT_FIELDS:  # the engine turns every number into a float
                if isinstance(values.get(name), float):
                    values[name] = int(values[name])
            facts = cls(**values)
        except TypeError:
            return None
        return facts if isinstance(facts.workload_type, str) else None


_INT_FIELDS = (
    "accelerators_per_instance",
    "instances_peak",
    "always_on_floor_instances",
    "reserved_instances",
    "checkpoint_minutes",
)


def facts_from_plan(plan: Plan) -> StackFacts:
    """The facts of ``plan``'s recommendation (what the providers render)."""
    rec = plan.recommendation
    needed = plan.requirement.memory_gib.total
    accel_memory = round(needed / rec.memory_utilization, 1) if rec.memory_utilization > 0 else None
    return StackFacts(
        workload=plan.workload,
        workload_type=plan.workload_type,
        cloud=rec.cloud,
        region=rec.region,
        instance_type=rec.instance_type,
        accelerator=rec.accelerator,
        accelerators_per_instance=rec.accelerators_per_instance,
        accelerator_memory_gib=accel_memory,
        needed_memory_gib_per_gpu=round(needed, 2),
        instances_peak=rec.instances,
        always_on_floor_instances=always_on_floor(plan),
        reserved_instances=rec.purchase.reserved,
        reserved_term=rec.purchase.reserved_term,
        checkpoint_minutes=plan.guardrails.checkpoint_minutes,
        hourly_usd=rec.hourly_usd,
        max_hourly_usd=plan.guardrails.max_hourly_usd,
        commit=plan.commit,
        tags=cost_tags(plan),
    )


def always_on_floor(plan: Plan) -> int:
    """Instances that run every hour of every week: the most capacity worth reserving.

    Services with a 24x7 schedule: the replicas needed at the quietest hour
    (``requirement.replicas_floor``) times the instances one replica occupies. Runs (training,
    batch): all instances when they run around the clock, else none. A schedule shorter than
    168 h/week leaves idle hours, so nothing is always on.
    """
    schedule = plan.guardrails.schedule
    rec = plan.recommendation
    if schedule.hours_per_day * schedule.days_per_week < HOURS_PER_WEEK:
        return 0
    if plan.workload_type in ("inference", "dev"):
        per_replica = rec.gpus_per_replica / max(rec.accelerators_per_instance, 1)
        return min(rec.instances, math.ceil(plan.requirement.replicas_floor * per_replica))
    hours_per_month = HOURS_PER_WEEK * 365 / 7 / 12  # 730.0 h, the usual billing month
    return rec.instances if rec.hours_per_month >= hours_per_month - 0.5 else 0


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)
