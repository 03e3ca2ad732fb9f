"""Azure GPU capacity pieces shared by the single VM and the scale set, and the single VM itself.

Imported only from ``AzureProvider.render``. Choices, with their reasons:
- Image: ``microsoft-dsvm:ubuntu-hpc:2204:latest`` (Azure HPC image, Ubuntu 22.04, Gen2), which
  ships the NVIDIA driver and CUDA (github.com/Azure/azhpc-images); override with
  ``RenderOptions.image`` as ``publisher:offer:sku:version``.
- The NVIDIA GPU Driver Extension is added where it lists the size as supported (see
  ``azure_values.driver_extension_supported``), so the driver is managed by Azure even when the
  image is overridden with a plain Ubuntu.
- The startup script goes in ``os_profile.custom_data``, because on Azure that is what
  cloud-init runs at first boot; ``user_data`` carries the same base64 script because it stays
  readable from IMDS and can be updated without reimaging
  (learn.microsoft.com/azure/virtual-machines/custom-data). Both are limited to 64 KB.
- SSH keys only (``disable_password_authentication``), boot diagnostics on (managed storage),
  OS disk deleted with the VM so an evicted or removed machine leaves no billable disk.
- A system-assigned identity, so the idle watchdog can deallocate its own VM: on Azure a guest
  ``shutdown`` leaves the VM "Stopped" and still billed for compute; only deallocation stops it
  (learn.microsoft.com/azure/virtual-machines/states-billing).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import pulumi
import pulumi_azure_native.compute as compute
import pulumi_azure_native.network as network

from infra_gen.errors import RenderError
from infra_gen.plan import Plan
from infra_gen.providers.azure_network import Foundation
from infra_gen.providers.azure_values import (
    check,
    driver_extension_supported,
    encryption_at_host_supported,
    os_disk_storage_type,
    parse_image,
)
from infra_gen.providers.base import RenderOptions, resource_name
from infra_gen.startup import render_startup_script

ADMIN_USERNAME = "azureuser"
DEFAULT_IMAGE = "microsoft-dsvm:ubuntu-hpc:2204:latest"
MAX_CUSTOM_DATA_BYTES = 64 * 1024
DRIVER_PUBLISHER = "Microsoft.HpcCompute"
DRIVER_TYPE = "NvidiaGpuDriverLinux"
DRIVER_VERSION = "1.6"
_SSH_KEY_PREFIXES = ("ssh-rsa ", "ssh-ed25519 ")  # the key types Azure accepts


@dataclass(frozen=True)
class Machine:
    """The pieces every VM or scale-set profile shares, built once per render."""

    vm_size: str
    image: compute.ImageReferenceArgs
    linux: compute.LinuxConfigurationArgs
    startup_b64: str
    security: compute.SecurityProfileArgs | None
    diagnostics: compute.DiagnosticsProfileArgs
    storage_account_type: str
    capacity_reservation: compute.CapacityReservationProfileArgs | None


@dataclass(frozen=True)
class Capacity:
    """The main compute resource: a single VM or a Flexible scale set."""

    kind: str  # "vm" or "vmss"
    name: str  # the Azure resource name (the VM's name feeds the DevTest schedule's name)
    id: pulumi.Output[str]
    principal_id: pulumi.Output[str | None] | None


def machine(
    plan: Plan, opts: RenderOptions, reservation_group: pulumi.Output[str] | None
) -> Machine:
    """Everything about the machine that does not depend on VM vs scale set."""
    vm_size = plan.recommendation.instance_type
    publisher, offer, sku, version = parse_image(opts.image or DEFAULT_IMAGE)
    security = (compute.SecurityProfileArgs(encryption_at_host=True)
                if encryption_at_host_supported(vm_size) else None)
    crp = None
    if reservation_group is not None:
        crp = compute.CapacityReservationProfileArgs(
            capacity_reservation_group=compute.SubResourceArgs(id=reservation_group))
    return Machine(
        vm_size=vm_size,
        image=compute.ImageReferenceArgs(publisher=publisher, offer=offer, sku=sku,
                                         version=version),
        linux=_linux(opts),
        startup_b64=startup_b64(plan),
        security=security,
        diagnostics=compute.DiagnosticsProfileArgs(
            boot_diagnostics=compute.BootDiagnosticsArgs(enabled=True)),
        storage_account_type=os_disk_storage_type(vm_size),
        capacity_reservation=crp,
    )


def startup_b64(plan: Plan) -> str:
    """The startup script, base64, within Azure's 64 KB custom/user data limit."""
    encoded = base64.b64encode(render_startup_script(plan, "azure").encode()).decode()
    if len(encoded) > MAX_CUSTOM_DATA_BYTES:
        raise RenderError(
            f"startup script: {len(encoded)} bytes base64, Azure custom data allows "
            f"{MAX_CUSTOM_DATA_BYTES}"
        )
    return encoded


def _linux(opts: RenderOptions) -> compute.LinuxConfigurationArgs:
    key = (opts.ssh_public_key or "").strip()
    if not key:
        raise RenderError(
            "azure: an SSH public key is required (stack config infra-gen:ssh-key); "
            "password login is disabled on every VM"
        )
    if not key.startswith(_SSH_KEY_PREFIXES):
        raise RenderError(
            f"azure ssh public key: expected an OpenSSH 'ssh-rsa ...' or 'ssh-ed25519 ...' "
            f"line, got {key[:20]!r}..."
        )
    return compute.LinuxConfigurationArgs(
        disable_password_authentication=True,
        ssh=compute.SshConfigurationArgs(public_keys=[compute.SshPublicKeyArgs(
            path=f"/home/{ADMIN_USERNAME}/.ssh/authorized_keys", key_data=key)]),
    )


def capacity_reservation(
    plan: Plan, found: Foundation, tags: dict[str, str], child: pulumi.ResourceOptions
) -> tuple[pulumi.Output[str], pulumi.Resource] | None:
    """On-demand capacity reservation for the plan's reserved count (cancellable any time).

    Azure Reservations (1y/3y price commitments) have no resource; they stay in the plan's
    ``purchases_to_make``. The reservation guarantees capacity; the Reservation, if bought,
    discounts it. Returns (group id, reservation) or None when nothing is reserved.
    """
    reserved = plan.recommendation.purchase.reserved
    if reserved <= 0:
        return None
    group = compute.CapacityReservationGroup(
        resource_name(plan, "crg"), resource_group_name=found.resource_group_name,
        location=found.location, tags=tags, opts=child,
    )
    reservation = compute.CapacityReservation(
        resource_name(plan, "cr"), resource_group_name=found.resource_group_name,
        capacity_reservation_group_name=group.name, location=found.location,
        sku=compute.SkuArgs(name=plan.recommendation.instance_type, capacity=reserved),
        tags=tags, opts=child,
    )
    return group.id, reservation


def single_vm(
    plan: Plan, found: Foundation, m: Machine, tags: dict[str, str],
    child: pulumi.ResourceOptions,
) -> Capacity:
    """One Regular-priority VM and its NIC (a plan of exactly one non-spot machine)."""
    vm_name = f"{plan.workload}-vm"
    nic = network.NetworkInterface(
        resource_name(plan, "nic"), resource_group_name=found.resource_group_name,
        location=found.location,
        ip_configurations=[network.NetworkInterfaceIPConfigurationArgs(
            name="ipconfig", primary=True, subnet=network.SubnetArgs(id=found.subnet_id),
            private_ip_allocation_method="Dynamic")],
        network_security_group=network.NetworkSecurityGroupArgs(id=found.nsg_id),
        tags=tags, opts=child,
    )
    vm = compute.VirtualMachine(
        resource_name(plan, "vm"), resource_group_name=found.resource_group_name,
        location=found.location, vm_name=vm_name,
        priority=check("priority", "Regular"),
        hardware_profile=compute.HardwareProfileArgs(vm_size=m.vm_size),
        storage_profile=compute.StorageProfileArgs(
            image_reference=m.image,
            os_disk=compute.OSDiskArgs(
                create_option="FromImage", disk_size_gb=plan.root_volume_gib,
                delete_option="Delete",
                managed_disk=compute.ManagedDiskParametersArgs(
                    storage_account_type=m.storage_account_type))),
        os_profile=compute.OSProfileArgs(
            computer_name=plan.workload, admin_username=ADMIN_USERNAME,
            custom_data=m.startup_b64, linux_configuration=m.linux),
        network_profile=compute.NetworkProfileArgs(network_interfaces=[
            compute.NetworkInterfaceReferenceArgs(id=nic.id, primary=True,
                                                  delete_option="Delete")]),
        security_profile=m.security, diagnostics_profile=m.diagnostics,
        capacity_reservation=m.capacity_reservation, user_data=m.startup_b64,
        identity=compute.VirtualMachineIdentityArgs(
            type=compute.ResourceIdentityType("SystemAssigned")),
        tags=tags, opts=child,
    )
    if driver_extension_supported(m.vm_size):
        compute.VirtualMachineExtension(
            resource_name(plan, "gpu-driver"), resource_group_name=found.resource_group_name,
            vm_name=vm.name, location=found.location, vm_extension_name=DRIVER_TYPE,
            publisher=DRIVER_PUBLISHER, type=DRIVER_TYPE, type_handler_version=DRIVER_VERSION,
            auto_upgrade_minor_version=True, tags=tags, opts=child,
        )
    principal = vm.identity.apply(lambda i: i.principal_id if i else None)
    return Capacity("vm", vm_name, vm.id, principal)
