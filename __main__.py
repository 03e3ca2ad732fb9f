"""The Pulumi program: `pulumi up` turns the stack's workload file into GPU infrastructure.

Stack config (stacks/Pulumi.<stack>.yaml, namespace ``infra-gen``):

    workload          path to the workload file, relative to this directory (required)
    cloud, region     pin the cloud / region instead of the cheapest across the workload's
    catalog           a catalog CSV instead of the built-in one
    image             AMI id or SSM parameter (AWS), image or family (GCP), image URN (Azure)
    project, billing-account          GCP project and billing account (budget)
    resource-group, subscription-id   Azure resource group and subscription
    ssh-key           an SSH public key for the instances (no inbound rule is opened)
    azure-budget-start  YYYY-MM-01 start of the Azure budget (default: this month's first day;
                      Azure rejects a start in the past and never lets it change)

It computes the Plan (no cloud call), logs the cost summary (so `pulumi preview` shows it before
anything is deployed), renders the plan's cloud inside one ``GpuWorkload`` component and exports
the plan's costs, instance type and count, purchase mix and the main resources' ids. A bad
workload file stops the program with the loader's one-line message before any resource exists.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import pulumi

from infra_gen.errors import InfraGenError

if TYPE_CHECKING:
    from infra_gen.plan import Plan
    from infra_gen.providers.base import RenderOptions

PROJECT_DIR = Path(__file__).resolve().parent

# Stack config key -> RenderOptions field.
_OPTION_KEYS = {
    "image": "image",
    "project": "gcp_project",
    "billing-account": "gcp_billing_account",
    "resource-group": "azure_resource_group",
    "subscription-id": "azure_subscription_id",
    "ssh-key": "ssh_public_key",
    "azure-budget-start": "azure_budget_start",
}


def stack_plan(config: pulumi.Config) -> tuple[Plan, RenderOptions]:
    """The Plan and render options for this stack's config; raises InfraGenError on bad input."""
    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload
    from infra_gen.providers.base import RenderOptions

    workload = load_workload(_project_path(config.require("workload")))
    catalog_path = config.get("catalog")
    catalog = load_catalog(_project_path(catalog_path) if catalog_path else None)
    plan = plan_workload(workload, catalog, cloud=config.get("cloud"),
                         region=config.get("region"))
    values = {field: config.get(key) for key, field in _OPTION_KEYS.items()}
    if values["azure_budget_start"] is None:  # a real deploy: the budget starts this month
        values["azure_budget_start"] = date.today().replace(day=1).isoformat()
    options = RenderOptions(**values)
    return plan, options


def _project_path(value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else PROJECT_DIR / path


def cost_summary(plan: Plan) -> list[str]:
    """The lines `pulumi preview` prints before anything is created."""
    rec, guard = plan.recommendation, plan.guardrails
    mix = rec.purchase
    parts = [f"{n} {kind}" for n, kind in
             ((mix.reserved, f"reserved ({mix.reserved_term})"), (mix.on_demand, "on-demand"),
              (mix.spot, "spot")) if n]
    per_run = f", ${rec.per_run_usd:,.2f}/run" if rec.per_run_usd is not None else ""
    lines = [
        f"{plan.workload}: {rec.instances}x {rec.instance_type} ({rec.accelerators_per_instance}x "
        f"{rec.accelerator}) on {rec.cloud} {rec.region} [{', '.join(parts)}]: "
        f"${rec.hourly_usd:,.2f}/h, ${rec.monthly_usd:,.2f}/month{per_run}",
        f"{plan.workload}: budget "
        + (f"${guard.budget_monthly_usd:,.2f}/month" if guard.budget_monthly_usd else "off")
        + ", idle shutdown "
        + (f"after {guard.auto_shutdown_idle_minutes} min below {guard.gpu_utilization_below:g}%"
           " GPU" if guard.auto_shutdown_idle_minutes is not None else "off"),
    ]
    lines += [f"{plan.workload}: purchase to make: {p.note}" for p in plan.purchases_to_make]
    return lines


def main() -> None:
    config = pulumi.Config("infra-gen")
    try:
        plan, options = stack_plan(config)
    except InfraGenError as err:
        raise pulumi.RunError(" ".join(str(err).split("\n"))) from None
    for line in cost_summary(plan):
        pulumi.log.info(line)
    for warning in plan.warnings:
        pulumi.log.warn(f"{plan.workload}: {warning}")
    if plan.recommendation.cloud == "aws" and plan.guardrails.budget_monthly_usd is not None:
        pulumi.log.info(f"{plan.workload}: activate the 'workload' cost allocation tag in the "
                        "AWS Billing console, or the budget's tag filter matches nothing")

    from infra_gen.providers.component import GpuWorkload

    try:
        component = GpuWorkload(plan.workload, plan, options)
    except InfraGenError as err:
        raise pulumi.RunError(" ".join(str(err).split("\n"))) from None
    for key, value in sorted(component.outputs.items()):
        pulumi.export(key, value)
    pulumi.export("purchases_to_make", [p.note for p in plan.purchases_to_make])


if __name__ == "__main__":
    main()
