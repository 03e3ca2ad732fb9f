"""Shared helpers for the AWS provider tests: resource type tokens, tags, lookups."""

from __future__ import annotations

import inspect
from collections import Counter
from typing import Any

from infra_gen.render import RenderedResource

TAGS = {"team": "ml-platform", "project": "petsnap", "cost-center": "ml-prod",
        "workload": "petsnap-serving", "managed-by": "infra-gen"}
EQUIVALENTS = ["g5.2xlarge", "g6.xlarge"]
LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
INSTANCE = "aws:ec2/instance:Instance"
ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
BUDGET = "aws:budgets/budget:Budget"
RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
SAVINGS_PLAN = "aws:savingsplans/savingsPlan:SavingsPlan"
SCHEDULE = "aws:autoscaling/schedule:Schedule"
EVENT_RULE = "aws:cloudwatch/eventRule:EventRule"
POLICY = "aws:autoscaling/policy:Policy"
TOPIC = "aws:sns/topic:Topic"

# Resources every plan with guardrails on gets, whatever its capacity shape.
COMMON = {
    "pulumi:providers:aws": 1, "infra-gen:index:GpuWorkload": 1,
    "aws:ec2/securityGroup:SecurityGroup": 1, "aws:iam/role:Role": 1,
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 2,
    "aws:iam/instanceProfile:InstanceProfile": 1, TOPIC: 1,
    "aws:sns/topicPolicy:TopicPolicy": 1, "aws:sns/topicSubscription:TopicSubscription": 1,
    ALARM: 1, BUDGET: 1, "aws:ssm/parameter:Parameter": 1, "aws:ssm/association:Association": 2,
}


def of_type(resources: tuple[RenderedResource, ...] | list[RenderedResource],
            type_: str) -> list[RenderedResource]:
    return [r for r in resources if r.type == type_]


def one(resources: Any, type_: str) -> dict[str, Any]:
    found = of_type(resources, type_)
    assert len(found) == 1, f"{type_}: expected 1, got {len(found)}"
    return found[0].inputs


def counts(resources: Any) -> dict[str, int]:
    return dict(Counter(r.type for r in resources))


def accepts_tags(type_: str) -> bool:
    import pulumi_aws

    if not type_.startswith("aws:"):
        return False
    module, cls = type_.split(":")[1].split("/")[0], type_.split(":")[2]
    resource = getattr(getattr(pulumi_aws, module), cls)
    return "tags" in inspect.signature(resource._internal_init).parameters
