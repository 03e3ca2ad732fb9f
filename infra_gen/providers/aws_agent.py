"""The CloudWatch agent that feeds the idle-GPU alarm, installed and configured through SSM.

The alarm reads ``CWAgent / nvidia_smi_utilization_gpu`` by ``InstanceId`` or
``AutoScalingGroupName``. Those series only exist if the agent collects ``nvidia_gpu`` metrics,
appends both dimensions and aggregates on each (an alarm's dimensions must match exactly;
"Collect NVIDIA GPU metrics" and "Manually create or edit the CloudWatch agent configuration
file" in the CloudWatch user guide). Rather than touching user data, two State Manager
associations, targeted at the workload tag, install the agent package and load this config from
an SSM parameter; they also apply to instances the group launches later. The instance role's
CloudWatchAgentServerPolicy allows reading ``AmazonCloudWatch-*`` parameters, which is why the
parameter name starts that way.
"""

from __future__ import annotations

import json

import pulumi_aws as aws

from infra_gen.providers.aws_base import AwsContext

AGENT_INTERVAL_SECONDS = 60  # the idle alarm's shortest period is 60 s (aws_values.alarm_window)
# Associations run independently on a new instance, so "configure" can run before "install" has
# finished; re-applying both every 30 minutes (State Manager's shortest rate) heals that race.
RETRY_SCHEDULE = "rate(30 minutes)"


def agent_config() -> str:
    """CloudWatch agent JSON: GPU utilisation and memory, rolled up by instance and by group."""
    config = {
        "agent": {"metrics_collection_interval": AGENT_INTERVAL_SECONDS},
        "metrics": {
            "namespace": "CWAgent",
            "append_dimensions": {
                "InstanceId": "${aws:InstanceId}",
                "AutoScalingGroupName": "${aws:AutoScalingGroupName}",
            },
            "aggregation_dimensions": [["InstanceId"], ["AutoScalingGroupName"]],
            "metrics_collected": {
                "nvidia_gpu": {
                    "measurement": ["utilization_gpu", "memory_used", "memory_total"],
                    "metrics_collection_interval": AGENT_INTERVAL_SECONDS,
                }
            },
        },
    }
    return json.dumps(config, sort_keys=True)


def cloudwatch_agent(ctx: AwsContext) -> aws.ssm.Parameter:
    """SSM parameter with the agent config + install and configure associations."""
    parameter = aws.ssm.Parameter(
        ctx.name("cw-agent-config"),
        name=f"AmazonCloudWatch-infra-gen-{ctx.plan.workload}",
        type="String",
        insecure_value=agent_config(),  # not a secret: `value` would be stored encrypted
        description=f"infra-gen {ctx.plan.workload}: CloudWatch agent GPU metrics",
        tags=ctx.tags,
        opts=ctx.opts(),
    )
    targets = [aws.ssm.AssociationTargetArgs(key="tag:workload", values=[ctx.tags["workload"]])]
    install = aws.ssm.Association(
        ctx.name("cw-agent-install"),
        name="AWS-ConfigureAWSPackage",
        parameters={"action": "Install", "name": "AmazonCloudWatchAgent"},
        targets=targets,
        schedule_expression=RETRY_SCHEDULE,
        tags=ctx.tags,
        opts=ctx.opts(),
    )
    aws.ssm.Association(
        ctx.name("cw-agent-configure"),
        name="AmazonCloudWatch-ManageAgent",
        parameters={
            "action": "configure",
            "mode": "ec2",
            "optionalConfigurationSource": "ssm",
            "optionalConfigurationLocation": parameter.name,
            "optionalRestart": "yes",
        },
        targets=targets,
        schedule_expression=RETRY_SCHEDULE,
        tags=ctx.tags,
        opts=ctx.opts(depends_on=[install]),
    )
    return parameter
