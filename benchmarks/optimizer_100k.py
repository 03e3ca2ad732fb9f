"""Time ``optimizer.search`` over a synthetic catalog of 100,000 offers (issue 5).

    .venv/bin/python benchmarks/optimizer_100k.py [COUNT]

Prints CPU and wall seconds per workload type. Sizing is replaced by hand-made requirements
(tests/fakes.py) so the figure measures the search, not the sizing model.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infra_gen.optimizer import search  # noqa: E402
from tests.fakes import ACCELERATORS, FakeSizer, make_catalog, offer, requirement, workload  # noqa: E402


def synthetic_catalog(count: int):  # type: ignore[no-untyped-def]
    shapes = [("A100-40GB", 8), ("L4", 1), ("L4", 4), ("T4", 1), ("H100", 8)]
    offers = []
    for i in range(count):
        accel, gpus = shapes[i % len(shapes)]
        base = 1.0 + (i * 7919 % 1000) / 100
        offers.append(offer(f"t{i}.x", cloud=("aws", "gcp", "azure")[i % 3], region=f"r{i % 40}",
                            accelerator=accel, gpus=gpus, on_demand=base * gpus,
                            spot=base * gpus * 0.4, reserved_1y=base * gpus * 0.65,
                            reserved_3y=base * gpus * 0.45))
    return make_catalog(*offers)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    catalog = synthetic_catalog(count)
    sizer = FakeSizer({a: requirement(a, replicas=4, replicas_floor=1) for a in ACCELERATORS})
    for kind in ("inference", "fine-tuning", "batch", "dev"):
        cpu, wall = time.process_time(), time.perf_counter()
        result = search(workload(kind), catalog, sizer=sizer)
        print(f"{kind:12} {count} offers: cpu {time.process_time() - cpu:.3f}s wall "
              f"{time.perf_counter() - wall:.3f}s, {result.candidates_priced} candidates priced")


if __name__ == "__main__":
    main()
