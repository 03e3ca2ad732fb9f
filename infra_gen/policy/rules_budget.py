"""Money rules that read whole resources: a budget that alerts in time, and no irreversible
commitment without approval."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from infra_gen.policy.model import (
    Finding,
    Resource,
    Rule,
    RuleConfig,
    Stack,
    as_list,
    get_path,
    is_unknown,
)

AWS_BUDGET = "aws:budgets/budget:Budget"
GCP_BUDGET = "gcp:billing/budget:Budget"
AZURE_BUDGETS = ("azure-native:consumption:Budget", "azure-native:costmanagement:Budget")
BUDGET_TYPES = (AWS_BUDGET, GCP_BUDGET, *AZURE_BUDGETS)
COMMITMENT_TYPES = {
    "aws:savingsplans/savingsPlan:SavingsPlan": "AWS Savings Plan",
    "gcp:compute/regionCommitment:RegionCommitment": "GCP committed use discount",
}


@dataclass(frozen=True)
class _BudgetView:
    thresholds_percent: list[float]
    tag_pairs: set[tuple[str, str]]  # (key, value) the budget filters on
    has_recipients: bool


def check_budget(stack: Stack, config: RuleConfig) -> list[Finding]:
    budgets = stack.of_type(*BUDGET_TYPES)
    if not budgets:
        return [
            Finding(
                "",
                "the stack has no budget (AWS Budgets, GCP billing budget or Azure "
                "consumption budget); remove 'budget: null' from the workload's "
                "guardrails",
            )
        ]
    wanted = {(_norm(k), _norm(v)) for k, v in (stack.facts.tags.items() if stack.facts else ())}
    problems: list[Finding] = []
    for budget in budgets:
        view = _view(budget)
        why = _budget_problem(view, wanted)
        if why is None:
            return []
        problems.append(Finding(budget.name, f"budget {budget.name!r} {why}"))
    return problems


def _budget_problem(view: _BudgetView, wanted: set[tuple[str, str]]) -> str | None:
    if not any(t <= 100 for t in view.thresholds_percent):
        got = ", ".join(f"{t:g}%" for t in sorted(view.thresholds_percent)) or "none"
        return f"has no alert at or below 100% of the amount (thresholds: {got})"
    if not view.has_recipients:
        return "alerts nobody (no email, topic or contact)"
    covered = {(_norm(k), _norm(v)) for k, v in view.tag_pairs}
    if not covered:
        return "does not filter on the workload's tags/labels, so it tracks unrelated spend"
    if wanted and not covered & wanted:
        return f"filters on {sorted(view.tag_pairs)}, none of the workload's tags"
    return None


def _norm(text: str) -> str:
    """Tag values as each cloud sanitises them (GCP lowercases, '_' for spaces)."""
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def _view(budget: Resource) -> _BudgetView:
    if budget.type == AWS_BUDGET:
        return _aws_view(budget)
    if budget.type == GCP_BUDGET:
        return _gcp_view(budget)
    return _azure_view(budget)


def _aws_view(budget: Resource) -> _BudgetView:
    limit = _float(budget.get("limitAmount"))
    thresholds, recipients = [], False
    for note in as_list(budget.get("notifications")):
        value = _float(get_path(note, "threshold"))
        if get_path(note, "thresholdType") == "ABSOLUTE_VALUE":
            value = value / limit * 100 if limit else float("inf")
        thresholds.append(value)
        recipients |= bool(
            as_list(get_path(note, "subscriberEmailAddresses"))
            or as_list(get_path(note, "subscriberSnsTopicArns"))
        )
    pairs: set[tuple[str, str]] = set()
    for f in as_list(budget.get("costFilters")):
        if get_path(f, "name") == "TagKeyValue":
            for value in as_list(get_path(f, "values")):
                key, _, tag = str(value).removeprefix("user:").partition("$")
                pairs.add((key, tag))
    for tags in _walk_key(budget.get("filterExpression"), "tags"):
        pairs.update(
            (str(get_path(tags, "key")), str(v)) for v in as_list(get_path(tags, "values"))
        )
    return _BudgetView(thresholds, pairs, recipients)


def _gcp_view(budget: Resource) -> _BudgetView:
    thresholds = [
        _float(get_path(r, "thresholdPercent")) * 100 for r in as_list(budget.get("thresholdRules"))
    ]
    labels = budget.get("budgetFilter.labels", {})
    pairs = {(str(k), str(v)) for k, v in labels.items()} if isinstance(labels, dict) else set()
    rule = budget.get("allUpdatesRule", {})
    recipients = (
        get_path(rule, "disableDefaultIamRecipients") is not True
        or bool(get_path(rule, "pubsubTopic"))
        or bool(as_list(get_path(rule, "monitoringNotificationChannels")))
    )
    return _BudgetView(thresholds, pairs, recipients)


def _azure_view(budget: Resource) -> _BudgetView:
    thresholds, recipients = [], False
    notes = budget.get("notifications", {})
    for note in notes.values() if isinstance(notes, dict) else []:
        if get_path(note, "enabled") is False:
            continue
        thresholds.append(_float(get_path(note, "threshold")))
        recipients |= any(
            as_list(get_path(note, k)) for k in ("contactEmails", "contactGroups", "contactRoles")
        )
    pairs: set[tuple[str, str]] = set()
    for tags in _walk_key(budget.get("filter"), "tags"):
        pairs.update(
            (str(get_path(tags, "name")), str(v)) for v in as_list(get_path(tags, "values"))
        )
    return _BudgetView(thresholds, pairs, recipients)


def _walk_key(value: Any, key: str) -> Iterator[Any]:
    """Every value under ``key`` at any depth (filter expressions nest ands/ors/not)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key and isinstance(v, dict):
                yield v
            else:
                yield from _walk_key(v, key)
    elif isinstance(value, list):
        for item in value:
            yield from _walk_key(item, key)


def _float(value: Any) -> float:
    if is_unknown(value) or value is None or isinstance(value, bool):
        return 0.0
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def check_commitment(stack: Stack, config: RuleConfig) -> list[Finding]:
    approved = set(config.get("approved", []))
    findings = []
    for res in stack.resources:
        kind = COMMITMENT_TYPES.get(res.type)
        if kind is None or "*" in approved or res.name in approved:
            continue
        findings.append(
            Finding(
                res.name,
                (
                    f"{kind} {res.name!r} ({_commitment_terms(res)}) cannot be cancelled once "
                    "active; get it approved by listing its name in this policy's 'approved' "
                    "config, or set "
                    "purchasing.commit: false to report it as a purchase instead"
                ),
            )
        )
    return findings


def _commitment_terms(res: Resource) -> str:
    if res.type.startswith("aws:"):
        return f"commitment ${res.get('commitment', '?')}/h"
    amounts = ", ".join(
        f"{get_path(r, 'amount')} {get_path(r, 'type')}" for r in as_list(res.get("resources"))
    )
    return f"plan {res.get('plan', '?')}: {amounts or 'no resources'}"


BUDGET = Rule(
    id="budget-required",
    description="The stack has a budget with an alert at or below 100% that covers the "
    "workload's cost-allocation tags/labels.",
    level="mandatory",
    scope="stack",
    check=check_budget,
    remediation="Keep guardrails.budget in the workload file (on by default: plan x 1.2).",
)
COMMITMENT = Rule(
    id="irreversible-commitment",
    description="Savings Plans and committed use discounts cannot be cancelled: they need an "
    "explicit approval in the policy config.",
    level="mandatory",
    scope="stack",
    check=check_commitment,
    remediation="List approved commitment resource names in config 'approved' ('*' = all).",
    config_schema={
        "approved": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": "Resource names of approved commitments; '*' approves every one.",
        }
    },
)
