"""Guardrail rules (shutdown path, budget, tags) and the compliant stacks, through both doors
(``both_doors`` asserts the check engine and the CrossGuard policy report the same)."""

from __future__ import annotations

import pytest

from infra_gen.policy.model import UNKNOWN
from infra_gen.policy.registry import RULES
from tests.policy import stacks as s
from tests.policy.doors import both_doors
from tests.policy.doors import one_violation as _one

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


def test_references_match_whole_names_not_prefixes() -> None:
    from infra_gen.policy.capacity import refers_to

    vm = s.Resource("azure-native:compute:VirtualMachine", "x-vm", {})
    assert refers_to("x-vm-id", vm)  # the mocks' id
    assert refers_to("/subscriptions/s/resourceGroups/rg/providers/x/virtualMachines/x-vm", vm)
    assert refers_to("arn:aws:sns:us-east-1:123456789012:x-vm", vm)
    assert not refers_to("x-vmss-id", vm)
    assert not refers_to("/subscriptions/s/providers/x/virtualMachineScaleSets/x-vmss", vm)


def test_the_watchdog_marker_is_in_the_real_startup_script_only_when_on() -> None:
    from infra_gen.plan import GuardrailSettings
    from infra_gen.policy.rules_guardrails import WATCHDOG_MARKER
    from infra_gen.startup import render_startup_script
    from tests.factories import sample_plan

    assert WATCHDOG_MARKER in render_startup_script(sample_plan("gcp"), "gcp")
    off = sample_plan("gcp", guardrails=GuardrailSettings(auto_shutdown_idle_minutes=None))
    assert WATCHDOG_MARKER not in render_startup_script(off, "gcp")
