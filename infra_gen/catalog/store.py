"""Write catalog files: the published CSV format and an atomic replace.

A refresh or import writes the new catalog to a temporary file next to the target, parses it
back with the same loader that plans use, and only then ``os.replace``s it over the target: a
failed, invalid or interrupted write leaves the old catalog byte-for-byte intact.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from infra_gen.catalog.load import offer_key
from infra_gen.catalog.models import Offer
from infra_gen.catalog.schema import OFFER_COLUMNS, OFFERS_FORMAT, offer_cells
from infra_gen.errors import CatalogError


def render_offers_csv(offers: Iterable[Offer], *, as_of: dt.date | None = None,
                      notes: Iterable[str] = (), extends: bool = False) -> str:
    """Offers -> catalog CSV text (sorted by offer key, so the same data gives the same file)."""
    out = io.StringIO()
    out.write(f"# format: {OFFERS_FORMAT}\n")
    if as_of is not None:
        out.write(f"# as_of: {as_of.isoformat()}\n")
    if extends:
        out.write("# extends: builtin\n")
    for note in notes:
        out.write(f"# {' '.join(note.splitlines())}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(OFFER_COLUMNS)
    writer.writerows(offer_cells(o) for o in sorted(offers, key=offer_key))
    return out.getvalue()


def write_catalog_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` only if it parses as a valid catalog; never half-written."""
    from infra_gen.catalog.load import load_catalog

    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise CatalogError(f"{path}: error: directory {directory} does not exist")
    fd, tmp_name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        load_catalog(tmp)  # validate before replacing: a bad catalog never lands
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
