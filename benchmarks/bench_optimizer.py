"""Optimizer scaling: time and peak memory of one plan over 1k, 10k and 100k offers.

Runs in this process on prebuilt in-memory catalogs (synthetic.py), so it measures the search
and plan assembly alone, not catalog parsing (bench_cli measures whole processes). Timing runs
and the memory run are separate: tracemalloc slows allocation-heavy code several-fold, so it
would inflate the times it sits next to.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from synthetic import example_workloads, synthetic_catalog

from infra_gen.catalog.models import Catalog
from infra_gen.loading import load_workload
from infra_gen.optimizer import plan_workload
from infra_gen.spec import Workload

SIZES = (1_000, 10_000, 100_000)
# Two workloads with different search shapes: a run (counts x mixes per shape, many offers
# feasible) and a service (reserved/on-demand/spot mixes at a fixed count).
WORKLOADS = ("llama7b-qlora-finetune.yaml", "llama70b-serving.yaml")


@dataclass(frozen=True)
class ScalingRow:
    workload: str
    offers: int
    times_s: tuple[float, ...]  # wall
    cpu_s: tuple[float, ...]  # process CPU time of the same runs (load on the machine aside)
    peak_mib: float
    candidates_priced: int

    @property
    def median_s(self) -> float:
        return statistics.median(self.times_s)

    @property
    def median_cpu_s(self) -> float:
        return statistics.median(self.cpu_s)


def _time_plans(workload: Workload, catalog: Catalog, runs: int
                ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    plan_workload(workload, catalog)  # warm-up: first-call imports and caches
    walls, cpus = [], []
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        plan_workload(workload, catalog)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return tuple(walls), tuple(cpus)


def _peak_mib(workload: Workload, catalog: Catalog) -> tuple[float, int]:
    tracemalloc.start()
    try:
        plan = plan_workload(workload, catalog)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20, plan.candidates_priced


def scaling(runs: int, sizes: tuple[int, ...] = SIZES) -> list[ScalingRow]:
    by_name = {p.name: p for p in example_workloads()}
    rows: list[ScalingRow] = []
    for size in sizes:
        catalog = synthetic_catalog(size)
        for name in WORKLOADS:
            workload = load_workload(Path(by_name[name]))
            walls, cpus = _time_plans(workload, catalog, runs)
            peak, priced = _peak_mib(workload, catalog)
            rows.append(ScalingRow(name.removesuffix(".yaml"), size, walls, cpus, peak, priced))
    return rows
