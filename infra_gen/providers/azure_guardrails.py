"""Azure stop paths: scheduled shutdown, scheduled scale-to-zero, and the low-utilisation alert.

Imported only from ``AzureProvider.render``. Four lines of defence, cheapest first:
1. Schedule, single VM: a DevTest Labs global schedule named exactly
   ``shutdown-computevm-<vmName>`` (the name the portal's auto-shutdown blade reads and
   writes) deallocates the VM daily at the end of the workload's window. It cannot start it.
2. Schedule, scale set: an autoscale setting with weekly recurring profiles, capacity = the
   plan's instances at each start time and 0 at each end time (``azure_schedule``). An
   always-on scale set with spot machines gets one fixed "hold-capacity" profile instead, so
   autoscale replaces machines lost to evictions.
3. The idle watchdog in the startup script (nvidia-smi utilisation, busy marker), which
   deallocates through the VM's managed identity (see ``azure_budget.deallocate_role``).
4. A metric alert to the action group's emails on low utilisation. Azure has no built-in GPU
   metric for plain VMs or scale sets (GPU metrics need the Azure Monitor agent plus a custom
   metrics pipeline, or Container Insights on AKS), so the alert uses the platform metric
   ``Percentage CPU`` (namespace ``Microsoft.Compute/virtualMachines`` or
   ``.../virtualMachineScaleSets``, no agent needed) as a documented proxy: Maximum CPU below
   the GPU-idle threshold for the whole idle window. A GPU-bound job with an idle CPU can trip
   it, which is why it only notifies; the GPU-accurate stop is the watchdog.
"""

from __future__ import annotations

import pulumi
import pulumi_azure_native.devtestlab as devtestlab
import pulumi_azure_native.monitor as monitor

from infra_gen.plan import Plan
from infra_gen.providers.azure_compute import Capacity
from infra_gen.providers.azure_network import Foundation
from infra_gen.providers.azure_schedule import (
    ScaleEvent,
    autoscale_needed,
    daily_shutdown_time,
    is_always_on,
    runs_daily_window,
    scale_events,
)
from infra_gen.providers.azure_values import alert_window, check, windows_time_zone
from infra_gen.providers.base import resource_name

CPU_METRIC = "Percentage CPU"
METRIC_NAMESPACE = {
    "vm": "Microsoft.Compute/virtualMachines",
    "vmss": "Microsoft.Compute/virtualMachineScaleSets",
}
ALERT_FREQUENCY = "PT5M"  # the schema's minimum idle period is 5 minutes
ALERT_SEVERITY = 3  # 0 critical .. 4 verbose; 3 = informational warning
SHUTDOWN_NOTICE_MINUTES = 30


def action_group(
    plan: Plan, found: Foundation, tags: dict[str, str], child: pulumi.ResourceOptions
) -> monitor.ActionGroup | None:
    """Email receivers for the alerts; None when the workload lists no emails."""
    emails = plan.guardrails.emails
    if not emails:
        return None
    return monitor.ActionGroup(
        resource_name(plan, "alerts"), resource_group_name=found.resource_group_name,
        location="global", enabled=True,
        group_short_name=plan.workload[:12],  # Azure limit: 12 characters
        email_receivers=[
            monitor.MicrosoftCommonEmailReceiverArgs(
                name=f"email-{i}", email_address=email, use_common_alert_schema=True)
            for i, email in enumerate(emails)
        ],
        tags=tags, opts=child,
    )


def idle_alert(
    plan: Plan, found: Foundation, cap: Capacity, group: monitor.ActionGroup | None,
    tags: dict[str, str], child: pulumi.ResourceOptions,
) -> monitor.MetricAlert | None:
    """Low-utilisation alert (CPU proxy, see the module docstring); None if switched off."""
    g = plan.guardrails
    if g.auto_shutdown_idle_minutes is None:
        return None
    window = check("metric_window", alert_window(g.auto_shutdown_idle_minutes))
    return monitor.MetricAlert(
        resource_name(plan, "idle-alert"), resource_group_name=found.resource_group_name,
        location="global", enabled=True, scopes=[cap.id], severity=ALERT_SEVERITY,
        evaluation_frequency=check("metric_frequency", ALERT_FREQUENCY), window_size=window,
        description=(
            f"infra-gen: {plan.workload} looks idle (max CPU < {g.gpu_utilization_below}% "
            f"for {window}; CPU is a proxy, Azure has no built-in GPU metric)"
        ),
        criteria=monitor.MetricAlertSingleResourceMultipleMetricCriteriaArgs(
            odata_type="Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria",
            all_of=[monitor.MetricCriteriaArgs(
                criterion_type="StaticThresholdCriterion", name="idle-cpu",
                metric_name=CPU_METRIC, metric_namespace=METRIC_NAMESPACE[cap.kind],
                operator=check("metric_operator", "LessThan"),
                threshold=g.gpu_utilization_below,
                time_aggregation=check("metric_aggregation", "Maximum"))]),
        actions=[monitor.MetricAlertActionArgs(action_group_id=group.id)] if group else None,
        auto_mitigate=True, tags=tags, opts=child,
    )


def vm_shutdown_schedule(
    plan: Plan, found: Foundation, cap: Capacity, tags: dict[str, str],
    child: pulumi.ResourceOptions,
) -> devtestlab.GlobalSchedule | None:
    """Daily auto-shutdown for a single VM whose days end before 24 h; else None."""
    s = plan.guardrails.schedule
    if cap.kind != "vm" or not runs_daily_window(s):
        return None
    emails = plan.guardrails.emails
    notify = check("schedule_status", "Enabled" if emails else "Disabled")
    return devtestlab.GlobalSchedule(
        resource_name(plan, "autoshutdown"), resource_group_name=found.resource_group_name,
        location=found.location, name=f"shutdown-computevm-{cap.name}",
        task_type=check("schedule_task_type", "ComputeVmShutdownTask"),
        status=check("schedule_status", "Enabled"), target_resource_id=cap.id,
        daily_recurrence=devtestlab.DayDetailsArgs(time=daily_shutdown_time(s)),
        time_zone_id=windows_time_zone(s.timezone),
        notification_settings=devtestlab.NotificationSettingsArgs(
            status=notify, time_in_minutes=SHUTDOWN_NOTICE_MINUTES,
            email_recipient=";".join(emails) if emails else None),
        tags=tags, opts=child,
    )


def scale_schedule(
    plan: Plan, found: Foundation, cap: Capacity, tags: dict[str, str],
    child: pulumi.ResourceOptions,
) -> monitor.AutoscaleSetting | None:
    """Scheduled scale-out/in for a scale set whose schedule is less than 24x7, or a fixed
    "hold-capacity" profile for an always-on scale set with spot machines; else None."""
    s = plan.guardrails.schedule
    total = plan.recommendation.purchase.total
    if cap.kind != "vmss" or not autoscale_needed(s, plan.recommendation.purchase.spot):
        return None
    if is_always_on(s):
        profiles = [monitor.AutoscaleProfileArgs(
            name="hold-capacity", capacity=_capacity(total), rules=[])]
    else:
        tz = windows_time_zone(s.timezone)
        profiles = [_profile(e, total, tz) for e in scale_events(s)] or [
            monitor.AutoscaleProfileArgs(name="never-runs", capacity=_capacity(0), rules=[])]
    emails = plan.guardrails.emails
    return monitor.AutoscaleSetting(
        resource_name(plan, "autoscale"), resource_group_name=found.resource_group_name,
        location=found.location, name=f"{plan.workload}-autoscale", enabled=True,
        target_resource_uri=cap.id, profiles=profiles,
        notifications=[monitor.AutoscaleNotificationArgs(
            operation=monitor.OperationType("Scale"),
            email=monitor.EmailNotificationArgs(custom_emails=emails))]
        if emails else None,
        tags=tags, opts=child,
    )


def _profile(event: ScaleEvent, total: int, tz: str) -> monitor.AutoscaleProfileArgs:
    return monitor.AutoscaleProfileArgs(
        name=event.name,
        capacity=_capacity(total if event.kind == "run" else 0),
        rules=[],
        recurrence=monitor.RecurrenceArgs(
            frequency=monitor.RecurrenceFrequency(check("recurrence_frequency", "Week")),
            schedule=monitor.RecurrentScheduleArgs(
                days=[check("weekday", d) for d in event.days],
                hours=[event.hour], minutes=[event.minute], time_zone=tz)),
    )


def _capacity(count: int) -> monitor.ScaleCapacityArgs:
    """Autoscale capacities are strings in the API (minimum = maximum = default)."""
    return monitor.ScaleCapacityArgs(minimum=str(count), maximum=str(count), default=str(count))
