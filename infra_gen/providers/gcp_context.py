"""What every GCP resource builder needs: the plan, options, labels, project and naming.

Kept apart from the builders so that compute, capacity and guardrail modules share one small
value instead of six parameters each. Imports ``pulumi`` (not ``pulumi_gcp``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi

from infra_gen.plan import Plan
from infra_gen.providers.base import RenderOptions, resource_name


@dataclass(frozen=True)
class GcpContext:
    plan: Plan
    opts: RenderOptions
    parent: pulumi.Resource
    labels: dict[str, str]
    project_id: pulumi.Input[str]  # resolved: RenderOptions.gcp_project or the provider default
    project_number: pulumi.Input[str]

    @property
    def project(self) -> str | None:
        """The explicit project, or None to let the provider configuration decide."""
        return self.opts.gcp_project

    @property
    def region(self) -> str:
        return self.plan.recommendation.region

    def name(self, role: str) -> str:
        return resource_name(self.plan, role)

    def child(self, **kwargs: Any) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self.parent, **kwargs)
