"""Whole-process benchmarks of the CLI: plan, size, render, check, and a 100k-offer catalog.

Each command runs as a fresh ``infra-gen`` process, exactly as a user or CI job runs it, so the
figures include interpreter start-up, imports, catalog loading and output. ``python -c pass``
is measured in the same run as the floor no Python CLI can go below on this machine.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from synthetic import example_workloads, synthetic_catalog, write_catalog_csv, write_workload_files
from timing import INFRA_GEN, Sample, measure

CLOUDS = ("aws", "gcp", "azure")
RENDER_WORKLOAD = "llama7b-qlora-finetune.yaml"  # sold on all three clouds


def bare_python(runs: int) -> Sample:
    return measure("python -c pass", [sys.executable, "-c", "pass"], runs)


def plan_each(runs: int) -> list[Sample]:
    """``infra-gen plan FILE`` (the default table output) on every example workload."""
    return [measure(f"plan {p.name}", [INFRA_GEN, "plan", str(p)], runs)
            for p in example_workloads()]


def size_each(runs: int) -> list[Sample]:
    """``infra-gen size FILE``: every accelerator in the table, for every example workload."""
    return [measure(f"size {p.name}", [INFRA_GEN, "size", str(p), "--format", "json"], runs)
            for p in example_workloads()]


def render_each(runs: int) -> list[Sample]:
    """``infra-gen render FILE --cloud C --format json`` per registered cloud."""
    from infra_gen.providers.base import registered_providers

    workload = str(next(p for p in example_workloads() if p.name == RENDER_WORKLOAD))
    return [measure(f"render {RENDER_WORKLOAD} --cloud {cloud}",
                    [INFRA_GEN, "render", workload, "--cloud", cloud, "--format", "json"], runs)
            for cloud in CLOUDS if cloud in registered_providers()]


def check_many(runs: int, count: int = 100) -> list[Sample]:
    """``infra-gen check DIR`` over ``count`` generated workload files on all three clouds:
    in one process (``--jobs 1``, where the option exists) and with the default workers."""
    with tempfile.TemporaryDirectory(prefix="infra-gen-bench-") as tmp:
        write_workload_files(Path(tmp), count)
        argv = [INFRA_GEN, "check", tmp, "--format", "json"]
        label = f"check {count} workload files (aws/gcp/azure in turn)"
        samples = [measure(label, argv, runs, warmup=0)]
        if "--jobs" in _help("check"):
            samples.insert(0, measure(label + " --jobs 1", [*argv, "--jobs", "1"], runs,
                                      warmup=0))
        return samples


def _help(command: str) -> str:
    import subprocess

    return subprocess.run([INFRA_GEN, command, "--help"], capture_output=True, text=True,
                          check=False).stdout


def plan_big_catalog(runs: int, size: int = 100_000) -> Sample:
    """``infra-gen plan FILE --catalog big.csv``: parsing a 100k-row catalog plus the search."""
    workload = next(p for p in example_workloads() if p.name == RENDER_WORKLOAD)
    with tempfile.TemporaryDirectory(prefix="infra-gen-bench-") as tmp:
        csv_path = write_catalog_csv(synthetic_catalog(size), Path(tmp) / "big.csv")
        return measure(f"plan {workload.name} --catalog ({size:,} offers)",
                       [INFRA_GEN, "plan", str(workload), "--format", "json",
                        "--catalog", str(csv_path)], runs)
