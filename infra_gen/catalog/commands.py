"""``infra-gen catalog ...``: list, gpus, refresh, import.

Only typer is imported at module level: ``cli.py`` registers this sub-app at import time, and
``infra-gen --help`` must stay instant. Each command imports what it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from infra_gen.cli import OutputFormat, _clean_errors, _emit

catalog_app: typer.Typer = typer.Typer(
    help="Browse, refresh and import the GPU price catalog.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

CatalogOpt = Annotated[
    Path | None,
    typer.Option("--catalog", help="Catalog file (replaces the built-in one unless it says "
                 "'# extends: builtin'); default $INFRA_GEN_CATALOG or built-in."),
]
CloudOpt = Annotated[str | None, typer.Option("--cloud", help="aws | azure | gcp")]
RegionOpt = Annotated[str | None, typer.Option("--region", help="e.g. us-east-1")]
AccelOpt = Annotated[str | None, typer.Option("--accelerator", help="e.g. A100-80GB, h100")]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", help="table | json")]


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:,.4f}".rstrip("0").rstrip(".")


@catalog_app.command("list")
@_clean_errors
def list_offers(cloud: CloudOpt = None, region: RegionOpt = None, accelerator: AccelOpt = None,
                format_: FormatOpt = OutputFormat.table, catalog: CatalogOpt = None) -> None:
    """List offers (USD per instance-hour), optionally filtered."""
    import json

    from infra_gen.catalog.load import load_catalog
    from infra_gen.catalog.query import catalog_json, make_filter, select_offers

    cat = load_catalog(catalog)
    offers = select_offers(cat, make_filter(cat, cloud, region, accelerator))
    if format_ is OutputFormat.json:
        _emit(json.dumps(catalog_json(cat, offers), indent=2))
        return
    headers = ("cloud", "region", "instance type", "accelerator", "GiB", "vCPU", "RAM GiB",
               "on-demand", "spot", "1y", "3y", "as_of")
    rows = [(o.cloud, o.region, o.instance_type, f"{o.accelerators}x {o.accelerator}",
             f"{o.accelerator_memory_gib:g}", str(o.vcpus), f"{o.memory_gib:g}",
             _money(o.on_demand_usd_hr), _money(o.spot_usd_hr), _money(o.reserved_1y_usd_hr),
             _money(o.reserved_3y_usd_hr), o.as_of.isoformat()) for o in offers]
    _table(f"{len(offers)} offers, catalog {cat.source} as of {cat.as_of}", headers, rows)


@catalog_app.command("gpus")
@_clean_errors
def gpus(cloud: CloudOpt = None, accelerator: AccelOpt = None,
         format_: FormatOpt = OutputFormat.table, catalog: CatalogOpt = None) -> None:
    """Cheapest on-demand and spot offer per accelerator, count and cloud."""
    import json

    from infra_gen.catalog.load import load_catalog
    from infra_gen.catalog.query import gpu_summary, make_filter, select_offers

    cat = load_catalog(catalog)
    rows = gpu_summary(select_offers(cat, make_filter(cat, cloud, None, accelerator)))
    if format_ is OutputFormat.json:
        _emit(json.dumps({"as_of": cat.as_of.isoformat(),
                          "gpus": [r.as_json() for r in rows]}, indent=2))
        return
    headers = ("accelerator", "qty", "cloud", "offers", "cheapest on-demand", "USD/h",
               "cheapest spot", "USD/h")
    table = [(r.accelerator, str(r.accelerators), r.cloud, str(r.offers),
              f"{r.on_demand.instance_type} ({r.on_demand.region})",
              _money(r.on_demand.on_demand_usd_hr),
              f"{r.spot.instance_type} ({r.spot.region})" if r.spot else "-",
              _money(r.spot.spot_usd_hr) if r.spot else "-") for r in rows]
    _table(f"catalog {cat.source} as of {cat.as_of}", headers, table)


def _table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, header in enumerate(headers):
        table.add_column(header, justify="right" if i >= 4 else "left", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    Console(width=200).print(table)


OutOpt = Annotated[Path, typer.Option("--out", "-o", help="Catalog file to write (atomically).")]
ExtendsOpt = Annotated[bool, typer.Option(
    "--extends/--replaces", help="Mark the file '# extends: builtin' (default) or standalone.")]


@catalog_app.command("import")
@_clean_errors
def import_(
    file: Annotated[Path, typer.Argument(help="SkyPilot catalog CSV (vms.csv).")],
    format_: Annotated[str, typer.Option("--format", help="skypilot")] = "skypilot",
    out: OutOpt = Path("catalog.csv"),
    cloud: CloudOpt = None,
    extends: ExtendsOpt = True,
) -> None:
    """Import a SkyPilot catalog CSV into an infra-gen catalog file."""
    import datetime as dt

    from infra_gen.catalog.load import load_catalog, normalize_accelerator_name
    from infra_gen.catalog.schema import CLOUDS
    from infra_gen.catalog.skypilot import convert, detect_cloud, read_rows
    from infra_gen.catalog.store import render_offers_csv, write_catalog_atomic
    from infra_gen.errors import CatalogError

    if format_ != "skypilot":
        raise CatalogError(f"--format: expected skypilot, got {format_!r}")
    if cloud is not None and cloud not in CLOUDS:
        raise CatalogError(f"--cloud: expected one of {' | '.join(CLOUDS)}, got {cloud!r}")
    try:
        rows = read_rows(file.read_text(encoding="utf-8"), str(file))
    except OSError as err:
        raise CatalogError(f"{file}: error: cannot read: {err.strerror}") from err
    builtin = load_catalog(None)
    today = dt.date.today()
    result = convert(rows, cloud or detect_cloud(rows), builtin,
                     lambda n: builtin.aliases.get(normalize_accelerator_name(n)),
                     f"SkyPilot catalog {file.name}, imported {today.isoformat()}", today)
    if not result.offers:
        raise CatalogError(f"{file}: error: no GPU offers found ({_skips(result.skipped)})")
    notes = [f"imported from SkyPilot catalog {file.name}; skipped: {_skips(result.skipped)}"]
    write_catalog_atomic(out, render_offers_csv(result.offers, as_of=today, notes=notes,
                                                extends=extends))
    _emit(f"wrote {out}: {len(result.offers)} offers from {file} "
          f"(skipped: {_skips(result.skipped)})")


@catalog_app.command("refresh")
@_clean_errors
def refresh(
    cloud: Annotated[str, typer.Option("--cloud", help="aws | azure | gcp")],
    region: Annotated[list[str] | None, typer.Option(
        "--region", help="Region to fetch (repeatable); default: the base catalog's.")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="File to write; default infra-gen-catalog-CLOUD.csv")] = None,
    catalog: CatalogOpt = None,
) -> None:
    """Fetch current prices from the provider's public price API (AWS spot: kept, see docs)."""
    import datetime as dt

    import httpx
    from rich.progress import Progress, SpinnerColumn, TextColumn

    from infra_gen.catalog.load import load_catalog
    from infra_gen.catalog.refresh import TIMEOUT, Fetcher, run_refresh
    from infra_gen.catalog.schema import CLOUDS
    from infra_gen.errors import CatalogError

    if cloud not in CLOUDS:
        raise CatalogError(f"--cloud: expected one of {' | '.join(CLOUDS)}, got {cloud!r}")
    target = out or Path(f"infra-gen-catalog-{cloud}.csv")
    base = load_catalog(catalog)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TextColumn(
            "{task.completed} responses"), transient=True) as progress, httpx.Client(
            timeout=TIMEOUT, follow_redirects=True) as client:
        task = progress.add_task(f"fetching {cloud} prices", total=None)
        fetch = Fetcher(client, on_page=lambda: progress.advance(task))
        result = run_refresh(cloud, region, base, target, fetch, dt.date.today())
    _emit(f"wrote {target}: {len(result.offers)} {cloud} offers "
          f"({result.unpriced} type/region pairs had no price); use --catalog {target}")


def _skips(skipped: dict[str, int]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(skipped.items())) or "none"
