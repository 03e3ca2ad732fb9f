"""Every provider module is registered and tested, and lookups fail with the valid names.

A module in ``infra_gen/providers/`` "defines a provider" when it defines a class with a string
``name`` and ``render``/``unsupported`` methods (the Provider protocol). Sibling helper modules
(aws_compute.py, gcp_values.py, ...) define none and are skipped; they are tested through their
provider's test file.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import infra_gen.providers as providers_pkg
from infra_gen.errors import RenderError
from infra_gen.providers.base import get_provider, registered_providers

TESTS_DIR = Path(__file__).parent


def _provider_classes() -> list[tuple[str, type]]:
    found = []
    for info in pkgutil.iter_modules(providers_pkg.__path__):
        module = importlib.import_module(f"infra_gen.providers.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            if isinstance(getattr(cls, "name", None), str) and callable(
                getattr(cls, "render", None)
            ) and callable(getattr(cls, "unsupported", None)):
                found.append((info.name, cls))
    return found


def test_aws_is_among_the_provider_modules() -> None:
    assert ("aws", "aws") in {(module, cls.name) for module, cls in _provider_classes()}


@pytest.mark.parametrize(("module", "cls"), _provider_classes(), ids=lambda v: str(v))
def test_provider_is_registered_under_its_name(module: str, cls: type) -> None:
    registry = registered_providers()
    assert cls.name in registry, f"{module}.{cls.__name__} is not decorated with @register"
    assert isinstance(registry[cls.name], cls)


@pytest.mark.parametrize(("module", "cls"), _provider_classes(), ids=lambda v: str(v))
def test_provider_module_has_a_test_file(module: str, cls: type) -> None:
    assert (TESTS_DIR / f"test_{module}.py").is_file(), f"tests/providers/test_{module}.py"


def test_unknown_cloud_lists_valid_names_and_suggests() -> None:
    with pytest.raises(RenderError, match=r"expected one of .*aws.*did you mean 'aws'"):
        get_provider("awz")
