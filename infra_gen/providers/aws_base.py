"""AWS foundations every plan shares: the explicit provider, network lookups, IAM, security group.

Imported only from ``AwsProvider.render``: it imports ``pulumi_aws`` at module level.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws

from infra_gen.plan import Plan
from infra_gen.providers.aws_values import aws_tags, partition
from infra_gen.providers.base import RenderOptions, cost_tags, resource_name

# AWS managed policies the instance role gets, and nothing else (least privilege):
# the CloudWatch agent publishes GPU metrics; SSM gives shell access without any inbound port.
MANAGED_POLICIES = ("CloudWatchAgentServerPolicy", "AmazonSSMManagedInstanceCore")


@dataclass
class AwsContext:
    """What every AWS builder needs: the plan, where children go, and the tags they carry."""

    plan: Plan
    options: RenderOptions
    parent: pulumi.Resource
    provider: aws.Provider
    tags: dict[str, str]
    ids: dict[str, Any] = field(default_factory=dict)

    @property
    def region(self) -> str:
        return self.plan.recommendation.region

    def name(self, role: str) -> str:
        return resource_name(self.plan, role)

    def opts(self, **kwargs: Any) -> pulumi.ResourceOptions:
        kwargs.setdefault("parent", self.parent)
        return pulumi.ResourceOptions(provider=self.provider, **kwargs)

    def invoke_opts(self) -> pulumi.InvokeOptions:
        return pulumi.InvokeOptions(parent=self.parent, provider=self.provider)


def make_context(plan: Plan, options: RenderOptions, parent: pulumi.Resource) -> AwsContext:
    """An explicit provider for the plan's region, with the cost tags as default tags.

    Default tags reach every taggable resource at deploy time; each builder ALSO sets ``tags``
    explicitly so the rendered inputs (and the policy pack reading them) show them.
    """
    tags = aws_tags(cost_tags(plan))
    provider = aws.Provider(
        resource_name(plan, "aws"),
        region=plan.recommendation.region,
        default_tags=aws.ProviderDefaultTagsArgs(tags=tags),
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return AwsContext(plan, options, parent, provider, tags)


@dataclass(frozen=True)
class Network:
    vpc_id: pulumi.Input[str]
    subnet_ids: pulumi.Input[list[str]]
    default_vpc: bool


def network(ctx: AwsContext) -> Network:
    """The workload's subnets in its order, or the default VPC and all its subnets, sorted."""
    if ctx.plan.subnets:
        first = aws.ec2.get_subnet_output(id=ctx.plan.subnets[0], opts=ctx.invoke_opts())
        return Network(first.vpc_id, list(ctx.plan.subnets), default_vpc=False)
    vpc = aws.ec2.get_vpc_output(default=True, opts=ctx.invoke_opts())
    subnets = aws.ec2.get_subnets_output(
        filters=vpc.id.apply(
            lambda vpc_id: [aws.ec2.GetSubnetsFilterArgs(name="vpc-id", values=[vpc_id])]
        ),
        opts=ctx.invoke_opts(),
    )
    # Sorted, so "the first subnet" (single instance, reservation AZ) is stable across runs.
    return Network(vpc.id, subnets.ids.apply(sorted), default_vpc=True)


def security_group(ctx: AwsContext, vpc_id: pulumi.Input[str]) -> aws.ec2.SecurityGroup:
    """Egress only: no inbound rule at all (shell access goes through SSM Session Manager)."""
    return aws.ec2.SecurityGroup(
        ctx.name("sg"),
        description=f"infra-gen {ctx.plan.workload}: egress only, no inbound",
        vpc_id=vpc_id,
        ingress=[],
        egress=[
            aws.ec2.SecurityGroupEgressArgs(
                protocol="-1", from_port=0, to_port=0, cidr_blocks=["0.0.0.0/0"],
                ipv6_cidr_blocks=["::/0"], description="all outbound",
            )
        ],
        tags=ctx.tags,
        opts=ctx.opts(),
    )


def instance_profile(ctx: AwsContext) -> aws.iam.InstanceProfile:
    """Role for EC2 with only the CloudWatch agent and SSM managed policies (plus write access
    to the checkpoint bucket prefix when the workload syncs checkpoints to S3)."""
    part = partition(ctx.region)
    role = aws.iam.Role(
        ctx.name("role"),
        description=f"infra-gen {ctx.plan.workload} GPU instances",
        assume_role_policy=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                           "Principal": {"Service": "ec2.amazonaws.com"}}],
        }),
        tags=ctx.tags,
        opts=ctx.opts(),
    )
    for policy in MANAGED_POLICIES:
        aws.iam.RolePolicyAttachment(
            ctx.name(f"role-{policy.lower()}"),
            role=role.name,
            policy_arn=f"arn:{part}:iam::aws:policy/{policy}",
            opts=ctx.opts(parent=role),
        )
    _checkpoint_bucket_policy(ctx, role, part)
    return aws.iam.InstanceProfile(
        ctx.name("profile"), role=role.name, tags=ctx.tags, opts=ctx.opts()
    )


def _checkpoint_bucket_policy(ctx: AwsContext, role: aws.iam.Role, part: str) -> None:
    url = ctx.plan.guardrails.checkpoint_sync_bucket_url
    if not url or not url.startswith("s3://"):
        return
    bucket, _, prefix = url[len("s3://"):].partition("/")
    objects = f"arn:{part}:s3:::{bucket}/{prefix.rstrip('/') + '/' if prefix else ''}*"
    statements: list[dict[str, Any]] = [
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
         "Resource": objects},
        {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:{part}:s3:::{bucket}"},
    ]
    aws.iam.RolePolicy(
        ctx.name("role-checkpoints"),
        role=role.name,
        policy=json.dumps({"Version": "2012-10-17", "Statement": statements}),
        opts=ctx.opts(parent=role),
    )
