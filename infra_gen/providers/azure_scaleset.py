"""The Flexible-orchestration Virtual Machine Scale Set for multi-machine or spot plans.

Imported only from ``AzureProvider.render``. Spot and Regular machines live in one scale set
through Spot Priority Mix (learn.microsoft.com/azure/virtual-machine-scale-sets/
spot-priority-mix): the profile's priority is Spot, ``base_regular_priority_count`` is the
plan's on-demand + reserved count and ``regular_priority_percentage_above_base`` is 0, so every
machine above the base is Spot. ``billing_profile.max_price = -1`` means "pay up to the
on-demand price, never evict for price" (evictions then come only from capacity).

Flexible orchestration needs ``platform_fault_domain_count`` (1: spread over racks, best
effort; the only value a capacity reservation supports in GA, and the reservation goes in the
VM profile: learn.microsoft.com/azure/virtual-machines/
capacity-reservation-associate-virtual-machine-scale-set-flex) and a ``network_api_version``
so the scale set creates the NICs itself (2020-11-01, the value ARM documents for Flexible).
"""

from __future__ import annotations

import pulumi
import pulumi_azure_native.compute as compute

from infra_gen.plan import Plan
from infra_gen.providers.azure_compute import (
    ADMIN_USERNAME,
    DRIVER_PUBLISHER,
    DRIVER_TYPE,
    DRIVER_VERSION,
    Capacity,
    Machine,
)
from infra_gen.providers.azure_network import Foundation
from infra_gen.providers.azure_schedule import autoscale_needed
from infra_gen.providers.azure_values import check, driver_extension_supported, spot_eviction_policy
from infra_gen.providers.base import resource_name

NETWORK_API_VERSION = "2020-11-01"
MAX_PRICE_ON_DEMAND_CAP = -1.0  # Azure: -1 = up to the on-demand price, no price evictions


def scale_set(
    plan: Plan, found: Foundation, m: Machine, tags: dict[str, str],
    child: pulumi.ResourceOptions,
) -> Capacity:
    """One Flexible scale set at the plan's total instance count."""
    mix = plan.recommendation.purchase
    name = f"{plan.workload}-vmss"
    vmss = compute.VirtualMachineScaleSet(
        resource_name(plan, "vmss"), resource_group_name=found.resource_group_name,
        location=found.location, vm_scale_set_name=name,
        orchestration_mode=check("orchestration_mode", "Flexible"),
        platform_fault_domain_count=1,
        sku=compute.SkuArgs(name=m.vm_size, capacity=mix.total),
        priority_mix_policy=_priority_mix(plan),
        virtual_machine_profile=_profile(plan, found, m),
        identity=compute.VirtualMachineScaleSetIdentityArgs(
            type=compute.ResourceIdentityType("SystemAssigned")),
        tags=tags, opts=pulumi.ResourceOptions.merge(
            child, pulumi.ResourceOptions(ignore_changes=ignored_properties(plan))),
    )
    principal = vmss.identity.apply(lambda i: i.principal_id if i else None)
    return Capacity("vmss", name, vmss.id, principal)


def ignored_properties(plan: Plan) -> list[str]:
    """Properties Pulumi must not reset: once autoscale owns the instance count, a later
    ``pulumi up`` restoring ``sku.capacity`` would undo tonight's scale-to-zero."""
    g, mix = plan.guardrails, plan.recommendation.purchase
    return ["sku.capacity"] if autoscale_needed(g.schedule, mix.spot) else []


def _priority_mix(plan: Plan) -> compute.PriorityMixPolicyArgs | None:
    mix = plan.recommendation.purchase
    if mix.spot <= 0:
        return None
    return compute.PriorityMixPolicyArgs(
        base_regular_priority_count=mix.on_demand + mix.reserved,
        regular_priority_percentage_above_base=0,
    )


def _profile(
    plan: Plan, found: Foundation, m: Machine
) -> compute.VirtualMachineScaleSetVMProfileArgs:
    spot = plan.recommendation.purchase.spot > 0
    return compute.VirtualMachineScaleSetVMProfileArgs(
        priority=check("priority", "Spot" if spot else "Regular"),
        eviction_policy=check("eviction_policy", spot_eviction_policy(plan)) if spot else None,
        billing_profile=(compute.BillingProfileArgs(max_price=MAX_PRICE_ON_DEMAND_CAP)
                         if spot else None),
        os_profile=compute.VirtualMachineScaleSetOSProfileArgs(
            computer_name_prefix=plan.workload[:15].rstrip("-"),
            admin_username=ADMIN_USERNAME, custom_data=m.startup_b64,
            linux_configuration=m.linux),
        storage_profile=compute.VirtualMachineScaleSetStorageProfileArgs(
            image_reference=m.image,
            os_disk=compute.VirtualMachineScaleSetOSDiskArgs(
                create_option="FromImage", disk_size_gb=plan.root_volume_gib,
                delete_option="Delete",
                managed_disk=compute.VirtualMachineScaleSetManagedDiskParametersArgs(
                    storage_account_type=m.storage_account_type))),
        network_profile=compute.VirtualMachineScaleSetNetworkProfileArgs(
            network_api_version=NETWORK_API_VERSION,
            network_interface_configurations=[
                compute.VirtualMachineScaleSetNetworkConfigurationArgs(
                    name="nic", primary=True, delete_option="Delete",
                    network_security_group=compute.SubResourceArgs(id=found.nsg_id),
                    ip_configurations=[compute.VirtualMachineScaleSetIPConfigurationArgs(
                        name="ipconfig", primary=True,
                        subnet=compute.ApiEntityReferenceArgs(id=found.subnet_id))])]),
        extension_profile=_extensions(m),
        security_profile=m.security, diagnostics_profile=m.diagnostics,
        capacity_reservation=m.capacity_reservation, user_data=m.startup_b64,
    )


def _extensions(m: Machine) -> compute.VirtualMachineScaleSetExtensionProfileArgs | None:
    if not driver_extension_supported(m.vm_size):
        return None
    return compute.VirtualMachineScaleSetExtensionProfileArgs(extensions=[
        compute.VirtualMachineScaleSetExtensionArgs(
            name=DRIVER_TYPE, publisher=DRIVER_PUBLISHER, type=DRIVER_TYPE,
            type_handler_version=DRIVER_VERSION, auto_upgrade_minor_version=True)])
