"""GCP VMs: the service account, instance templates and the single-VM case.

One plain ``VmSpec`` (strings and numbers only) describes a kind of VM; two small builders turn it
into ``RegionInstanceTemplate`` or ``Instance`` Args, so the single VM and the groups cannot drift
apart. Imported only from ``GcpProvider.render``: this module imports ``pulumi_gcp``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_gcp as gcp

from infra_gen.plan import Plan
from infra_gen.providers import gcp_values as v
from infra_gen.providers.gcp_context import GcpContext

# Deep Learning VM family with the NVIDIA 570 driver and CUDA 12.8 preinstalled, so no driver
# install at boot. Family names: https://cloud.google.com/deep-learning-vm/docs/images (the
# Debian 11 "common-cu124-debian-11-py310" families were retired with Debian 11; checked 2026
# against public Terraform using this family). Override with RenderOptions.image.
DEFAULT_IMAGE = (
    "projects/deeplearning-platform-release/global/images/family/"
    "common-cu128-ubuntu-2204-nvidia-570"
)

# Least-privilege OAuth scopes (https://cloud.google.com/compute/docs/access/service-accounts
# #accesscopesiam): the Ops Agent writes logs and GPU metrics; storage only for checkpoint sync.
SCOPE_LOGGING = "https://www.googleapis.com/auth/logging.write"
SCOPE_MONITORING = "https://www.googleapis.com/auth/monitoring.write"
SCOPE_STORAGE_RW = "https://www.googleapis.com/auth/devstorage.read_write"
ROLES = ("roles/logging.logWriter", "roles/monitoring.metricWriter")
BUCKET_ROLE = "roles/storage.objectUser"  # read/write objects in that one bucket, no admin

# Shielded VM with vTPM and integrity monitoring. Secure Boot stays off: it refuses unsigned
# kernel modules, and the NVIDIA driver's are unsigned unless the image signs them
# (https://cloud.google.com/compute/docs/gpus/install-drivers-gpu#secure-boot).
SHIELDED = {"enable_secure_boot": False, "enable_vtpm": True, "enable_integrity_monitoring": True}


@dataclass(frozen=True)
class VmSpec:
    """One kind of VM in the plan, in plain values: how it is bought and what it runs."""

    role: str  # "vm", "reserved", "on-demand", "spot"
    spot: bool
    reservation: str | None = None  # a specific reservation these VMs must consume
    scheduling: dict[str, Any] = field(default_factory=dict)


def gcs_bucket(plan: Plan) -> str | None:
    url = plan.guardrails.checkpoint_sync_bucket_url
    if url and url.startswith("gs://"):
        return url.removeprefix("gs://").split("/", 1)[0]
    return None


def scopes(plan: Plan) -> list[str]:
    wanted = [SCOPE_LOGGING, SCOPE_MONITORING]
    return wanted + [SCOPE_STORAGE_RW] if gcs_bucket(plan) else wanted


def service_account(ctx: GcpContext) -> gcp.serviceaccount.Account:
    """A dedicated account with only log/metric writing (and its checkpoint bucket, if any).

    Why not the default compute account: it has project Editor. Scopes and IAM both limit it.
    """
    account = gcp.serviceaccount.Account(
        ctx.name("vm-sa"),
        account_id=v.service_account_id(ctx.plan.workload),
        display_name=f"infra-gen GPU VMs for {ctx.plan.workload}",
        project=ctx.project,
        opts=ctx.child(),
    )
    member = account.email.apply(lambda email: f"serviceAccount:{email}")
    for role in ROLES:
        short = role.split("/")[1].replace(".", "-").lower()
        gcp.projects.IAMMember(
            ctx.name(f"vm-sa-{short}"),
            project=ctx.project_id,
            role=role,
            member=member,
            opts=ctx.child(),
        )
    bucket = gcs_bucket(ctx.plan)
    if bucket:
        gcp.storage.BucketIAMMember(
            ctx.name("vm-sa-checkpoints"),
            bucket=bucket,
            role=BUCKET_ROLE,
            member=member,
            opts=ctx.child(),
        )
    return account


def scheduling(plan: Plan, spot: bool, single_run: bool) -> dict[str, Any]:
    """Scheduling values: GPUs cannot live-migrate, so host maintenance must TERMINATE.

    Spot VMs stop (keeping the boot disk and its checkpoints, so the group restarts the same
    VM and the job resumes) for training and batch with checkpoints; otherwise they are deleted
    and recreated fresh, with no stopped-disk charges. ``max_run_duration`` caps one-off runs.
    """
    keep_disk = plan.workload_type != "inference" and (
        plan.guardrails.checkpoint_minutes is not None
        or plan.guardrails.checkpoint_sync_bucket_url is not None
    )
    action = v.check("instance_termination_action", "STOP" if keep_disk else "DELETE")
    values: dict[str, Any] = {"on_host_maintenance": v.check("on_host_maintenance", "TERMINATE")}
    if spot:
        values.update(
            provisioning_model=v.check("provisioning_model", "SPOT"),
            preemptible=True,
            automatic_restart=False,
            instance_termination_action=action,
        )
    else:
        values.update(
            provisioning_model=v.check("provisioning_model", "STANDARD"), automatic_restart=True
        )
    hours = plan.guardrails.max_run_hours
    if single_run and hours:
        values["max_run_duration_seconds"] = round(hours * 3600)
        values["instance_termination_action"] = action
    return values


def metadata(plan: Plan, startup: str, shutdown: str) -> dict[str, str]:
    return {"startup-script": startup, "shutdown-script": shutdown, "enable-oslogin": "TRUE"}


def _image(ctx: GcpContext) -> str:
    return ctx.opts.image or DEFAULT_IMAGE


def _accelerators(plan: Plan) -> tuple[str, int] | None:
    rec = plan.recommendation
    return v.attached_accelerator(rec.instance_type, rec.accelerator, rec.accelerators_per_instance)


def _affinity() -> tuple[str, str]:
    """(type, key) that make VMs consume only the named specific reservation."""
    return (
        v.check("reservation_affinity", "SPECIFIC_RESERVATION"),
        v.check("reservation_affinity_key", "compute.googleapis.com/reservation-name"),
    )


def _split_scheduling(values: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    rest = dict(values)
    return rest, rest.pop("max_run_duration_seconds", None)


def template(
    ctx: GcpContext, spec: VmSpec, account: gcp.serviceaccount.Account, meta: dict[str, str]
) -> gcp.compute.RegionInstanceTemplate:
    """The template a managed group stamps its VMs from."""
    plan, c = ctx.plan, gcp.compute
    sched, max_run = _split_scheduling(spec.scheduling)
    accel = _accelerators(plan)
    affinity = None
    if spec.reservation:
        type_, key = _affinity()
        affinity = c.RegionInstanceTemplateReservationAffinityArgs(
            type=type_,
            specific_reservation=c.RegionInstanceTemplateReservationAffinitySpecificReservationArgs(
                key=key, values=[spec.reservation]
            ),
        )
    return c.RegionInstanceTemplate(
        ctx.name(f"{spec.role}-template"),
        region=ctx.region,
        project=ctx.project,
        name_prefix=f"{plan.workload[:30]}-{spec.role}-",
        machine_type=plan.recommendation.instance_type,
        guest_accelerators=[
            c.RegionInstanceTemplateGuestAcceleratorArgs(type=accel[0], count=accel[1])
        ]
        if accel
        else None,
        disks=[
            c.RegionInstanceTemplateDiskArgs(
                boot=True,
                auto_delete=True,
                source_image=_image(ctx),
                disk_size_gb=plan.root_volume_gib,
                disk_type=v.boot_disk_type(plan.recommendation.instance_type),
                labels=ctx.labels,
            )
        ],
        network_interfaces=[_template_nic(ctx)],
        scheduling=c.RegionInstanceTemplateSchedulingArgs(
            **sched,
            max_run_duration=c.RegionInstanceTemplateSchedulingMaxRunDurationArgs(seconds=max_run)
            if max_run
            else None,
        ),
        service_account=c.RegionInstanceTemplateServiceAccountArgs(
            email=account.email, scopes=scopes(plan)
        ),
        shielded_instance_config=c.RegionInstanceTemplateShieldedInstanceConfigArgs(**SHIELDED),
        reservation_affinity=affinity,
        metadata=meta,
        labels=ctx.labels,
        opts=ctx.child(),
    )


def _template_nic(ctx: GcpContext) -> gcp.compute.RegionInstanceTemplateNetworkInterfaceArgs:
    c = gcp.compute
    public = (
        [c.RegionInstanceTemplateNetworkInterfaceAccessConfigArgs()] if ctx.plan.public_ip else []
    )
    if ctx.plan.subnets:
        return c.RegionInstanceTemplateNetworkInterfaceArgs(
            subnetwork=ctx.plan.subnets[0], access_configs=public, nic_type=_nic_type(ctx.plan)
        )
    return c.RegionInstanceTemplateNetworkInterfaceArgs(
        network="default", access_configs=public, nic_type=_nic_type(ctx.plan)
    )


def _nic_type(plan: Plan) -> str | None:
    """A3 machine types require gVNIC (https://cloud.google.com/compute/docs/gpus#a3-series)."""
    return (
        v.check("nic_type", "GVNIC")
        if v.family(plan.recommendation.instance_type) == "a3"
        else None
    )


def instance(
    ctx: GcpContext,
    spec: VmSpec,
    account: gcp.serviceaccount.Account,
    meta: dict[str, str],
    zone: str,
    policy: pulumi.Input[str] | None,
) -> gcp.compute.Instance:
    """The single VM: same settings as a template, plus the schedule policy (one string)."""
    plan, c = ctx.plan, gcp.compute
    sched, max_run = _split_scheduling(spec.scheduling)
    accel = _accelerators(plan)
    affinity = None
    if spec.reservation:
        type_, key = _affinity()
        affinity = c.InstanceReservationAffinityArgs(
            type=type_,
            specific_reservation=c.InstanceReservationAffinitySpecificReservationArgs(
                key=key, values=[spec.reservation]
            ),
        )
    public = [c.InstanceNetworkInterfaceAccessConfigArgs()] if plan.public_ip else []
    nic = c.InstanceNetworkInterfaceArgs(
        subnetwork=plan.subnets[0] if plan.subnets else None,
        network=None if plan.subnets else "default",
        access_configs=public,
        nic_type=_nic_type(plan),
    )
    return c.Instance(
        ctx.name("vm"),
        zone=zone,
        project=ctx.project,
        machine_type=plan.recommendation.instance_type,
        guest_accelerators=[c.InstanceGuestAcceleratorArgs(type=accel[0], count=accel[1])]
        if accel
        else None,
        boot_disk=c.InstanceBootDiskArgs(
            auto_delete=True,
            initialize_params=c.InstanceBootDiskInitializeParamsArgs(
                image=_image(ctx),
                size=plan.root_volume_gib,
                type=v.boot_disk_type(plan.recommendation.instance_type),
                labels=ctx.labels,
            ),
        ),
        network_interfaces=[nic],
        scheduling=c.InstanceSchedulingArgs(
            **sched,
            max_run_duration=c.InstanceSchedulingMaxRunDurationArgs(seconds=max_run)
            if max_run
            else None,
        ),
        service_account=c.InstanceServiceAccountArgs(email=account.email, scopes=scopes(plan)),
        shielded_instance_config=c.InstanceShieldedInstanceConfigArgs(**SHIELDED),
        reservation_affinity=affinity,
        resource_policies=policy,
        metadata=meta,
        labels=ctx.labels,
        allow_stopping_for_update=True,
        opts=ctx.child(),
    )
