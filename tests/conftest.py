"""Shared pytest options: ``--update-golden`` rewrites golden files instead of comparing."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", default=False,
        help="Rewrite tests/golden/**/*.golden from the current output (review the git diff).",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))
