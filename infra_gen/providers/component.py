"""The one ComponentResource every cloud renders into: ``infra-gen:index:GpuWorkload``."""

from __future__ import annotations

from typing import Any

import pulumi

from infra_gen.plan import Plan
from infra_gen.policy.facts import FACTS_KEY, facts_from_plan
from infra_gen.providers.base import COMPONENT_TYPE, RenderOptions, get_provider


class GpuWorkload(pulumi.ComponentResource):
    """A plan's resources on one cloud: capacity, reserved baseline, guardrails, budget.

    Children are named ``<workload>-<role>`` and parented here; ``outputs`` holds the plan's cost
    figures and the ids of the main resources, and is what the Pulumi program exports.

    The component also carries ``infraGenFacts`` (infra_gen.policy.facts) as an input and a
    registered output: workload facts no cloud resource records (type, checkpointing, sizing
    memory, always-on floor), which the policy rules read in both ``infra-gen check`` and
    CrossGuard (stack policies see outputs, resource policies see inputs).
    """

    outputs: dict[str, Any]

    def __init__(
        self,
        name: str,
        plan: Plan,
        render_options: RenderOptions | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        facts = facts_from_plan(plan).to_props()
        super().__init__(COMPONENT_TYPE, name, {FACTS_KEY: facts}, opts)
        provider = get_provider(plan.recommendation.cloud)
        ids = dict(provider.render(plan, render_options or RenderOptions(), self))
        rec = plan.recommendation
        self.outputs = {
            "cloud": rec.cloud,
            "region": rec.region,
            "instance_type": rec.instance_type,
            "instance_count": rec.instances,
            "purchase_mix": rec.purchase.model_dump(mode="json"),
            "hourly_usd": rec.hourly_usd,
            "monthly_usd": rec.monthly_usd,
            "per_run_usd": rec.per_run_usd,
            **ids,
        }
        self.register_outputs({**self.outputs, FACTS_KEY: facts})
