"""Azure provider: a Plan as azure-native resources, guardrails included.

What it renders (details and sources in each sibling module):
- ``azure_network``: resource group (unless the stack names one), VNet, subnet, NSG with no
  inbound from the internet;
- ``azure_compute`` / ``azure_scaleset``: one VM + NIC for a single non-spot machine, else a
  Flexible scale set with Spot Priority Mix; capacity reservation group + reservation for the
  reserved count; NVIDIA driver extension where supported; SSH keys only; startup script;
- ``azure_guardrails``: DevTest Labs auto-shutdown (VM) or scheduled autoscale (scale set),
  low-utilisation metric alert and its action group;
- ``azure_budget``: consumption budget(s) on the resource group, the watchdog's deallocate role.

Azure Reservations (1y/3y) have no Pulumi resource: the plan lists them in
``purchases_to_make`` and nothing is rendered for them.

The azure-native SDK is imported inside ``render`` only, one submodule at a time (compute,
network, resources, monitor, devtestlab, consumption, authorization). Measured 2026-11 on the
shared 2-core dev box: 0.90 s of CPU for those seven plus first class access (network 0.40 s,
compute 0.18 s, devtestlab 0.15 s), 2.5-3.6 s wall under load. ``import pulumi_azure_native``
alone is lazy in 3.29 (0.26 s CPU); the cost comes with each submodule's first class.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from infra_gen.plan import Plan
from infra_gen.providers.azure_values import (
    azure_tags,
    driver_extension_supported,
    encryption_at_host_supported,
)
from infra_gen.providers.base import RenderOptions, cost_tags, register

if TYPE_CHECKING:
    import pulumi


def uses_single_vm(plan: Plan) -> bool:
    """One machine that is not spot: a plain VM (a scale set adds nothing but moving parts)."""
    mix = plan.recommendation.purchase
    return mix.total == 1 and mix.spot == 0


@register
class AzureProvider:
    name = "azure"

    def render(
        self, plan: Plan, opts: RenderOptions, parent: pulumi.Resource
    ) -> Mapping[str, Any]:
        import pulumi

        from infra_gen.providers import azure_budget, azure_compute, azure_guardrails
        from infra_gen.providers.azure_network import build_foundation
        from infra_gen.providers.azure_scaleset import scale_set

        tags = azure_tags(cost_tags(plan))
        child = pulumi.ResourceOptions(parent=parent)
        found = build_foundation(plan, opts, tags, child)
        after_rg = pulumi.ResourceOptions.merge(
            child, pulumi.ResourceOptions(depends_on=found.depends_on))
        reservation = azure_compute.capacity_reservation(plan, found, tags, after_rg)
        m = azure_compute.machine(plan, opts, reservation[0] if reservation else None)
        after_cr = pulumi.ResourceOptions.merge(after_rg, pulumi.ResourceOptions(
            depends_on=[reservation[1]] if reservation else []))
        build = azure_compute.single_vm if uses_single_vm(plan) else scale_set
        cap = build(plan, found, m, tags, after_cr)
        group = azure_guardrails.action_group(plan, found, tags, after_rg)
        azure_guardrails.idle_alert(plan, found, cap, group, tags, after_rg)
        azure_guardrails.vm_shutdown_schedule(plan, found, cap, tags, after_rg)
        azure_guardrails.scale_schedule(plan, found, cap, tags, after_rg)
        rendered_budgets = azure_budget.budgets(plan, opts, found, child)
        azure_budget.deallocate_role(plan, opts, found, cap, child)
        outputs: dict[str, Any] = {
            "resource_group_name": found.resource_group_name,
            "subnet_id": found.subnet_id,
            f"{'vm' if cap.kind == 'vm' else 'scale_set'}_id": cap.id,
            "budget_names": [b.name for b in rendered_budgets],
        }
        if reservation:
            outputs["capacity_reservation_group_id"] = reservation[0]
        if group is not None:
            outputs["action_group_id"] = group.id
        return outputs

    def unsupported(self, plan: Plan) -> dict[str, str]:
        """What this plan asks for that Azure (or this provider) cannot do as asked."""
        rec = plan.recommendation
        gaps: dict[str, str] = {}
        if rec.purchase.reserved_term or any(p.cloud == "azure" for p in plan.purchases_to_make):
            gaps["reservation-purchase"] = (
                "Azure Reservations (1y/3y) have no Pulumi resource; buy them in the portal "
                "(listed in purchases_to_make); only the cancellable capacity reservation "
                "is created"
            )
        if rec.purchase.reserved and rec.purchase.spot:
            gaps["capacity-reservation-spot"] = (
                "Spot VMs cannot consume a capacity reservation; only the Regular base of the "
                "priority mix uses it"
            )
        if plan.guardrails.auto_shutdown_idle_minutes is not None:
            gaps["gpu-utilization-metric"] = (
                "Azure has no built-in GPU metric for VMs; the idle alert uses 'Percentage CPU' "
                "as a proxy and the GPU-aware stop is the startup-script watchdog"
            )
        if not driver_extension_supported(rec.instance_type):
            gaps["gpu-driver-extension"] = (
                f"NvidiaGpuDriverLinux does not list {rec.instance_type}; the image's "
                "preinstalled driver (Ubuntu-HPC) is relied on"
            )
        if not encryption_at_host_supported(rec.instance_type):
            gaps["encryption-at-host"] = f"not enabled on legacy size {rec.instance_type}"
        if plan.public_ip:
            gaps["public-ip"] = "not rendered on Azure: no inbound from the internet by design"
        if uses_single_vm(plan) and plan.guardrails.schedule.days_per_week < 7:
            gaps["scheduled-start"] = (
                "DevTest Labs auto-shutdown only stops a single VM; starting it on working "
                "days is left to the user or a pipeline"
            )
        return gaps
