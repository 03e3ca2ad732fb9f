"""Shared helpers for catalog tests: a small user catalog writer and a clean cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from infra_gen.catalog.load import ENV_VAR, clear_cache
from infra_gen.catalog.schema import OFFER_COLUMNS

HEADER = ",".join(OFFER_COLUMNS)
# A valid row: one g5.xlarge at an enterprise-discounted price (hand-made figures).
ROW = ("aws,us-east-1,g5.xlarge,A10G,1,22.35,4,16,250,ethernet,0.9,0.35,0.6,0.4,false,,"
       "negotiated rate card 2026,2026-10-01")


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(ENV_VAR, raising=False)
    clear_cache()
    yield
    clear_cache()


def write_catalog(tmp_path: Path, *rows: str, directives: str = "",
                  name: str = "user.csv") -> Path:
    path = tmp_path / name
    path.write_text(directives + HEADER + "\n" + "".join(r + "\n" for r in rows), "utf-8")
    return path
