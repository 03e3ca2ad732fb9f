"""GCP capacity: the single VM or the managed groups, the reservation, the commitment, schedules.

Shapes (from the plan's purchase mix):
- one on-demand or reserved VM -> one ``compute.Instance`` (an instance schedule policy attached
  when the workload runs less than 24x7);
- otherwise one regional managed instance group per purchase kind with a non-zero count:
  ``reserved`` (pinned to the reservation's zone, SPECIFIC_RESERVATION affinity), ``on-demand``
  and ``spot``. Reserved and on-demand VMs are separate groups because a VM with specific
  affinity cannot start once the reservation is full: one group of ``reserved + on_demand`` VMs
  all pointing at a reservation of ``reserved`` would leave the extra VMs failing to start.
  A MIG has no spot/standard mix, hence the separate spot group.
Groups outside 24x7 get a regional autoscaler whose scaling schedule holds the full size during
the run window and lets it fall to zero outside; an instance schedule would not work there, as a
MIG repairs (recreates) VMs stopped behind its back.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_gcp as gcp

from infra_gen.errors import RenderError
from infra_gen.providers import gcp_values as v
from infra_gen.providers.gcp_compute import VmSpec, instance, scheduling, template
from infra_gen.providers.gcp_context import GcpContext

_TERM_PLANS = {"1y": "TWELVE_MONTH", "3y": "THIRTY_SIX_MONTH"}
_AUTOSCALER_COOLDOWN_S = 300  # Deep Learning VM boot + driver + model load; GCP default is 60


def render_capacity(
    ctx: GcpContext, account: gcp.serviceaccount.Account, meta: dict[str, str]
) -> dict[str, Any]:
    """Create the VMs (or groups) and the reserved baseline; return their ids as outputs."""
    plan = ctx.plan
    mix = plan.recommendation.purchase
    one_off = plan.workload_type != "inference"
    home_zone = v.zones(ctx.region)[0]
    outputs: dict[str, Any] = {}
    reservation_name = None
    if mix.reserved:
        reservation = _reservation(ctx, mix.reserved, home_zone)
        reservation_name = ctx.name("reserved")
        outputs["reservation_id"] = reservation.id
        if plan.commit:
            outputs["commitment_id"] = _commitment(ctx, mix.reserved, reservation).id
    if mix.total == 1 and mix.spot == 0:
        spec = VmSpec(
            "vm",
            spot=False,
            reservation=reservation_name,
            scheduling=scheduling(plan, spot=False, single_run=one_off),
        )
        policy = None if v.always_on(plan.guardrails.schedule) else _instance_schedule(ctx)
        vm = instance(ctx, spec, account, meta, home_zone, policy.id if policy else None)
        outputs.update(instance_id=vm.instance_id, instance_name=vm.name)
        return outputs
    kinds = (
        ("reserved", mix.reserved, False),
        ("on-demand", mix.on_demand, False),
        ("spot", mix.spot, True),
    )
    for role, count, spot in kinds:
        if count:
            spec = VmSpec(
                role,
                spot=spot,
                reservation=reservation_name if role == "reserved" else None,
                scheduling=scheduling(plan, spot=spot, single_run=one_off),
            )
            group = _group(ctx, spec, count, template(ctx, spec, account, meta))
            outputs[f"{role.replace('-', '_')}_group_id"] = group.id
    return outputs


def _reservation(ctx: GcpContext, count: int, zone: str) -> gcp.compute.Reservation:
    """A specific reservation: only VMs naming it may use it. Billed at on-demand rates whether
    used or not, and cancelled by deleting it (unlike a commitment)."""
    rec, c = ctx.plan.recommendation, gcp.compute
    accel = v.attached_accelerator(
        rec.instance_type, rec.accelerator, rec.accelerators_per_instance
    )
    return c.Reservation(
        ctx.name("reservation"),
        name=ctx.name("reserved"),
        zone=zone,
        project=ctx.project,
        description=f"infra-gen reserved baseline for {ctx.plan.workload}",
        specific_reservation_required=True,
        specific_reservation=c.ReservationSpecificReservationArgs(
            count=count,
            instance_properties=c.ReservationSpecificReservationInstancePropertiesArgs(
                machine_type=rec.instance_type,
                guest_accelerators=[
                    c.ReservationSpecificReservationInstancePropertiesGuestAcceleratorArgs(
                        accelerator_type=accel[0], accelerator_count=accel[1]
                    )
                ]
                if accel
                else None,
            ),
        ),
        opts=ctx.child(),
    )


def _commitment(
    ctx: GcpContext, count: int, reservation: gcp.compute.Reservation
) -> gcp.compute.RegionCommitment:
    """A committed-use discount for the reserved VMs. It CANNOT be cancelled: created only with
    ``purchasing.commit: true``. GPU commitments must have an attached reservation
    (https://cloud.google.com/compute/docs/instances/committed-use-discounts-overview)."""
    rec, c = ctx.plan.recommendation, gcp.compute
    facts = v.MACHINES.get(rec.instance_type)
    if facts is None:
        raise RenderError(
            f"purchasing.commit: no vCPU/memory figures for GCP machine type "
            f"{rec.instance_type!r}; "
            f"known: {', '.join(sorted(v.MACHINES))}; set commit: false and buy the CUD by hand"
        )
    term = _TERM_PLANS[rec.purchase.reserved_term or "1y"]

    def resource(kind: str, amount: float, accelerator: str | None = None) -> Any:
        return c.RegionCommitmentResourceArgs(
            type=v.check("commitment_resource_type", kind),
            amount=str(round(amount)),
            accelerator_type=accelerator,
        )

    return c.RegionCommitment(
        ctx.name("commitment"),
        region=ctx.region,
        project=ctx.project,
        plan=v.check("commitment_plan", term),
        category=v.check("commitment_category", "MACHINE"),
        type=v.check("commitment_type", facts.commitment_type),
        auto_renew=False,
        description=f"infra-gen CUD for {count} x {rec.instance_type} ({ctx.plan.workload})",
        resources=[
            resource("VCPU", facts.vcpus * count),
            resource("MEMORY", facts.memory_gib * 1024 * count),  # MB
            resource(
                "ACCELERATOR",
                rec.accelerators_per_instance * count,
                v.accelerator_type(rec.accelerator),
            ),
        ],
        existing_reservations=reservation.id,
        opts=ctx.child(protect=True),
    )


def _group(
    ctx: GcpContext, spec: VmSpec, count: int, tmpl: gcp.compute.RegionInstanceTemplate
) -> gcp.compute.RegionInstanceGroupManager:
    c, plan = gcp.compute, ctx.plan
    zones = [v.zones(ctx.region)[0]] if spec.reservation else list(v.zones(ctx.region))
    # ANY: the group places VMs wherever GPUs are free (spot and serving); training keeps its
    # nodes in one zone for interconnect and no cross-zone traffic charges.
    shape = (
        "EVEN"
        if spec.reservation
        else ("ANY_SINGLE_ZONE" if plan.workload_type in ("training", "fine-tuning") else "ANY")
    )
    # A VM the idle watchdog stops must stay stopped, so standard groups do not repair; spot
    # groups do, or preempted VMs would never come back.
    repair = (
        "REPAIR"
        if spec.spot or plan.guardrails.auto_shutdown_idle_minutes is None
        else "DO_NOTHING"
    )
    scheduled = not v.always_on(plan.guardrails.schedule)
    group = c.RegionInstanceGroupManager(
        ctx.name(f"{spec.role}-group"),
        region=ctx.region,
        project=ctx.project,
        base_instance_name=f"{plan.workload[:40]}-{spec.role}"[:58].rstrip("-"),
        versions=[
            c.RegionInstanceGroupManagerVersionArgs(instance_template=tmpl.id, name="primary")
        ],
        target_size=None if scheduled else count,
        distribution_policy_zones=zones,
        distribution_policy_target_shape=v.check("distribution_target_shape", shape),
        update_policy=c.RegionInstanceGroupManagerUpdatePolicyArgs(
            type=v.check("update_policy_type", "OPPORTUNISTIC"),
            minimal_action=v.check("minimal_action", "REPLACE"),
            instance_redistribution_type=v.check("instance_redistribution_type", "NONE"),
            max_surge_fixed=0,  # no extra GPUs during updates (they may not exist, and cost)
            max_unavailable_fixed=len(zones),
        ),  # a regional MIG needs 0 or >= its zone count
        instance_lifecycle_policy=c.RegionInstanceGroupManagerInstanceLifecyclePolicyArgs(
            default_action_on_failure=v.check("default_action_on_failure", repair)
        ),
        wait_for_instances=False,
        opts=ctx.child(),
    )
    if scheduled:
        _autoscaler(ctx, spec.role, count, group)
    return group


def _autoscaler(
    ctx: GcpContext, role: str, count: int, group: gcp.compute.RegionInstanceGroupManager
) -> gcp.compute.RegionAutoscaler:
    """Full size during the run window, down to zero outside it.

    Outside the window the autoscaler's default signal (CPU, 60% target) applies, which an idle
    GPU VM never reaches, so the group drains to ``min_replicas = 0``.
    https://cloud.google.com/compute/docs/autoscaler/scaling-schedules
    """
    c, schedule = gcp.compute, ctx.plan.guardrails.schedule
    cron, duration_s = v.scaling_window(schedule)
    return c.RegionAutoscaler(
        ctx.name(f"{role}-autoscaler"),
        region=ctx.region,
        project=ctx.project,
        target=group.id,
        autoscaling_policy=c.RegionAutoscalerAutoscalingPolicyArgs(
            min_replicas=0,
            max_replicas=count,
            cooldown_period=_AUTOSCALER_COOLDOWN_S,
            mode=v.check("autoscaler_mode", "ON"),
            scaling_schedules=[
                c.RegionAutoscalerAutoscalingPolicyScalingScheduleArgs(
                    name="run-window",
                    schedule=cron,
                    duration_sec=duration_s,
                    min_required_replicas=count,
                    time_zone=schedule.timezone,
                    description=(
                        f"{schedule.hours_per_day:g} h/day, {schedule.days_per_week} days/week"
                    ),
                )
            ],
        ),
        opts=ctx.child(),
    )


def _instance_schedule(ctx: GcpContext) -> gcp.compute.ResourcePolicy:
    """Start/stop the single VM on the workload's schedule, plus the start/stop permission the
    Compute Engine service agent needs to do it (a custom role with just those two)."""
    c, schedule = gcp.compute, ctx.plan.guardrails.schedule
    start, stop = v.start_stop_crons(schedule)
    role = gcp.projects.IAMCustomRole(
        ctx.name("schedule-role"),
        project=ctx.project_id,
        role_id="infraGen_" + ctx.plan.workload.replace("-", "_")[:40] + "_startStop",
        title=f"infra-gen start/stop for {ctx.plan.workload}",
        permissions=["compute.instances.start", "compute.instances.stop"],
        opts=ctx.child(),
    )
    agent = pulumi.Output.from_input(ctx.project_number).apply(
        lambda number: f"serviceAccount:service-{number}@compute-system.iam.gserviceaccount.com"
    )
    gcp.projects.IAMMember(
        ctx.name("schedule-agent"),
        project=ctx.project_id,
        role=role.name,
        member=agent,
        opts=ctx.child(),
    )
    return c.ResourcePolicy(
        ctx.name("schedule"),
        region=ctx.region,
        project=ctx.project,
        description=f"Run window for {ctx.plan.workload} ({schedule.timezone})",
        instance_schedule_policy=c.ResourcePolicyInstanceSchedulePolicyArgs(
            time_zone=schedule.timezone,
            vm_start_schedule=c.ResourcePolicyInstanceSchedulePolicyVmStartScheduleArgs(
                schedule=start
            ),
            vm_stop_schedule=c.ResourcePolicyInstanceSchedulePolicyVmStopScheduleArgs(
                schedule=stop
            ),
        ),
        opts=ctx.child(),
    )
