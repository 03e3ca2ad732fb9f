"""The one ComponentResource every cloud renders into: ``infra-gen:index:GpuWorkload``."""

from __future__ import annotations

from typing import Any

import pulumi

from infra_gen.plan import Plan
from infra_gen.providers.base import COMPONENT_TYPE, RenderOptions, get_provider


class GpuWorkload(pulumi.ComponentResource):
    """A plan's resources on one cloud: capacity, reserved baseline, guardrails, budget.

    Children are named ``<workload>-<role>`` and parented here; ``outputs`` holds the plan's cost
    figures and the ids of the main resources, and is what the Pulumi program exports.
    """

    outputs: dict[str, Any]

    def __init__(
        self,
        name: str,
        plan: Plan,
        render_options: RenderOptions | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__(COMPONENT_TYPE, name, None, opts)
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
        self.register_outputs(self.outputs)
