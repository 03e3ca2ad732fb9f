"""Azure foundation: resource group, virtual network, subnet and a closed network security group.

Imported only from ``AzureProvider.render`` (it imports the azure-native SDK submodules).

No inbound from the internet: the NSG carries one explicit Deny from the ``Internet`` service
tag (on top of Azure's default DenyAllInBound) and no Allow rule at all; reach the machines over
Bastion, a VPN or a peered network. Outbound stays open, because the NVIDIA driver extension,
apt and model downloads need it: the subnet sets ``default_outbound_access=True`` explicitly,
since virtual networks created with network API 2025-07-01 or later default to private subnets
(techcommunity.microsoft.com, "Private subnets by default in Azure virtual networks", 2026).
A NAT gateway is Microsoft's recommended explicit alternative; it is not rendered because it
costs about $33 a month per gateway before data processing (not in the plan's figures).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_azure_native.network as network
import pulumi_azure_native.resources as resources

from infra_gen.errors import RenderError
from infra_gen.plan import Plan
from infra_gen.providers.azure_values import check
from infra_gen.providers.base import RenderOptions, resource_name

VNET_CIDR = "10.42.0.0/16"
SUBNET_CIDR = "10.42.0.0/24"  # 251 usable addresses (Azure keeps 5 per subnet)
_SUBNET_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Network/"
    r"virtualNetworks/[^/]+/subnets/[^/]+$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Foundation:
    """What the compute and guardrail modules build on."""

    resource_group_name: str
    location: str
    subnet_id: pulumi.Input[str]
    nsg_id: pulumi.Output[str]
    depends_on: list[pulumi.Resource]  # the resource group, when we created it


def resource_group_name(plan: Plan, opts: RenderOptions) -> str:
    """The stack's resource group if configured, else ``rg-<workload>`` (created here)."""
    return opts.azure_resource_group or f"rg-{plan.workload}"


def build_foundation(
    plan: Plan, opts: RenderOptions, tags: dict[str, str], child: pulumi.ResourceOptions
) -> Foundation:
    """Resource group (unless given), NSG, and a VNet + subnet unless the workload names one."""
    location = plan.recommendation.region
    rg_name = resource_group_name(plan, opts)
    depends: list[pulumi.Resource] = []
    if not opts.azure_resource_group:
        rg = resources.ResourceGroup(
            resource_name(plan, "rg"), resource_group_name=rg_name, location=location,
            tags=tags, opts=child,
        )
        depends.append(rg)
    after_rg = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=depends))
    nsg = network.NetworkSecurityGroup(
        resource_name(plan, "nsg"), resource_group_name=rg_name, location=location,
        security_rules=[_deny_internet_inbound()], tags=tags, opts=after_rg,
    )
    subnet_id = _existing_subnet(plan) or _new_subnet(plan, rg_name, location, nsg, tags, after_rg)
    return Foundation(rg_name, location, subnet_id, nsg.id, depends)


def _deny_internet_inbound() -> network.SecurityRuleArgs:
    """Explicit deny of every inbound flow from the Internet service tag."""
    return network.SecurityRuleArgs(
        name="deny-internet-inbound", priority=4000,
        access=check("nsg_access", "Deny"), direction=check("nsg_direction", "Inbound"),
        protocol=check("nsg_protocol", "*"), source_address_prefix="Internet",
        source_port_range="*", destination_address_prefix="*", destination_port_range="*",
        description="infra-gen: no inbound from the internet; use Bastion or a VPN",
    )


def _existing_subnet(plan: Plan) -> str | None:
    """The first subnet the workload names (a full ARM subnet id), if any."""
    if not plan.subnets:
        return None
    subnet = plan.subnets[0]
    if not _SUBNET_ID.match(subnet):
        raise RenderError(
            "placement.subnets: on Azure expected a subnet resource id "
            "'/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Network/"
            f"virtualNetworks/<vnet>/subnets/<name>', got {subnet!r}"
        )
    return subnet


def _new_subnet(
    plan: Plan, rg_name: str, location: str, nsg: Any, tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> pulumi.Output[str]:
    vnet = network.VirtualNetwork(
        resource_name(plan, "vnet"), resource_group_name=rg_name, location=location,
        address_space=network.AddressSpaceArgs(address_prefixes=[VNET_CIDR]), tags=tags,
        opts=opts,
    )
    subnet = network.Subnet(
        resource_name(plan, "subnet"), resource_group_name=rg_name,
        virtual_network_name=vnet.name, subnet_name="gpu", address_prefix=SUBNET_CIDR,
        network_security_group=network.NetworkSecurityGroupArgs(id=nsg.id),
        default_outbound_access=True, opts=opts,
    )
    return subnet.id
