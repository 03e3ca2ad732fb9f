"""AWS Budgets: a monthly cost budget scoped to the workload's cost-allocation tag.

The filter only matches once the ``workload`` tag is activated as a cost allocation tag in the
Billing console (it shows up there up to 24 h after first use); until then the budget sees $0.
``aws.costexplorer.CostAllocationTag`` can activate it, but fails on a tag key billing has not
seen yet, so a first deploy would fail: the program logs the reminder instead.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws

from infra_gen.errors import RenderError
from infra_gen.providers.aws_base import AwsContext
from infra_gen.providers.aws_values import (
    MAX_BUDGET_EMAILS,
    MAX_BUDGET_NOTIFICATIONS,
    checked,
)

NOTIFICATION_TYPES = ("ACTUAL", "FORECASTED")
BUDGET_TAG_KEY = "workload"


def tag_filter_value(key: str, value: str) -> str:
    """Budgets' TagKeyValue filter format: ``user:<key>$<value>`` (user-defined tags carry the
    ``user:`` prefix; see the aws.budgets.Budget SDK example and Budgets API CostFilters)."""
    return f"user:{key}${value}"


def budget(ctx: AwsContext, topic_arn: pulumi.Input[str] | None) -> aws.budgets.Budget | None:
    """COST / MONTHLY budget at guardrails.budget_monthly_usd, with an ACTUAL and a FORECASTED
    notification at each alert percent to the emails and the alert topic."""
    guard = ctx.plan.guardrails
    if guard.budget_monthly_usd is None:
        return None
    _check_limits(guard.alert_percent, guard.emails)
    notifications = [
        aws.budgets.BudgetNotificationArgs(
            comparison_operator=checked("budget_comparison_operator", "GREATER_THAN"),
            notification_type=checked("notification_type", kind),
            threshold=float(percent),
            threshold_type=checked("threshold_type", "PERCENTAGE"),
            subscriber_email_addresses=list(guard.emails) or None,
            subscriber_sns_topic_arns=[topic_arn] if topic_arn is not None else None,
        )
        for kind in NOTIFICATION_TYPES
        for percent in guard.alert_percent
    ]
    return aws.budgets.Budget(
        ctx.name("budget"),
        name=f"infra-gen-{ctx.plan.workload}",
        budget_type=checked("budget_type", "COST"),
        time_unit=checked("time_unit", "MONTHLY"),
        limit_amount=f"{guard.budget_monthly_usd:.2f}",
        limit_unit="USD",
        cost_filters=[
            aws.budgets.BudgetCostFilterArgs(
                name="TagKeyValue",
                values=[tag_filter_value(BUDGET_TAG_KEY, ctx.tags[BUDGET_TAG_KEY])],
            )
        ],
        notifications=notifications,
        tags=ctx.tags,
        opts=ctx.opts(),
    )


def _check_limits(alert_percent: list[int], emails: list[str]) -> None:
    count = len(alert_percent) * len(NOTIFICATION_TYPES)
    if count > MAX_BUDGET_NOTIFICATIONS:
        raise RenderError(
            f"guardrails.budget.alert_percent: AWS Budgets allows {MAX_BUDGET_NOTIFICATIONS} "
            f"notifications per budget (one ACTUAL and one FORECASTED per percent), "
            f"got {len(alert_percent)} percents; use at most {MAX_BUDGET_NOTIFICATIONS // 2}"
        )
    if len(emails) > MAX_BUDGET_EMAILS:
        raise RenderError(
            f"guardrails.budget.emails: AWS Budgets allows {MAX_BUDGET_EMAILS} email "
            f"subscribers per notification, got {len(emails)}"
        )
