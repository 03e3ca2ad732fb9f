"""Where ``infra-gen plan`` spends its start-up: ``python -X importtime`` on the plan path."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass

from synthetic import example_workloads
from timing import ROOT, bench_env

_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)$")


@dataclass(frozen=True)
class ImportProfile:
    total_s: float  # sum of every module's own import time
    top: list[tuple[str, float, float]]  # (module, self s, cumulative s), largest cumulative
    pulumi_modules: list[str]  # any pulumi* module imported: must stay empty


def import_profile(workload_name: str = "resnet50-inference.yaml", top: int = 12) -> ImportProfile:
    workload = next(p for p in example_workloads() if p.name == workload_name)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "infra_gen", "plan", str(workload)],
        cwd=ROOT, env=bench_env(), capture_output=True, text=True, check=True,
    )
    rows: list[tuple[str, float, float, int]] = []
    for line in done.stderr.splitlines():
        match = _LINE.match(line)
        if match:
            own, cumulative, indent, module = match.groups()
            rows.append((module, int(own) / 1e6, int(cumulative) / 1e6, len(indent)))
    total = sum(own for _, own, _, _ in rows)
    # Depth-1 and depth-2 entries: the packages a reader can act on (not CPython internals).
    shallow = [r for r in rows if r[3] <= 3]
    shallow.sort(key=lambda r: -r[2])
    pulumi = sorted({m for m, *_ in rows if m.split(".")[0].startswith("pulumi")})
    return ImportProfile(total, [(m, own, cum) for m, own, cum, _ in shallow[:top]], pulumi)
