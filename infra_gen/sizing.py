"""Sizing engine: from a workload and an accelerator to GPU memory, GPU count and hours.

CONTRACT (the optimizer, plan and CLI rely on these):

    size(workload, accelerator) -> Requirement
    run_hours(workload, requirement, accelerator, total_gpus, nodes) -> float | None
    size_all(workload, accelerators) -> list[Requirement]
    require_fit(workload, accelerators) -> list[Requirement]   (SizingError when none fits)

Pure: no I/O, no Pulumi. The formulas live in ``sizing_memory`` (memory terms and sharding),
``sizing_parallel`` (which layouts to try), ``sizing_throughput`` (hours, replicas) and
``sizing_arch`` (the model's shape); every Requirement carries the assumptions it used.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict

from infra_gen.catalog.models import Accelerator
from infra_gen.errors import SizingError
from infra_gen.model_table import ModelArch
from infra_gen.sizing_arch import resolve_arch
from infra_gen.sizing_memory import (
    GIB,
    SizingInputs,
    Terms,
    overhead_bytes,
    sharded_terms,
    unsharded_terms,
)
from infra_gen.sizing_parallel import Layout, candidate_layouts, usable_gib
from infra_gen.sizing_throughput import (
    replicas_for,
    serving_estimate,
    step_seconds,
    training_hours,
)
from infra_gen.sizing_workload import assumptions_for, sizing_inputs, tokens_per_run
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

    def rounded(self, digits: int = 2) -> dict[str, float]:
        """For display only; the engine keeps full precision."""
        return {key: round(value, digits) for key, value in self.model_dump().items()}


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
    # Added by issue 3 (defaults keep older callers valid):
    model: str = ""  # the model's table name, or "custom"
    usable_memory_gib: float = 0.0  # accelerator memory x safety margin
    ms_per_token: float | None = None  # inference: decode latency at the chosen batch
    batch_per_replica: int | None = None  # inference: concurrent sequences per replica
    # Why ``fits`` is False when memory fits (the latency target); "" otherwise:
    unfit_reason: str = ""


def _breakdown(terms: Terms) -> MemoryBreakdown:
    overhead = overhead_bytes(terms)
    values = {
        "weights": terms.weights, "kv_cache": terms.kv_cache, "activations": terms.activations,
        "gradients": terms.gradients, "optimizer": terms.optimizer, "overhead": overhead,
    }
    gib = {key: value / GIB for key, value in values.items()}
    return MemoryBreakdown(**gib, total=sum(gib.values()))


def _fitting_layouts(
    inp: SizingInputs, arch: ModelArch, accelerator: Accelerator
) -> tuple[list[tuple[Layout, MemoryBreakdown]], tuple[Layout, MemoryBreakdown]]:
    """Every layout whose per-GPU total fits the margin, in preference order (fewest GPUs,
    preferred kind), and the smallest-memory attempt for when none fits."""
    limit = usable_gib(accelerator)
    fitting: list[tuple[Layout, MemoryBreakdown]] = []
    closest: tuple[Layout, MemoryBreakdown] | None = None
    for layout in candidate_layouts(arch, accelerator, inp.training):
        per_gpu = _breakdown(sharded_terms(inp, layout.tp, layout.pp, layout.shards))
        if per_gpu.total <= limit:
            fitting.append((layout, per_gpu))
        elif closest is None or per_gpu.total < closest[1].total:
            closest = (layout, per_gpu)
    first = fitting[0] if fitting else closest
    assert first is not None  # "single" is always a candidate
    return fitting, first


def size(workload: Workload, accelerator: Accelerator) -> Requirement:
    """Memory per GPU, GPU count, parallelism, replicas and hours of ``workload`` on one
    accelerator type. Raises SizingError for requests no hardware can satisfy (a sequence
    longer than the model supports). Serving with a latency target takes the layout that meets
    it (see ``_serving_choice``), or does not fit when none does."""
    arch = resolve_arch(workload.model)
    inp = sizing_inputs(workload, arch)
    fitting, (layout, per_gpu) = _fitting_layouts(inp, arch, accelerator)
    fits = bool(fitting)
    fields: dict[str, object] = {}
    notes = assumptions_for(workload, arch, inp)
    if workload.type == "inference" and workload.inference is not None:
        layout, per_gpu, fields = _serving_choice(workload, inp, accelerator, fitting,
                                                  (layout, per_gpu))
        fits = fits and not fields.get("unfit_reason")
    elif workload.type in ("training", "fine-tuning", "batch"):
        fields = _run_fields(workload, inp, accelerator, layout)
    if "latency_note" in fields:
        notes += (str(fields.pop("latency_note")),)
    return Requirement(
        workload=workload.name, accelerator=accelerator.name, fits=fits, gpus=layout.gpus,
        parallelism=layout.parallelism,  # type: ignore[arg-type]
        tensor_parallel=layout.tp, pipeline_parallel=layout.pp, data_parallel=layout.shards,
        min_gpus_per_node=layout.tp, needs_nvlink=layout.tp > 1,
        memory_gib=_breakdown(unsharded_terms(inp)), memory_gib_per_gpu=per_gpu,
        memory_utilization=per_gpu.total / accelerator.memory_gib,
        assumptions=notes, model=arch.name,
        usable_memory_gib=usable_gib(accelerator), **fields,  # type: ignore[arg-type]
    )


_Sized = tuple[Layout, MemoryBreakdown]


def _serving_choice(
    workload: Workload, inp: SizingInputs, accelerator: Accelerator, fitting: list[_Sized],
    first: _Sized,
) -> tuple[Layout, MemoryBreakdown, dict[str, object]]:
    """The serving layout. Without a latency target: the first that fits memory. With one:
    among the layouts that fit memory and meet the target at batch 1, the one needing the
    fewest GPUs at peak (GPUs per replica x replicas; ties to the preference order), each
    replica's batch capped by the target. When memory fits but no layout meets the target
    even at batch 1, the fastest one is reported with ``unfit_reason``."""
    assert workload.inference is not None
    target = workload.inference.latency_target_ms_per_token
    if target is None or not fitting or inp.arch.kind not in ("decoder", "encoder-decoder"):
        return first[0], first[1], _serving_fields(workload, inp, accelerator, first[0])
    scored = []
    for index, (layout, per_gpu) in enumerate(fitting):
        fields = _serving_fields(workload, inp, accelerator, layout)
        if not fields.get("latency_note"):
            peak = layout.gpus * int(fields["replicas"])  # type: ignore[call-overload]
            scored.append((peak, index, layout, per_gpu, fields))
    if scored:
        _, _, layout, per_gpu, fields = min(scored, key=lambda row: row[:2])
        return layout, per_gpu, fields
    fastest, per_gpu = min(fitting, key=lambda row: (_batch1_ms(inp, accelerator, row[0]),
                                                     row[0].gpus))
    fields = _serving_fields(workload, inp, accelerator, fastest)
    fields["unfit_reason"] = (
        f"inference.latency_target_ms_per_token {target:g} not met: "
        f"{_batch1_ms(inp, accelerator, fastest):.1f} ms/token at batch 1 on the fastest "
        f"layout that fits, {fastest.gpus} x {accelerator.name} ({fastest.parallelism})"
    )
    return fastest, per_gpu, fields


def _batch1_ms(inp: SizingInputs, accelerator: Accelerator, layout: Layout) -> float:
    return step_seconds(inp, accelerator, layout.tp, 1) * 1000


def _serving_fields(
    workload: Workload, inp: SizingInputs, accelerator: Accelerator, layout: Layout
) -> dict[str, object]:
    assert workload.inference is not None
    spec = workload.inference
    target = spec.latency_target_ms_per_token
    est = serving_estimate(inp, accelerator, layout.tp, layout.pp, target)
    quiet = spec.requests_per_second if spec.min_requests_per_second is None else (
        spec.min_requests_per_second
    )
    floor = replicas_for(quiet, est.requests_per_second_per_replica)
    if floor == 0 and not spec.scale_to_zero:
        floor = 1
    fields: dict[str, object] = {}
    if not est.latency_met and target is not None:
        fields["latency_note"] = (
            f"latency target {target:g} ms/token not met on {layout.gpus} x "
            f"{accelerator.name} ({layout.parallelism}): {est.ms_per_token:.1f} ms/token at "
            "batch 1"
        )
    return fields | {
        "replicas": replicas_for(spec.requests_per_second, est.requests_per_second_per_replica),
        "replicas_floor": floor,
        "ms_per_token": est.ms_per_token if est.ms_per_token > 0 else None,
        "batch_per_replica": est.batch,
    }


def _run_fields(
    workload: Workload, inp: SizingInputs, accelerator: Accelerator, layout: Layout
) -> dict[str, object]:
    hours = _hours(workload, inp, accelerator, layout.gpus, layout.nodes)
    if hours is None:
        return {}
    return {"hours_per_run": hours, "gpu_hours_per_run": hours * layout.gpus}


def _hours(
    workload: Workload, inp: SizingInputs, accelerator: Accelerator, gpus: int, nodes: int
) -> float | None:
    if workload.type == "batch" and workload.batch is not None:
        return workload.batch.items / (workload.batch.items_per_gpu_second * gpus) / 3600.0
    if workload.training is None:
        return None
    if workload.training.duration_hours is not None:
        return workload.training.duration_hours
    tokens = tokens_per_run(workload)
    compute_precision = workload.model.precision
    return training_hours(inp, accelerator, compute_precision, tokens, gpus, nodes)


def run_hours(
    workload: Workload, requirement: Requirement, accelerator: Accelerator, total_gpus: int,
    nodes: int,
) -> float | None:
    """Wall-clock hours of one run on ``total_gpus`` GPUs over ``nodes`` instances (None for
    services). More GPUs than ``requirement.gpus`` run data-parallel and finish sooner, at the
    scaling efficiency of ``nodes`` instances; a stated ``duration_hours`` is returned as is."""
    if workload.is_service:
        return None
    arch = resolve_arch(workload.model)
    inp = sizing_inputs(workload, arch)
    return _hours(workload, inp, accelerator, max(total_gpus, requirement.gpus), max(nodes, 1))


def size_all(workload: Workload, accelerators: list[Accelerator]) -> list[Requirement]:
    """``size`` on every accelerator, in the order given."""
    return [size(workload, accelerator) for accelerator in accelerators]


def require_fit(workload: Workload, accelerators: list[Accelerator]) -> list[Requirement]:
    """``size_all``, raising SizingError with what to relax when nothing fits anywhere."""
    requirements = size_all(workload, accelerators)
    if not any(req.fits for req in requirements):
        raise SizingError(explain_no_fit(workload, requirements, accelerators))
    return requirements


def explain_no_fit(
    workload: Workload, requirements: list[Requirement], accelerators: list[Accelerator]
) -> str:
    """One line: what the workload needs, the closest attempt, and what would fit instead."""
    from infra_gen.sizing_relax import relaxation_hint

    latency = latency_no_fit(workload, requirements)
    if latency:
        return f"{workload.name}: {latency}; {relaxation_hint(workload, accelerators)}"
    best = min(requirements, key=lambda req: req.memory_utilization, default=None)
    need = requirements[0].memory_gib.total if requirements else 0.0
    closest = ""
    if best is not None:
        closest = (
            f"; closest: {best.gpus} x {best.accelerator} ({best.parallelism}) at "
            f"{best.memory_gib_per_gpu.total:.1f} GiB per GPU, over the "
            f"{best.usable_memory_gib:.1f} GiB limit"
        )
    hint = relaxation_hint(workload, accelerators)
    return (
        f"{workload.name}: no allowed accelerator fits {need:.0f} GiB "
        f"({workload.model.precision}, {workload.type}){closest}; {hint}"
    )


def latency_no_fit(workload: Workload, requirements: list[Requirement]) -> str:
    """When the latency target, not memory, removed the last accelerators (some fit in memory,
    none meets the target): the target, the fastest option and what would meet it; "" else."""
    missed = [req for req in requirements if req.unfit_reason]
    if not missed or any(req.fits for req in requirements) or workload.inference is None:
        return ""
    target = workload.inference.latency_target_ms_per_token or 0.0
    best = min(missed, key=lambda req: (req.ms_per_token or 0.0, req.gpus, req.accelerator))
    fastest_ms = best.ms_per_token or 0.0
    reachable = math.ceil(fastest_ms * 10) / 10  # rounded up so the figure quoted is met
    return (
        f"inference.latency_target_ms_per_token {target:g} removed the last accelerators "
        f"({len(missed)} fit in memory but decode slower); fastest: {best.gpus} x "
        f"{best.accelerator} ({best.parallelism}) at {fastest_ms:.1f} ms/token at batch 1; to "
        f"fix: raise inference.latency_target_ms_per_token to at least {reachable:g}, "
        "use a lower model.precision (fewer bytes read per token), or allow accelerators with "
        "more memory bandwidth or NVLink for tensor parallelism"
    )
