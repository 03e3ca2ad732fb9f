"""What every cloud provider implements, the registry that finds them, and the shared component.

A provider is narrow: ``name``, ``render(plan, opts, parent)`` and ``unsupported(plan)``. Provider
modules register themselves with ``@register``; their cloud SDK is imported inside ``render`` (or
in sibling modules imported there), so that importing a provider costs nothing and the plan path
never pays for an SDK it does not use.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict

from infra_gen.errors import RenderError
from infra_gen.plan import Plan

if TYPE_CHECKING:
    import pulumi

COMPONENT_TYPE = "infra-gen:index:GpuWorkload"
MANAGED_BY = "infra-gen"


class RenderOptions(BaseModel):
    """Stack-level settings that are not part of the workload (from Pulumi config or the CLI)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    image: str | None = None  # AMI id / SSM parameter, GCP image (family), Azure image URN
    gcp_project: str | None = None
    gcp_billing_account: str | None = None
    azure_resource_group: str | None = None
    azure_subscription_id: str | None = None
    ssh_public_key: str | None = None
    # Azure budgets must start in the current month or later; the Pulumi program passes the
    # first day of this month unless stack config says otherwise. Render/check leave it unset
    # so their output stays deterministic (the catalog's month is used).
    azure_budget_start: str | None = None


# Stack settings a real `pulumi up` takes from stack config. Offline previews (`render`, `check`)
# use these placeholders so every provider can render: GCP budgets need a billing account, Azure
# VMs an SSH key. No policy rule reads them, and they never reach a real deployment.
PREVIEW_RENDER_OPTIONS = RenderOptions(
    gcp_project="infra-gen-check",
    gcp_billing_account="000000-000000-000000",
    ssh_public_key=(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPolicyCheckPlaceholderKeyNotForLogin00 check"
    ),
)


class Provider(Protocol):
    name: str

    def render(
        self, plan: Plan, opts: RenderOptions, parent: pulumi.Resource
    ) -> Mapping[str, Any]:
        """Create the plan's resources as children of ``parent``; return the main resources'
        ids/outputs to register on the component (names in snake_case)."""
        ...

    def unsupported(self, plan: Plan) -> dict[str, str]:
        """Features of ``plan`` this cloud cannot provide, as {feature: reason}."""
        ...


_REGISTRY: dict[str, Provider] = {}


def register(factory: Callable[[], Provider]) -> Callable[[], Provider]:
    """Class decorator: instantiate the provider and file it under its ``name``."""
    instance = factory()
    _REGISTRY[instance.name] = instance
    return factory


def get_provider(name: str) -> Provider:
    _load_builtin_providers()
    try:
        return _REGISTRY[name]
    except KeyError:
        valid = sorted(_REGISTRY)
        close = difflib.get_close_matches(name, valid, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise RenderError(
            f"cloud: expected one of {', '.join(valid)}, got {name!r}{hint}"
        ) from None


def registered_providers() -> dict[str, Provider]:
    _load_builtin_providers()
    return dict(_REGISTRY)


def _load_builtin_providers() -> None:
    # Importing these modules is cheap: each imports its cloud SDK only inside render().
    from infra_gen.providers import aws, azure, gcp  # noqa: F401


def cost_tags(plan: Plan) -> dict[str, str]:
    """The cost-allocation tags every resource carries, before each cloud's sanitising."""
    return {
        "team": plan.owner.team,
        "project": plan.owner.project,
        "cost-center": plan.owner.cost_center,
        "workload": plan.workload,
        "managed-by": MANAGED_BY,
    }


def resource_name(plan: Plan, role: str) -> str:
    """Child resource names: ``<workload>-<role>`` (workload names are already [a-z0-9-])."""
    return f"{plan.workload}-{role}"
