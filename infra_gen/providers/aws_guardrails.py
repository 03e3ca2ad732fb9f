"""AWS guardrails: alert topic, idle-GPU alarm that stops or scales to zero, scheduled
scale-to-zero outside the workload's hours, and spot interruption events to the topic.

The idle alarm reads the CloudWatch agent's NVIDIA metric ``nvidia_smi_utilization_gpu``
(namespace CWAgent). An alarm's dimensions must match the published ones exactly, so the agent
config in the startup script appends ``InstanceId`` / ``AutoScalingGroupName`` and aggregates on
each (``aggregation_dimensions``). The watchdog in user data is the second line of defence.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws

from infra_gen.providers.aws_base import AwsContext
from infra_gen.providers.aws_values import (
    alarm_window,
    checked,
    ec2_stop_action_arn,
    iana_zone,
    partition,
    schedule_crons,
)

GPU_METRIC = "nvidia_smi_utilization_gpu"
GPU_NAMESPACE = "CWAgent"
SPOT_EVENTS = ("EC2 Spot Instance Interruption Warning", "EC2 Instance Rebalance Recommendation")


def alert_topic(ctx: AwsContext, *, budget: bool, spot_events: bool) -> aws.sns.Topic:
    """SNS topic for alarms, budget alerts and spot notices, with the emails subscribed (each
    address must confirm the subscription once) and a policy letting those services publish."""
    topic = aws.sns.Topic(ctx.name("alerts"), tags=ctx.tags, opts=ctx.opts())
    for index, email in enumerate(ctx.plan.guardrails.emails):
        aws.sns.TopicSubscription(
            ctx.name(f"alerts-email-{index}"),
            topic=topic.arn,
            protocol=checked("sns_protocol", "email"),
            endpoint=email,
            opts=ctx.opts(parent=topic),
        )
    services = ["cloudwatch.amazonaws.com"]
    if budget:
        services.append("budgets.amazonaws.com")
    if spot_events:
        services.append("events.amazonaws.com")
    account = aws.get_caller_identity_output(opts=ctx.invoke_opts()).account_id
    aws.sns.TopicPolicy(
        ctx.name("alerts-policy"),
        arn=topic.arn,
        policy=pulumi.Output.all(topic.arn, account).apply(
            lambda args: _topic_policy(args[0], args[1], services, partition(ctx.region))
        ),
        opts=ctx.opts(parent=topic),
    )
    return topic


def _topic_policy(topic_arn: str, account_id: str, services: list[str], part: str) -> str:
    """Owner keeps full control (a TopicPolicy replaces the default policy); each service may
    only publish, and only on behalf of this account."""
    statements: list[dict[str, Any]] = [
        {"Sid": "Owner", "Effect": "Allow",
         "Principal": {"AWS": f"arn:{part}:iam::{account_id}:root"},
         "Action": ["sns:GetTopicAttributes", "sns:SetTopicAttributes", "sns:Subscribe",
                    "sns:ListSubscriptionsByTopic", "sns:Publish", "sns:DeleteTopic"],
         "Resource": topic_arn},
    ]
    for service in services:
        statements.append({
            "Sid": service.split(".")[0].capitalize() + "Publish", "Effect": "Allow",
            "Principal": {"Service": service}, "Action": "sns:Publish", "Resource": topic_arn,
            "Condition": {"StringEquals": {"aws:SourceAccount": account_id}},
        })
    return json.dumps({"Version": "2012-10-17", "Statement": statements}, sort_keys=True)


def idle_alarm_for_instance(
    ctx: AwsContext, instance: aws.ec2.Instance, topic_arn: pulumi.Input[str]
) -> aws.cloudwatch.MetricAlarm | None:
    """Stop the instance (EC2 stop action) after idle_minutes below the utilisation threshold."""
    return _idle_alarm(
        ctx, {"InstanceId": instance.id}, [ec2_stop_action_arn(ctx.region), topic_arn],
        "stops the instance",
    )


def idle_alarm_for_group(
    ctx: AwsContext, group: aws.autoscaling.Group, topic_arn: pulumi.Input[str]
) -> aws.cloudwatch.MetricAlarm | None:
    """Scale the whole group to zero once every GPU in it has been idle for idle_minutes
    (Maximum over the group's aggregated metric)."""
    if ctx.plan.guardrails.auto_shutdown_idle_minutes is None:
        return None
    to_zero = aws.autoscaling.Policy(
        ctx.name("scale-to-zero"),
        autoscaling_group_name=group.name,
        policy_type=checked("policy_type", "SimpleScaling"),
        adjustment_type=checked("adjustment_type", "ExactCapacity"),
        scaling_adjustment=0,
        cooldown=300,
        opts=ctx.opts(parent=group),
    )
    return _idle_alarm(
        ctx, {"AutoScalingGroupName": group.name}, [to_zero.arn, topic_arn],
        "scales the group to zero",
    )


def _idle_alarm(
    ctx: AwsContext, dimensions: dict[str, Any], actions: list[Any], what: str
) -> aws.cloudwatch.MetricAlarm | None:
    guard = ctx.plan.guardrails
    if guard.auto_shutdown_idle_minutes is None:
        return None
    period, periods = alarm_window(guard.auto_shutdown_idle_minutes)
    return aws.cloudwatch.MetricAlarm(
        ctx.name("idle-gpu"),
        alarm_description=(
            f"infra-gen {ctx.plan.workload}: GPU utilisation below "
            f"{guard.gpu_utilization_below:g}% for {guard.auto_shutdown_idle_minutes} min {what}"
        ),
        namespace=GPU_NAMESPACE,
        metric_name=GPU_METRIC,
        dimensions=dimensions,
        statistic=checked("statistic", "Maximum"),
        period=period,
        evaluation_periods=periods,
        threshold=guard.gpu_utilization_below,
        comparison_operator=checked("comparison_operator", "LessThanThreshold"),
        # No data (agent down, group at zero) must never stop anything: notBreaching.
        treat_missing_data=checked("treat_missing_data", "notBreaching"),
        alarm_actions=actions,
        tags=ctx.tags,
        opts=ctx.opts(),
    )


def schedules(ctx: AwsContext, group: aws.autoscaling.Group) -> list[aws.autoscaling.Schedule]:
    """Scale to zero outside the workload's hours and back to full size at start_hour."""
    crons = schedule_crons(ctx.plan.guardrails.schedule)
    if crons is None:
        return []
    start, stop = crons
    size = ctx.plan.recommendation.instances
    zone = iana_zone(ctx.plan.guardrails.schedule.timezone)
    made = []
    for role, recurrence, desired in (("start", start, size), ("stop", stop, 0)):
        made.append(aws.autoscaling.Schedule(
            ctx.name(f"schedule-{role}"),
            autoscaling_group_name=group.name,
            scheduled_action_name=ctx.name(f"schedule-{role}"),
            recurrence=recurrence,
            time_zone=zone,
            min_size=0,
            max_size=size,
            desired_capacity=desired,
            opts=ctx.opts(parent=group),
        ))
    return made


def spot_events(ctx: AwsContext, topic: aws.sns.Topic) -> aws.cloudwatch.EventRule:
    """EventBridge rule: spot interruption warnings and rebalance recommendations -> topic.

    EC2 events carry no tags, so the rule sees every instance in the region; the message names
    the instance id. The on-instance handler does the actual checkpointing.
    """
    rule = aws.cloudwatch.EventRule(
        ctx.name("spot-events"),
        description=f"infra-gen {ctx.plan.workload}: spot interruption and rebalance notices",
        event_pattern=json.dumps({"source": ["aws.ec2"], "detail-type": list(SPOT_EVENTS)}),
        tags=ctx.tags,
        opts=ctx.opts(),
    )
    aws.cloudwatch.EventTarget(
        ctx.name("spot-events-sns"), rule=rule.name, arn=topic.arn, opts=ctx.opts(parent=rule)
    )
    return rule
