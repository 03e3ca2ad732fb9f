"""The shipped offers.csv is exactly what curated.py generates: every figure traces to it."""

from __future__ import annotations

from infra_gen.catalog.curated import render
from infra_gen.catalog.load import BUILTIN_OFFERS


def test_shipped_csv_matches_curated_sources() -> None:
    expected = render()
    assert BUILTIN_OFFERS.read_text("utf-8") == expected, (
        "regenerate: python -m infra_gen.catalog.curated > infra_gen/catalog/data/offers.csv")
