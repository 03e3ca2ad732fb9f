"""The workload file schema (version 1): the public contract users, examples and tools rely on.

Field names here are the contract from issue 2; new fields may be added, none renamed. The models
are frozen and reject unknown fields so that a typo (``idle_minute``) is an error, not a silently
ignored guardrail. Cross-field rules that pydantic cannot pin to one field live in
``consistency_errors`` so that ``loading.py`` can point at the exact YAML line of the offending
field. Loading (YAML, positions, messages) is in ``loading.py``; this module does no I/O.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal
from zoneinfo import available_timezones

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from infra_gen.model_table import KNOWN_MODELS, canonical_model_name

WorkloadType = Literal["training", "fine-tuning", "inference", "batch", "dev"]
Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4"]
TrainingMethod = Literal["full", "lora", "qlora", "freeze"]
OptimizerName = Literal["adamw", "adamw-8bit", "sgd"]
Cloud = Literal["aws", "gcp", "azure"]
ALL_CLOUDS: tuple[Cloud, ...] = ("aws", "gcp", "azure")
SpotPolicy = Literal["auto", "always", "never"]
ReservedPolicy = Literal["auto", "none", "1y", "3y"]

PositiveFloat = Annotated[float, Field(gt=0)]
PositiveInt = Annotated[int, Field(gt=0)]
# Tag values: the strictest of the three clouds' value limits is GCP's 63 characters after
# sanitising (providers sanitise); 128 here keeps raw input sane for all of them.
OwnerValue = Annotated[str, Field(min_length=1, max_length=128)]
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Owner(_Model):
    """Who pays: becomes the ``team``, ``project`` and ``cost-center`` tags or labels."""

    team: OwnerValue
    project: OwnerValue
    cost_center: OwnerValue


class ModelSpec(_Model):
    """The model: a known name from the built-in table, or a parameter count."""

    name: str | None = None
    parameters_b: PositiveFloat | None = Field(
        default=None, le=10_000, description="Parameters in billions."
    )
    precision: Precision = "bf16"
    layers: PositiveInt | None = None
    hidden_size: PositiveInt | None = None
    attention_heads: PositiveInt | None = None
    kv_heads: PositiveInt | None = None
    vocab_size: PositiveInt | None = None
    intermediate_size: PositiveInt | None = None
    experts: PositiveInt | None = None
    experts_active: PositiveInt | None = None
    max_context: PositiveInt | None = Field(
        default=None, description="Longest sequence the model supports, in tokens."
    )

    @field_validator("name")
    @classmethod
    def _known_name(cls, value: str | None) -> str | None:
        if value is None:
            return None
        canonical = canonical_model_name(value)
        return canonical if canonical is not None else value


class TrainingSpec(_Model):
    """A training or fine-tuning run. Give ``tokens_b`` or ``duration_hours``."""

    method: TrainingMethod | None = Field(
        default=None, description="Default: full for training, lora for fine-tuning."
    )
    tokens_b: PositiveFloat | None = Field(default=None, description="Tokens per run, billions.")
    duration_hours: PositiveFloat | None = None
    batch_size: PositiveInt = 8
    seq_len: PositiveInt = 2048
    gradient_checkpointing: bool = True
    optimizer: OptimizerName = "adamw"
    lora_rank: PositiveInt = 16
    checkpoint_minutes: PositiveInt | None = Field(
        default=None, description="null = no checkpointing, so spot capacity is unsafe."
    )
    runs_per_month: PositiveFloat = 1.0
    max_run_hours: PositiveFloat | None = Field(
        default=None, description="Hard stop for one run (GCP max_run_duration, watchdog)."
    )


class InferenceSpec(_Model):
    """A serving workload: peak traffic, token shape and latency target."""

    requests_per_second: PositiveFloat = 1.0
    min_requests_per_second: Annotated[float, Field(ge=0)] | None = Field(
        default=None,
        description="Traffic at the quietest hour; the always-on floor (default: flat load).",
    )
    input_tokens: PositiveInt = 512
    output_tokens: PositiveInt = 256
    max_concurrency: PositiveInt = 32
    latency_target_ms_per_token: PositiveFloat | None = None
    scale_to_zero: bool = False


class BatchSpec(_Model):
    """An offline batch job: how many items and how fast one GPU processes them."""

    items: PositiveInt
    items_per_gpu_second: PositiveFloat
    runs_per_month: PositiveFloat = 1.0
    deadline_hours: PositiveFloat | None = None


class ScheduleSpec(_Model):
    """When the workload runs; outside this window capacity is scaled to zero."""

    hours_per_day: Annotated[float, Field(ge=0, le=24)] = 24
    days_per_week: Annotated[int, Field(ge=0, le=7)] = 7
    start_hour: Annotated[int, Field(ge=0, le=23)] = 9
    timezone: str = "UTC"

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        if value != "UTC" and value not in available_timezones():
            raise ValueError(f"expected an IANA time zone such as Europe/Paris, got {value!r}")
        return value

    @property
    def hours_per_week(self) -> float:
        return self.hours_per_day * self.days_per_week


class DataSpec(_Model):
    """Where the training or serving data lives (for egress cost)."""

    cloud: Cloud
    region: str
    size_gb: Annotated[float, Field(ge=0)] = 0


class PlacementSpec(_Model):
    clouds: list[Cloud] = Field(default_factory=lambda: list(ALL_CLOUDS), min_length=1)
    regions: list[str] = Field(default_factory=list)
    instance_type: str | None = None
    accelerator: str | None = None
    data: DataSpec | None = None
    subnets: list[str] = Field(default_factory=list)
    public_ip: bool = False

    @field_validator("clouds")
    @classmethod
    def _unique_clouds(cls, value: list[Cloud]) -> list[Cloud]:
        if len(set(value)) != len(value):
            raise ValueError(f"expected each cloud once, got {value}")
        return value


class PurchasingSpec(_Model):
    spot: SpotPolicy = "auto"
    reserved: ReservedPolicy = "auto"
    commit: bool = Field(
        default=False, description="Allow irreversible commitments (Savings Plans, CUDs)."
    )


class AutoShutdown(_Model):
    idle_minutes: Annotated[int, Field(ge=5, le=1440)] = 30
    gpu_utilization_below: Annotated[float, Field(gt=0, le=100)] = 5
    busy_marker: str = "/run/infra-gen/busy"


class Budget(_Model):
    monthly_usd: PositiveFloat | None = Field(
        default=None, description="Default: the plan's monthly cost x 1.2."
    )
    alert_percent: list[Annotated[int, Field(gt=0, le=1000)]] = Field(
        default_factory=lambda: [50, 80, 100], min_length=1
    )
    emails: list[str] = Field(default_factory=list)

    @field_validator("emails")
    @classmethod
    def _emails(cls, value: list[str]) -> list[str]:
        for email in value:
            if not _EMAIL.match(email):
                raise ValueError(f"expected an email address, got {email!r}")
        return value

    @field_validator("alert_percent")
    @classmethod
    def _sorted_unique(cls, value: list[int]) -> list[int]:
        return sorted(set(value))


class Interruption(_Model):
    """What the spot-interruption handler does on notice."""

    checkpoint_command: str | None = Field(
        default=None, description="Default: SIGUSR1 to the training process group."
    )
    deadline_seconds: Annotated[int, Field(ge=5, le=600)] = 90


class CheckpointSync(_Model):
    directory: str = "/opt/checkpoints"
    bucket_url: str
    interval_minutes: Annotated[int, Field(ge=1, le=1440)] = 15

    @field_validator("bucket_url")
    @classmethod
    def _bucket_scheme(cls, value: str) -> str:
        if not re.match(r"^(s3|gs|https)://[^\s]+$", value):
            raise ValueError(f"expected an s3://, gs:// or https:// URL, got {value!r}")
        return value


class Guardrails(_Model):
    """Cost guardrails. Setting ``auto_shutdown`` or ``budget`` to null turns it off (and the
    policy pack then reports it)."""

    auto_shutdown: AutoShutdown | None = Field(default_factory=AutoShutdown)
    budget: Budget | None = Field(default_factory=Budget)
    max_hourly_usd: PositiveFloat | None = None
    interruption: Interruption = Field(default_factory=Interruption)
    checkpoint_sync: CheckpointSync | None = None


_NAME = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"


class Workload(_Model):
    """One GPU workload: what runs, when, where it may run, and its guardrails."""

    version: Literal[1]
    name: Annotated[str, Field(pattern=_NAME, max_length=40)]
    type: WorkloadType
    owner: Owner
    model: ModelSpec
    training: TrainingSpec | None = None
    inference: InferenceSpec | None = None
    batch: BatchSpec | None = None
    schedule: ScheduleSpec = Field(default_factory=ScheduleSpec)
    placement: PlacementSpec = Field(default_factory=PlacementSpec)
    purchasing: PurchasingSpec = Field(default_factory=PurchasingSpec)
    guardrails: Guardrails = Field(default_factory=Guardrails)

    @model_validator(mode="after")
    def _fill_defaults(self) -> Workload:
        """Give each type the block it needs, so later stages never test for None."""
        training = self.training
        if self.type in ("training", "fine-tuning") and training and training.method is None:
            method: TrainingMethod = "full" if self.type == "training" else "lora"
            object.__setattr__(self, "training", training.model_copy(update={"method": method}))
        if self.type == "inference" and self.inference is None:
            object.__setattr__(self, "inference", InferenceSpec())
        return self

    @property
    def is_training(self) -> bool:
        return self.type in ("training", "fine-tuning")

    @property
    def is_service(self) -> bool:
        """Services run continuously; they have no per-run cost."""
        return self.type in ("inference", "dev")


def cloud_of_instance_type(instance_type: str) -> Cloud | None:
    """Which cloud an instance type name belongs to, from each cloud's naming scheme."""
    if instance_type.startswith("Standard_"):
        return "azure"
    if re.match(r"^[a-z][a-z0-9-]*\.[a-z0-9]+$", instance_type):
        return "aws"
    if re.match(r"^[a-z][a-z0-9]*-[a-z0-9-]+$", instance_type):
        return "gcp"
    return None


def consistency_errors(workload: Workload) -> list[tuple[tuple[str | int, ...], str]]:
    """Cross-field contradictions, each as (field path, message), for ``loading`` to locate."""
    errors: list[tuple[tuple[str | int, ...], str]] = []
    kind = workload.type
    if kind in ("inference", "batch", "dev") and workload.training is not None:
        errors.append((("training",), f"expected no training block for type {kind}, got one"))
    if kind in ("training", "fine-tuning", "batch", "dev") and workload.inference is not None:
        errors.append((("inference",), f"expected no inference block for type {kind}, got one"))
    if kind != "batch" and workload.batch is not None:
        errors.append((("batch",), f"expected no batch block for type {kind}, got one"))
    if kind == "batch" and workload.batch is None:
        errors.append(((), "batch: expected a batch block (items, items_per_gpu_second)"))
    if workload.is_training:
        errors.extend(_training_errors(workload))
    errors.extend(_model_errors(workload))
    errors.extend(_placement_errors(workload))
    errors.extend(_schedule_errors(workload))
    return errors


def _schedule_errors(workload: Workload) -> list[tuple[tuple[str | int, ...], str]]:
    """A schedule of 0 hours a week leaves no time to run in: nothing to plan or render."""
    schedule = workload.schedule
    if schedule.hours_per_day > 0 and schedule.days_per_week > 0:
        return []
    field = "hours_per_day" if schedule.hours_per_day <= 0 else "days_per_week"
    return [(("schedule", field), f"expected a schedule of more than 0 hours a week, got "
             f"{schedule.hours_per_day:g} h/day x {schedule.days_per_week} days/week")]


def _training_errors(workload: Workload) -> list[tuple[tuple[str | int, ...], str]]:
    training = workload.training
    if training is None:
        return [((), "training: expected a training block for type " + workload.type)]
    if training.tokens_b is None and training.duration_hours is None:
        return [(("training",), "expected tokens_b or duration_hours, got neither")]
    if training.tokens_b is not None and training.duration_hours is not None:
        return [(("training", "duration_hours"), "expected tokens_b or duration_hours, got both")]
    return []


def _model_errors(workload: Workload) -> list[tuple[tuple[str | int, ...], str]]:
    model = workload.model
    if model.name is not None and model.name not in KNOWN_MODELS and model.parameters_b is None:
        return [
            (
                ("model", "name"),
                f"expected a known model (see `infra-gen models`) or model.parameters_b, "
                f"got unknown model {model.name!r}",
            )
        ]
    if model.name is None and model.parameters_b is None:
        return [(("model",), "expected model.parameters_b or a known model.name, got neither")]
    if (
        model.experts is not None
        and model.experts_active is not None
        and model.experts_active > model.experts
    ):
        return [
            (
                ("model", "experts_active"),
                f"expected at most experts ({model.experts}), got {model.experts_active}",
            )
        ]
    return []


def _placement_errors(workload: Workload) -> list[tuple[tuple[str | int, ...], str]]:
    placement = workload.placement
    pinned = placement.instance_type
    if pinned is not None:
        cloud = cloud_of_instance_type(pinned)
        if cloud is not None and cloud not in placement.clouds:
            return [
                (
                    ("placement", "instance_type"),
                    f"expected an instance type of {', '.join(placement.clouds)}, "
                    f"got {pinned!r} ({cloud})",
                )
            ]
    if workload.purchasing.spot == "always" and workload.type == "inference":
        return [
            (
                ("purchasing", "spot"),
                "expected auto or never for inference (spot-only serving drops requests), "
                "got 'always'",
            )
        ]
    return []
