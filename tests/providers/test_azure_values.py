"""Azure provider data that needs no Pulumi run: documented value tables (checked against the
SDK's enums), size tables, tag limits, schedule arithmetic (with a Hypothesis replay of the
weekly autoscale profiles), budget start dates, eviction policy and unsupported() gaps."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infra_gen.errors import RenderError
from infra_gen.plan import PurchaseMix, ScheduleSettings
from infra_gen.providers import azure_budget, azure_schedule, azure_values
from infra_gen.providers.azure import AzureProvider
from tests.factories import sample_plan
from tests.providers.azure_cases import OFF, OFFICE_BERLIN, guardrails, plans


def test_checkpoints_synced_to_a_bucket_make_eviction_delete() -> None:
    plan = sample_plan("azure", workload_type="training", purchase=PurchaseMix(spot=2),
                       guardrails=guardrails(checkpoint_minutes=30,
                                              checkpoint_sync_bucket_url="https://x.blob/ckpt"))
    assert azure_values.spot_eviction_policy(plan) == "Delete"
    assert azure_values.spot_eviction_policy(plans()["reserved-spot"]) == "Deallocate"


def test_budget_start_date_is_configurable_but_must_be_a_first_of_month() -> None:
    plan = plans()["single"]
    assert azure_budget.budget_start_date(plan) == "2026-10-01T00:00:00Z"
    assert azure_budget.budget_start_date(plan, "2026-12-01") == "2026-12-01T00:00:00Z"
    with pytest.raises(RenderError, match="YYYY-MM-01"):
        azure_budget.budget_start_date(plan, "2026-12-15")


def test_tags_respect_azure_limits() -> None:
    with pytest.raises(RenderError, match="without <>%&"):
        azure_values.azure_tags({"cost/center": "x"})
    with pytest.raises(RenderError, match="limit 256"):
        azure_values.azure_tags({"team": "x" * 257})
    assert azure_values.azure_tags({"b": "1", "a": "2"}) == {"a": "2", "b": "1"}


def _sdk_values(module: str, enum: str) -> set[str]:
    return {e.value for e in getattr(importlib.import_module(f"pulumi_azure_native.{module}"),
                                     enum)}


@pytest.mark.parametrize(("field", "module", "enum"), [
    ("priority", "compute", "VirtualMachinePriorityTypes"),
    ("eviction_policy", "compute", "VirtualMachineEvictionPolicyTypes"),
    ("orchestration_mode", "compute", "OrchestrationMode"),
    ("budget_time_grain", "consumption", "TimeGrainType"),
    ("budget_threshold_type", "consumption", "ThresholdType"),
    ("budget_operator", "consumption", "OperatorType"),
    ("recurrence_frequency", "monitor", "RecurrenceFrequency"),
    ("metric_operator", "monitor", "Operator"),
    ("metric_aggregation", "monitor", "AggregationTypeEnum"),
])
def test_documented_value_tables_agree_with_the_sdk_enums(field: str, module: str,
                                                          enum: str) -> None:
    assert azure_values.ALLOWED[field] == _sdk_values(module, enum)


def test_schedule_events_cover_the_week() -> None:
    # 24 h on 5 days: one continuous run from Monday 09:00 to Saturday 09:00 (the repeated
    # 09:00 runs on Tuesday-Friday only re-assert the running capacity; no stop in between).
    always = ScheduleSettings(hours_per_day=24, days_per_week=5, start_hour=9)
    assert [(e.name, e.days) for e in azure_schedule.scale_events(always)] == [
        ("run-0900", ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")),
        ("stop-0900", ("Saturday",))]
    # 22:00 + 8 h crosses midnight: stops land on the next day, Tuesday to Saturday.
    night = ScheduleSettings(hours_per_day=8, days_per_week=5, start_hour=22)
    events = azure_schedule.scale_events(night)
    assert [(e.name, e.days[0], e.days[-1]) for e in events] == [
        ("run-2200", "Monday", "Friday"), ("stop-0600", "Tuesday", "Saturday")]
    assert azure_schedule.daily_shutdown_time(night) == "0600"
    assert azure_schedule.daily_shutdown_time(
        ScheduleSettings(hours_per_day=7.5, start_hour=9)) == "1630"
    assert azure_schedule.scale_events(ScheduleSettings(days_per_week=0)) == []


def test_size_tables() -> None:
    assert azure_values.encryption_at_host_supported("Standard_NC24ads_A100_v4")
    assert not azure_values.encryption_at_host_supported("Standard_NC6s_v3")
    assert not azure_values.encryption_at_host_supported("Standard_NC6")
    assert azure_values.os_disk_storage_type("Standard_NC6") == "StandardSSD_LRS"
    assert azure_values.os_disk_storage_type("Standard_ND96isr_H100_v5") == "Premium_LRS"
    assert azure_values.driver_extension_supported("Standard_NV36ads_A10_v5")
    assert not azure_values.driver_extension_supported("Standard_NC40ads_H100_v5")
    # Alert windows: smallest documented window covering the idle minutes.
    assert [azure_values.alert_window(m) for m in (5, 30, 45, 90, 2000)] == [
        "PT5M", "PT30M", "PT1H", "PT6H", "P1D"]


@settings(max_examples=200, deadline=None)
@given(half_hours=st.integers(1, 48), days=st.integers(1, 7), start=st.integers(0, 23))
def test_scale_events_reproduce_the_weekly_schedule(half_hours: int, days: int,
                                                    start: int) -> None:
    """Replaying the profiles (each stays in force until the next begins) gives exactly the
    workload's running half-hours, checked at every half-hour midpoint of the week."""
    schedule = ScheduleSettings(hours_per_day=half_hours / 2, days_per_week=days,
                                start_hour=start)
    week = azure_schedule.MINUTES_PER_WEEK
    running = set()
    for d in range(days):
        begin = d * 1440 + start * 60
        running |= {(begin + m) % week for m in range(15, half_hours * 30, 30)}
    changes = sorted(
        ((azure_values.WEEKDAYS.index(day) * 1440 + e.hour * 60 + e.minute), e.kind)
        for e in azure_schedule.scale_events(schedule) for day in e.days)
    for probe in range(15, week, 30):
        before = [kind for at, kind in changes if at <= probe] or [changes[-1][1]]
        assert (before[-1] == "run") == (probe in running), (schedule, probe)


def test_unsupported_names_what_azure_cannot_do_for_the_plan() -> None:
    single = AzureProvider().unsupported(plans()["single"])
    assert sorted(single) == ["gpu-utilization-metric"]  # T4 size: driver ext + EAH supported
    weekdays_vm = sample_plan("azure", guardrails=guardrails(schedule=OFFICE_BERLIN))
    assert "scheduled-start" in AzureProvider().unsupported(weekdays_vm)
    legacy = sample_plan("azure", instance_type="Standard_NC6s_v3", guardrails=OFF)
    legacy = legacy.model_copy(update={"public_ip": True})
    assert sorted(AzureProvider().unsupported(legacy)) == ["encryption-at-host", "public-ip"]
