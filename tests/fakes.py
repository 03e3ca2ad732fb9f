"""In-memory catalogs, hand-made requirements and workloads for pricing/optimizer/plan tests.

A fake over a patch (STYLE.md 6): ``FakeSizer`` returns Requirements we write by hand, so the
optimizer's search is tested independently of the sizing model, and ``make_catalog`` builds a
Catalog without touching the CSV loader.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from infra_gen.catalog.models import Accelerator, Catalog, Offer
from infra_gen.sizing import MemoryBreakdown, Requirement
from infra_gen.spec import Workload

AS_OF = dt.date(2026, 10, 1)


def accelerator(name: str, memory_gib: float = 80, *, nvlink: bool = True,
                vendor: str = "nvidia") -> Accelerator:
    return Accelerator(
        name=name, vendor=vendor, memory_gib=memory_gib, memory_bandwidth_gb_s=2000,
        bf16_dense_tflops=312, fp16_dense_tflops=312, fp8_dense_tflops=None,
        int8_dense_tops=624, bf16_supported=True,
        intra_node_link="NVLink3" if nvlink else "PCIe4",
        intra_node_bw_gb_s_bidir=600 if nvlink else None, mig=False, source="test",
    )


ACCELERATORS = {
    "A100-40GB": accelerator("A100-40GB", 40),
    "A100-80GB": accelerator("A100-80GB", 80),
    "H100": accelerator("H100", 80),
    "A10G": accelerator("A10G", 24, nvlink=False),
    "L4": accelerator("L4", 24, nvlink=False),
    "T4": accelerator("T4", 16, nvlink=False),
    "Trainium": accelerator("Trainium", 32, vendor="aws"),
}


def offer(instance_type: str = "p4d.24xlarge", *, cloud: str = "aws",
          region: str = "us-east-1", accelerator: str = "A100-40GB", gpus: int = 8,
          on_demand: float = 32.7726, spot: float | None = None,
          reserved_1y: float | None = None, reserved_3y: float | None = None,
          interruption: Any = None, interconnect: Any = "efa",
          reserved_estimated: bool = False) -> Offer:
    return Offer(
        cloud=cloud, region=region, instance_type=instance_type, accelerator=accelerator,
        accelerators=gpus, accelerator_memory_gib=ACCELERATORS[accelerator].memory_gib,
        vcpus=8 * gpus, memory_gib=64.0 * gpus, local_disk_gb=None, interconnect=interconnect,
        on_demand_usd_hr=on_demand, spot_usd_hr=spot, reserved_1y_usd_hr=reserved_1y,
        reserved_3y_usd_hr=reserved_3y, reserved_estimated=reserved_estimated,
        spot_interruption=interruption, source="test", as_of=AS_OF,
    )


def make_catalog(*offers: Offer, as_of: dt.date = AS_OF) -> Catalog:
    return Catalog(as_of=as_of, accelerators=dict(ACCELERATORS), offers=tuple(offers),
                   source="test")


def memory(total: float) -> MemoryBreakdown:
    return MemoryBreakdown(weights=total * 0.5, kv_cache=0.0, activations=total * 0.2,
                           gradients=0.0, optimizer=total * 0.2, overhead=total * 0.1,
                           total=total)


def requirement(accel: str = "A100-40GB", *, gpus: int = 1, fits: bool = True,
                replicas: int = 1, replicas_floor: int = 1, tensor: int = 1,
                gpu_hours: float | None = None, utilization: float = 0.6) -> Requirement:
    return Requirement(
        workload="test", accelerator=accel, fits=fits, gpus=gpus,
        parallelism="tensor" if tensor > 1 else ("fsdp" if gpus > 1 else "single"),
        tensor_parallel=tensor, min_gpus_per_node=tensor, needs_nvlink=tensor > 1,
        memory_gib=memory(40.0 * gpus), memory_gib_per_gpu=memory(40.0),
        memory_utilization=utilization, replicas=replicas, replicas_floor=replicas_floor,
        gpu_hours_per_run=gpu_hours, hours_per_run=None if gpu_hours is None else gpu_hours / gpus,
        assumptions=("hand-made requirement",),
    )


@dataclass
class FakeSizer:
    """Requirements by accelerator; run hours = GPU-hours / GPUs / efficiency(nodes)."""

    requirements: dict[str, Requirement]
    gpu_hours: float = 64.0
    node_efficiency: float = 0.9  # each extra node multiplies throughput by this (<= 1)
    calls: list[str] = field(default_factory=list)

    def size(self, workload: Workload, accelerator: Accelerator) -> Requirement:
        self.calls.append(accelerator.name)
        found = self.requirements.get(accelerator.name)
        if found is None:
            return requirement(accelerator.name, fits=False, utilization=1.5)
        return found

    def run_hours(self, workload: Workload, requirement: Requirement,
                  accelerator: Accelerator, total_gpus: int, nodes: int) -> float | None:
        if workload.is_service:
            return None
        return self.gpu_hours / total_gpus / self.node_efficiency ** (nodes - 1)


def workload(kind: str = "fine-tuning", **overrides: Any) -> Workload:
    """A valid workload of ``kind``; keyword blocks replace the defaults (dicts)."""
    base: dict[str, Any] = {
        "version": 1, "name": "test-" + kind, "type": kind,
        "owner": {"team": "ml", "project": "p", "cost_center": "cc"},
        "model": {"parameters_b": 7, "precision": "bf16"},
    }
    if kind in ("training", "fine-tuning"):
        base["training"] = {"duration_hours": 8, "checkpoint_minutes": 30}
    if kind == "batch":
        base["batch"] = {"items": 1_000_000, "items_per_gpu_second": 100}
    if kind == "inference":
        base["inference"] = {"requests_per_second": 10}
    base.update(overrides)
    return Workload.model_validate(base)
