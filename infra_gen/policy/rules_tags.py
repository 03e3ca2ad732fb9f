"""``cost-allocation-tags``: team, project and cost-center on every taggable resource, within
each cloud's limits.

Limits (read 2026-11):
- AWS: at most 50 user tags; key 1-128 chars, value 0-256, letters, digits, spaces and
  ``_ . : / = + - @``; the ``aws:`` prefix is reserved
  (docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html).
- GCP labels: at most 64; keys start with a lowercase letter, keys and values up to 63 of
  lowercase letters, digits, ``_`` and ``-`` (cloud.google.com/compute/docs/labeling-resources).
- Azure: at most 50 tags; name up to 512 chars without ``< > % & \\ ? /``, value up to 256
  (learn.microsoft.com/azure/azure-resource-manager/management/tag-resources).

Which resources are taggable: the types infra-gen renders are listed per cloud (and a listed
type without tags fails); any other resource is checked when it carries a tags/labels property.
AWS provider ``defaultTags`` count for the resource's own ``tags`` (the provider merges them at
deploy time) but not for launch template tag specifications, which tag the instances and volumes
Auto Scaling launches.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from infra_gen.policy.model import (
    UNKNOWN,
    Resource,
    Rule,
    RuleConfig,
    as_list,
    get_path,
    is_unknown,
)
from infra_gen.providers import aws_values, azure_values, gcp_values

REQUIRED_TAGS = ("team", "project", "cost-center")

AWS_TAGGABLE = frozenset(
    {
        "aws:ec2/launchTemplate:LaunchTemplate",
        "aws:autoscaling/group:Group",
        "aws:ec2/instance:Instance",
        "aws:ec2/securityGroup:SecurityGroup",
        "aws:ec2/capacityReservation:CapacityReservation",
        "aws:ec2/keyPair:KeyPair",
        "aws:ec2/fleet:Fleet",
        "aws:ebs/volume:Volume",
        "aws:cloudwatch/metricAlarm:MetricAlarm",
        "aws:cloudwatch/eventRule:EventRule",
        "aws:sns/topic:Topic",
        "aws:iam/role:Role",
        "aws:iam/instanceProfile:InstanceProfile",
        "aws:iam/policy:Policy",
        "aws:budgets/budget:Budget",
        "aws:savingsplans/savingsPlan:SavingsPlan",
    }
)
GCP_LABELABLE = {  # type -> where its labels live
    "gcp:compute/instance:Instance": "labels",
    "gcp:compute/instanceTemplate:InstanceTemplate": "labels",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate": "labels",
    "gcp:compute/disk:Disk": "labels",
    "gcp:pubsub/topic:Topic": "labels",
    "gcp:storage/bucket:Bucket": "labels",
    "gcp:monitoring/alertPolicy:AlertPolicy": "userLabels",
    "gcp:monitoring/notificationChannel:NotificationChannel": "userLabels",
}
# Azure tags nearly every tracked resource; these are the ones infra-gen renders that take none.
AZURE_UNTAGGABLE = frozenset(
    {
        "azure-native:network:Subnet",
        "azure-native:network:SecurityRule",
        "azure-native:consumption:Budget",
        "azure-native:costmanagement:Budget",
        "azure-native:authorization:RoleAssignment",
        "azure-native:authorization:RoleDefinition",
        "azure-native:costmanagement:TagInheritanceSetting",
    }
)
_AWS_CHARS = re.compile(r"^[\w\s.:/=+\-@]*$")
# The clouds' limits are stated once, in the providers' value tables (pure, no SDK import): the
# providers sanitise to them, this rule checks any stack against them.
_GCP_KEY = re.compile(rf"^[a-z][a-z0-9_-]{{0,{gcp_values.LABEL_MAX_CHARS - 1}}}$")
_GCP_VALUE = re.compile(rf"^[a-z0-9_-]{{0,{gcp_values.LABEL_MAX_CHARS}}}$")
_AZURE_FORBIDDEN = azure_values.TAG_NAME_FORBIDDEN


def tag_sets(res: Resource) -> list[tuple[str, Any]]:
    """(where, tags) for each tag map the resource carries; [] when it is not taggable."""
    if res.cloud == "aws":
        return _aws_sets(res)
    if res.cloud == "gcp":
        return _gcp_sets(res)
    if res.cloud == "azure":
        listed = res.type not in AZURE_UNTAGGABLE
        return [("tags", _mapping(res.get("tags")))] if listed or "tags" in res.props else []
    return []


def _aws_sets(res: Resource) -> list[tuple[str, Any]]:
    if res.type not in AWS_TAGGABLE and "tags" not in res.props:
        return []
    own = res.get("tags")
    if isinstance(own, list):  # Auto Scaling group tags: [{key, value, propagateAtLaunch}]
        own = {get_path(t, "key"): get_path(t, "value") for t in own}
    defaults = _mapping(_json(get_path(res.provider_props, "defaultTags")).get("tags"))
    merged = UNKNOWN if is_unknown(own) else {**(defaults or {}), **(_mapping(own) or {})}
    sets: list[tuple[str, Any]] = [("tags", merged)]
    for spec in as_list(res.get("tagSpecifications")):
        kind = get_path(spec, "resourceType", "?")
        sets.append((f"tagSpecifications[{kind}].tags", _mapping(get_path(spec, "tags"))))
    if "volumeTags" in res.props:
        sets.append(("volumeTags", _mapping(res.get("volumeTags"))))
    return sets


def _gcp_sets(res: Resource) -> list[tuple[str, Any]]:
    key = GCP_LABELABLE.get(res.type)
    if key is None:
        return [("labels", _mapping(res.get("labels")))] if "labels" in res.props else []
    sets: list[tuple[str, Any]] = [(key, _mapping(res.get(key)))]
    for index, disk in enumerate(as_list(res.get("disks"))):
        sets.append((f"disks[{index}].labels", _mapping(get_path(disk, "labels"))))
    if res.get("bootDisk.initializeParams") is not None:
        sets.append(
            (
                "bootDisk.initializeParams.labels",
                _mapping(res.get("bootDisk.initializeParams.labels")),
            )
        )
    return sets


def check_tags(res: Resource, config: RuleConfig) -> list[str]:
    required = list(config.get("required_tags", REQUIRED_TAGS))
    problems = []
    for where, tags in tag_sets(res):
        if is_unknown(tags):
            continue
        tags = tags or {}
        missing = [k for k in required if not str(tags.get(k) or "").strip()]
        if missing:
            problems.append(
                f"{res.type} {res.name!r} {where} lacks {', '.join(missing)} "
                f"(has: {', '.join(sorted(map(str, tags))) or 'nothing'})"
            )
        problems += [f"{res.type} {res.name!r} {where}: {p}" for p in _limits(res.cloud, tags)]
    return problems


def _limits(cloud: str, tags: Mapping[str, Any]) -> list[str]:
    checks = {"aws": (50, _aws_tag), "gcp": (64, _gcp_label),
              "azure": (azure_values.MAX_TAGS, _azure_tag)}
    if cloud not in checks:
        return []
    most, one = checks[cloud]
    found = [f"{len(tags)} tags, more than {cloud}'s limit of {most}"] if len(tags) > most else []
    for key, value in sorted(tags.items(), key=lambda kv: str(kv[0])):
        if is_unknown(value):
            continue
        why = one(str(key), "" if value is None else str(value))
        if why:
            found.append(f"{key}={value!r}: {why}")
    return found


def _aws_tag(key: str, value: str) -> str | None:
    key_max, value_max = aws_values.TAG_KEY_MAX_CHARS, aws_values.TAG_VALUE_MAX_CHARS
    if not 1 <= len(key) <= key_max or len(value) > value_max:
        return f"AWS allows keys of 1-{key_max} and values of up to {value_max} characters"
    if key.lower().startswith("aws:"):
        return "the aws: prefix is reserved"
    if not (_AWS_CHARS.match(key) and _AWS_CHARS.match(value)):
        return "AWS allows letters, digits, spaces and _ . : / = + - @"
    return None


def _gcp_label(key: str, value: str) -> str | None:
    if not _GCP_KEY.match(key):
        return "GCP label keys: a lowercase letter, then up to 62 of [a-z0-9_-]"
    if not _GCP_VALUE.match(value):
        return "GCP label values: up to 63 of lowercase letters, digits, _ and -"
    return None


def _azure_tag(key: str, value: str) -> str | None:
    name_max, value_max = azure_values.MAX_TAG_NAME_CHARS, azure_values.MAX_TAG_VALUE_CHARS
    if not 1 <= len(key) <= name_max or len(value) > value_max:
        return f"Azure allows names of 1-{name_max} and values of up to {value_max} characters"
    if _AZURE_FORBIDDEN.search(key):
        return "Azure tag names cannot contain < > % & \\ ? /"
    return None


def _mapping(value: Any) -> Any:
    if is_unknown(value):
        return UNKNOWN
    return dict(value) if isinstance(value, Mapping) else None


def _json(value: Any) -> dict[str, Any]:
    """Provider inputs arrive JSON-encoded from the Python SDK; CrossGuard may decode them."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return dict(value) if isinstance(value, Mapping) else {}


TAGS = Rule(
    id="cost-allocation-tags",
    description="team, project and cost-center on every taggable resource (labels on GCP), "
    "with values within each cloud's limits.",
    level="mandatory",
    scope="resource",
    check=check_tags,
    remediation="Set owner.team/project/cost_center in the workload file; providers tag.",
    config_schema={
        "required_tags": {
            "type": "array",
            "items": {"type": "string"},
            "default": list(REQUIRED_TAGS),
            "description": "Tag keys every taggable resource needs.",
        }
    },
)
