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


def main() -> None:
    app()
