"""The ``infra-gen`` command.

Conventions every command follows:
- imports of engine modules happen inside the command, so ``infra-gen plan`` never imports a
  Pulumi SDK and ``--help`` stays instant;
- ``InfraGenError`` becomes one line on stderr and exit 2 (``@_clean_errors``); exit 1 is
  reserved for "checked, and found violations" (``check``, ``diff --fail-above-*``);
- machine output (``--format json``) goes to stdout through ``_emit``, tables through Rich.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from infra_gen import __version__
from infra_gen.errors import InfraGenError

app = typer.Typer(
    name="infra-gen",
    help="Size, price and deploy GPU workloads on AWS, GCP and Azure, with cost guardrails.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

F = TypeVar("F", bound=Callable[..., Any])


class OutputFormat(StrEnum):
    table = "table"
    json = "json"


def _clean_errors(fn: F) -> F:
    """Bad input exits 2 with one line on stderr, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except InfraGenError as err:
            fail(str(err))

    return wrapper  # type: ignore[return-value]


def fail(message: str, code: int = 2) -> None:
    line = " ".join(message.split("\n"))
    if not line.startswith(("error:",)) and ": error:" not in line:
        line = f"infra-gen: error: {line}"
    sys.stderr.write(line + "\n")
    raise typer.Exit(code)


def _emit(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _version(value: bool) -> None:
    if value:
        _emit(f"infra-gen {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
) -> None:
    """Size, price and deploy GPU workloads on AWS, GCP and Azure, with cost guardrails."""


FilesArg = Annotated[list[Path], typer.Argument(help="Workload files.", show_default=False)]


@app.command()
@_clean_errors
def validate(files: FilesArg) -> None:
    """Validate workload files: one line per valid file, or the first error and exit 2."""
    from infra_gen.loading import load_workload

    for path in files:
        workload = load_workload(path)
        _emit(f"{path}: ok ({workload.name}, {workload.type})")


@app.command()
def schema() -> None:
    """Print the workload file's JSON Schema (for editor completion)."""
    from infra_gen.schema import workload_json_schema

    _emit(workload_json_schema())


WORKLOAD_TYPES = ("training", "fine-tuning", "inference", "batch", "dev")


@app.command()
@_clean_errors
def init(
    type_: Annotated[
        str, typer.Option("--type", help="training | fine-tuning | inference | batch | dev")
    ] = "fine-tuning",
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Where to write; '-' for stdout.")
    ] = Path("workload.yaml"),
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a commented example workload file."""
    from infra_gen.init_template import example_workload

    if type_ not in WORKLOAD_TYPES:
        fail(f"--type: expected one of {' | '.join(WORKLOAD_TYPES)}, got {type_!r}")
    text = example_workload(type_)
    if str(output) == "-":
        _emit(text)
        return
    if output.exists() and not force:
        fail(f"{output}: expected a new file, got an existing one (use --force to overwrite)")
    output.write_text(text, encoding="utf-8")
    _emit(f"wrote {output} ({type_}); next: infra-gen validate {output}")


# `catalog` sub-commands (issue 4). Imported here, after the helpers it uses are defined; the
# module imports only typer at top level and does its heavy imports inside each command.
from infra_gen.catalog.commands import catalog_app  # noqa: E402

app.add_typer(catalog_app, name="catalog")


@app.command()
@_clean_errors
def check(
    paths: Annotated[
        list[Path], typer.Argument(help="Workload files or directories.", show_default=False)
    ],
    cloud: Annotated[str | None, typer.Option("--cloud", help="aws | gcp | azure")] = None,
    format_: Annotated[OutputFormat, typer.Option("--format")] = OutputFormat.table,
    config: Annotated[
        Path | None, typer.Option("--config", help="Policy config JSON (CrossGuard format).")
    ] = None,
    catalog: Annotated[Path | None, typer.Option("--catalog", help="Catalog CSV file.")] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", min=1, help="Worker processes (default: per CPU).")
    ] = None,
) -> None:
    """Plan, render (under mocks) and policy-check workloads; exit 1 on a mandatory violation."""
    from infra_gen.policy import RULES, PolicyConfig, load_policy_config
    from infra_gen.policy.check import check_files

    if cloud is not None and cloud not in ("aws", "gcp", "azure"):
        fail(f"--cloud: expected one of aws | gcp | azure, got {cloud!r}")
    policy_config = load_policy_config(config, RULES) if config else PolicyConfig()
    report = check_files(paths, policy_config, cloud=cloud, catalog_path=catalog, jobs=jobs)
    if format_ == OutputFormat.json:
        _emit(report.to_json())
    else:
        _check_table(report)
    if report.failed:
        raise typer.Exit(1)


def _check_table(report: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    mandatory = sum(v.level == "mandatory" for v in report.violations)
    summary = (f"{report.checked} workload file(s) checked: {mandatory} mandatory, "
               f"{len(report.violations) - mandatory} advisory violation(s)")
    if report.violations:
        table = Table("level", "policy", "workload", "resource", "message", show_lines=True)
        for v in report.violations:
            table.add_row(v.level, v.policy, v.workload, v.resource or "(stack)", v.message)
        Console(width=160).print(table)
    _emit(summary)


# `size` and `models` (issue 3): the sizing engine's answer per accelerator, and the model table.
@app.command()
@_clean_errors
def size(
    file: Annotated[Path, typer.Argument(help="Workload file.", show_default=False)],
    accelerator: Annotated[
        str | None, typer.Option("--accelerator", help="Only this accelerator (aliases accepted).")
    ] = None,
    format_: Annotated[OutputFormat, typer.Option("--format")] = OutputFormat.table,
    catalog: Annotated[Path | None, typer.Option("--catalog", help="Catalog CSV file.")] = None,
) -> None:
    """GPU memory, GPU count and parallelism for a workload on each catalog accelerator."""
    import json

    from infra_gen.catalog.load import load_catalog, resolve_accelerator
    from infra_gen.loading import load_workload
    from infra_gen.sizing import explain_no_fit, size_all
    from infra_gen.sizing_report import size_report

    workload = load_workload(file)
    cat = load_catalog(catalog)
    names = [resolve_accelerator(cat, accelerator)] if accelerator else list(cat.accelerators)
    accs = sorted((cat.accelerators[n] for n in names), key=lambda a: (a.memory_gib, a.name))
    requirements = size_all(workload, accs)
    if not any(req.fits for req in requirements):
        fail(explain_no_fit(workload, requirements, accs))
    report = size_report(workload, requirements)
    if format_ == OutputFormat.json:
        _emit(json.dumps(report, indent=2))
    else:
        _size_table(report)


def _size_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    mem = report["memory_gib"]
    _emit(f"{report['workload']} ({report['type']}, {report['model']}): one unsharded replica "
          f"needs {mem['total']:.2f} GiB = weights {mem['weights']:.2f} + kv_cache "
          f"{mem['kv_cache']:.2f} + activations {mem['activations']:.2f} + gradients "
          f"{mem['gradients']:.2f} + optimizer {mem['optimizer']:.2f} + overhead "
          f"{mem['overhead']:.2f}")
    table = Table("accelerator", "fits", "gpus", "parallelism", "GiB/GPU", "limit", "replicas",
                  "hours/run")
    for opt in report["options"]:
        hours = opt["hours_per_run"]
        table.add_row(opt["accelerator"], "yes" if opt["fits"] else "no", str(opt["gpus"]),
                      opt["parallelism"], f"{opt['memory_gib_per_gpu']['total']:.2f}",
                      f"{opt['usable_memory_gib']:.2f}", str(opt["replicas"]),
                      "-" if hours is None else f"{hours:.2f}")
    Console(width=160).print(table)
    for note in report["assumptions"]:
        _emit(f"- {note}")


@app.command()
def models(format_: Annotated[OutputFormat, typer.Option("--format")] = OutputFormat.table) -> None:
    """List the built-in model table (so model.name alone is enough in a workload file)."""
    import json

    from infra_gen.sizing_report import models_report

    rows = models_report()
    if format_ == OutputFormat.json:
        _emit(json.dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("name", "params (B)", "kind", "layers", "hidden", "heads", "kv heads",
                  "max context", "experts")
    for r in rows:
        experts = f"{r['experts']} ({r['experts_active']} active)" if r["experts"] else "-"
        table.add_row(r["name"], f"{r['parameters_b']:g}", r["kind"], str(r["layers"]),
                      str(r["hidden_size"]), str(r["attention_heads"]), str(r["kv_heads"]),
                      str(r["max_context"] or "-"), experts)
    Console(width=160).print(table)


class PlanFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    html = "html"


@app.command()
@_clean_errors
def plan(
    file: Annotated[Path, typer.Argument(help="Workload file.", show_default=False)],
    format_: Annotated[PlanFormat, typer.Option("--format", help="table | json | markdown | html")
                       ] = PlanFormat.table,
    cloud: Annotated[str | None, typer.Option("--cloud", help="Only this cloud.")] = None,
    region: Annotated[str | None, typer.Option("--region", help="Only this region.")] = None,
    top: Annotated[int, typer.Option("--top", min=1, help="Recommendation + alternatives.")] = 5,
    tco: Annotated[bool, typer.Option("--tco", help="Compare with on-prem per GPU-hour.")] = False,
    catalog: Annotated[Path | None, typer.Option("--catalog", help="Catalog CSV to use.")] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Write the report to this file (e.g. report.html).")] = None,
) -> None:
    """Size the workload and print the cheapest plan, its costs, alternatives and warnings."""
    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.planning import plan_with_tco

    workload = load_workload(file)
    result = plan_with_tco(workload, load_catalog(catalog), cloud=cloud, region=region,
                           top=top, tco=tco)
    if format_ is PlanFormat.json:
        text = result.to_json()
    elif format_ is PlanFormat.table:
        from infra_gen.plan_table import render_plan_table

        text = render_plan_table(result)
    else:
        text = _render_report(result, format_.value)
    if output is None:
        _emit(text)
        return
    _write_report(output, text)


def _write_report(output: Path, text: str) -> None:
    """Write via a temporary file and rename: a failed write leaves no half report."""
    import os
    import tempfile

    try:
        handle, tmp = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text if text.endswith("\n") else text + "\n")
        os.replace(tmp, output)
    except OSError as err:
        fail(f"{output}: cannot write the report ({err.strerror or err})")
    _emit(f"wrote {output}")


def _render_report(result: Any, fmt: str) -> str:
    import importlib

    try:
        report = importlib.import_module("infra_gen.report")
    except ModuleNotFoundError:
        fail(f"--format {fmt}: the report module is not built yet; use --format table or json")
        return ""
    renderer = getattr(report, f"render_{fmt}", None)
    if not callable(renderer):
        fail(f"--format {fmt}: infra_gen.report has no render_{fmt} yet; use table or json")
        return ""
    return str(renderer(result))


CLOUDS = ("aws", "gcp", "azure")


@app.command()
@_clean_errors
def render(
    file: Annotated[Path, typer.Argument(help="Workload file.", show_default=False)],
    cloud: Annotated[str | None, typer.Option("--cloud", help="aws | gcp | azure")] = None,
    region: Annotated[str | None, typer.Option("--region", help="Only this region.")] = None,
    format_: Annotated[OutputFormat, typer.Option("--format", help="table | json")
                       ] = OutputFormat.table,
    catalog: Annotated[Path | None, typer.Option("--catalog", help="Catalog CSV to use.")] = None,
    ssh_key: Annotated[str | None, typer.Option(
        "--ssh-key", help="SSH public key (Azure); default: a placeholder for previews.")] = None,
    gcp_project: Annotated[str | None, typer.Option("--gcp-project", help="GCP project.")] = None,
    billing_account: Annotated[str | None, typer.Option(
        "--billing-account", help="GCP billing account; default: a placeholder.")] = None,
) -> None:
    """Plan the workload, run the Pulumi program under mocks and print every resource it would
    create, with its inputs exactly as sent to the engine (no Pulumi CLI, no credentials).
    Stack settings not given here use placeholders, as `infra-gen check` does."""
    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload
    from infra_gen.render import render_plan, resources_json

    if cloud is not None and cloud not in CLOUDS:
        fail(f"--cloud: expected one of {' | '.join(CLOUDS)}, got {cloud!r}")
    from infra_gen.providers.base import PREVIEW_RENDER_OPTIONS

    workload = load_workload(file)
    plan_ = plan_workload(workload, load_catalog(catalog), cloud=cloud, region=region)
    given = {"ssh_public_key": ssh_key, "gcp_project": gcp_project,
             "gcp_billing_account": billing_account}
    options = PREVIEW_RENDER_OPTIONS.model_copy(
        update={k: v for k, v in given.items() if v is not None})
    resources = render_plan(plan_, options)
    if format_ is OutputFormat.json:
        _emit(resources_json(resources))
        return
    _render_table(plan_, resources)


def _render_table(plan_: Any, resources: list[Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    rec = plan_.recommendation
    table = Table(title=f"{plan_.workload}: {rec.instances}x {rec.instance_type} on {rec.cloud} "
                        f"{rec.region}, ${rec.monthly_usd:,.2f}/month")
    for column in ("type", "name", "key inputs"):
        table.add_column(column)
    for resource in resources:
        table.add_row(resource.type, resource.name, _key_inputs(resource.inputs))
    Console(width=160).print(table)


def _key_inputs(inputs: dict[str, Any]) -> str:
    """The scalar inputs, shortened: enough to eyeball a resource; --format json has them all."""
    shown = [f"{k}={int(v) if isinstance(v, float) and v.is_integer() else v}"
             for k, v in sorted(inputs.items())
             if isinstance(v, str | int | float | bool) and k not in ("userData", "tags")
             and len(str(v)) <= 60]
    return ", ".join(shown[:6])


class DiffFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


# `diff` (issue 6): plan BASE and HEAD workload files/directories, report the cost change; a CI
# cost guardrail with --fail-above-usd / --fail-above-percent (exit 1 when the total rises more).
@app.command()
@_clean_errors
def diff(
    base: Annotated[Path, typer.Argument(help="Base workload file or directory.",
                                         show_default=False)],
    head: Annotated[Path, typer.Argument(help="Head workload file or directory.",
                                         show_default=False)],
    format_: Annotated[DiffFormat, typer.Option("--format", help="table | json | markdown")
                       ] = DiffFormat.table,
    fail_above_usd: Annotated[float | None, typer.Option(
        "--fail-above-usd", min=0, help="Exit 1 if the monthly total rises more (USD).")] = None,
    fail_above_percent: Annotated[float | None, typer.Option(
        "--fail-above-percent", min=0, help="Exit 1 if the monthly total rises more (%).")
    ] = None,
    catalog: Annotated[Path | None, typer.Option("--catalog", help="Catalog CSV to use.")] = None,
) -> None:
    """Compare the plans and monthly cost of two workload files or directories (by name)."""
    from infra_gen import diff as cost_diff
    from infra_gen.catalog.load import load_catalog

    report = cost_diff.diff_paths(base, head, load_catalog(catalog))
    if format_ is DiffFormat.json:
        _emit(cost_diff.to_json(report))
    elif format_ is DiffFormat.markdown:
        _emit(cost_diff.render_markdown(report))
    else:
        _diff_table(report)
    breach = cost_diff.guardrail_breach(report, above_usd=fail_above_usd,
                                        above_percent=fail_above_percent)
    if breach:
        fail(breach, code=1)


def _diff_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    from infra_gen.diff import percent_text, side_text, signed_usd

    table = Table("workload", "status", "base", "head", "Δ $/month", "Δ %")
    for r in report["workloads"]:
        table.add_row(r["workload"], r["status"], side_text(r["base"]), side_text(r["head"]),
                      signed_usd(r["monthly_delta_usd"]),
                      percent_text(r["monthly_delta_percent"], r["monthly_delta_usd"]))
    Console(width=160).print(table)
    total = report["total"]
    _emit(f"total: ${total['base_monthly_usd']:,.2f} -> ${total['head_monthly_usd']:,.2f} per "
          f"month ({signed_usd(total['monthly_delta_usd'])}, "
          f"{percent_text(total['monthly_delta_percent'], total['monthly_delta_usd'])})")


def main() -> None:
    app()
