"""Sizing engine: from a workload and an accelerator to GPU memory, GPU count and hours.

CONTRACT (issue 3 implements the bodies; the models and signatures below are what the
optimizer, plan and CLI rely on):

    size(workload, accelerator) -> Requirement
    run_hours(workload, requirement, accelerator, total_gpus, nodes) -> float | None
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from infra_gen.catalog.models import Accelerator
from infra_gen.spec import Workload

Parallelism = Literal["single", "ddp", "fsdp", "tensor", "pipeline", "tensor+pipeline"]


class MemoryBreakdown(BaseModel):
    """GiB by term; ``total`` is their sum (kept as a field so JSON carries it)."""

    model_config = ConfigDict(frozen=True)

    weights: float
    kv_cache: float
    activations: float
    gradients: float
    optimizer: float
    overhead: float
    total: float


class Requirement(BaseModel):
    """What one workload needs on one accelerator type."""

    model_config = ConfigDict(frozen=True)

    workload: str
    accelerator: str
    fits: bool
    gpus: int  # GPUs per replica: the smallest count that fits within the safety margin
    parallelism: Parallelism
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    data_parallel: int = 1
    min_gpus_per_node: int = 1  # GPUs that must share one instance (the tensor-parallel degree)
    needs_nvlink: bool = False
    memory_gib: MemoryBreakdown  # one unsharded replica
    memory_gib_per_gpu: MemoryBreakdown  # after sharding over `gpus`
    memory_utilization: float  # per-GPU total / accelerator memory
    replicas: int = 1  # inference: replicas for peak traffic; 1 otherwise
    replicas_floor: int = 1  # inference: replicas needed at the quietest hour
    gpu_hours_per_run: float | None = None  # training/batch, at `gpus` GPUs
    hours_per_run: float | None = None  # wall-clock, at `gpus` GPUs
    assumptions: tuple[str, ...] = ()


def size(workload: Workload, accelerator: Accelerator) -> Requirement:
    raise NotImplementedError("issue 3")


def run_hours(
    workload: Workload, requirement: Requirement, accelerator: Accelerator, total_gpus: int,
    nodes: int,
) -> float | None:
    """Wall-clock hours of one run on ``total_gpus`` GPUs over ``nodes`` instances (None for
    services). More GPUs than ``requirement.gpus`` run data-parallel and finish sooner."""
    raise NotImplementedError("issue 3")
