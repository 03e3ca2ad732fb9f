"""Which offers a workload may use at all: clouds, regions, pins and software stack.

Each filter runs in turn; the one that removes the last offer is named in the PlanningError,
with what to relax (STYLE.md 5: "When no offer fits, say what to relax").
"""

from __future__ import annotations

from collections.abc import Sequence

from infra_gen.catalog.models import Catalog, Offer
from infra_gen.errors import PlanningError
from infra_gen.spec import ALL_CLOUDS, Workload

# Accelerators that run stock CUDA PyTorch. TPUs (JAX/XLA), Trainium/Inferentia (Neuron SDK) and
# AMD (ROCm) need other software stacks (seed 000: "you're locked into ... XLA", "require Amazon's
# NeuronSDK, which means rewriting parts of your training code"): only when pinned.
DEFAULT_VENDORS = frozenset({"nvidia"})

def _stage(before: Sequence[Offer], after: list[Offer], constraint: str, fix: str) -> list[Offer]:
    if before and not after:
        raise PlanningError(
            f"no candidate left: {constraint} removed the last {len(before)} offer(s); "
            f"to fix: {fix}"
        )
    return after


def placement_filter(
    workload: Workload, catalog: Catalog, cloud: str | None, region: str | None,
) -> list[Offer]:
    """Clouds, regions and pins, in that order, each named if it removes the last offer."""
    placement = workload.placement
    offers: list[Offer] = list(catalog.offers)
    if not offers:
        raise PlanningError("the catalog has no offers; load a catalog with --catalog FILE")
    if cloud is not None and cloud not in ALL_CLOUDS:
        raise PlanningError(f"--cloud: expected one of {', '.join(ALL_CLOUDS)}, got {cloud!r}")
    clouds = [cloud] if cloud is not None else list(placement.clouds)
    offers = _stage(offers, [o for o in offers if o.cloud in clouds],
                    f"clouds {clouds}", "allow more clouds in placement.clouds")
    regions = [region] if region is not None else list(placement.regions)
    if regions:
        offers = _stage(offers, [o for o in offers if o.region in regions],
                        f"regions {regions}", "allow more regions in placement.regions "
                        f"(offered: {', '.join(sorted({o.region for o in offers})[:12])})")
    if placement.instance_type is not None:
        pinned = placement.instance_type
        offers = _stage(offers, [o for o in offers if o.instance_type == pinned],
                        f"placement.instance_type {pinned!r}",
                        "unpin it or pick one sold in the allowed clouds and regions")
    if placement.accelerator is not None:
        from infra_gen.catalog.load import resolve_accelerator

        name = resolve_accelerator(catalog, placement.accelerator)
        offers = _stage(offers, [o for o in offers if o.accelerator == name],
                        f"placement.accelerator {name!r}",
                        "unpin it or allow clouds and regions that sell it")
    elif placement.instance_type is None:
        offers = _stage(offers, [o for o in offers if _vendor(catalog, o) in DEFAULT_VENDORS],
                        "the CUDA-only default (TPU, Trainium, Inferentia, AMD need pinning)",
                        "pin placement.accelerator or placement.instance_type to use them")
    return offers


def _vendor(catalog: Catalog, offer: Offer) -> str:
    accelerator = catalog.accelerators.get(offer.accelerator)
    return accelerator.vendor.lower() if accelerator is not None else ""
