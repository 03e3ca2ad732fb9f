"""Timing helpers for the benchmarks: whole processes, several runs after a warm-up.

Wall-clock time is what a user waits for, but on a shared machine it also counts the time the
process sat in the run queue. So every measurement also records CPU time (user + system, from
``getrusage(RUSAGE_CHILDREN)``), which load on the machine barely moves; RESULTS.md shows both.
"""

from __future__ import annotations

import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
INFRA_GEN = str(VENV_BIN / "infra-gen")


@dataclass(frozen=True)
class Sample:
    """Runs of one command: wall and CPU seconds per run, in run order."""

    label: str
    wall_s: tuple[float, ...]
    cpu_s: tuple[float, ...]

    @property
    def median_wall_s(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def median_cpu_s(self) -> float:
        return statistics.median(self.cpu_s)

    @property
    def spread(self) -> str:
        """min-max of wall seconds: how much the runs disagreed."""
        return f"{min(self.wall_s):.3f}-{max(self.wall_s):.3f}"


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bench_env() -> dict[str, str]:
    """The environment a user has: bytecode caches on (this sandbox sets
    PYTHONDONTWRITEBYTECODE), kept under /tmp so the checkout gets no __pycache__ folders."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "INFRA_GEN_CATALOG")}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "infra-gen-bench-pycache")
    return env


def run_once(argv: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall s, cpu s) of one process; a non-zero exit is a benchmark bug, so it raises."""
    cpu_before = _children_cpu_s()
    start = time.perf_counter()
    done = subprocess.run(list(argv), cwd=ROOT, env=env or bench_env(), capture_output=True,
                          check=False)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1 = check found violations: a valid outcome
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-400:]!r}")
    return wall, _children_cpu_s() - cpu_before


def measure(label: str, argv: Sequence[str], runs: int, warmup: int = 1) -> Sample:
    """``warmup`` discarded runs (page cache, .pyc files), then ``runs`` timed ones."""
    for _ in range(warmup):
        run_once(argv)
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = run_once(argv)
        walls.append(wall)
        cpus.append(cpu)
    return Sample(label, tuple(walls), tuple(cpus))


def machine() -> list[str]:
    """What the numbers were measured on: CPUs, model, memory, load, Python."""
    model = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text("utf-8", "replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    free = subprocess.run(["free", "-g"], capture_output=True, text=True, check=False).stdout
    mem_line = next((ln for ln in free.splitlines() if ln.startswith("Mem:")), "Mem: ?")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        f"CPUs (nproc): {len(os.sched_getaffinity(0))}; model name: {model}",
        f"memory (free -g): total {mem_line.split()[1]} GiB",
        f"load average at start (1, 5, 15 min): {load}",
        f"Python {platform.python_version()} ({sys.executable}); {platform.platform()}",
    ]
