"""The Plan: the optimizer's answer as pure data, and its stable JSON.

A Plan is everything downstream needs and nothing more: providers render it, the policy pack
checks what was rendered against it, reports print it. It carries no Pulumi types and no
timestamps other than the catalog's ``as_of``, so the same workload and catalog give
byte-identical JSON. Money is rounded to cents here, at the edge, never earlier.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from infra_gen.sizing import MemoryBreakdown

ReservedTerm = Literal["1y", "3y"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PurchaseMix(_Frozen):
    """Instances by how they are bought. ``reserved`` capacity is paid for every hour."""

    reserved: int = 0
    on_demand: int = 0
    spot: int = 0
    reserved_term: ReservedTerm | None = None

    @property
    def total(self) -> int:
        return self.reserved + self.on_demand + self.spot


class Candidate(_Frozen):
    """One priced way to run the workload: an offer, a count and a purchase mix."""

    cloud: str
    region: str
    instance_type: str
    accelerator: str
    accelerators_per_instance: int
    instances: int  # at peak
    purchase: PurchaseMix
    hourly_usd: float  # all instances running, at the mix's blended prices
    monthly_usd: float
    per_run_usd: float | None  # None for services
    memory_utilization: float
    why: str
    accelerator_memory_gib: float = 0.0  # per GPU, from the offer (what the chart's bar holds)
    gpus_per_replica: int = 1
    replicas: int = 1
    parallelism: str = "single"
    hours_per_month: float = 0.0  # instance-hours the schedule runs, per instance at peak
    run_hours: float | None = None  # wall-clock hours of one run
    interconnect: str = "ethernet"
    spot_interruption: str | None = None
    equivalent_instance_types: list[str] = Field(default_factory=list)  # spot pools / overrides
    reserved_estimated: bool = False
    egress_usd_per_run: float = 0.0


class RequirementSummary(_Frozen):
    memory_gib: MemoryBreakdown  # per GPU, for the recommended accelerator
    memory_gib_unsharded: MemoryBreakdown
    parallelism: str
    gpus_per_replica: int
    gpu_hours_per_run: float | None
    replicas: int
    replicas_floor: int = 1


class Baselines(_Frozen):
    on_demand_always_on_monthly_usd: float
    savings_percent: float
    # What the recommended capacity costs per day when left running idle on demand (seed 003's
    # forgotten cluster), and what one idle spell costs at most with auto-shutdown on.
    idle_usd_per_day: float = 0.0
    auto_shutdown_idle_cost_usd: float | None = None


class TcoSummary(_Frozen):
    """Cloud vs on-prem per productive GPU-hour (seed 002's TCO model); ``plan --tco``."""

    accelerator: str
    utilization: float  # fraction of the year the GPUs do productive work
    cloud_usd_per_gpu_hour: float  # recommended purchase mix, per productive GPU-hour
    on_prem_usd_per_gpu_hour: float
    on_prem_break_even_utilization: float  # above it on-prem is cheaper than this cloud price
    reserved_break_even_utilization: float | None  # 3y reserved beats on-demand above it
    assumptions: list[str] = Field(default_factory=list)


class ScheduleSettings(_Frozen):
    hours_per_day: float = 24
    days_per_week: int = 7
    start_hour: int = 9
    timezone: str = "UTC"


class GuardrailSettings(_Frozen):
    """What the providers build: every value already resolved from the workload and plan."""

    auto_shutdown_idle_minutes: int | None  # None = switched off in the workload file
    gpu_utilization_below: float = 5.0
    busy_marker: str = "/run/infra-gen/busy"
    budget_monthly_usd: float | None = None  # None = switched off
    alert_percent: list[int] = Field(default_factory=lambda: [50, 80, 100])
    emails: list[str] = Field(default_factory=list)
    max_hourly_usd: float | None = None
    schedule: ScheduleSettings = Field(default_factory=ScheduleSettings)
    checkpoint_command: str | None = None
    checkpoint_deadline_seconds: int = 90
    checkpoint_minutes: int | None = None
    checkpoint_sync_directory: str | None = None
    checkpoint_sync_bucket_url: str | None = None
    checkpoint_sync_interval_minutes: int = 15
    max_run_hours: float | None = None


class Owner(_Frozen):
    team: str
    project: str
    cost_center: str


class CatalogInfo(_Frozen):
    as_of: str
    offers: int
    source: str = "built-in"


class Purchase(_Frozen):
    """A reserved-price commitment the plan recommends. ``created_by_stack`` is True when
    ``purchasing.commit`` lets the stack create it (AWS Savings Plan, GCP committed use
    discount); otherwise a person buys it (always so for Azure Reservations: no resource)."""

    cloud: str
    kind: str  # "savings-plan", "committed-use-discount", "azure-reservation", ...
    term: ReservedTerm
    instance_type: str
    region: str
    count: int
    monthly_usd: float
    note: str
    created_by_stack: bool = False


class Plan(_Frozen):
    workload: str
    workload_type: str
    owner: Owner
    catalog: CatalogInfo
    requirement: RequirementSummary
    recommendation: Candidate
    alternatives: list[Candidate]
    baselines: Baselines
    guardrails: GuardrailSettings
    purchases_to_make: list[Purchase] = Field(default_factory=list)
    commit: bool = False  # purchasing.commit: irreversible commitments may be created
    root_volume_gib: int = 200
    public_ip: bool = False
    subnets: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    candidates_priced: int = 0  # (offer x count x purchase mix) combinations the search priced
    tco: TcoSummary | None = None  # only with ``plan --tco``

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        """Stable JSON: sorted keys, fixed separators, trailing newline."""
        return json.dumps(self.to_json_dict(), indent=2, sort_keys=True) + "\n"
