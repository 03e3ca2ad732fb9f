"""AWS provider under Pulumi mocks: resource types and counts, and the properties that matter,
checked by value for hand-built plans (tests/factories.py), never produced by the optimizer.

The default sample plan is one g5.xlarge on-demand in us-east-1, idle shutdown after 30 min
below 5 % GPU, a $1000 budget alerting at 50/80/100 % to ml-oncall@example.com.
"""

from __future__ import annotations

import base64
import functools
import json
import subprocess
import sys
from functools import cache
from typing import Any

import pytest

from infra_gen.errors import RenderError
from infra_gen.plan import GuardrailSettings, Plan, Purchase, PurchaseMix, ScheduleSettings
from infra_gen.providers import aws_values
from infra_gen.providers.base import RenderOptions, get_provider
from infra_gen.render import RenderedResource, render_plan
from infra_gen.startup import render_startup_script
from tests.factories import sample_plan
from tests.providers.aws_helpers import (
    ALARM,
    ASG,
    BUDGET,
    COMMON,
    EQUIVALENTS,
    EVENT_RULE,
    INSTANCE,
    LT,
    POLICY,
    RESERVATION,
    SAVINGS_PLAN,
    SCHEDULE,
    TAGS,
    accepts_tags,
    counts,
    of_type,
    one,
)


def _plans() -> dict[str, Plan]:
    return {
        "single": sample_plan("aws"),
        "spot-mix": sample_plan("aws", purchase=PurchaseMix(on_demand=1, spot=3),
                                equivalent_instance_types=EQUIVALENTS),
        "reserved-spot": sample_plan("aws", purchase=PurchaseMix(reserved=2, spot=2,
                                                                 reserved_term="1y"),
                                     equivalent_instance_types=EQUIVALENTS),
        "reserved-od": sample_plan("aws", purchase=PurchaseMix(reserved=1, on_demand=1)),
        "reserved-only": sample_plan("aws", purchase=PurchaseMix(reserved=2)),
        "eu-single": sample_plan("aws", region="eu-west-1"),
    }


@cache
def rendered(case: str) -> tuple[RenderedResource, ...]:
    return tuple(render_plan(_plans()[case]))


# --- capacity shapes ---------------------------------------------------------------------------

def test_single_on_demand_is_one_hardened_instance() -> None:
    res = rendered("single")
    assert counts(res) == {**COMMON, INSTANCE: 1}
    inst = one(res, INSTANCE)
    assert inst["instanceType"] == "g5.xlarge"
    assert inst["ami"] == "ami-0123456789abcdef0"  # the DLAMI SSM parameter's (mocked) value
    assert inst["metadataOptions"]["httpTokens"] == "required"
    assert inst["rootBlockDevice"] == {"deleteOnTermination": True, "encrypted": True,
                                       "volumeSize": 200, "volumeType": "gp3"}
    assert inst["associatePublicIpAddress"] is False
    assert inst["vpcSecurityGroupIds"] == ["petsnap-serving-sg-id"]
    assert inst["subnetId"] == "subnet-0mocka"
    assert "instanceMarketOptions" not in inst
    script = base64.b64decode(inst["userDataBase64"]).decode()
    assert script == render_startup_script(_plans()["single"], "aws")


def test_spot_mix_is_a_mixed_instances_group() -> None:
    res = rendered("spot-mix")
    assert counts(res) == {**COMMON, LT: 1, ASG: 1, POLICY: 1, EVENT_RULE: 1,
                           "aws:cloudwatch/eventTarget:EventTarget": 1}
    group = one(res, ASG)
    # 1 on-demand + 3 spot = 4 instances; min 0 so the idle alarm can scale to zero.
    assert (group["minSize"], group["maxSize"], group["desiredCapacity"]) == (0, 4, 4)
    assert group["capacityRebalance"] is True
    dist = group["mixedInstancesPolicy"]["instancesDistribution"]
    assert dist["onDemandBaseCapacity"] == 1
    assert dist["onDemandPercentageAboveBaseCapacity"] == 0  # everything above base on spot
    assert dist["spotAllocationStrategy"] == "price-capacity-optimized"
    template = group["mixedInstancesPolicy"]["launchTemplate"]
    assert [o["instanceType"] for o in template["overrides"]] == [
        "g5.xlarge", "g5.2xlarge", "g6.xlarge"]
    assert template["launchTemplateSpecification"] == {
        "launchTemplateId": "petsnap-serving-lt-id", "version": "$Latest"}
    assert sorted(group["vpcZoneIdentifiers"]) == ["subnet-0mocka", "subnet-0mockb"]
    assert "capacityReservationSpecification" not in group
    lt = one(res, LT)
    assert "instanceMarketOptions" not in lt  # Auto Scaling rejects it in a mixed policy
    assert "capacityReservationSpecification" not in lt
    assert lt["instanceType"] == "g5.xlarge"
    assert lt["metadataOptions"]["httpTokens"] == "required"
    assert lt["blockDeviceMappings"] == [{"deviceName": "/dev/sda1", "ebs": {
        "deleteOnTermination": "true", "encrypted": "true", "volumeSize": 200,
        "volumeType": "gp3"}}]
    assert lt["iamInstanceProfile"]["arn"].endswith(":petsnap-serving-profile")
    script = base64.b64decode(lt["userData"]).decode()
    assert script == render_startup_script(_plans()["spot-mix"], "aws")


def test_reserved_baseline_with_spot_targets_reservation_at_group_level() -> None:
    res = rendered("reserved-spot")
    reservation = one(res, RESERVATION)
    assert reservation["instanceCount"] == 2
    assert reservation["instanceType"] == "g5.xlarge"
    assert reservation["availabilityZone"] == "us-east-1a"  # AZ of the first subnet
    assert reservation["endDateType"] == "unlimited"  # cancellable: lasts until deleted
    assert reservation["instanceMatchCriteria"] == "targeted"
    group = one(res, ASG)
    dist = group["mixedInstancesPolicy"]["instancesDistribution"]
    # base = 2 reserved + 0 on-demand; the 2 others are spot.
    assert (dist["onDemandBaseCapacity"], dist["onDemandPercentageAboveBaseCapacity"]) == (2, 0)
    assert group["vpcZoneIdentifiers"] == ["subnet-0mocka"]  # pinned to the reservation's AZ
    assert group["capacityReservationSpecification"] == {
        "capacityReservationPreference": "capacity-reservations-first",
        "capacityReservationTarget": {
            "capacityReservationIds": ["petsnap-serving-reservation-id"]}}
    assert "capacityReservationSpecification" not in one(res, LT)
    assert of_type(res, SAVINGS_PLAN) == []  # commit is false


def test_reserved_plus_on_demand_targets_reservation_at_group_level() -> None:
    # The 2nd instance is plain on-demand: a template target would aim it at a full reservation.
    res = rendered("reserved-od")
    assert one(res, RESERVATION)["instanceCount"] == 1
    assert "capacityReservationSpecification" not in one(res, LT)
    group = one(res, ASG)
    assert group["capacityReservationSpecification"]["capacityReservationPreference"] == \
        "capacity-reservations-first"
    dist = group["mixedInstancesPolicy"]["instancesDistribution"]
    assert (dist["onDemandBaseCapacity"], dist["onDemandPercentageAboveBaseCapacity"]) == (2, 100)
    assert group["capacityRebalance"] is False
    assert of_type(res, EVENT_RULE) == []  # no spot, no interruption rule


def test_all_reserved_group_targets_reservation_in_template() -> None:
    res = rendered("reserved-only")
    assert one(res, RESERVATION)["instanceCount"] == 2
    assert one(res, LT)["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "petsnap-serving-reservation-id"}}
    group = one(res, ASG)
    assert "capacityReservationSpecification" not in group
    assert group["mixedInstancesPolicy"]["instancesDistribution"]["onDemandBaseCapacity"] == 2


# --- guardrails --------------------------------------------------------------------------------

def test_single_instance_alarm_stops_it_after_idle_minutes() -> None:
    alarm = one(rendered("single"), ALARM)
    assert (alarm["namespace"], alarm["metricName"]) == ("CWAgent", "nvidia_smi_utilization_gpu")
    assert alarm["dimensions"] == {"InstanceId": "petsnap-serving-instance-id"}
    # 30 idle minutes = 6 periods x 300 s.
    assert (alarm["period"], alarm["evaluationPeriods"]) == (300, 6)
    assert alarm["threshold"] == 5.0
    assert alarm["comparisonOperator"] == "LessThanThreshold"
    assert alarm["statistic"] == "Maximum"
    assert alarm["treatMissingData"] == "notBreaching"
    assert alarm["alarmActions"] == [
        "arn:aws:automate:us-east-1:ec2:stop",
        "arn:aws:sns:us-east-1:123456789012:petsnap-serving-alerts"]


def test_stop_action_and_provider_follow_the_plan_region() -> None:
    res = rendered("eu-single")
    assert one(res, ALARM)["alarmActions"][0] == "arn:aws:automate:eu-west-1:ec2:stop"
    assert one(res, "pulumi:providers:aws")["region"] == "eu-west-1"


def test_group_alarm_scales_group_to_zero() -> None:
    res = rendered("spot-mix")
    alarm = one(res, ALARM)
    assert alarm["dimensions"] == {"AutoScalingGroupName": "petsnap-serving-asg"}
    policy = one(res, POLICY)
    assert (policy["adjustmentType"], policy["scalingAdjustment"]) == ("ExactCapacity", 0)
    assert policy["policyType"] == "SimpleScaling"
    assert policy["autoscalingGroupName"] == "petsnap-serving-asg"
    assert alarm["alarmActions"][0] == "arn:aws:autoscaling:us-east-1:123456789012:" \
                                       "petsnap-serving-scale-to-zero"


def test_cloudwatch_agent_publishes_the_alarm_metric_by_instance_and_group() -> None:
    res = rendered("single")
    parameter = one(res, "aws:ssm/parameter:Parameter")
    # CloudWatchAgentServerPolicy may only read parameters named AmazonCloudWatch-*.
    assert parameter["name"] == "AmazonCloudWatch-infra-gen-petsnap-serving"
    metrics = json.loads(parameter["insecureValue"])["metrics"]
    assert metrics["namespace"] == "CWAgent"
    assert metrics["aggregation_dimensions"] == [["InstanceId"], ["AutoScalingGroupName"]]
    assert "utilization_gpu" in metrics["metrics_collected"]["nvidia_gpu"]["measurement"]
    associations = {a.inputs["name"]: a.inputs
                    for a in of_type(res, "aws:ssm/association:Association")}
    assert set(associations) == {"AWS-ConfigureAWSPackage", "AmazonCloudWatch-ManageAgent"}
    configure = associations["AmazonCloudWatch-ManageAgent"]
    assert configure["parameters"]["optionalConfigurationLocation"] == parameter["name"]
    assert configure["targets"] == [{"key": "tag:workload", "values": ["petsnap-serving"]}]


def test_spot_rule_sends_interruptions_and_rebalance_to_topic() -> None:
    res = rendered("spot-mix")
    pattern = json.loads(one(res, EVENT_RULE)["eventPattern"])
    assert pattern == {"source": ["aws.ec2"], "detail-type": [
        "EC2 Spot Instance Interruption Warning", "EC2 Instance Rebalance Recommendation"]}
    target = one(res, "aws:cloudwatch/eventTarget:EventTarget")
    assert target["arn"] == "arn:aws:sns:us-east-1:123456789012:petsnap-serving-alerts"
    policy = json.loads(one(res, "aws:sns/topicPolicy:TopicPolicy")["policy"])
    services = {s["Principal"].get("Service") for s in policy["Statement"]}
    assert {"events.amazonaws.com", "budgets.amazonaws.com",
            "cloudwatch.amazonaws.com"} <= services


def test_budget_amount_filter_and_notifications() -> None:
    budget = one(rendered("single"), BUDGET)
    assert (budget["budgetType"], budget["timeUnit"]) == ("COST", "MONTHLY")
    assert (budget["limitAmount"], budget["limitUnit"]) == ("1000.00", "USD")
    assert budget["costFilters"] == [{"name": "TagKeyValue",
                                      "values": ["user:workload$petsnap-serving"]}]
    got = sorted((n["notificationType"], n["threshold"]) for n in budget["notifications"])
    assert got == [("ACTUAL", 50), ("ACTUAL", 80), ("ACTUAL", 100),
                   ("FORECASTED", 50), ("FORECASTED", 80), ("FORECASTED", 100)]
    for note in budget["notifications"]:
        assert note["subscriberEmailAddresses"] == ["ml-oncall@example.com"]
        assert note["thresholdType"] == "PERCENTAGE"
        assert note["comparisonOperator"] == "GREATER_THAN"


def test_guardrails_switched_off_create_no_alarm_budget_or_topic() -> None:
    off = GuardrailSettings(auto_shutdown_idle_minutes=None, budget_monthly_usd=None)
    res = render_plan(sample_plan("aws", guardrails=off))
    assert counts(res) == {"pulumi:providers:aws": 1, "infra-gen:index:GpuWorkload": 1,
                           "aws:ec2/securityGroup:SecurityGroup": 1, "aws:iam/role:Role": 1,
                           "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 2,
                           "aws:iam/instanceProfile:InstanceProfile": 1, INSTANCE: 1}


def test_limited_schedule_uses_group_with_scale_to_zero_actions() -> None:
    guard = GuardrailSettings(
        auto_shutdown_idle_minutes=7, budget_monthly_usd=500.0, emails=[],
        schedule=ScheduleSettings(hours_per_day=12, days_per_week=5, start_hour=9,
                                  timezone="Europe/Paris"))
    res = render_plan(sample_plan("aws", guardrails=guard))
    assert of_type(res, INSTANCE) == []  # one on-demand, but scheduled: a group of one
    assert one(res, ASG)["desiredCapacity"] == 1
    actions = {s.inputs["scheduledActionName"]: s.inputs for s in of_type(res, SCHEDULE)}
    start = actions["petsnap-serving-schedule-start"]
    stop = actions["petsnap-serving-schedule-stop"]
    # Mon-Fri 09:00 -> 21:00 Paris time.
    assert (start["recurrence"], start["desiredCapacity"]) == ("0 9 * * 1,2,3,4,5", 1)
    assert (stop["recurrence"], stop["desiredCapacity"]) == ("0 21 * * 1,2,3,4,5", 0)
    assert start["timeZone"] == stop["timeZone"] == "Europe/Paris"
    alarm = one(res, ALARM)
    assert (alarm["period"], alarm["evaluationPeriods"]) == (60, 7)  # 7 min: 1-min periods
    assert of_type(res, "aws:sns/topicSubscription:TopicSubscription") == []  # no emails
    assert one(res, BUDGET)["limitAmount"] == "500.00"


def test_always_on_group_has_no_schedules() -> None:
    assert of_type(rendered("spot-mix"), SCHEDULE) == []


# --- purchases ---------------------------------------------------------------------------------

def _with_purchase(commit: bool) -> Plan:
    plan = sample_plan("aws", purchase=PurchaseMix(reserved=2, on_demand=0, spot=0,
                                                    reserved_term="1y"), commit=commit)
    purchase = Purchase(cloud="aws", kind="savings-plan", term="1y", instance_type="g5.xlarge",
                        region="us-east-1", count=2, monthly_usd=1022.0, note="test",
                        created_by_stack=commit)
    return plan.model_copy(update={"purchases_to_make": [purchase]})


def test_savings_plan_only_with_commit() -> None:
    assert of_type(render_plan(_with_purchase(commit=False)), SAVINGS_PLAN) == []
    plan = one(render_plan(_with_purchase(commit=True)), SAVINGS_PLAN)
    # $1022/month / 730 h = $1.400/h commitment.
    assert plan["commitment"] == "1.400"
    assert plan["savingsPlanOfferingId"] == "mock-offering-g5-us-east-1"
    assert plan["tags"] == TAGS


def test_commit_without_listed_purchase_warns_and_creates_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    plan = _with_purchase(commit=True).model_copy(update={"purchases_to_make": []})
    with caplog.at_level("WARNING"):
        res = render_plan(plan)
    assert of_type(res, SAVINGS_PLAN) == []
    assert "no AWS Savings Plan purchase" in caplog.text


# --- tags, network, options --------------------------------------------------------------------

@pytest.mark.parametrize("case", ["single", "spot-mix", "reserved-spot", "reserved-od",
                                  "reserved-only"])
def test_every_taggable_resource_is_tagged(case: str) -> None:
    res = rendered(case)
    taggable = [r for r in res if accepts_tags(r.type)]
    assert len(taggable) >= 7
    for r in taggable:
        tags = r.inputs.get("tags")
        if r.type == ASG:
            assert tags == [{"key": k, "value": v, "propagateAtLaunch": True}
                            for k, v in sorted(TAGS.items())]
        else:
            assert tags == TAGS, r.name
    provider = one(res, "pulumi:providers:aws")
    assert json.loads(provider["defaultTags"]) == {"tags": TAGS}


def test_launch_template_tags_instances_volumes_and_interfaces() -> None:
    specs = one(rendered("spot-mix"), LT)["tagSpecifications"]
    assert {s["resourceType"]: s["tags"] for s in specs} == {
        "instance": TAGS, "volume": TAGS, "network-interface": TAGS}
    assert one(rendered("single"), INSTANCE)["volumeTags"] == TAGS


@pytest.mark.parametrize("case", ["single", "spot-mix"])
def test_security_group_allows_no_inbound(case: str) -> None:
    sg = one(rendered(case), "aws:ec2/securityGroup:SecurityGroup")
    assert sg.get("ingress", []) == []
    assert sg["egress"][0]["cidrBlocks"] == ["0.0.0.0/0"]


def test_instance_role_is_least_privilege() -> None:
    res = rendered("single")
    arns = sorted(r.inputs["policyArn"]
                  for r in of_type(res, "aws:iam/rolePolicyAttachment:RolePolicyAttachment"))
    assert arns == ["arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
                    "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy"]
    trust = json.loads(one(res, "aws:iam/role:Role")["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com"}
    assert of_type(res, "aws:iam/rolePolicy:RolePolicy") == []  # no checkpoint bucket


def test_checkpoint_bucket_gets_prefix_scoped_policy() -> None:
    guard = GuardrailSettings(auto_shutdown_idle_minutes=30,
                              checkpoint_sync_bucket_url="s3://ckpt-bucket/runs/petsnap")
    res = render_plan(sample_plan("aws", guardrails=guard))
    policy = json.loads(one(res, "aws:iam/rolePolicy:RolePolicy")["policy"])
    assert [s["Resource"] for s in policy["Statement"]] == [
        "arn:aws:s3:::ckpt-bucket/runs/petsnap/*", "arn:aws:s3:::ckpt-bucket"]


def test_named_subnets_replace_default_vpc_and_public_ip_is_honoured() -> None:
    plan = sample_plan("aws").model_copy(update={"subnets": ["subnet-0zz", "subnet-0aa"],
                                                 "public_ip": True})
    inst = one(render_plan(plan), INSTANCE)
    assert inst["subnetId"] == "subnet-0zz"
    assert inst["associatePublicIpAddress"] is True


def test_image_option_overrides_dlami() -> None:
    res = render_plan(sample_plan("aws"), RenderOptions(image="ami-0feedfacecafe0001"))
    assert one(res, INSTANCE)["ami"] == "ami-0feedfacecafe0001"
    with pytest.raises(RenderError, match="image: expected an AMI id"):
        render_plan(sample_plan("aws"), RenderOptions(image="ubuntu-latest"))


def test_ssh_key_creates_key_pair_but_no_inbound_rule() -> None:
    res = render_plan(sample_plan("aws"), RenderOptions(ssh_public_key="ssh-ed25519 AAAA x"))
    assert one(res, "aws:ec2/keyPair:KeyPair")["publicKey"] == "ssh-ed25519 AAAA x"
    assert one(res, INSTANCE)["keyName"] == "petsnap-serving-key"


def test_component_registers_plan_figures_and_ids() -> None:
    outputs = _component_outputs(_plans()["spot-mix"])
    # 4 x g5.xlarge at $1.006/h = $4.024/h; x 730 h = $2937.52/month.
    assert outputs["hourly_usd"] == 4.024
    assert outputs["monthly_usd"] == 2937.52
    assert outputs["instance_count"] == 4
    assert outputs["purchase_mix"] == {"reserved": 0, "on_demand": 1, "spot": 3,
                                       "reserved_term": None}
    assert outputs["autoscaling_group_name"] == "petsnap-serving-asg"
    assert outputs["launch_template_id"] == "petsnap-serving-lt-id"
    assert outputs["security_group_id"] == "petsnap-serving-sg-id"


def _component_outputs(plan: Plan) -> dict[str, Any]:
    import pulumi

    from infra_gen.providers.component import GpuWorkload
    from infra_gen.render import _RecordingMocks, _run

    pulumi.runtime.set_mocks(_RecordingMocks("us-east-1"), project="t", stack="t", preview=False)
    seen: dict[str, Any] = {}

    def record(key: str, value: Any) -> None:
        seen[key] = value

    def program() -> None:
        component = GpuWorkload(plan.workload, plan)
        for key, value in component.outputs.items():
            pulumi.Output.from_input(value).apply(functools.partial(record, key))

    _run(program)
    return seen


# --- pure values and provider protocol ---------------------------------------------------------


def test_emitted_enum_values_are_documented() -> None:
    lt = one(rendered("spot-mix"), LT)
    group = one(rendered("spot-mix"), ASG)
    dist = group["mixedInstancesPolicy"]["instancesDistribution"]
    pairs = [("http_tokens", lt["metadataOptions"]["httpTokens"]),
             ("volume_type", lt["blockDeviceMappings"][0]["ebs"]["volumeType"]),
             ("spot_allocation_strategy", dist["spotAllocationStrategy"]),
             ("on_demand_allocation_strategy", dist["onDemandAllocationStrategy"])]
    for field, value in pairs:
        assert value in aws_values.ALLOWED[field][0]


def test_budget_rejects_more_notifications_than_aws_allows() -> None:
    guard = GuardrailSettings(auto_shutdown_idle_minutes=30, budget_monthly_usd=100.0,
                              alert_percent=[10, 20, 30, 40, 50, 60])
    with pytest.raises(RenderError, match="allows 10 notifications"):
        render_plan(sample_plan("aws", guardrails=guard))


def test_unsupported_names_reserved_instances_only_with_commit() -> None:
    provider = get_provider("aws")
    assert provider.unsupported(sample_plan("aws")) == {}
    plan = _with_purchase(commit=True)
    ri = plan.purchases_to_make[0].model_copy(update={"kind": "reserved-instance"})
    gaps = provider.unsupported(plan.model_copy(update={"purchases_to_make": [ri]}))
    assert list(gaps) == ["reserved-instances"]


def test_importing_the_provider_does_not_import_the_sdk() -> None:
    code = ("import sys, infra_gen.providers.aws as a, infra_gen.providers.base as b;"
            "b.get_provider('aws'); print('pulumi_aws' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_commit_true_workload_renders_its_savings_plan_end_to_end() -> None:
    """A real plan (not a hand-built one): ResNet-50 serving reserves its always-on floor, and
    purchasing.commit: true turns that recommendation into an EC2 Instance Savings Plan."""
    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload

    workload = load_workload("stacks/resnet50-inference.yaml")
    committed = workload.model_copy(update={"purchasing": workload.purchasing.model_copy(
        update={"commit": True})})
    plan = plan_workload(committed, load_catalog(), cloud="aws")
    [purchase] = plan.purchases_to_make
    assert purchase.kind == "savings-plan" and purchase.created_by_stack
    savings = one(render_plan(plan), SAVINGS_PLAN)
    # commitment = the purchase's monthly figure / 730 h, rounded DOWN to a thousandth of a
    # dollar (never commit more than used): 164.03 / 730 = 0.22470 -> "0.224"
    assert purchase.monthly_usd == 164.03
    assert savings["commitment"] == "0.224"
    uncommitted = plan_workload(workload, load_catalog(), cloud="aws")
    assert of_type(render_plan(uncommitted), SAVINGS_PLAN) == []
