"""Accelerators and workloads for the sizing tests, independent of the catalog loader.

Accelerator figures are copied by hand from ../shared/reference/gpus.csv (vendor datasheets as
collected in stas00/ml-engineering), so sizing is tested against fixed numbers.
"""

from __future__ import annotations

from typing import Any

from infra_gen.catalog.models import Accelerator
from infra_gen.spec import Workload


def _acc(name: str, memory: float, bandwidth: float, bf16: float | None, fp16: float,
         fp8: float | None, int8: float | None, link: str) -> Accelerator:
    return Accelerator(
        name=name, vendor="nvidia", memory_gib=memory, memory_bandwidth_gb_s=bandwidth,
        bf16_dense_tflops=bf16, fp16_dense_tflops=fp16, fp8_dense_tflops=fp8,
        int8_dense_tops=int8, bf16_supported=bf16 is not None, intra_node_link=link,
        intra_node_bw_gb_s_bidir=None, mig=False, source="gpus.csv (test copy)",
    )


ACCELERATORS: dict[str, Accelerator] = {
    acc.name: acc for acc in (
        _acc("T4", 16, 320, None, 65, None, 130, "PCIe3"),
        _acc("L4", 24, 300, 121, 121, 242, 242, "PCIe4"),
        _acc("A10G", 24, 600, 70, 70, None, None, "PCIe4"),
        _acc("L40S", 48, 864, 362, 362, 733, 733, "PCIe4"),
        _acc("A100-40GB", 40, 1555, 312, 312, None, 624, "NVLink3"),
        _acc("A100-80GB", 80, 2039, 312, 312, None, 624, "NVLink3"),
        _acc("H100", 80, 3350, 989, 989, 1979, 1979, "NVLink4"),
        _acc("H200", 141, 4800, 989, 989, 1979, 1979, "NVLink4"),
    )
}

_OWNER = {"team": "t", "project": "p", "cost_center": "c"}


def workload(kind: str, model: dict[str, Any], **blocks: Any) -> Workload:
    """A valid Workload of ``kind`` with ``model`` and the given training/inference/batch."""
    data: dict[str, Any] = {"version": 1, "name": "w", "type": kind, "owner": _OWNER,
                            "model": model}
    data.update(blocks)
    return Workload.model_validate(data)


def fine_tune(model: dict[str, Any], **training: Any) -> Workload:
    training.setdefault("tokens_b", 0.01)
    return workload("fine-tuning", model, training=training)


def serve(model: dict[str, Any], **inference: Any) -> Workload:
    return workload("inference", model, inference=inference)
