"""Every rule on resources that pass and resources that fail, through both doors at once
(``both_doors`` asserts the check engine and the CrossGuard policy report the same)."""

from __future__ import annotations

import pytest

from infra_gen.policy.model import UNKNOWN
from infra_gen.policy.registry import RULES
from tests.policy import stacks as s
from tests.policy.doors import both_doors

COMPLIANT = {
    "aws-group": s.aws_group_stack,
    "aws-instance": s.aws_instance_stack,
    "gcp": s.gcp_stack,
    "azure": s.azure_stack,
}


@pytest.mark.parametrize("shape", sorted(COMPLIANT))
@pytest.mark.parametrize("rule_id", [r.id for r in RULES])
def test_compliant_stacks_pass_every_rule(shape: str, rule_id: str) -> None:
    assert both_doors(COMPLIANT[shape](), rule_id) == []


def _one(resources: list, rule_id: str) -> tuple[str, str]:
    found = both_doors(resources, rule_id)
    assert len(found) == 1, found
    resource, message = found[0]
    assert message.startswith(f"[{rule_id}] ")
    assert message.endswith(f"See policies/README.md#{rule_id}")
    return resource, message


# --- gpu-auto-shutdown-required -------------------------------------------------------------


def test_auto_shutdown_group_without_alarm_or_schedule_fails() -> None:
    bare = s.without(
        s.aws_group_stack(),
        "aws:cloudwatch/metricAlarm:MetricAlarm",
        "aws:autoscaling/schedule:Schedule",
    )
    bare = s.replace(bare, "petsnap-serving-lt", userData=s.b64(s.NO_WATCHDOG))
    resource, message = _one(bare, "gpu-auto-shutdown-required")
    assert resource == "petsnap-serving-asg"
    assert "g5.xlarge, 4 at peak" in message


def test_auto_shutdown_schedule_alone_or_watchdog_alone_is_a_path() -> None:
    only_schedule = s.without(s.aws_group_stack(), "aws:cloudwatch/metricAlarm:MetricAlarm")
    only_schedule = s.replace(only_schedule, "petsnap-serving-lt", userData=s.b64(s.NO_WATCHDOG))
    assert both_doors(only_schedule, "gpu-auto-shutdown-required") == []
    only_watchdog = s.without(
        s.aws_group_stack(),
        "aws:cloudwatch/metricAlarm:MetricAlarm",
        "aws:autoscaling/schedule:Schedule",
    )
    assert both_doors(only_watchdog, "gpu-auto-shutdown-required") == []


def test_auto_shutdown_alarm_must_target_this_instance_and_stop_it() -> None:
    stack = s.aws_instance_stack()
    notify_only = s.replace(
        stack,
        "petsnap-serving-idle-gpu",
        alarmActions=["arn:aws:sns:us-east-1:123456789012:alerts"],
    )
    assert _one(notify_only, "gpu-auto-shutdown-required")[0] == "petsnap-serving-instance"
    other = s.replace(stack, "petsnap-serving-idle-gpu", dimensions={"InstanceId": "i-someone"})
    assert _one(other, "gpu-auto-shutdown-required")[0] == "petsnap-serving-instance"


def test_auto_shutdown_unknown_reference_during_preview_still_needs_the_alarm() -> None:
    stack = s.replace(
        s.aws_instance_stack(), "petsnap-serving-idle-gpu", dimensions={"InstanceId": UNKNOWN}
    )
    assert both_doors(stack, "gpu-auto-shutdown-required") == []
    gone = s.without(stack, "aws:cloudwatch/metricAlarm:MetricAlarm")
    assert _one(gone, "gpu-auto-shutdown-required")[0] == "petsnap-serving-instance"


def test_auto_shutdown_gcp_and_azure() -> None:
    gcp = s.without(s.gcp_stack(), "gcp:compute/resourcePolicy:ResourcePolicy")
    found = both_doors(gcp, "gpu-auto-shutdown-required")
    assert [r for r, _ in found] == [
        "petsnap-serving-on-demand-group",
        "petsnap-serving-spot-group",
    ]
    azure = s.replace(
        s.azure_stack(),
        "petsnap-serving-autoscale",
        profiles=[{"name": "always", "capacity": {"minimum": "3", "maximum": "3", "default": "3"}}],
    )
    assert _one(azure, "gpu-auto-shutdown-required")[0] == "petsnap-serving-vmss"


# --- budget-required ------------------------------------------------------------------------


def test_budget_missing_fails_for_the_stack() -> None:
    resource, message = _one(
        s.without(s.azure_stack(), "petsnap-serving-budget"), "budget-required"
    )
    assert resource == "" and "no budget" in message and "budget: null" in message


def test_budget_needs_an_alert_at_or_below_100_percent() -> None:
    late = s.aws_instance_stack()[:-1] + [
        s.aws_budget(
            notifications=[
                {
                    "threshold": 120.0,
                    "thresholdType": "PERCENTAGE",
                    "notificationType": "ACTUAL",
                    "subscriberEmailAddresses": ["a@example.com"],
                }
            ]
        )
    ]
    assert "thresholds: 120%" in _one(late, "budget-required")[1]
    # ABSOLUTE_VALUE 900 of a 1000 limit is 90%: in time.
    absolute = s.aws_instance_stack()[:-1] + [
        s.aws_budget(
            notifications=[
                {
                    "threshold": 900.0,
                    "thresholdType": "ABSOLUTE_VALUE",
                    "notificationType": "ACTUAL",
                    "subscriberEmailAddresses": ["a@example.com"],
                }
            ]
        )
    ]
    assert both_doors(absolute, "budget-required") == []


def test_budget_must_filter_on_the_workloads_tags() -> None:
    unfiltered = s.aws_instance_stack()[:-1] + [s.aws_budget(costFilters=[])]
    assert "does not filter" in _one(unfiltered, "budget-required")[1]
    other_team = s.replace(
        s.gcp_stack(), "petsnap-serving-budget", budgetFilter={"labels": {"team": "search"}}
    )
    assert "none of the workload's tags" in _one(other_team, "budget-required")[1]


def test_budget_without_recipients_fails() -> None:
    silent = s.replace(
        s.azure_stack(),
        "petsnap-serving-budget",
        notifications={"actual-80": {"enabled": True, "threshold": 80.0, "contactEmails": []}},
    )
    assert "alerts nobody" in _one(silent, "budget-required")[1]


# --- cost-allocation-tags -------------------------------------------------------------------


def test_tags_missing_on_a_taggable_resource() -> None:
    stack = s.replace(s.azure_stack(), "petsnap-serving-nsg", tags={"team": "ml-platform"})
    resource, message = _one(stack, "cost-allocation-tags")
    assert resource == "petsnap-serving-nsg"
    assert "lacks project, cost-center" in message


def test_aws_default_tags_count_but_not_for_launch_template_tag_specifications() -> None:
    # The instance's own tags come from the provider's defaultTags: fine.
    group = s.replace(s.aws_group_stack(), "petsnap-serving-reservation", tags=None)
    assert both_doors(group, "cost-allocation-tags") == []
    spec = s.replace(
        s.aws_group_stack(),
        "petsnap-serving-lt",
        tagSpecifications=[{"resourceType": "instance", "tags": {"team": "ml-platform"}}],
    )
    assert (
        "tagSpecifications[instance].tags lacks project, cost-center"
        in _one(spec, "cost-allocation-tags")[1]
    )


def test_tag_values_must_fit_each_clouds_limits() -> None:
    gcp = s.replace(
        s.gcp_stack(), "petsnap-serving-spot-template", labels={**s.TAGS, "team": "ML Platform"}
    )
    assert "team='ML Platform': GCP label values" in _one(gcp, "cost-allocation-tags")[1]
    aws = s.replace(
        s.aws_instance_stack(), "petsnap-serving-instance", tags={**s.TAGS, "aws:owner": "x"}
    )
    assert "the aws: prefix is reserved" in _one(aws, "cost-allocation-tags")[1]
    azure = s.replace(s.azure_stack(), "petsnap-serving-nsg", tags={**s.TAGS, "a/b": "x"})
    assert "cannot contain" in _one(azure, "cost-allocation-tags")[1]
    many = {**s.TAGS, **{f"k{i}": "v" for i in range(46)}}  # 5 + 46 = 51 > 50
    assert (
        "51 tags, more than aws's limit of 50"
        in _one(
            s.replace(s.aws_instance_stack(), "petsnap-serving-instance", tags=many),
            "cost-allocation-tags",
        )[1]
    )


def test_untaggable_resources_are_not_checked() -> None:
    stack = s.aws_group_stack()  # the Schedule and Policy carry no tags and are not taggable
    assert both_doors(stack, "cost-allocation-tags") == []
    subnet = [r for r in s.azure_stack() if r.name == "petsnap-serving-subnet"]
    assert both_doors(subnet, "cost-allocation-tags") == []


# --- max-hourly-cost ------------------------------------------------------------------------


def _cap_doors(resources: list, cap: float) -> list[tuple[str, str]]:
    from infra_gen.policy.config import PolicyConfig
    from tests.policy.doors import check_door, crossguard_door

    via_check = check_door(
        resources,
        "max-hourly-cost",
        PolicyConfig(settings={"max-hourly-cost": {"max_hourly_usd": cap}}),
    )
    assert via_check == crossguard_door(resources, "max-hourly-cost", {"max_hourly_usd": cap})
    return via_check


def test_max_hourly_prices_rendered_capacity_from_the_catalog() -> None:
    # g5.xlarge us-east-1 (catalog): 1y reserved $0.6589, on-demand $1.006, spot $0.397.
    # 1 reserved + 1 on-demand + 2 spot = 0.6589 + 1.006 + 2 x 0.397 = $2.4589/h.
    stack = s.aws_group_stack(spot=2, base=2, reserved=1)
    assert _cap_doors(stack, 2.46) == []
    [(resource, message)] = _cap_doors(stack, 2.45)
    assert resource == ""
    assert "estimated $2.46/h at peak exceeds the $2.45/h cap from policy config" in message
    assert "2 x g5.xlarge spot at $0.397/h" in message


def test_max_hourly_uses_the_workloads_own_cap_without_config() -> None:
    # GCP g2-standard-4 us-central1: 1 on-demand $0.70683 + 2 spot x $0.28184 = $1.27051/h.
    stack = s.gcp_stack(spot=2)
    facts = dict(stack[0].props["infraGenFacts"], maxHourlyUsd=1.25)
    stack[0] = s.Resource(stack[0].type, stack[0].name, {"infraGenFacts": facts})
    [(_, message)] = both_doors(stack, "max-hourly-cost")
    assert "$1.27/h at peak exceeds the $1.25/h cap from the workload's guardrails" in message
    assert both_doors(s.gcp_stack(spot=2), "max-hourly-cost") == []  # no cap, no check


def test_max_hourly_falls_back_to_the_plan_estimate_for_unknown_types() -> None:
    stack = s.replace(
        s.azure_stack(),
        "petsnap-serving-vmss",
        sku={"name": "Standard_Unlisted_v9", "capacity": 3.0},
    )
    # sample_plan: 3 x Standard_NC4as_T4_v3 at $0.526 = $1.578/h (the plan's own figure).
    [(_, message)] = _cap_doors(stack, 1.0)
    assert "$1.58/h" in message and "the plan's estimate for 3 x Standard_NC4as_T4_v3" in message


# --- spot-for-interruptible-work / no-spot-only-latency-critical -------------------------------


def _as_training(resources: list, checkpoint: float | None = 30.0) -> list:
    first = resources[0]
    facts = dict(
        first.props["infraGenFacts"], workloadType="fine-tuning", checkpointMinutes=checkpoint
    )
    return [s.Resource(first.type, first.name, {"infraGenFacts": facts}), *resources[1:]]


def test_checkpointed_training_above_the_reserved_baseline_should_be_spot() -> None:
    on_demand = _as_training(s.aws_group_stack(spot=0, base=4, reserved=1))
    resource, message = _one(on_demand, "spot-for-interruptible-work")
    assert resource == "petsnap-serving-asg"
    assert "3 of 4 GPU instances run on-demand above the reserved baseline of 1" in message
    assert "checkpointed every 30 min" in message
    assert (
        both_doors(
            _as_training(s.aws_group_stack(spot=3, base=1, reserved=1)),
            "spot-for-interruptible-work",
        )
        == []
    )
    # Without checkpoints spot would lose work: no advice.
    assert (
        both_doors(
            _as_training(s.aws_group_stack(spot=0, base=4), checkpoint=None),
            "spot-for-interruptible-work",
        )
        == []
    )


def test_inference_must_not_be_all_spot() -> None:
    all_spot = s.azure_stack(spot=3, base=0)
    resource, message = _one(all_spot, "no-spot-only-latency-critical")
    assert resource == "petsnap-serving-vmss"
    assert "all 3 GPU instances" in message
    assert both_doors(s.azure_stack(spot=2, base=1), "no-spot-only-latency-critical") == []
    gcp = s.without(s.gcp_stack(), "petsnap-serving-on-demand-group")
    assert _one(gcp, "no-spot-only-latency-critical")[0] == "petsnap-serving-spot-group"
    # Training may be all spot.
    assert both_doors(_as_training(all_spot), "no-spot-only-latency-critical") == []


def test_aws_percentage_above_base_counts_as_on_demand() -> None:
    stack = s.aws_group_stack(spot=4, base=0, reserved=0)
    assert _one(stack, "no-spot-only-latency-critical")[0] == "petsnap-serving-asg"
    policy = stack[3].props["mixedInstancesPolicy"]
    mixed = dict(
        policy,
        instancesDistribution=dict(
            policy["instancesDistribution"], onDemandPercentageAboveBaseCapacity=25.0
        ),
    )
    # 25% of 4 above a base of 0 = 1 on-demand instance.
    assert (
        both_doors(
            s.replace(stack, "petsnap-serving-asg", mixedInstancesPolicy=mixed),
            "no-spot-only-latency-critical",
        )
        == []
    )


# --- reservation-within-floor ---------------------------------------------------------------


def test_reservation_above_the_always_on_floor() -> None:
    # sample_plan inference, 24x7, replicas_floor 1, 1 GPU per replica on 1-GPU instances:
    # floor = ceil(1 x 1 / 1) = 1 instance. Reserving 2 exceeds it.
    stack = s.replace(s.aws_group_stack(), "petsnap-serving-reservation", instanceCount=2.0)
    resource, message = _one(stack, "reservation-within-floor")
    assert resource == "petsnap-serving-reservation"
    assert "2 instances are reserved" in message and "only 1 run every hour" in message


# --- irreversible-commitment ----------------------------------------------------------------


def test_commitments_need_approval() -> None:
    plan = s.Resource(
        "aws:savingsplans/savingsPlan:SavingsPlan",
        "petsnap-serving-savings-plan-0",
        {"commitment": "0.66", "savingsPlanOfferingId": "off-1", "tags": s.TAGS},
    )
    stack = [*s.aws_instance_stack(), plan]
    resource, message = _one(stack, "irreversible-commitment")
    assert resource == "petsnap-serving-savings-plan-0"
    assert "commitment $0.66/h" in message and "cannot be cancelled" in message

    from infra_gen.policy.config import PolicyConfig
    from tests.policy.doors import check_door, crossguard_door

    approved = {"approved": ["petsnap-serving-savings-plan-0"]}
    assert (
        check_door(
            stack,
            "irreversible-commitment",
            PolicyConfig(settings={"irreversible-commitment": approved}),
        )
        == []
    )
    assert crossguard_door(stack, "irreversible-commitment", approved) == []
    cud = s.Resource(
        "gcp:compute/regionCommitment:RegionCommitment",
        "cud",
        {"plan": "TWELVE_MONTH", "resources": [{"type": "ACCELERATOR", "amount": "2"}]},
    )
    assert (
        "plan TWELVE_MONTH: 2 ACCELERATOR"
        in _one([*s.gcp_stack(), cud], "irreversible-commitment")[1]
    )


# --- right-sized-gpu ------------------------------------------------------------------------


def test_accelerator_far_bigger_than_the_need_is_flagged() -> None:
    stack = s.aws_instance_stack()
    facts = dict(stack[0].props["infraGenFacts"], neededMemoryGibPerGpu=8.0)
    stack[0] = s.Resource(stack[0].type, stack[0].name, {"infraGenFacts": facts})
    # A10G: 22.35 GiB in the catalog; 22.35 / 8 = 2.79x > 2x.
    message = _one(stack, "right-sized-gpu")[1]
    assert "A10G has 22.35 GiB per GPU but the sizing needs 8 GiB (2.8x, limit 2x)" in message
    assert "smaller accelerators on aws that fit: T4 (16 GiB)" in message
    facts["neededMemoryGibPerGpu"] = 11.2  # 22.35 / 11.2 = 1.996x: fine
    stack[0] = s.Resource(stack[0].type, stack[0].name, {"infraGenFacts": facts})
    assert both_doors(stack, "right-sized-gpu") == []


# --- security basics ------------------------------------------------------------------------


def test_imdsv1_fails_on_templates_and_instances() -> None:
    lt = s.replace(
        s.aws_group_stack(), "petsnap-serving-lt", metadataOptions={"httpTokens": "optional"}
    )
    assert "httpTokens is optional" in _one(lt, "imdsv2-required")[1]
    inst = s.replace(s.aws_instance_stack(), "petsnap-serving-instance", metadataOptions=None)
    assert "httpTokens is unset" in _one(inst, "imdsv2-required")[1]


def test_unencrypted_ebs_fails() -> None:
    lt = s.replace(
        s.aws_group_stack(),
        "petsnap-serving-lt",
        blockDeviceMappings=[
            {"deviceName": "/dev/sda1", "ebs": {"volumeSize": 200.0, "encrypted": "false"}}
        ],
    )
    assert "blockDeviceMappings[/dev/sda1].ebs is not encrypted" in _one(lt, "encrypted-disks")[1]
    inst = s.replace(
        s.aws_instance_stack(), "petsnap-serving-instance", rootBlockDevice={"volumeSize": 200.0}
    )
    assert "rootBlockDevice is not encrypted" in _one(inst, "encrypted-disks")[1]


@pytest.mark.parametrize(
    ("resource", "hit"),
    [
        (
            s.Resource(
                "aws:ec2/securityGroup:SecurityGroup",
                "sg",
                {
                    "ingress": [
                        {
                            "protocol": "tcp",
                            "fromPort": 20.0,
                            "toPort": 25.0,
                            "cidrBlocks": ["0.0.0.0/0"],
                        }
                    ]
                },
            ),
            True,
        ),
        (
            s.Resource(
                "aws:ec2/securityGroup:SecurityGroup",
                "sg",
                {
                    "ingress": [
                        {
                            "protocol": "tcp",
                            "fromPort": 22.0,
                            "toPort": 22.0,
                            "cidrBlocks": ["10.0.0.0/8"],
                        }
                    ]
                },
            ),
            False,
        ),
        (
            s.Resource(
                "aws:ec2/securityGroup:SecurityGroup",
                "sg",
                {
                    "ingress": [
                        {
                            "protocol": "tcp",
                            "fromPort": 443.0,
                            "toPort": 443.0,
                            "cidrBlocks": ["0.0.0.0/0"],
                        }
                    ]
                },
            ),
            False,
        ),
        (
            s.Resource(
                "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
                "r",
                {"ipProtocol": "-1", "cidrIpv6": "::/0"},
            ),
            True,
        ),
        (
            s.Resource(
                "gcp:compute/firewall:Firewall",
                "fw",
                {
                    "network": "default",
                    "sourceRanges": ["0.0.0.0/0"],
                    "allows": [{"protocol": "tcp", "ports": ["22"]}],
                },
            ),
            True,
        ),
        (
            s.Resource(
                "gcp:compute/firewall:Firewall",
                "fw",
                {
                    "network": "default",
                    "sourceRanges": ["35.235.240.0/20"],  # IAP's range
                    "allows": [{"protocol": "tcp", "ports": ["22"]}],
                },
            ),
            False,
        ),
        (
            s.Resource(
                "azure-native:network:NetworkSecurityGroup",
                "nsg",
                {
                    "securityRules": [
                        {
                            "name": "ssh",
                            "direction": "Inbound",
                            "access": "Allow",
                            "protocol": "Tcp",
                            "sourceAddressPrefix": "Internet",
                            "destinationPortRange": "22",
                        }
                    ]
                },
            ),
            True,
        ),
        (
            s.Resource(
                "azure-native:network:NetworkSecurityGroup",
                "nsg",
                {
                    "securityRules": [
                        {
                            "name": "ssh",
                            "direction": "Inbound",
                            "access": "Deny",
                            "protocol": "Tcp",
                            "sourceAddressPrefix": "*",
                            "destinationPortRange": "*",
                        }
                    ]
                },
            ),
            False,
        ),
    ],
)
def test_public_ssh(resource: s.Resource, hit: bool) -> None:
    found = both_doors([resource], "no-public-ssh")
    assert bool(found) == hit
    if hit:
        assert "allows SSH (port 22) from the internet" in found[0][1]


def test_public_ip_is_advisory_and_found_on_each_cloud() -> None:
    from infra_gen.policy.registry import RULES_BY_ID

    assert RULES_BY_ID["no-public-ip"].level == "advisory"
    lt = s.replace(
        s.aws_group_stack(),
        "petsnap-serving-lt",
        networkInterfaces=[{"deviceIndex": 0.0, "associatePublicIpAddress": "true"}],
    )
    assert _one(lt, "no-public-ip")[0] == "petsnap-serving-lt"
    gcp = s.replace(
        s.gcp_stack(),
        "petsnap-serving-spot-template",
        networkInterfaces=[{"network": "default", "accessConfigs": [{}]}],
    )
    assert _one(gcp, "no-public-ip")[0] == "petsnap-serving-spot-template"
    pip = s.Resource("azure-native:network:PublicIPAddress", "pip", {"tags": s.TAGS})
    assert _one([*s.azure_stack(), pip], "no-public-ip")[0] == "pip"


def test_smallest_fitting_accelerator_is_not_flagged() -> None:
    # Azure T4 (16 GiB) for a 2 GiB need is 8x, but no smaller Azure GPU exists in the catalog.
    stack = s.azure_stack()
    facts = dict(stack[0].props["infraGenFacts"], neededMemoryGibPerGpu=2.0)
    stack[0] = s.Resource(stack[0].type, stack[0].name, {"infraGenFacts": facts})
    assert both_doors(stack, "right-sized-gpu") == []
