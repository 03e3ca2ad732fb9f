"""GCP provider under Pulumi mocks: resource types and counts, and the properties that matter,
checked by value for hand-built plans (tests/factories.py), never produced by the optimizer.

The default sample GCP plan is one g2-standard-4 (1 x L4) on-demand in us-central1, 24x7, idle
alert after 30 min below 5 % GPU, a $1000 budget alerting at 50/80/100 % to ml-oncall@example.com.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from functools import cache
from typing import Any

import pytest

from infra_gen.errors import RenderError
from infra_gen.plan import GuardrailSettings, Owner, Plan, PurchaseMix, ScheduleSettings
from infra_gen.providers import gcp_values as v
from infra_gen.providers.base import RenderOptions, get_provider
from infra_gen.providers.gcp_compute import DEFAULT_IMAGE
from infra_gen.providers.gcp_guardrails import usd_amount
from infra_gen.render import RenderedResource, render_plan
from tests.factories import sample_plan

LABELS = {
    "team": "ml-platform",
    "project": "petsnap",
    "cost-center": "ml-prod",
    "workload": "petsnap-serving",
    "managed-by": "infra-gen",
}
OPTS = RenderOptions(gcp_project="petsnap-prod", gcp_billing_account="012345-6789AB-CDEF01")
INSTANCE = "gcp:compute/instance:Instance"
TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
MIG = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
AUTOSCALER = "gcp:compute/regionAutoscaler:RegionAutoscaler"
RESERVATION = "gcp:compute/reservation:Reservation"
COMMITMENT = "gcp:compute/regionCommitment:RegionCommitment"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
ALERT = "gcp:monitoring/alertPolicy:AlertPolicy"
CHANNEL = "gcp:monitoring/notificationChannel:NotificationChannel"
BUDGET = "gcp:billing/budget:Budget"
SA = "gcp:serviceaccount/account:Account"
IAM = "gcp:projects/iAMMember:IAMMember"
ROLE = "gcp:projects/iAMCustomRole:IAMCustomRole"
BUCKET_IAM = "gcp:storage/bucketIAMMember:BucketIAMMember"
# Every GCP type that takes labels (checked against the SDK: Reservation, ResourcePolicy,
# RegionCommitment, Budget, MIG, autoscaler, service account and IAM take none).
LABELLED = {INSTANCE: "labels", TEMPLATE: "labels", ALERT: "userLabels", CHANNEL: "userLabels"}
NINE_TO_FIVE = ScheduleSettings(
    hours_per_day=8, days_per_week=5, start_hour=9, timezone="Europe/Paris"
)


def guardrails(**overrides: Any) -> GuardrailSettings:
    base: dict[str, Any] = dict(
        auto_shutdown_idle_minutes=30,
        gpu_utilization_below=5.0,
        budget_monthly_usd=1000.0,
        alert_percent=[50, 80, 100],
        emails=["ml-oncall@example.com"],
    )
    return GuardrailSettings(**{**base, **overrides})


T4_SPOT = dict(instance_type="n1-standard-8", accelerator="T4", accelerators_per_instance=1)


@cache
def _render(name: str) -> tuple[RenderedResource, ...]:
    """Each plan shape is rendered once per session (a render under mocks takes ~0.1 s)."""
    return tuple(render_plan(PLANS[name](), OPTS))


PLANS: dict[str, Any] = {
    "single": lambda: sample_plan("gcp"),
    "od_spot_t4": lambda: sample_plan("gcp", purchase=PurchaseMix(on_demand=2, spot=3), **T4_SPOT),
    "reserved_spot": lambda: sample_plan(
        "gcp", purchase=PurchaseMix(reserved=2, spot=2, reserved_term="1y"), **T4_SPOT
    ),
    "commit_a2": lambda: sample_plan(
        "gcp",
        purchase=PurchaseMix(reserved=2, on_demand=1, reserved_term="3y"),
        commit=True,
        instance_type="a2-highgpu-1g",
        accelerator="A100-40GB",
    ),
    "single_scheduled": lambda: sample_plan("gcp", guardrails=guardrails(schedule=NINE_TO_FIVE)),
    "groups_scheduled": lambda: sample_plan(
        "gcp",
        purchase=PurchaseMix(on_demand=1, spot=2),
        guardrails=guardrails(schedule=NINE_TO_FIVE),
    ),
    "off": lambda: sample_plan(
        "gcp", guardrails=guardrails(auto_shutdown_idle_minutes=None, budget_monthly_usd=None)
    ),
    "train_spot": lambda: sample_plan(
        "gcp",
        workload_type="training",
        purchase=PurchaseMix(spot=4),
        guardrails=guardrails(
            checkpoint_minutes=30,
            max_run_hours=6,
            checkpoint_sync_directory="/opt/checkpoints",
            checkpoint_sync_bucket_url="gs://petsnap-ckpt/runs",
        ),
        instance_type="a3-highgpu-8g",
        accelerator="H100",
        accelerators_per_instance=8,
    ),
}


def of(name: str, type_: str) -> list[RenderedResource]:
    return [r for r in _render(name) if r.type == type_]


def one(name: str, type_: str) -> dict[str, Any]:
    found = of(name, type_)
    assert len(found) == 1, [r.name for r in found]
    return found[0].inputs


def counts(name: str) -> Counter[str]:
    return Counter(r.type for r in _render(name) if r.type.startswith("gcp:"))


# ---- pure rules ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("ML Research & Ops", "ml_research_ops"),
        ("Équipe", "equipe"),
        ("ml-platform", "ml-platform"),
        ("42 Team", "42_team"),  # values may start with a digit
        ("  --Ops!!  ", "--ops"),  # dashes are valid label characters and stay
    ],
)
def test_label_values_follow_gcp_rules(raw: str, label: str) -> None:
    assert v.sanitize_label_value(raw) == label


def test_long_and_unfoldable_names_keep_a_hash_so_they_stay_distinct() -> None:
    a, b = "x" * 70 + " team a", "x" * 70 + " team b"  # 77 chars, same first 63
    la, lb = v.sanitize_label_value(a), v.sanitize_label_value(b)
    assert len(la) == len(lb) == 63 and la != lb
    assert la.startswith("x" * 54 + "-")
    cjk = v.sanitize_label_value("研究")
    assert cjk.startswith("x-") and len(cjk) == 10 and cjk != v.sanitize_label_value("開発")


def test_label_keys_start_with_a_letter() -> None:
    assert v.sanitize_label_key("42team") == "k_42team"
    assert v.sanitize_label_key("Cost Center") == "cost_center"
    for key in v.gcp_labels({"9": "x", "Équipe": "y"}):
        assert key[0].isalpha() and len(key) <= 63


@pytest.mark.parametrize(
    ("schedule", "start", "stop"),
    [
        (NINE_TO_FIVE, "0 9 * * 1,2,3,4,5", "0 17 * * 1,2,3,4,5"),
        # 20:00 + 8 h ends at 04:00 the next day: stop days shift by one (Friday night -> Saturday)
        (
            ScheduleSettings(hours_per_day=8, days_per_week=5, start_hour=20),
            "0 20 * * 1,2,3,4,5",
            "0 4 * * 2,3,4,5,6",
        ),
        (
            ScheduleSettings(hours_per_day=8.5, days_per_week=7, start_hour=9),
            "0 9 * * *",
            "30 17 * * *",
        ),
        # 24 h days Mon-Fri: start Monday 09:00 once, stop Saturday 09:00 once
        (
            ScheduleSettings(hours_per_day=24, days_per_week=5, start_hour=9),
            "0 9 * * 1",
            "0 9 * * 6",
        ),
        # 6 days from Monday, past midnight: Sunday is 0 in cron
        (
            ScheduleSettings(hours_per_day=6, days_per_week=6, start_hour=22),
            "0 22 * * 1,2,3,4,5,6",
            "0 4 * * 2,3,4,5,6,0",
        ),
    ],
)
def test_instance_schedule_crons(schedule: ScheduleSettings, start: str, stop: str) -> None:
    assert v.start_stop_crons(schedule) == (start, stop)


def test_scaling_window_and_zero_hour_schedules() -> None:
    assert v.scaling_window(NINE_TO_FIVE) == ("0 9 * * 1,2,3,4,5", 8 * 3600)
    with pytest.raises(RenderError, match="0 hours a week"):
        v.start_stop_crons(ScheduleSettings(hours_per_day=0, days_per_week=5))


def test_enum_check_names_the_valid_set_and_the_doc() -> None:
    with pytest.raises(
        RenderError, match=r"provisioning_model: expected one of .*SPOT.*instances#Scheduling"
    ):
        v.check("provisioning_model", "SPOTTY")
    assert v.check("spend_basis", "FORECASTED_SPEND") == "FORECASTED_SPEND"


def test_n1_takes_only_attachable_gpus_and_bundled_types_take_none() -> None:
    assert v.attached_accelerator("n1-standard-8", "T4", 2) == ("nvidia-tesla-t4", 2)
    assert v.attached_accelerator("n1-standard-8", "V100", 1) == ("nvidia-tesla-v100", 1)
    for bundled in ("g2-standard-4", "a2-highgpu-1g", "a3-highgpu-8g"):
        assert v.attached_accelerator(bundled, "L4", 1) is None
    with pytest.raises(RenderError, match="N1 takes T4, V100"):
        v.attached_accelerator("n1-standard-8", "L4", 1)


def test_budget_money_is_exact_to_the_cent() -> None:
    assert usd_amount(1000.0) == ("1000", 0)
    assert usd_amount(1234.567) == ("1234", 570_000_000)  # rounded half-up to $1234.57


def test_service_account_ids_are_valid_for_long_workload_names() -> None:
    account = v.service_account_id("a" * 40)
    assert len(account) <= 30 and account.startswith("ig-") and account.endswith("-gpu")


# ---- rendered shapes -----------------------------------------------------------------------


def test_single_on_demand_vm() -> None:
    assert counts("single") == Counter(
        {INSTANCE: 1, SA: 1, IAM: 2, CHANNEL: 1, ALERT: 1, BUDGET: 1}
    )
    vm = one("single", INSTANCE)
    assert vm["machineType"] == "g2-standard-4" and vm["zone"] == "us-central1-a"
    assert "guestAccelerators" not in vm  # L4 comes with g2
    assert vm["scheduling"] == {
        "onHostMaintenance": "TERMINATE",
        "provisioningModel": "STANDARD",
        "automaticRestart": True,
    }
    disk = vm["bootDisk"]["initializeParams"]
    assert (disk["image"], disk["size"], disk["type"]) == (DEFAULT_IMAGE, 200, "pd-balanced")
    assert vm["networkInterfaces"] == [{"accessConfigs": [], "network": "default"}]  # no public IP
    assert vm["serviceAccount"]["scopes"] == [
        "https://www.googleapis.com/auth/logging.write",
        "https://www.googleapis.com/auth/monitoring.write",
    ]
    assert vm["shieldedInstanceConfig"] == {
        "enableSecureBoot": False,
        "enableVtpm": True,
        "enableIntegrityMonitoring": True,
    }
    assert vm["metadata"]["startup-script"].startswith("#!/bin/bash")
    assert vm["metadata"]["shutdown-script"].startswith("#!/bin/bash")
    assert "resourcePolicies" not in vm  # 24x7: no instance schedule


def test_on_demand_and_spot_groups_with_n1_t4() -> None:
    c = counts("od_spot_t4")
    assert (c[TEMPLATE], c[MIG], c[INSTANCE], c[RESERVATION], c[AUTOSCALER]) == (2, 2, 0, 0, 0)
    groups = {r.name: r.inputs for r in of("od_spot_t4", MIG)}
    od, spot = groups["petsnap-serving-on-demand-group"], groups["petsnap-serving-spot-group"]
    assert (od["targetSize"], spot["targetSize"]) == (2, 3)
    assert od["versions"][0]["instanceTemplate"] == "petsnap-serving-on-demand-template-id"
    assert od["distributionPolicyTargetShape"] == "ANY"
    assert od["updatePolicy"]["maxUnavailableFixed"] == 4  # us-central1 has zones a, b, c, f
    assert od["instanceLifecyclePolicy"]["defaultActionOnFailure"] == "DO_NOTHING"
    assert spot["instanceLifecyclePolicy"]["defaultActionOnFailure"] == "REPAIR"
    templates = {r.name: r.inputs for r in of("od_spot_t4", TEMPLATE)}
    for t in templates.values():
        assert t["machineType"] == "n1-standard-8"
        assert t["guestAccelerators"] == [{"type": "nvidia-tesla-t4", "count": 1}]
    assert templates["petsnap-serving-spot-template"]["scheduling"] == {
        "onHostMaintenance": "TERMINATE",
        "provisioningModel": "SPOT",
        "preemptible": True,
        "automaticRestart": False,
        "instanceTerminationAction": "DELETE",
    }  # serving: stateless


def test_reserved_baseline_is_a_specific_reservation_consumed_by_its_own_group() -> None:
    res = one("reserved_spot", RESERVATION)
    assert res["specificReservation"]["count"] == 2
    assert res["specificReservationRequired"] is True and res["zone"] == "us-central1-a"
    assert res["specificReservation"]["instanceProperties"] == {
        "machineType": "n1-standard-8",
        "guestAccelerators": [{"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 1}],
    }
    templates = {r.name: r.inputs for r in of("reserved_spot", TEMPLATE)}
    affinity = templates["petsnap-serving-reserved-template"]["reservationAffinity"]
    assert affinity == {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": [res["name"]],
        },
    }
    assert "reservationAffinity" not in templates["petsnap-serving-spot-template"]
    groups = {r.name: r.inputs for r in of("reserved_spot", MIG)}
    reserved = groups["petsnap-serving-reserved-group"]
    assert reserved["targetSize"] == 2 and reserved["distributionPolicyZones"] == ["us-central1-a"]
    assert groups["petsnap-serving-spot-group"]["targetSize"] == 2
    assert of("reserved_spot", COMMITMENT) == []  # commit: false -> nothing irreversible


def test_commit_true_buys_a_cud_sized_from_the_machine_and_attached_to_the_reservation() -> None:
    cud = one("commit_a2", COMMITMENT)
    assert (cud["plan"], cud["type"], cud["category"]) == (
        "THIRTY_SIX_MONTH",
        "ACCELERATOR_OPTIMIZED",
        "MACHINE",
    )
    # 2 reserved x a2-highgpu-1g (12 vCPU, 85 GB, 1 x A100 40GB): 24 vCPU, 2*85*1024 = 174080 MB
    assert cud["resources"] == [
        {"type": "VCPU", "amount": "24"},
        {"type": "MEMORY", "amount": "174080"},
        {"type": "ACCELERATOR", "amount": "2", "acceleratorType": "nvidia-tesla-a100"},
    ]
    assert cud["existingReservations"] == "petsnap-serving-reservation-id"
    assert cud["autoRenew"] is False
    groups = {r.name: r.inputs for r in of("commit_a2", MIG)}
    assert groups["petsnap-serving-reserved-group"]["targetSize"] == 2
    assert groups["petsnap-serving-on-demand-group"]["targetSize"] == 1
    assert (
        "guestAccelerators"
        not in one("commit_a2", RESERVATION)["specificReservation"]["instanceProperties"]
    )


def test_single_vm_outside_24x7_gets_an_instance_schedule() -> None:
    policy = one("single_scheduled", POLICY)["instanceSchedulePolicy"]
    assert policy == {
        "timeZone": "Europe/Paris",
        "vmStartSchedule": {"schedule": "0 9 * * 1,2,3,4,5"},
        "vmStopSchedule": {"schedule": "0 17 * * 1,2,3,4,5"},
    }
    assert one("single_scheduled", INSTANCE)["resourcePolicies"] == "petsnap-serving-schedule-id"
    assert one("single_scheduled", ROLE)["permissions"] == [
        "compute.instances.start",
        "compute.instances.stop",
    ]
    members = {r.inputs["member"] for r in of("single_scheduled", IAM)}
    assert "serviceAccount:service-123456@compute-system.iam.gserviceaccount.com" in members


def test_groups_outside_24x7_get_scaling_schedules_instead_of_a_target_size() -> None:
    scalers = {r.name: r.inputs for r in of("groups_scheduled", AUTOSCALER)}
    assert set(scalers) == {
        "petsnap-serving-on-demand-autoscaler",
        "petsnap-serving-spot-autoscaler",
    }
    spot = scalers["petsnap-serving-spot-autoscaler"]
    assert spot["target"] == "petsnap-serving-spot-group-id"
    policy = spot["autoscalingPolicy"]
    assert (policy["minReplicas"], policy["maxReplicas"]) == (0, 2)
    assert policy["scalingSchedules"] == [
        {
            "name": "run-window",
            "schedule": "0 9 * * 1,2,3,4,5",
            "durationSec": 28800,
            "minRequiredReplicas": 2,
            "timeZone": "Europe/Paris",
            "description": "8 h/day, 5 days/week",
        }
    ]
    for group in of("groups_scheduled", MIG):
        assert "targetSize" not in group.inputs  # the autoscaler owns the size
    assert of("groups_scheduled", POLICY) == []  # a MIG would repair VMs a schedule stops


def test_training_spot_stops_keeps_disk_caps_run_and_syncs_to_its_bucket() -> None:
    t = one("train_spot", TEMPLATE)
    assert t["scheduling"]["instanceTerminationAction"] == "STOP"  # checkpoints on disk
    assert t["scheduling"]["maxRunDuration"] == {"seconds": 6 * 3600}
    assert "guestAccelerators" not in t  # 8 x H100 come with a3-highgpu-8g
    assert t["networkInterfaces"][0]["nicType"] == "GVNIC"
    assert "https://www.googleapis.com/auth/devstorage.read_write" in t["serviceAccount"]["scopes"]
    assert one("train_spot", BUCKET_IAM)["bucket"] == "petsnap-ckpt"
    assert one("train_spot", MIG)["distributionPolicyTargetShape"] == "ANY_SINGLE_ZONE"
    assert one("train_spot", MIG)["targetSize"] == 4
    assert (
        "gcloud storage rsync --recursive /opt/checkpoints gs://petsnap-ckpt/runs"
        in (t["metadata"]["shutdown-script"])
    )


def test_guardrails_off_means_no_alert_no_budget_no_channels() -> None:
    c = counts("off")
    assert (c[ALERT], c[BUDGET], c[CHANNEL], c[INSTANCE]) == (0, 0, 0, 1)


def test_idle_alert_by_value() -> None:
    alert = one("single", ALERT)
    threshold = alert["conditions"][0]["conditionThreshold"]
    assert threshold["thresholdValue"] == 5.0 and threshold["comparison"] == "COMPARISON_LT"
    assert threshold["duration"] == "1800s"  # 30 idle minutes
    assert threshold["filter"] == (
        'metric.type="agent.googleapis.com/gpu/utilization" AND '
        'resource.type="gce_instance" AND '
        'metadata.user_labels.workload="petsnap-serving"'
    )
    assert threshold["aggregations"] == [
        {
            "alignmentPeriod": "300s",
            "perSeriesAligner": "ALIGN_MEAN",
            "crossSeriesReducer": "REDUCE_MAX",
            "groupByFields": ["resource.label.instance_id"],
        }
    ]
    assert alert["notificationChannels"] == ["petsnap-serving-email-0-id"]
    channel = one("single", CHANNEL)
    assert (channel["type"], channel["labels"]) == (
        "email",
        {"email_address": "ml-oncall@example.com"},
    )


def test_budget_by_value() -> None:
    budget = one("single", BUDGET)
    assert budget["billingAccount"] == "012345-6789AB-CDEF01"
    assert budget["amount"] == {
        "specifiedAmount": {"currencyCode": "USD", "units": "1000", "nanos": 0}
    }
    assert budget["budgetFilter"] == {
        "projects": ["projects/123456"],
        "labels": {"workload": "petsnap-serving"},
        "calendarPeriod": "MONTH",
    }
    assert [(r["thresholdPercent"], r["spendBasis"]) for r in budget["thresholdRules"]] == [
        (0.5, "CURRENT_SPEND"),
        (0.5, "FORECASTED_SPEND"),
        (0.8, "CURRENT_SPEND"),
        (0.8, "FORECASTED_SPEND"),
        (1.0, "CURRENT_SPEND"),
        (1.0, "FORECASTED_SPEND"),
    ]
    assert budget["allUpdatesRule"]["monitoringNotificationChannels"] == [
        "petsnap-serving-email-0-id"
    ]


def test_budget_without_billing_account_is_a_clear_error() -> None:
    with pytest.raises(RenderError, match="needs a billing account"):
        render_plan(sample_plan("gcp"), RenderOptions(gcp_project="p"))
    # ...but with the budget off, no billing account is needed
    resources = render_plan(PLANS["off"](), RenderOptions(gcp_project="p"))
    assert not [r for r in resources if r.type == BUDGET]


@pytest.mark.parametrize("name", sorted(PLANS))
def test_labels_on_every_labelable_resource(name: str) -> None:
    expected = dict(LABELS, workload=PLANS[name]().workload)
    labelled = [r for r in _render(name) if r.type in LABELLED]
    assert labelled
    for r in labelled:
        assert r.inputs[LABELLED[r.type]] == expected, r.name
    for t in of(name, TEMPLATE):
        assert t.inputs["disks"][0]["labels"] == expected
    for vm in of(name, INSTANCE):
        assert vm.inputs["bootDisk"]["initializeParams"]["labels"] == expected


def test_awkward_team_name_is_sanitised_in_rendered_labels() -> None:
    plan = sample_plan("gcp")
    plan = plan.model_copy(
        update={
            "owner": Owner(team="ML Research & Ops", project="Équipe Vision", cost_center="42 CC")
        }
    )
    vm = next(r for r in render_plan(plan, OPTS) if r.type == INSTANCE)
    assert vm.inputs["labels"] == {
        "team": "ml_research_ops",
        "project": "equipe_vision",
        "cost-center": "42_cc",
        "workload": "petsnap-serving",
        "managed-by": "infra-gen",
    }


_ENUM_FIELDS = {
    "provisioningModel": "provisioning_model",
    "onHostMaintenance": "on_host_maintenance",
    "instanceTerminationAction": "instance_termination_action",
    "spendBasis": "spend_basis",
    "comparison": "comparison",
    "diskType": "disk_type",
    "distributionPolicyTargetShape": "distribution_target_shape",
    "defaultActionOnFailure": "default_action_on_failure",
    "nicType": "nic_type",
}


def _walk(value: Any) -> Any:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_every_enum_like_value_is_documented(name: str) -> None:
    seen = 0
    for r in _render(name):
        for key, value in _walk(r.inputs):
            if key in _ENUM_FIELDS:
                assert value in v.ALLOWED[_ENUM_FIELDS[key]][0], (r.name, key, value)
                seen += 1
    assert seen >= 2  # at least the scheduling fields of every VM kind


def test_public_ip_image_override_and_hyperdisk_for_a3_mega() -> None:
    plan = sample_plan(
        "gcp", instance_type="a3-megagpu-8g", accelerator="H100-MEGA", accelerators_per_instance=8
    ).model_copy(update={"public_ip": True})
    opts = OPTS.model_copy(update={"image": "projects/my-proj/global/images/family/my-gpu"})
    vm = next(r for r in render_plan(plan, opts) if r.type == INSTANCE).inputs
    assert vm["networkInterfaces"][0]["accessConfigs"] == [{}]
    assert (
        vm["bootDisk"]["initializeParams"]["image"]
        == "projects/my-proj/global/images/family/my-gpu"
    )
    assert vm["bootDisk"]["initializeParams"]["type"] == "hyperdisk-balanced"


def test_unsupported_lists_real_gaps() -> None:
    provider = get_provider("gcp")
    assert set(provider.unsupported(sample_plan("gcp"))) == {"egress"}
    spot: Plan = PLANS["od_spot_t4"]()
    assert "spot-idle-stop" in provider.unsupported(spot)
    mega = sample_plan("gcp", instance_type="a3-megagpu-8g", accelerator="H100-MEGA")
    assert "gpudirect" in provider.unsupported(mega)


def test_commit_for_unknown_machine_type_is_a_clear_error() -> None:
    plan = sample_plan(
        "gcp",
        purchase=PurchaseMix(reserved=1, on_demand=1),
        commit=True,
        instance_type="g4-standard-48",
        accelerator="L4",
    )
    with pytest.raises(RenderError, match="no vCPU/memory figures"):
        render_plan(plan, OPTS)


def test_importing_the_provider_does_not_import_the_sdk() -> None:
    code = (
        "import sys, infra_gen.providers.gcp; "
        "assert 'pulumi_gcp' not in sys.modules and 'pulumi' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
