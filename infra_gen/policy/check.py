"""The ``infra-gen check`` door: plan each workload file, render it under Pulumi's mocks and run
every rule on what was rendered. No Pulumi CLI, no cloud credentials.

Directories expand to their ``*.yaml``/``*.yml`` files (not recursive), minus Pulumi's own
``Pulumi.yaml`` and ``Pulumi.<stack>.yaml`` files, in sorted order, so the same tree gives the
same report. Each violation names the workload file it came from.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra_gen.errors import InfraGenError, WorkloadError
from infra_gen.policy.config import PolicyConfig
from infra_gen.policy.model import Resource, Stack, Violation
from infra_gen.policy.pricing import PriceBook
from infra_gen.policy.registry import evaluate, find_facts, with_provider_props
from infra_gen.providers.base import PREVIEW_RENDER_OPTIONS

# Placeholder stack settings so every provider renders offline (see providers/base.py).
CHECK_RENDER_OPTIONS = PREVIEW_RENDER_OPTIONS


@dataclass(frozen=True)
class CheckReport:
    violations: tuple[Violation, ...]
    checked: int

    @property
    def failed(self) -> bool:
        """Exit 1 when any mandatory rule fails; advisories never fail a build."""
        return any(v.level == "mandatory" for v in self.violations)

    def to_json(self) -> str:
        payload = {
            "violations": [v.to_json_dict() for v in self.violations],
            "checked": self.checked,
        }
        return json.dumps(payload, indent=2, sort_keys=True) + "\n"


def workload_files(paths: Sequence[Path]) -> list[Path]:
    """Files as given; directories expanded to their workload files (sorted)."""
    found: list[Path] = []
    for path in paths:
        if not path.is_dir():
            found.append(path)
            continue
        inside = sorted(p for p in path.iterdir() if p.is_file() and _is_workload_name(p.name))
        if not inside:
            raise WorkloadError(
                str(path),
                1,
                1,
                "",
                "expected a directory with workload files (*.yaml, *.yml), got none",
            )
        found.extend(inside)
    return found


def _is_workload_name(name: str) -> bool:
    return (
        name.endswith((".yaml", ".yml"))
        and not name.startswith("Pulumi.")
        and name not in ("Pulumi.yaml", "Pulumi.yml")
    )


def check_files(
    paths: Sequence[Path],
    config: PolicyConfig,
    *,
    cloud: str | None = None,
    catalog_path: Path | None = None,
    jobs: int | None = None,
) -> CheckReport:
    """Plan, render and check every workload file under ``paths``.

    Rendering under mocks costs 0.2-1.5 s of CPU per workload (the Pulumi SDK's output
    machinery), so files are spread over ``jobs`` worker processes (default: one per CPU, at
    least two files each). Results are merged and sorted, so the report does not depend on it.
    """
    files = workload_files(paths)
    workers = _workers(jobs, len(files))
    if workers <= 1:
        _load(catalog_path)
        results = [_check_one((path, config, cloud)) for path in files]
    else:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(
            workers, mp_context=context, initializer=_load, initargs=(catalog_path,)
        ) as pool:
            results = list(pool.map(_check_one, [(p, config, cloud) for p in files]))
    violations: list[Violation] = []
    for result in results:
        if isinstance(result, str):
            raise InfraGenError(result)  # the first bad file, in file order
        violations += result
    return CheckReport(tuple(sorted(violations, key=Violation.sort_key)), len(files))


def _workers(jobs: int | None, files: int) -> int:
    if jobs is not None:
        return max(1, min(jobs, files))
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1  # spawn would re-run the CLI's unguarded __main__ in every worker
    return max(1, min(os.cpu_count() or 1, 8, files // 2))


_STATE: dict[str, Any] = {}


def _load(catalog_path: Path | None) -> None:
    """Per process: the catalog and its price book, loaded once."""
    from infra_gen.catalog.load import load_catalog

    catalog = load_catalog(catalog_path)
    _STATE.update(catalog=catalog, prices=PriceBook.from_catalog(catalog))


def _check_one(job: tuple[Path, PolicyConfig, str | None]) -> list[Violation] | str:
    """One file's violations, or its error message (WorkloadError does not survive pickling)."""
    path, config, cloud = job
    try:
        return check_file(path, _STATE["catalog"], _STATE["prices"], config, cloud)
    except InfraGenError as err:
        return str(err)


def check_file(
    path: Path, catalog: object, prices: PriceBook, config: PolicyConfig, cloud: str | None
) -> list[Violation]:
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload
    from infra_gen.render import render_plan

    workload = load_workload(path)
    plan = plan_workload(workload, catalog, cloud=cloud)  # type: ignore[arg-type]
    rendered = render_plan(plan, CHECK_RENDER_OPTIONS)
    return check_rendered(
        [Resource(r.type, r.name, r.inputs, r.urn) for r in rendered], prices, config, str(path)
    )


def check_rendered(
    resources: list[Resource], prices: PriceBook | None, config: PolicyConfig, workload: str
) -> list[Violation]:
    """Every rule over one rendered stack (also what the tests call on hand-written stacks)."""
    resources = with_provider_props(resources)
    stack = Stack(tuple(resources), find_facts(resources), prices)
    return evaluate(stack, config, workload)
