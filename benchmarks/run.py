"""Run every benchmark and write the measured section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/run.py            # 5 timed runs each after a warm-up
    .venv/bin/python benchmarks/run.py --runs 3   # quicker, noisier
    .venv/bin/python benchmarks/run.py --stdout   # print, leave RESULTS.md alone

Only the text between the ``results:start`` and ``results:end`` markers of RESULTS.md is
replaced; the hand-written findings around it (profiles, what changed) are kept.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_cli  # noqa: E402
import bench_imports  # noqa: E402
import bench_optimizer  # noqa: E402
from timing import Sample, machine  # noqa: E402

RESULTS = HERE / "RESULTS.md"
START, END = "<!-- results:start -->", "<!-- results:end -->"
PLAN_GOAL_S = 0.3
SCALE_GOAL_S = 1.0
BATCH_GOAL_S = 60.0


def _sample_table(samples: list[Sample], floor: Sample | None = None) -> list[str]:
    head = "| command | median wall s | spread (min-max) | median CPU s |"
    rule = "|---|---:|---:|---:|"
    if floor is not None:
        head += " x `python -c pass` wall | x `python -c pass` CPU |"
        rule += "---:|---:|"
    lines = [head, rule]
    for s in samples:
        row = f"| `{s.label}` | {s.median_wall_s:.3f} | {s.spread} | {s.median_cpu_s:.3f} |"
        if floor is not None:
            row += (f" {s.median_wall_s / floor.median_wall_s:.1f} |"
                    f" {s.median_cpu_s / max(floor.median_cpu_s, 1e-3):.1f} |")
        lines.append(row)
    return lines


def _verdict(value: float, goal: float) -> str:
    return f"{'met' if value < goal else 'MISSED'} ({value:.3f} s vs goal < {goal:g} s)"


def _plan_section(runs: int) -> list[str]:
    floor = bench_cli.bare_python(runs)
    plans = bench_cli.plan_each(runs)
    worst = max(plans, key=lambda s: s.median_wall_s)
    worst_cpu = max(s.median_cpu_s for s in plans)
    return [
        "## `infra-gen plan` on each example workload", "",
        f"`python -c pass` in the same run: median {floor.median_wall_s:.3f} s wall "
        f"({floor.spread}), {floor.median_cpu_s:.3f} s CPU.", "",
        *_sample_table([floor, *plans], floor), "",
        f"Goal, slowest median under {PLAN_GOAL_S} s: wall "
        f"{_verdict(worst.median_wall_s, PLAN_GOAL_S)}; CPU {_verdict(worst_cpu, PLAN_GOAL_S)}.",
        "",
    ]


def _scaling_section(runs: int) -> list[str]:
    rows = bench_optimizer.scaling(runs)
    lines = [
        "## Optimizer scaling (in process, synthetic catalogs)", "",
        "`plan_workload` (real sizing, search, plan assembly) over the built-in offers copied "
        "into made-up regions at scaled prices (`synthetic.py`); catalog building not timed.", "",
        "| workload | offers | median wall s | spread s | median CPU s | CPU s per 1k offers "
        "| peak MiB (tracemalloc) | candidates priced |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.workload} | {r.offers:,} | {r.median_s:.3f} | {min(r.times_s):.3f}-"
            f"{max(r.times_s):.3f} | {r.median_cpu_s:.3f} | "
            f"{1000 * r.median_cpu_s / r.offers:.4f} | {r.peak_mib:.1f} "
            f"| {r.candidates_priced:,} |")
    lines.append("")
    for name in bench_optimizer.WORKLOADS:
        mine = {r.offers: r for r in rows if r.workload == name.removesuffix(".yaml")}
        sizes = sorted(mine)
        steps = ", ".join(
            f"{a // 1000}k->{b // 1000}k: {mine[b].median_cpu_s / mine[a].median_cpu_s:.1f}x CPU, "
            f"{mine[b].peak_mib / max(mine[a].peak_mib, 1e-9):.1f}x memory"
            for a, b in zip(sizes, sizes[1:], strict=False))
        big = mine[sizes[-1]]
        lines.append(
            f"- {big.workload}: {steps} (linear = 10x); 100k goal: wall "
            f"{_verdict(big.median_s, SCALE_GOAL_S)}, CPU "
            f"{_verdict(big.median_cpu_s, SCALE_GOAL_S)}.")
    return [*lines, ""]


def _batch_section(runs: int) -> list[str]:
    renders = bench_cli.render_each(runs)
    sizes = bench_cli.size_each(runs)
    checks = bench_cli.check_many(max(1, min(runs, 2)))
    big = bench_cli.plan_big_catalog(max(1, min(runs, 3)))
    return [
        "## `infra-gen render` per registered cloud", "", *_sample_table(renders), "",
        "## `infra-gen size` over the whole accelerator table", "", *_sample_table(sizes), "",
        "## `infra-gen check` over 100 generated workload files, one process", "",
        *_sample_table(checks), "",
        f"Goal well under a minute (one process): wall "
        f"{_verdict(checks[0].median_wall_s, BATCH_GOAL_S)}; CPU "
        f"{_verdict(checks[0].median_cpu_s, BATCH_GOAL_S)}.", "",
        "## `infra-gen plan` with a 100,000-offer user catalog (parse + search)", "",
        *_sample_table([big]), "",
    ]


def _imports_section() -> list[str]:
    profile = bench_imports.import_profile()
    lines = [
        "## Imports on the plan path (`python -X importtime -m infra_gen plan "
        "stacks/resnet50-inference.yaml`)", "",
        f"Sum of all modules' own import time: {profile.total_s:.3f} s. Pulumi modules imported: "
        f"{', '.join(profile.pulumi_modules) or 'none'}.", "",
        "| module | own s | cumulative s |", "|---|---:|---:|",
    ]
    lines += [f"| {m} | {own:.3f} | {cum:.3f} |" for m, own, cum in profile.top]
    return [*lines, ""]


def measured(runs: int) -> str:
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    lines = [f"Measured {started} UTC with `benchmarks/run.py --runs {runs}`.", "", "Machine:", ""]
    lines += [f"- {item}" for item in machine()]
    lines.append("")
    lines += _plan_section(runs)
    lines += _scaling_section(runs)
    lines += _batch_section(runs)
    lines += _imports_section()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    lines.append(f"Load average at the end (1, 5, 15 min): {load}.")
    return "\n".join(lines) + "\n"


def write_results(text: str) -> None:
    current = RESULTS.read_text("utf-8") if RESULTS.exists() else f"{START}\n{END}\n"
    head, _, rest = current.partition(START)
    _, _, tail = rest.partition(END)
    RESULTS.write_text(f"{head}{START}\n{text}{END}{tail}", "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command")
    parser.add_argument("--stdout", action="store_true", help="print instead of writing")
    args = parser.parse_args(argv)
    text = measured(max(1, args.runs))
    if args.stdout:
        sys.stdout.write(text)
    else:
        write_results(text)
        sys.stdout.write(f"wrote {RESULTS}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
