"""The price catalog: accelerators and GPU instance offers with dated, sourced prices.

Public API (everything else in the package is internal)::

    load_catalog(path=None) -> Catalog        built-in, $INFRA_GEN_CATALOG, or a user file
    resolve_accelerator(catalog, name) -> str canonical accelerator name from an alias
    catalog_warnings(catalog, today) -> list  stale-price warnings with the refresh command
"""

from infra_gen.catalog.load import catalog_warnings as catalog_warnings
from infra_gen.catalog.load import load_catalog as load_catalog
from infra_gen.catalog.load import resolve_accelerator as resolve_accelerator
from infra_gen.catalog.models import Accelerator as Accelerator
from infra_gen.catalog.models import Catalog as Catalog
from infra_gen.catalog.models import Offer as Offer

__all__ = [
    "Accelerator",
    "Catalog",
    "Offer",
    "catalog_warnings",
    "load_catalog",
    "resolve_accelerator",
]
