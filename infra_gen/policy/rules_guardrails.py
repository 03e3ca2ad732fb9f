"""Guardrail rules: every GPU capacity resource has a shutdown path, the stack has a budget that
alerts, and no irreversible commitment slips in unapproved."""

from __future__ import annotations

import base64
import binascii
import re

from infra_gen.policy.capacity import (
    AWS_GROUP,
    AWS_INSTANCE,
    AZURE_VM,
    AZURE_VMSS,
    GCP_GROUPS,
    GCP_INSTANCE,
    GCP_TEMPLATES,
    CapacityUnit,
    gpu_capacity,
    referenced,
    refers_to,
)
from infra_gen.policy.model import (
    Finding,
    Resource,
    Rule,
    RuleConfig,
    Stack,
    as_list,
    get_path,
    is_unknown,
)

_EC2_STOP = re.compile(r"^arn:aws[\w-]*:automate:[\w-]+:ec2:(stop|terminate)$")
_METRIC_ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
_ASG_POLICY = "aws:autoscaling/policy:Policy"
_ASG_SCHEDULE = "aws:autoscaling/schedule:Schedule"
_GCP_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
_GCP_AUTOSCALERS = (
    "gcp:compute/regionAutoscaler:RegionAutoscaler",
    "gcp:compute/autoscaler:Autoscaler",
)
_DEVTEST_SCHEDULE = "azure-native:devtestlab:GlobalSchedule"
_AUTOSCALE = "azure-native:monitor:AutoscaleSetting"
# First comment line of templates/watchdog.sh.j2; the startup script embeds the watchdog only
# when auto-shutdown is on (infra_gen.startup.render_watchdog), so the marker is the evidence.
WATCHDOG_MARKER = "infra-gen idle watchdog"
# Where each capacity resource (or its template/profile) carries its boot script.
_BOOT_SCRIPT_PATHS = (
    "userData",
    "userDataBase64",
    "metadataStartupScript",
    "metadata.startup-script",
    "osProfile.customData",
    "virtualMachineProfile.userData",
    "virtualMachineProfile.osProfile.customData",
)


def check_auto_shutdown(stack: Stack, config: RuleConfig) -> list[Finding]:
    findings = []
    for unit in gpu_capacity(stack):
        if not _shutdown_paths(unit, stack):
            findings.append(
                Finding(
                    unit.resource.name,
                    (
                        f"{unit.resource.type} {unit.resource.name!r} "
                        f"({unit.instance_type or 'GPU'}, "
                        f"{unit.instances} at peak) has no idle or schedule shutdown path attached "
                        f"({_EXPECTED[unit.resource.type]}); remove 'auto_shutdown: null' from the "
                        "workload's guardrails"
                    ),
                )
            )
    return findings


_EXPECTED = {
    AWS_INSTANCE: "a CloudWatch alarm on its InstanceId with the EC2 stop action",
    AWS_GROUP: "a scheduled action to 0 or an alarm driving a scale-to-zero policy",
    GCP_INSTANCE: "an instance-schedule resource policy or max run duration",
    **{
        t: "a schedule policy on its template, max run duration or an autoscaler schedule"
        for t in GCP_GROUPS
    },
    AZURE_VM: "a DevTest Labs shutdown-computevm schedule",
    AZURE_VMSS: "an autoscale setting with a profile at minimum 0",
}
_EXPECTED = {k: f"{v}, or the idle watchdog in its boot script" for k, v in _EXPECTED.items()}


def _shutdown_paths(unit: CapacityUnit, stack: Stack) -> list[str]:
    """Names of the resources that stop or scale down ``unit``."""
    res = unit.resource
    finders = {
        AWS_INSTANCE: _aws_instance_stops,
        AWS_GROUP: _aws_group_stops,
        GCP_INSTANCE: _gcp_instance_stops,
        AZURE_VM: _azure_vm_stops,
        AZURE_VMSS: _azure_vmss_stops,
    }
    finder = finders.get(res.type, _gcp_group_stops)
    found = finder(res, stack)
    boot = _boot_carrier(unit, stack)
    if boot is not None and _has_watchdog(boot):
        found.append(f"{boot.name} boot script: {WATCHDOG_MARKER}")
    return found


def _boot_carrier(unit: CapacityUnit, stack: Stack) -> Resource | None:
    """The resource whose boot script the unit's instances run: itself, or its template."""
    res = unit.resource
    if res.type == AWS_GROUP:
        spec = res.get(
            "mixedInstancesPolicy.launchTemplate.launchTemplateSpecification"
        ) or res.get("launchTemplate")
        ref = (
            get_path(spec, "launchTemplateId")
            or get_path(spec, "id")
            or get_path(spec, "launchTemplateName")
            or get_path(spec, "name")
        )
        return referenced(ref, stack.of_type("aws:ec2/launchTemplate:LaunchTemplate"))
    if res.type in GCP_GROUPS:
        refs = [
            v.get("instanceTemplate") for v in as_list(res.get("versions")) if isinstance(v, dict)
        ]
        templates = [t for t in stack.resources if t.type in GCP_TEMPLATES]
        return referenced(refs[0] if refs else None, templates)
    return res


def _has_watchdog(res: Resource) -> bool:
    for path in _BOOT_SCRIPT_PATHS:
        script = get_path(res.props, path) if "." in path else res.props.get(path)
        if isinstance(script, str) and WATCHDOG_MARKER in _decoded(script):
            return True
    return False


def _decoded(script: str) -> str:
    """Boot scripts are plain (GCP metadata) or base64 (AWS launch templates, Azure)."""
    if WATCHDOG_MARKER in script:
        return script
    try:
        return base64.b64decode(script, validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return script


def _aws_instance_stops(res: Resource, stack: Stack) -> list[str]:
    return [
        a.name
        for a in stack.of_type(_METRIC_ALARM)
        if refers_to(a.get("dimensions.InstanceId"), res)
        and any(
            is_unknown(x) or (isinstance(x, str) and _EC2_STOP.match(x))
            for x in as_list(a.get("alarmActions"))
        )
    ]


def _aws_group_stops(res: Resource, stack: Stack) -> list[str]:
    to_zero = [
        p
        for p in stack.of_type(_ASG_POLICY)
        if refers_to(p.get("autoscalingGroupName"), res)
        and p.get("adjustmentType") == "ExactCapacity"
        and p.get("scalingAdjustment") == 0
    ]
    alarms = [
        a.name
        for a in stack.of_type(_METRIC_ALARM)
        if refers_to(a.get("dimensions.AutoScalingGroupName"), res)
        and any(refers_to(a.get("alarmActions"), p) for p in to_zero)
    ]
    schedules = [
        s.name
        for s in stack.of_type(_ASG_SCHEDULE)
        if refers_to(s.get("autoscalingGroupName"), res)
        and (s.get("desiredCapacity") == 0 or s.get("maxSize") == 0)
    ]
    return alarms + schedules


def _gcp_schedule_policies(stack: Stack) -> list[Resource]:
    return [
        p
        for p in stack.of_type(_GCP_POLICY)
        if get_path(p.props, "instanceSchedulePolicy.vmStopSchedule.schedule")
    ]


def _gcp_instance_stops(res: Resource, stack: Stack) -> list[str]:
    found = [
        p.name for p in _gcp_schedule_policies(stack) if refers_to(res.get("resourcePolicies"), p)
    ]
    return found + (["scheduling.maxRunDuration"] if res.get("scheduling.maxRunDuration") else [])


def _gcp_group_stops(res: Resource, stack: Stack) -> list[str]:
    refs = [v.get("instanceTemplate") for v in as_list(res.get("versions")) if isinstance(v, dict)]
    templates = [t for t in stack.resources if t.type in GCP_TEMPLATES]
    template = referenced(refs[0] if refs else None, templates)
    found: list[str] = []
    if template is not None:
        found += _gcp_instance_stops(template, stack)
    for scaler in stack.resources:
        if scaler.type in _GCP_AUTOSCALERS and refers_to(scaler.get("target"), res):
            policy = scaler.get("autoscalingPolicy", {})
            if get_path(policy, "scalingSchedules") or get_path(policy, "minReplicas") == 0:
                found.append(scaler.name)
    return found


def _azure_vm_stops(res: Resource, stack: Stack) -> list[str]:
    return [
        s.name
        for s in stack.of_type(_DEVTEST_SCHEDULE)
        if refers_to(s.get("targetResourceId"), res)
        and s.get("status") != "Disabled"
        and s.get("taskType", "ComputeVmShutdownTask") == "ComputeVmShutdownTask"
    ]


def _azure_vmss_stops(res: Resource, stack: Stack) -> list[str]:
    found = []
    for setting in stack.of_type(_AUTOSCALE):
        if not refers_to(setting.get("targetResourceUri"), res) or setting.get("enabled") is False:
            continue
        if any(
            str(get_path(p, "capacity.minimum")) == "0" for p in as_list(setting.get("profiles"))
        ):
            found.append(setting.name)
    return found


AUTO_SHUTDOWN = Rule(
    id="gpu-auto-shutdown-required",
    description="Every GPU capacity resource has an idle or schedule shutdown path attached "
    "(alarm, schedule policy, autoscale schedule or DevTest schedule).",
    level="mandatory",
    scope="stack",
    check=check_auto_shutdown,
    remediation="Keep guardrails.auto_shutdown in the workload file (it is on by default).",
)
