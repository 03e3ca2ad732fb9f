"""The AWS provider: a Plan becomes EC2 capacity with cost guardrails, inside ``GpuWorkload``.

What it creates (all children of the component, through one explicit ``aws.Provider`` for the
plan's region with the cost tags as default tags):

- security group (egress only), IAM role + instance profile (CloudWatch agent + SSM only);
- one ``aws.ec2.Instance`` when the plan is exactly one on-demand instance running 24x7, else a
  launch template and an Auto Scaling group with a mixed instances policy (on-demand base =
  reserved + on-demand count, the rest spot, price-capacity-optimized over equivalent types);
- an On-Demand Capacity Reservation for the reserved count (cancellable; it pins the group to
  the reservation's Availability Zone); Savings Plans only with ``purchasing.commit: true``;
- an SNS topic with the emails, an idle-GPU CloudWatch alarm (stop / scale to zero), scheduled
  scale-to-zero outside the workload's hours, an EventBridge rule for spot notices, a budget.

The SDK is imported inside ``render`` (sibling modules aws_base, aws_compute, aws_guardrails and
aws_budget import it), so importing this module costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from infra_gen.plan import Plan
from infra_gen.providers.base import RenderOptions, register

if TYPE_CHECKING:
    import pulumi
    import pulumi_aws

    from infra_gen.providers.aws_base import AwsContext, Network


@register
class AwsProvider:
    name = "aws"

    def render(self, plan: Plan, opts: RenderOptions, parent: pulumi.Resource) -> Mapping[str, Any]:
        from infra_gen.providers import aws_base, aws_budget, aws_compute

        ctx = aws_base.make_context(plan, opts, parent)
        net = aws_base.network(ctx)
        _warn_no_egress(plan, net.default_vpc)
        sg = aws_base.security_group(ctx, net.vpc_id)
        profile = aws_base.instance_profile(ctx)
        guard = plan.guardrails
        topic = _alert_topic(ctx)
        if guard.auto_shutdown_idle_minutes is not None:
            from infra_gen.providers import aws_agent

            ctx.ids["cloudwatch_agent_parameter"] = aws_agent.cloudwatch_agent(ctx).name
        if aws_compute.is_single_instance(ctx):
            _render_instance(ctx, net, sg, profile, topic)
        else:
            _render_group(ctx, net, sg, profile, topic)
        budget = aws_budget.budget(ctx, topic.arn if topic is not None else None)
        if budget is not None:
            ctx.ids["budget_name"] = budget.name
        plans = aws_compute.savings_plans(ctx)
        if plans:
            ctx.ids["savings_plan_ids"] = [p.id for p in plans]
        elif plan.commit and plan.recommendation.purchase.reserved:
            _warn_no_commitment(plan)
        ctx.ids["security_group_id"] = sg.id
        return dict(sorted(ctx.ids.items()))

    def unsupported(self, plan: Plan) -> dict[str, str]:
        """AWS covers every feature a plan asks for; what it does not do is buy EC2 Reserved
        Instances (no Pulumi resource exists): reserved capacity is a Capacity Reservation
        plus, with commit, an EC2 Instance Savings Plan."""
        gaps: dict[str, str] = {}
        if plan.commit and any(
            p.cloud == "aws" and p.kind != "savings-plan" for p in plan.purchases_to_make
        ):
            gaps["reserved-instances"] = (
                "pulumi-aws has no resource that buys EC2 Reserved Instances; buy them in the "
                "console, or use a Savings Plan (created with purchasing.commit: true)"
            )
        return gaps


def _alert_topic(ctx: AwsContext) -> pulumi_aws.sns.Topic | None:
    """The SNS topic, when anything publishes to it (alarm, budget, spot notices) or anyone
    listens (emails)."""
    guard = ctx.plan.guardrails
    spot = ctx.plan.recommendation.purchase.spot > 0
    budget = guard.budget_monthly_usd is not None
    if guard.auto_shutdown_idle_minutes is None and not budget and not spot and not guard.emails:
        return None
    from infra_gen.providers import aws_guardrails

    topic = aws_guardrails.alert_topic(ctx, budget=budget, spot_events=spot)
    ctx.ids["alert_topic_arn"] = topic.arn
    return topic


def _render_instance(
    ctx: AwsContext,
    net: Network,
    sg: pulumi_aws.ec2.SecurityGroup,
    profile: pulumi_aws.iam.InstanceProfile,
    topic: pulumi_aws.sns.Topic | None,
) -> None:
    from infra_gen.providers import aws_compute, aws_guardrails

    instance = aws_compute.single_instance(ctx, net, sg.id, profile.name)
    ctx.ids["instance_id"] = instance.id
    if topic is not None:
        alarm = aws_guardrails.idle_alarm_for_instance(ctx, instance, topic.arn)
        if alarm is not None:
            ctx.ids["idle_alarm_arn"] = alarm.arn


def _render_group(
    ctx: AwsContext,
    net: Network,
    sg: pulumi_aws.ec2.SecurityGroup,
    profile: pulumi_aws.iam.InstanceProfile,
    topic: pulumi_aws.sns.Topic | None,
) -> None:
    import pulumi
    import pulumi_aws as aws

    from infra_gen.providers import aws_compute, aws_guardrails

    subnet_ids: pulumi.Input[list[str]] = net.subnet_ids
    reservation_id = None
    if ctx.plan.recommendation.purchase.reserved > 0:
        # A reservation lives in one AZ: pin the group to the first subnet's AZ so the reserved
        # instances land in it (elsewhere they would be billed on top of the reservation).
        first = pulumi.Output.from_input(net.subnet_ids).apply(lambda ids: ids[0])
        az = aws.ec2.get_subnet_output(id=first, opts=ctx.invoke_opts()).availability_zone
        reservation = aws_compute.capacity_reservation(ctx, az)
        reservation_id = reservation.id
        subnet_ids = first.apply(lambda subnet: [subnet])
        ctx.ids["capacity_reservation_id"] = reservation.id
    spot = ctx.plan.recommendation.purchase.spot
    in_template = aws_compute.reservation_in_template(ctx)
    template = aws_compute.launch_template(
        ctx, sg.id, profile.arn, reservation_id if in_template else None
    )
    group = aws_compute.auto_scaling_group(ctx, subnet_ids, template, reservation_id)
    ctx.ids["launch_template_id"] = template.id
    ctx.ids["autoscaling_group_name"] = group.name
    if topic is not None:
        alarm = aws_guardrails.idle_alarm_for_group(ctx, group, topic.arn)
        if alarm is not None:
            ctx.ids["idle_alarm_arn"] = alarm.arn
        if spot > 0:
            ctx.ids["spot_event_rule_arn"] = aws_guardrails.spot_events(ctx, topic).arn
    aws_guardrails.schedules(ctx, group)


def _warn_no_egress(plan: Plan, default_vpc: bool) -> None:
    if default_vpc and not plan.public_ip:
        import pulumi

        pulumi.log.warn(
            f"{plan.workload}: the default VPC has no NAT gateway, so instances without a "
            "public IP cannot reach SSM, CloudWatch or model downloads; set "
            "placement.public_ip: true (inbound stays closed) or name private subnets with "
            "NAT or VPC endpoints in placement.subnets"
        )


def _warn_no_commitment(plan: Plan) -> None:
    import pulumi

    pulumi.log.warn(
        f"{plan.workload}: purchasing.commit is true but the plan lists no AWS Savings Plan "
        "purchase (commitment and term), so none is created; the reserved baseline runs on a "
        "Capacity Reservation billed at the on-demand rate"
    )
