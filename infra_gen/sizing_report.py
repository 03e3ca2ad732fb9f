"""The data behind ``infra-gen size`` and ``infra-gen models``: plain dicts with stable keys,
rounded for display only (2 decimals for GiB); the engine keeps full precision."""

from __future__ import annotations

from typing import Any

from infra_gen.model_table import ModelArch, all_models
from infra_gen.sizing import Requirement
from infra_gen.spec import Workload


def _round(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def option(req: Requirement) -> dict[str, Any]:
    """One accelerator's answer: GPUs, layout, per-GPU memory and whether it fits."""
    return {
        "accelerator": req.accelerator,
        "gpus": req.gpus,
        "parallelism": req.parallelism,
        "memory_gib_per_gpu": req.memory_gib_per_gpu.rounded(),
        "fits": req.fits,
        "unfit_reason": req.unfit_reason,  # the latency target, when memory fits but speed not
        "tensor_parallel": req.tensor_parallel,
        "pipeline_parallel": req.pipeline_parallel,
        "data_parallel": req.data_parallel,
        "min_gpus_per_node": req.min_gpus_per_node,
        "needs_nvlink": req.needs_nvlink,
        "usable_memory_gib": _round(req.usable_memory_gib),
        "memory_utilization": _round(req.memory_utilization, 3),
        "replicas": req.replicas,
        "replicas_floor": req.replicas_floor,
        "batch_per_replica": req.batch_per_replica,
        "ms_per_token": _round(req.ms_per_token),
        "hours_per_run": _round(req.hours_per_run),
        "gpu_hours_per_run": _round(req.gpu_hours_per_run),
    }


def size_report(workload: Workload, requirements: list[Requirement]) -> dict[str, Any]:
    """The issue-3 JSON: one unsharded replica's memory, one option per accelerator, and the
    assumptions (deduplicated, first-seen order) behind all of them."""
    assumptions: list[str] = []
    for req in requirements:
        assumptions += [note for note in req.assumptions if note not in assumptions]
    unsharded = requirements[0].memory_gib.rounded() if requirements else {}
    return {
        "workload": workload.name,
        "type": workload.type,
        "model": requirements[0].model if requirements else workload.model.name,
        "memory_gib": unsharded,
        "options": [option(req) for req in requirements],
        "assumptions": assumptions,
    }


def model_row(arch: ModelArch) -> dict[str, Any]:
    return {
        "name": arch.name, "parameters_b": arch.parameters_b, "kind": arch.kind,
        "layers": arch.layers, "hidden_size": arch.hidden_size,
        "attention_heads": arch.attention_heads, "kv_heads": arch.kv_heads,
        "vocab_size": arch.vocab_size, "intermediate_size": arch.intermediate_size,
        "max_context": arch.max_context, "experts": arch.experts,
        "experts_active": arch.experts_active, "source": arch.source,
    }


def models_report() -> list[dict[str, Any]]:
    return [model_row(arch) for arch in all_models()]
