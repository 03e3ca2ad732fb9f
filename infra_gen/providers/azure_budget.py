"""Azure consumption budget at the resource-group scope, and the watchdog's deallocate role.

Imported only from ``AzureProvider.render``.

Budget (learn.microsoft.com/rest/api/consumption/budgets/create-or-update):
- scope ``/subscriptions/<id>/resourceGroups/<rg>``, category Cost, time grain Monthly, amount =
  the workload's monthly budget, filtered on the ``workload`` tag (operator In) so only this
  workload's spend counts even in a shared resource group. Implicit children copy tags only at
  creation (an OS disk takes its VM's tags then, and is not updated when they change:
  hashicorp/terraform-provider-azurerm#8162), so changing a cost tag later needs the disks
  re-tagged too, or cost-management tag inheritance (not rendered: it is subscription-wide);
- notifications Actual and Forecasted at each alert percent (threshold is a percent, 0-1000),
  operator GreaterThan (the API marks EqualTo for deprecation). A budget holds at most five
  notifications (SDK docstring), so 3 percents x 2 types = 6 are split into one budget per
  threshold type, each chunked by five;
- no emails in the workload: the subscription's Owners are notified (``contact_roles``), since
  a notification needs at least one recipient.

Start date: the first day of the month of the plan's catalog ``as_of`` date, so the same plan
always renders the same budget (no "today" in the output). Azure refuses a Monthly start date
before the current month, and never lets a budget's start date change once created
(terraform-provider-azurerm PR #12121, issue #17675; "Start date of budgets cannot be updated"),
so ``ignore_changes`` keeps later deploys from trying to move it. The catalog month is
usually in the past at first deploy, so a real stack sets ``infra-gen:azure-budget-start``
to the current month once (it then never changes); renders without it stay deterministic.
"""

from __future__ import annotations

import re
import uuid

import pulumi
import pulumi_azure_native.authorization as authorization
import pulumi_azure_native.consumption as consumption

from infra_gen.errors import RenderError
from infra_gen.plan import Plan
from infra_gen.providers.azure_compute import Capacity
from infra_gen.providers.azure_network import Foundation
from infra_gen.providers.azure_values import check
from infra_gen.providers.base import RenderOptions, resource_name

MAX_NOTIFICATIONS_PER_BUDGET = 5
THRESHOLD_TYPES = ("Actual", "Forecasted")
FALLBACK_CONTACT_ROLES = ["Owner"]
# Least privilege for the idle watchdog: read and deallocate virtual machines, nothing else
# (learn.microsoft.com/azure/role-based-access-control/permissions/compute).
DEALLOCATE_ACTIONS = [
    "Microsoft.Compute/virtualMachines/read",
    "Microsoft.Compute/virtualMachines/deallocate/action",
]
BUDGET_START_KEY = "azure-budget-start"  # stack config infra-gen:azure-budget-start
_FIRST_OF_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-01$")
_GUID_NAMESPACE = uuid.UUID("6f1c1a4e-5d1b-4b8e-9f0a-1b2c3d4e5f60")  # infra-gen's, fixed


def subscription_id(opts: RenderOptions) -> pulumi.Input[str]:
    """The configured subscription, else the provider's current one (an invoke)."""
    if opts.azure_subscription_id:
        return opts.azure_subscription_id
    return authorization.get_client_config_output().subscription_id


def group_scope(opts: RenderOptions, found: Foundation) -> pulumi.Output[str]:
    return pulumi.Output.concat(
        "/subscriptions/", subscription_id(opts), "/resourceGroups/", found.resource_group_name)


def budget_start_date(plan: Plan, configured: str | None = None) -> str:
    """The stack's ``infra-gen:azure-budget-start`` (YYYY-MM-01) if set, else the first day
    of the catalog's month, e.g. as_of 2026-10-01 -> 2026-10-01T00:00:00Z."""
    if configured is None:
        return f"{plan.catalog.as_of[:7]}-01T00:00:00Z"
    if not _FIRST_OF_MONTH.match(configured):
        raise RenderError(
            f"infra-gen:{BUDGET_START_KEY}: expected the first day of a month as YYYY-MM-01 "
            f"(Azure budgets start on the 1st), got {configured!r}"
        )
    return f"{configured}T00:00:00Z"


def notification_batches(percents: list[int]) -> list[tuple[str, list[tuple[str, int]]]]:
    """(budget suffix, [(threshold type, percent)]) batches of at most five notifications."""
    pairs = [(t, p) for t in THRESHOLD_TYPES for p in sorted(percents)]
    if len(pairs) <= MAX_NOTIFICATIONS_PER_BUDGET:
        return [("", pairs)]
    batches = []
    for t in THRESHOLD_TYPES:
        typed = [pair for pair in pairs if pair[0] == t]
        for i in range(0, len(typed), MAX_NOTIFICATIONS_PER_BUDGET):
            part = f"-{i // MAX_NOTIFICATIONS_PER_BUDGET + 1}" if i else ""
            batches.append((f"-{t.lower()}{part}", typed[i:i + MAX_NOTIFICATIONS_PER_BUDGET]))
    return batches


def budgets(
    plan: Plan, opts: RenderOptions, found: Foundation, child: pulumi.ResourceOptions
) -> list[consumption.Budget]:
    """The monthly budget(s); empty when the workload switches the budget off."""
    g = plan.guardrails
    if g.budget_monthly_usd is None:
        return []
    scope = group_scope(opts, found)
    start = budget_start_date(plan, opts.azure_budget_start)
    keep_start = pulumi.ResourceOptions.merge(
        child, pulumi.ResourceOptions(depends_on=found.depends_on, ignore_changes=["timePeriod"]))
    return [
        consumption.Budget(
            resource_name(plan, f"budget{suffix}"), scope=scope,
            budget_name=f"{plan.workload}-monthly{suffix}", amount=g.budget_monthly_usd,
            category=check("budget_category", "Cost"),
            time_grain=check("budget_time_grain", "Monthly"),
            time_period=consumption.BudgetTimePeriodArgs(start_date=start),
            filter=consumption.BudgetFilterArgs(tags=consumption.BudgetComparisonExpressionArgs(
                name="workload", operator=check("budget_filter_operator", "In"),
                values=[plan.workload])),
            notifications={f"{t.lower()}-{p}": _notification(plan, t, p) for t, p in batch},
            opts=keep_start,
        )
        for suffix, batch in notification_batches(g.alert_percent)
    ]


def _notification(plan: Plan, threshold_type: str, percent: int) -> consumption.NotificationArgs:
    emails = plan.guardrails.emails
    return consumption.NotificationArgs(
        enabled=True, operator=check("budget_operator", "GreaterThan"),
        threshold=float(percent), threshold_type=check("budget_threshold_type", threshold_type),
        contact_emails=list(emails), contact_roles=None if emails else FALLBACK_CONTACT_ROLES,
    )


def deallocate_role(
    plan: Plan, opts: RenderOptions, found: Foundation, cap: Capacity,
    child: pulumi.ResourceOptions,
) -> authorization.RoleAssignment | None:
    """Let the machines' identity deallocate VMs in the resource group (watchdog stop path)."""
    if plan.guardrails.auto_shutdown_idle_minutes is None or cap.principal_id is None:
        return None
    scope = group_scope(opts, found)
    key = f"{found.resource_group_name}/{plan.workload}"
    after_rg = pulumi.ResourceOptions.merge(
        child, pulumi.ResourceOptions(depends_on=found.depends_on))
    role = authorization.RoleDefinition(
        resource_name(plan, "deallocate-role"), scope=scope,
        role_definition_id=str(uuid.uuid5(_GUID_NAMESPACE, f"role/{key}")),
        role_name=f"infra-gen deallocate {key}", role_type="CustomRole",
        description="infra-gen idle watchdog: deallocate this workload's own VMs",
        permissions=[authorization.PermissionArgs(actions=DEALLOCATE_ACTIONS)],
        assignable_scopes=[scope], opts=after_rg,
    )
    return authorization.RoleAssignment(
        resource_name(plan, "deallocate-grant"), scope=scope,
        role_assignment_name=str(uuid.uuid5(_GUID_NAMESPACE, f"grant/{key}")),
        principal_id=cap.principal_id, principal_type="ServicePrincipal",
        role_definition_id=role.id, opts=after_rg,
    )
