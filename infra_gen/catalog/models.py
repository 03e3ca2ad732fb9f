"""Catalog records: accelerators and instance offers, flat and typed.

Frozen dataclasses with slots rather than pydantic models: the optimizer scans up to 100k offers
per plan and attribute access on slotted dataclasses is several times cheaper. Validation happens
once, in the loader, which names the row and field that failed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

Interconnect = Literal["efa", "infiniband", "gpudirect-tcpx", "ethernet"]
# AWS Spot Advisor's published buckets (frequency of interruption per month); None = unknown.
InterruptionClass = Literal["<5%", "5-10%", "10-15%", "15-20%", ">20%"]


@dataclass(frozen=True, slots=True)
class Accelerator:
    name: str  # canonical name, e.g. "A100-80GB"
    vendor: str
    memory_gib: float
    memory_bandwidth_gb_s: float
    bf16_dense_tflops: float | None
    fp16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    int8_dense_tops: float | None
    bf16_supported: bool
    intra_node_link: str  # "NVLink4", "PCIe4", ...
    intra_node_bw_gb_s_bidir: float | None
    mig: bool
    source: str

    @property
    def has_nvlink(self) -> bool:
        """Tensor parallelism needs NVLink-class links; PCIe-only GPUs get none."""
        link = self.intra_node_link.lower()
        return "nvlink" in link or "neuronlink" in link


@dataclass(frozen=True, slots=True)
class Offer:
    """One (cloud, region, instance type). Prices are USD per instance-hour, never per GPU."""

    cloud: str
    region: str
    instance_type: str
    accelerator: str
    accelerators: int
    accelerator_memory_gib: float
    vcpus: int
    memory_gib: float
    local_disk_gb: float | None
    interconnect: Interconnect
    on_demand_usd_hr: float
    spot_usd_hr: float | None
    reserved_1y_usd_hr: float | None
    reserved_3y_usd_hr: float | None
    reserved_estimated: bool  # True when reserved prices come from a documented discount
    spot_interruption: InterruptionClass | None
    source: str
    as_of: dt.date


@dataclass(frozen=True)
class Catalog:
    """Accelerators by canonical name plus every offer; loaded once per process."""

    as_of: dt.date
    accelerators: dict[str, Accelerator]
    offers: tuple[Offer, ...]
    source: str = "built-in"
    aliases: dict[str, str] = field(default_factory=dict)

    def age_days(self, today: dt.date) -> int:
        return (today - self.as_of).days
