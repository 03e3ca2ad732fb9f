"""Hand-written stacks in the shape ``render_plan`` records (engine names, numbers as floats),
one compliant stack per cloud, mirroring what issues 7-9 specify and the providers render.

Tests take a compliant stack and break exactly one thing, so each rule is shown to pass on the
good shape and fail on the bad one, independent of the providers' code.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

from infra_gen.plan import PurchaseMix
from infra_gen.policy.facts import FACTS_KEY, facts_from_plan
from infra_gen.policy.model import Resource
from tests.factories import sample_plan

TAGS = {
    "team": "ml-platform",
    "project": "petsnap",
    "cost-center": "ml-prod",
    "workload": "petsnap-serving",
    "managed-by": "infra-gen",
}
WATCHDOG = "#!/bin/bash\n# infra-gen idle watchdog, run once a minute\n"
NO_WATCHDOG = "#!/bin/bash\necho plain boot\n"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def component(cloud: str = "aws", **plan_args: Any) -> Resource:
    facts = facts_from_plan(sample_plan(cloud, **plan_args)).to_props()
    # As recorded under mocks: the engine turns every number into a float.
    facts = json.loads(json.dumps(facts), parse_int=float)
    return Resource("infra-gen:index:GpuWorkload", facts["workload"], {FACTS_KEY: facts})


def aws_group_stack(spot: int = 2, base: int = 2, reserved: int = 1) -> list[Resource]:
    """An Auto Scaling group of g5.xlarge: ``base`` on-demand (incl. ``reserved``), the rest
    spot, with launch template, reservation, idle alarm + scale-to-zero policy and budget."""
    peak = base + spot
    mix = PurchaseMix(
        reserved=reserved,
        on_demand=base - reserved,
        spot=spot,
        reserved_term="1y" if reserved else None,
    )
    return [
        component("aws", purchase=mix),
        Resource(
            "pulumi:providers:aws",
            "petsnap-serving-aws",
            {"region": "us-east-1", "defaultTags": json.dumps({"tags": TAGS})},
        ),
        Resource(
            "aws:ec2/launchTemplate:LaunchTemplate",
            "petsnap-serving-lt",
            {
                "instanceType": "g5.xlarge",
                "imageId": "ami-0123456789abcdef0",
                "metadataOptions": {"httpEndpoint": "enabled", "httpTokens": "required"},
                "blockDeviceMappings": [
                    {
                        "deviceName": "/dev/sda1",
                        "ebs": {"volumeSize": 200.0, "volumeType": "gp3", "encrypted": "true"},
                    }
                ],
                "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "false"}],
                "tagSpecifications": [
                    {"resourceType": k, "tags": dict(TAGS)} for k in ("instance", "volume")
                ],
                "userData": b64(WATCHDOG),
                "tags": dict(TAGS),
            },
        ),
        Resource(
            "aws:autoscaling/group:Group",
            "petsnap-serving-asg",
            {
                "minSize": 0.0,
                "maxSize": float(peak),
                "desiredCapacity": float(peak),
                "mixedInstancesPolicy": {
                    "instancesDistribution": {
                        "onDemandBaseCapacity": float(base),
                        "onDemandPercentageAboveBaseCapacity": 0.0,
                        "spotAllocationStrategy": "price-capacity-optimized",
                    },
                    "launchTemplate": {
                        "launchTemplateSpecification": {
                            "launchTemplateId": "petsnap-serving-lt-id"
                        },
                        "overrides": [{"instanceType": "g5.xlarge"}, {"instanceType": "g6.xlarge"}],
                    },
                },
                "tags": [
                    {"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()
                ],
            },
        ),
        Resource(
            "aws:ec2/capacityReservation:CapacityReservation",
            "petsnap-serving-reservation",
            {
                "instanceType": "g5.xlarge",
                "instanceCount": float(reserved),
                "instancePlatform": "Linux/UNIX",
                "tags": dict(TAGS),
            },
        ),
        Resource(
            "aws:autoscaling/policy:Policy",
            "petsnap-serving-scale-to-zero",
            {
                "autoscalingGroupName": "petsnap-serving-asg",
                "adjustmentType": "ExactCapacity",
                "scalingAdjustment": 0.0,
                "policyType": "SimpleScaling",
            },
        ),
        Resource(
            "aws:cloudwatch/metricAlarm:MetricAlarm",
            "petsnap-serving-idle-gpu",
            {
                "dimensions": {"AutoScalingGroupName": "petsnap-serving-asg"},
                "alarmActions": [
                    "arn:aws:autoscaling:us-east-1:123456789012:petsnap-serving-scale-to-zero"
                ],
                "threshold": 5.0,
                "comparisonOperator": "LessThanThreshold",
                "tags": dict(TAGS),
            },
        ),
        aws_budget(),
        Resource(
            "aws:ec2/securityGroup:SecurityGroup",
            "petsnap-serving-sg",
            {
                "ingress": [],
                "egress": [
                    {"protocol": "-1", "fromPort": 0.0, "toPort": 0.0, "cidrBlocks": ["0.0.0.0/0"]}
                ],
                "tags": dict(TAGS),
            },
        ),
        Resource(
            "aws:autoscaling/schedule:Schedule",
            "petsnap-serving-schedule-stop",
            {
                "autoscalingGroupName": "petsnap-serving-asg",
                "desiredCapacity": 0.0,
                "minSize": 0.0,
                "maxSize": float(peak),
                "recurrence": "0 21 * * MON-FRI",
            },
        ),
    ]


def aws_budget(**changes: Any) -> Resource:
    props = {
        "budgetType": "COST",
        "timeUnit": "MONTHLY",
        "limitAmount": "1000",
        "costFilters": [{"name": "TagKeyValue", "values": ["user:workload$petsnap-serving"]}],
        "notifications": [
            {
                "threshold": 80.0,
                "thresholdType": "PERCENTAGE",
                "notificationType": "FORECASTED",
                "comparisonOperator": "GREATER_THAN",
                "subscriberEmailAddresses": ["ml-oncall@example.com"],
            }
        ],
        "tags": dict(TAGS),
    }
    props.update(changes)
    return Resource("aws:budgets/budget:Budget", "petsnap-serving-budget", props)


def aws_instance_stack() -> list[Resource]:
    """One on-demand g5.xlarge instance with its stop alarm (the single-instance shape)."""
    return [
        component("aws"),
        Resource(
            "aws:ec2/instance:Instance",
            "petsnap-serving-instance",
            {
                "instanceType": "g5.xlarge",
                "associatePublicIpAddress": False,
                "metadataOptions": {"httpTokens": "required"},
                "rootBlockDevice": {"volumeSize": 200.0, "encrypted": True},
                "userDataBase64": b64(NO_WATCHDOG),
                "tags": dict(TAGS),
                "volumeTags": dict(TAGS),
            },
        ),
        Resource(
            "aws:cloudwatch/metricAlarm:MetricAlarm",
            "petsnap-serving-idle-gpu",
            {
                "dimensions": {"InstanceId": "petsnap-serving-instance-id"},
                "alarmActions": ["arn:aws:automate:us-east-1:ec2:stop"],
                "tags": dict(TAGS),
            },
        ),
        aws_budget(),
    ]


def gcp_stack(spot: int = 2) -> list[Resource]:
    """An on-demand MIG (1) and a spot MIG (``spot``) of g2-standard-4 with labels, a
    schedule policy on the templates, and a billing budget."""
    labels = {k: v.replace(" ", "_") for k, v in TAGS.items()}
    mix = PurchaseMix(on_demand=1, spot=spot)
    resources = [
        component("gcp", purchase=mix),
        Resource(
            "gcp:compute/resourcePolicy:ResourcePolicy",
            "petsnap-serving-schedule",
            {
                "instanceSchedulePolicy": {
                    "timeZone": "UTC",
                    "vmStopSchedule": {"schedule": "0 21 * * 1-5"},
                }
            },
        ),
    ]
    for role, count, model in (("on-demand", 1, "STANDARD"), ("spot", spot, "SPOT")):
        resources += [
            Resource(
                "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
                f"petsnap-serving-{role}-template",
                {
                    "machineType": "g2-standard-4",
                    "labels": dict(labels),
                    "scheduling": {"provisioningModel": model, "onHostMaintenance": "TERMINATE"},
                    "disks": [{"boot": True, "diskSizeGb": 200.0, "labels": dict(labels)}],
                    "networkInterfaces": [{"network": "default", "accessConfigs": []}],
                    "resourcePolicies": ["petsnap-serving-schedule-id"],
                    "metadata": {"startup-script": NO_WATCHDOG},
                },
            ),
            Resource(
                "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
                f"petsnap-serving-{role}-group",
                {
                    "targetSize": float(count),
                    "region": "us-central1",
                    "versions": [{"instanceTemplate": f"petsnap-serving-{role}-template-id"}],
                },
            ),
        ]
    resources.append(
        Resource(
            "gcp:billing/budget:Budget",
            "petsnap-serving-budget",
            {
                "billingAccount": "000000-000000-000000",
                "amount": {"specifiedAmount": {"currencyCode": "USD", "units": "1000"}},
                "budgetFilter": {"labels": {"workload": "petsnap-serving"}},
                "thresholdRules": [{"thresholdPercent": 0.5}, {"thresholdPercent": 1.0}],
            },
        )
    )
    return resources


def azure_stack(spot: int = 2, base: int = 1) -> list[Resource]:
    """A flexible scale set of Standard_NC4as_T4_v3 with a Spot priority mix, an autoscale
    setting that scales it to 0 at night, an NSG without inbound rules and a budget."""
    mix = PurchaseMix(on_demand=base, spot=spot)
    peak = base + spot
    return [
        component("azure", purchase=mix),
        Resource(
            "azure-native:compute:VirtualMachineScaleSet",
            "petsnap-serving-vmss",
            {
                "sku": {"name": "Standard_NC4as_T4_v3", "capacity": float(peak)},
                "orchestrationMode": "Flexible",
                "priorityMixPolicy": {
                    "baseRegularPriorityCount": float(base),
                    "regularPriorityPercentageAboveBase": 0.0,
                },
                "virtualMachineProfile": {
                    "priority": "Spot",
                    "evictionPolicy": "Delete",
                    "billingProfile": {"maxPrice": -1.0},
                    "userData": b64(NO_WATCHDOG),
                    "storageProfile": {
                        "osDisk": {
                            "createOption": "FromImage",
                            "managedDisk": {"storageAccountType": "Premium_LRS"},
                        }
                    },
                },
                "tags": dict(TAGS),
            },
        ),
        Resource(
            "azure-native:monitor:AutoscaleSetting",
            "petsnap-serving-autoscale",
            {
                "targetResourceUri": "petsnap-serving-vmss-id",
                "enabled": True,
                "profiles": [
                    {
                        "name": "workday",
                        "capacity": {
                            "minimum": str(peak),
                            "maximum": str(peak),
                            "default": str(peak),
                        },
                        "rules": [],
                    },
                    {
                        "name": "nightly-zero",
                        "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
                        "rules": [],
                    },
                ],
                "tags": dict(TAGS),
            },
        ),
        Resource(
            "azure-native:network:NetworkSecurityGroup",
            "petsnap-serving-nsg",
            {"securityRules": [], "tags": dict(TAGS)},
        ),
        Resource(
            "azure-native:network:Subnet",
            "petsnap-serving-subnet",
            {"addressPrefix": "10.0.0.0/24"},
        ),
        Resource(
            "azure-native:consumption:Budget",
            "petsnap-serving-budget",
            {
                "amount": 1000.0,
                "category": "Cost",
                "timeGrain": "Monthly",
                "filter": {
                    "tags": {"name": "workload", "operator": "In", "values": ["petsnap-serving"]}
                },
                "notifications": {
                    "actual-80": {
                        "enabled": True,
                        "operator": "GreaterThan",
                        "threshold": 80.0,
                        "thresholdType": "Actual",
                        "contactEmails": ["ml-oncall@example.com"],
                    }
                },
            },
        ),
    ]


def replace(resources: list[Resource], name: str, **props: Any) -> list[Resource]:
    """A copy of ``resources`` with ``name``'s props updated (None deletes a key)."""
    out = []
    for res in resources:
        if res.name == name:
            new = copy.deepcopy(dict(res.props))
            for key, value in props.items():
                if value is None:
                    new.pop(key, None)
                else:
                    new[key] = value
            res = Resource(res.type, res.name, new, res.urn, res.provider_props)
        out.append(res)
    return out


def without(resources: list[Resource], *types_or_names: str) -> list[Resource]:
    return [r for r in resources if r.type not in types_or_names and r.name not in types_or_names]
