"""AWS capacity: GPU AMI, launch template, capacity reservation, single instance or Auto Scaling
group with a mixed instances policy, and (only with ``purchasing.commit``) a Savings Plan.

Imported only from ``AwsProvider.render``: it imports ``pulumi_aws`` at module level.
"""

from __future__ import annotations

import base64

import pulumi
import pulumi_aws as aws

from infra_gen.errors import RenderError
from infra_gen.providers.aws_base import AwsContext, Network
from infra_gen.providers.aws_values import (
    SECONDS_PER_YEAR,
    checked,
    hourly_commitment_usd,
    schedule_is_limited,
)
from infra_gen.startup import render_startup_script

# AWS Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 22.04): NVIDIA driver, CUDA, EFA and
# Docker preinstalled; AWS publishes the latest id under these public SSM parameters
# (docs.aws.amazon.com/dlami/latest/devguide/appendix-ami-release-notes.html, read 2026-11).
_DLAMI_NAME = "base-oss-nvidia-driver-gpu-ubuntu-22.04"
DLAMI_SSM_PARAMETER = {
    arch: f"/aws/service/deeplearning/ami/{arch}/{_DLAMI_NAME}/latest/ami-id"
    for arch in ("x86_64", "arm64")
}
# Graviton GPU families (G5g: Graviton2 + T4G) need the arm64 image.
_ARM64_FAMILIES = ("g5g",)
ROOT_DEVICE = "/dev/sda1"  # the DLAMI Ubuntu images' root device name


def is_single_instance(ctx: AwsContext) -> bool:
    """One on-demand instance running around the clock needs no group: a plain instance."""
    mix = ctx.plan.recommendation.purchase
    always_on = not schedule_is_limited(ctx.plan.guardrails.schedule)
    return mix.on_demand == 1 and mix.total == 1 and always_on


def image_id(ctx: AwsContext) -> pulumi.Input[str]:
    """``RenderOptions.image`` (an AMI id, or an SSM parameter path) or the latest DLAMI."""
    image = ctx.options.image
    if image and image.startswith("ami-"):
        return image
    if image and not image.startswith("/"):
        raise RenderError(
            f"image: expected an AMI id (ami-...) or an SSM parameter path (/...), got {image!r}"
        )
    family = ctx.plan.recommendation.instance_type.split(".")[0]
    arch = "arm64" if family in _ARM64_FAMILIES else "x86_64"
    parameter = image or DLAMI_SSM_PARAMETER[arch]
    return aws.ssm.get_parameter_output(name=parameter, opts=ctx.invoke_opts()).value


def user_data_base64(ctx: AwsContext) -> str:
    script = render_startup_script(ctx.plan, "aws")
    return base64.b64encode(script.encode("utf-8")).decode("ascii")


def key_name(ctx: AwsContext) -> pulumi.Input[str] | None:
    if not ctx.options.ssh_public_key:
        return None
    pair = aws.ec2.KeyPair(
        ctx.name("key"), key_name=ctx.name("key"), public_key=ctx.options.ssh_public_key,
        tags=ctx.tags, opts=ctx.opts(),
    )
    return pair.key_name


def capacity_reservation(ctx: AwsContext, az: pulumi.Input[str]) -> aws.ec2.CapacityReservation:
    """On-Demand Capacity Reservation for the reserved baseline: billed like on-demand while it
    exists, cancellable at any time (end_date_type unlimited = until deleted)."""
    rec = ctx.plan.recommendation
    return aws.ec2.CapacityReservation(
        ctx.name("reservation"),
        instance_type=rec.instance_type,
        instance_platform=checked("instance_platform", "Linux/UNIX"),
        availability_zone=az,
        instance_count=rec.purchase.reserved,
        instance_match_criteria=checked("instance_match_criteria", "targeted"),
        end_date_type=checked("end_date_type", "unlimited"),
        tags=ctx.tags,
        opts=ctx.opts(),
    )


def launch_template(
    ctx: AwsContext,
    sg_id: pulumi.Input[str],
    profile_arn: pulumi.Input[str],
    reservation_id: pulumi.Input[str] | None,
) -> aws.ec2.LaunchTemplate:
    """The group's template. It never sets instance_market_options: Auto Scaling rejects that
    in a mixed instances policy; the policy's instances distribution decides spot/on-demand."""
    plan = ctx.plan
    tag_specs = [
        aws.ec2.LaunchTemplateTagSpecificationArgs(
            resource_type=checked("tag_resource_type", kind), tags=ctx.tags
        )
        for kind in ("instance", "volume", "network-interface")
    ]
    reservation = None
    if reservation_id is not None:
        reservation = aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
            capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                capacity_reservation_id=reservation_id
            )
        )
    return aws.ec2.LaunchTemplate(
        ctx.name("lt"),
        description=f"infra-gen {plan.workload}: {plan.recommendation.instance_type}",
        image_id=image_id(ctx),
        instance_type=plan.recommendation.instance_type,
        key_name=key_name(ctx),
        iam_instance_profile=aws.ec2.LaunchTemplateIamInstanceProfileArgs(arn=profile_arn),
        network_interfaces=[
            aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                device_index=0, security_groups=[sg_id], delete_on_termination="true",
                associate_public_ip_address="true" if plan.public_ip else "false",
            )
        ],
        metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
            http_endpoint="enabled", http_tokens=checked("http_tokens", "required"),
            http_put_response_hop_limit=2,  # 2 lets containers on the host reach IMDSv2
        ),
        block_device_mappings=[
            aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name=ROOT_DEVICE,
                ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    volume_size=plan.root_volume_gib, volume_type=checked("volume_type", "gp3"),
                    encrypted="true", delete_on_termination="true",
                ),
            )
        ],
        capacity_reservation_specification=reservation,
        user_data=user_data_base64(ctx),
        tag_specifications=tag_specs,
        tags=ctx.tags,
        update_default_version=True,
        opts=ctx.opts(),
    )


def single_instance(
    ctx: AwsContext, net: Network, sg_id: pulumi.Input[str], profile_name: pulumi.Input[str]
) -> aws.ec2.Instance:
    """One on-demand instance, every setting explicit (no launch template) so checks see them."""
    plan = ctx.plan
    subnet_id = pulumi.Output.from_input(net.subnet_ids).apply(lambda ids: ids[0])
    return aws.ec2.Instance(
        ctx.name("instance"),
        ami=image_id(ctx),
        instance_type=plan.recommendation.instance_type,
        subnet_id=subnet_id,
        vpc_security_group_ids=[sg_id],
        associate_public_ip_address=plan.public_ip,
        iam_instance_profile=profile_name,
        key_name=key_name(ctx),
        metadata_options=aws.ec2.InstanceMetadataOptionsArgs(
            http_endpoint="enabled", http_tokens=checked("http_tokens", "required"),
            http_put_response_hop_limit=2,
        ),
        root_block_device=aws.ec2.InstanceRootBlockDeviceArgs(
            volume_size=plan.root_volume_gib, volume_type=checked("volume_type", "gp3"),
            encrypted=True, delete_on_termination=True,
        ),
        user_data_base64=user_data_base64(ctx),
        tags=ctx.tags,
        volume_tags=ctx.tags,
        opts=ctx.opts(),
    )


def auto_scaling_group(
    ctx: AwsContext,
    subnet_ids: pulumi.Input[list[str]],
    template: aws.ec2.LaunchTemplate,
    reservation_id: pulumi.Input[str] | None,
) -> aws.autoscaling.Group:
    """Mixed instances group: the reserved + on-demand count as the on-demand base, everything
    above it on spot (price-capacity-optimized over every equivalent instance type)."""
    rec = ctx.plan.recommendation
    mix = rec.purchase
    types = [rec.instance_type, *[t for t in rec.equivalent_instance_types
                                  if t != rec.instance_type]]
    distribution = aws.autoscaling.GroupMixedInstancesPolicyInstancesDistributionArgs(
        on_demand_base_capacity=mix.reserved + mix.on_demand,
        on_demand_percentage_above_base_capacity=0 if mix.spot > 0 else 100,
        on_demand_allocation_strategy=checked("on_demand_allocation_strategy", "prioritized"),
        spot_allocation_strategy=checked("spot_allocation_strategy", "price-capacity-optimized"),
    )
    policy = aws.autoscaling.GroupMixedInstancesPolicyArgs(
        instances_distribution=distribution,
        launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
            launch_template_specification=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                launch_template_id=template.id, version="$Latest",
            ),
            overrides=[
                aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(instance_type=t)
                for t in types
            ],
        ),
    )
    return aws.autoscaling.Group(
        ctx.name("asg"),
        min_size=0,  # zero so the idle alarm and the schedule can scale the group down
        max_size=rec.instances,
        desired_capacity=rec.instances,
        vpc_zone_identifiers=subnet_ids,
        capacity_rebalance=mix.spot > 0,
        capacity_reservation_specification=_group_reservation(
            reservation_id, reservation_in_template(ctx)
        ),
        mixed_instances_policy=policy,
        tags=[aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=True)
              for k, v in ctx.tags.items()],
        # The idle alarm and scheduled actions change the desired capacity; don't undo them.
        opts=ctx.opts(ignore_changes=["desiredCapacity"]),
    )


def reservation_in_template(ctx: AwsContext) -> bool:
    """Target the reservation from the launch template only when every instance is reserved.

    A template target goes with every launch: a spot launch, or an on-demand one once the
    reservation is full, would be aimed at a reservation it cannot use. Otherwise the group
    targets it with ``capacity-reservations-first``, which Auto Scaling applies to On-Demand
    launches only and falls back to plain On-Demand (API_CapacityReservationSpecification).
    """
    mix = ctx.plan.recommendation.purchase
    return mix.reserved > 0 and mix.reserved == mix.total


def _group_reservation(
    reservation_id: pulumi.Input[str] | None, in_template: bool
) -> aws.autoscaling.GroupCapacityReservationSpecificationArgs | None:
    if reservation_id is None or in_template:
        return None
    return aws.autoscaling.GroupCapacityReservationSpecificationArgs(
        capacity_reservation_preference=checked(
            "asg_capacity_reservation_preference", "capacity-reservations-first"
        ),
        capacity_reservation_target=aws.autoscaling.GroupCapacityReservationSpecificationCapacityReservationTargetArgs(
            capacity_reservation_ids=[reservation_id]
        ),
    )


def savings_plans(ctx: AwsContext) -> list[aws.savingsplans.SavingsPlan]:
    """EC2 Instance Savings Plans for the plan's recommended purchases, ONLY with
    ``purchasing.commit: true``: once active a Savings Plan cannot be cancelled."""
    made = []
    for index, purchase in enumerate(ctx.plan.purchases_to_make):
        if not (ctx.plan.commit and purchase.created_by_stack) or purchase.kind != "savings-plan":
            continue
        years = 1 if purchase.term == "1y" else 3
        offering = aws.savingsplans.get_offerings_output(
            product_type="EC2",
            plan_types=["EC2Instance"],
            durations=[years * SECONDS_PER_YEAR],
            payment_options=[checked("savings_plan_payment_option", "No Upfront")],
            currencies=["USD"],
            filters=[
                aws.savingsplans.GetOfferingsFilterArgs(name="region", values=[purchase.region]),
                aws.savingsplans.GetOfferingsFilterArgs(
                    name="instanceFamily", values=[purchase.instance_type.split(".")[0]]
                ),
            ],
            opts=ctx.invoke_opts(),
        )
        made.append(aws.savingsplans.SavingsPlan(
            ctx.name(f"savings-plan-{index}"),
            savings_plan_offering_id=offering.offerings.apply(_only_offering_id),
            commitment=hourly_commitment_usd(purchase.monthly_usd),
            tags=ctx.tags,
            opts=ctx.opts(protect=True),
        ))
    return made


def _only_offering_id(offerings: list[object] | None) -> str:
    if not offerings:
        raise RenderError("savings plan: no EC2 Instance Savings Plan offering matches the plan")
    return str(offerings[0].offering_id)  # type: ignore[attr-defined]
