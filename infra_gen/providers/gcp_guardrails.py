"""GCP guardrails: email notification channels, the idle-GPU alert policy and the billing budget.

The in-guest watchdog (startup script) is the first line of idle shutdown; the alert policy tells
people when a VM has sat idle anyway. The budget watches the billing account's spend for this
project and workload label. Imported only from ``GcpProvider.render`` (imports ``pulumi_gcp``).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pulumi
import pulumi_gcp as gcp

from infra_gen.errors import RenderError
from infra_gen.providers import gcp_values as v
from infra_gen.providers.gcp_context import GcpContext

# Ops Agent NVIDIA metric, percent 0-100 per GPU (labels gpu_number, model, uuid):
# https://cloud.google.com/monitoring/api/metrics_opsagent#agent-gpu
GPU_METRIC = "agent.googleapis.com/gpu/utilization"
ALIGNMENT_PERIOD_S = 300  # 5-minute means smooth over data-loader pauses
BUDGET_MAX_CHANNELS = 5  # all_updates_rule.monitoring_notification_channels limit (SDK doc)


def notification_channels(ctx: GcpContext) -> list[gcp.monitoring.NotificationChannel]:
    """One email channel per address in the guardrails, in the order given."""
    channels = []
    for index, email in enumerate(ctx.plan.guardrails.emails):
        channels.append(
            gcp.monitoring.NotificationChannel(
                ctx.name(f"email-{index}"),
                project=ctx.project,
                type=v.check("notification_channel_type", "email"),
                display_name=f"infra-gen {ctx.plan.workload}: {email}",
                labels={"email_address": email},
                user_labels=ctx.labels,
                opts=ctx.child(),
            )
        )
    return channels


def idle_gpu_filter(workload_label: str) -> str:
    return (
        f'metric.type="{GPU_METRIC}" AND resource.type="gce_instance" '
        f'AND metadata.user_labels.workload="{workload_label}"'
    )


def idle_alert(
    ctx: GcpContext, channels: list[gcp.monitoring.NotificationChannel]
) -> gcp.monitoring.AlertPolicy:
    """Alert when a VM's busiest GPU stays under the threshold for the idle period.

    Per instance, the maximum over its GPUs (REDUCE_MAX by instance_id), so a VM counts as idle
    only when every GPU is idle. Missing data does not fire: a VM that is stopped is not idle.
    """
    g, m = ctx.plan.guardrails, gcp.monitoring
    assert g.auto_shutdown_idle_minutes is not None
    condition = m.AlertPolicyConditionConditionThresholdArgs(
        filter=idle_gpu_filter(ctx.labels["workload"]),
        comparison=v.check("comparison", "COMPARISON_LT"),
        threshold_value=g.gpu_utilization_below,
        duration=f"{g.auto_shutdown_idle_minutes * 60}s",
        aggregations=[
            m.AlertPolicyConditionConditionThresholdAggregationArgs(
                alignment_period=f"{ALIGNMENT_PERIOD_S}s",
                per_series_aligner=v.check("per_series_aligner", "ALIGN_MEAN"),
                cross_series_reducer=v.check("cross_series_reducer", "REDUCE_MAX"),
                group_by_fields=["resource.label.instance_id"],
            )
        ],
        trigger=m.AlertPolicyConditionConditionThresholdTriggerArgs(count=1),
    )
    return m.AlertPolicy(
        ctx.name("idle-gpu"),
        project=ctx.project,
        display_name=f"{ctx.plan.workload}: GPU idle > {g.auto_shutdown_idle_minutes} min",
        combiner=v.check("alert_combiner", "OR"),
        conditions=[
            m.AlertPolicyConditionArgs(
                display_name=f"GPU utilization < {g.gpu_utilization_below:g}%",
                condition_threshold=condition,
            )
        ],
        notification_channels=[channel.id for channel in channels],
        documentation=m.AlertPolicyDocumentationArgs(
            mime_type="text/markdown",
            content=(
                f"GPUs of `{ctx.plan.workload}` have been under "
                f"{g.gpu_utilization_below:g}% for {g.auto_shutdown_idle_minutes} minutes. "
                "The in-VM watchdog should already have stopped the VM; if not, stop it or "
                f"touch `{g.busy_marker}` while it is busy without the GPU."
            ),
        ),
        user_labels=ctx.labels,
        opts=ctx.child(),
    )


def usd_amount(amount_usd: float) -> tuple[str, int]:
    """(units, nanos) for a Money value, rounded to the cent: 1234.56 -> ("1234", 560000000)."""
    cents = Decimal(str(amount_usd)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    units = int(cents)
    return str(units), int((cents - units) * 1_000_000_000)


def budget(
    ctx: GcpContext, channels: list[gcp.monitoring.NotificationChannel]
) -> gcp.billing.Budget:
    """Monthly budget on the billing account, filtered to this project and workload label, with
    CURRENT_SPEND and FORECASTED_SPEND rules at each alert percent. The amount is in USD: the
    billing account must bill in USD, or GCP rejects the budget."""
    g, b = ctx.plan.guardrails, gcp.billing
    assert g.budget_monthly_usd is not None
    account = ctx.opts.gcp_billing_account
    if not account:
        raise RenderError(
            "guardrails.budget: a GCP budget needs a billing account; set the stack's GCP billing "
            "account (RenderOptions.gcp_billing_account, e.g. 012345-6789AB-CDEF01) or set "
            "guardrails.budget: null"
        )
    units, nanos = usd_amount(g.budget_monthly_usd)
    rules = [
        b.BudgetThresholdRuleArgs(
            threshold_percent=percent / 100, spend_basis=v.check("spend_basis", basis)
        )
        for percent in g.alert_percent
        for basis in ("CURRENT_SPEND", "FORECASTED_SPEND")
    ]
    project = pulumi.Output.from_input(ctx.project_number).apply(lambda n: f"projects/{n}")
    return b.Budget(
        ctx.name("budget"),
        billing_account=account,
        display_name=f"infra-gen {ctx.plan.workload}"[:60],
        amount=b.BudgetAmountArgs(
            specified_amount=b.BudgetAmountSpecifiedAmountArgs(
                currency_code="USD", units=units, nanos=nanos
            )
        ),
        budget_filter=b.BudgetBudgetFilterArgs(
            projects=[project],
            labels={"workload": ctx.labels["workload"]},
            calendar_period=v.check("calendar_period", "MONTH"),
        ),
        threshold_rules=rules,
        all_updates_rule=b.BudgetAllUpdatesRuleArgs(
            monitoring_notification_channels=[c.id for c in channels[:BUDGET_MAX_CHANNELS]],
            disable_default_iam_recipients=False,
        ),  # billing admins keep getting the emails too
        opts=ctx.child(),
    )
