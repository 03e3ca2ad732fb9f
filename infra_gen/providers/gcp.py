"""The GCP provider: a Plan as Compute Engine capacity with labels, idle alerts and a budget.

Importing this module is free: ``pulumi_gcp`` is imported inside ``render`` (via the sibling
modules ``gcp_compute``, ``gcp_capacity`` and ``gcp_guardrails``). Resources, all children of the
``GpuWorkload`` component and named ``<workload>-<role>``:

- a dedicated service account (log + metric writer; its checkpoint bucket only if gs://);
- capacity (see ``gcp_capacity``): one VM, or reserved / on-demand / spot regional MIGs from
  instance templates; a specific reservation for the reserved count; a committed-use discount
  only with ``purchasing.commit: true``; schedules when the workload runs less than 24x7;
- guardrails (see ``gcp_guardrails``): email channels, an idle-GPU alert policy when
  auto-shutdown is on, a billing budget when the budget is on.
Every resource that takes labels gets the cost tags, sanitised by ``gcp_values.gcp_labels``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from infra_gen.plan import Plan
from infra_gen.providers import gcp_values as v
from infra_gen.providers.base import RenderOptions, cost_tags, register
from infra_gen.startup import render_gcp_shutdown_script, render_startup_script

if TYPE_CHECKING:
    import pulumi

@register
class GcpProvider:
    name = "gcp"

    def render(self, plan: Plan, opts: RenderOptions, parent: pulumi.Resource) -> Mapping[str, Any]:
        import pulumi_gcp as gcp

        from infra_gen.providers import gcp_capacity, gcp_compute, gcp_guardrails
        from infra_gen.providers.gcp_context import GcpContext

        project = gcp.organizations.get_project_output(project_id=opts.gcp_project)
        ctx = GcpContext(
            plan=plan,
            opts=opts,
            parent=parent,
            labels=v.gcp_labels(cost_tags(plan)),
            project_id=opts.gcp_project or project.project_id,
            project_number=project.number,
        )
        account = gcp_compute.service_account(ctx)
        meta = gcp_compute.metadata(plan, render_startup_script(plan, "gcp"),
                                     render_gcp_shutdown_script(plan))
        outputs: dict[str, Any] = {"service_account_email": account.email}
        outputs.update(gcp_capacity.render_capacity(ctx, account, meta))
        guardrails = plan.guardrails
        wants_alert = guardrails.auto_shutdown_idle_minutes is not None
        if wants_alert or guardrails.budget_monthly_usd is not None:
            channels = gcp_guardrails.notification_channels(ctx)
            if wants_alert:
                outputs["alert_policy_id"] = gcp_guardrails.idle_alert(ctx, channels).id
            if guardrails.budget_monthly_usd is not None:
                outputs["budget_id"] = gcp_guardrails.budget(ctx, channels).id
        return outputs

    def unsupported(self, plan: Plan) -> dict[str, str]:
        """What this provider does not build for ``plan``, and why."""
        gaps: dict[str, str] = {}
        g, rec = plan.guardrails, plan.recommendation
        if not plan.public_ip:
            gaps["egress"] = (
                "VMs have no external IP and no Cloud NAT is created: enable Private "
                "Google Access (and Cloud NAT for package/model downloads) on the subnet"
            )
        if len(g.emails) > 5:
            gaps["budget-recipients"] = (
                "a GCP budget notifies at most 5 channels; the first 5 are used"
            )
        if rec.purchase.spot and g.auto_shutdown_idle_minutes is not None:
            gaps["spot-idle-stop"] = (
                "the spot group repairs stopped VMs (so preempted ones come "
                "back), which also restarts VMs the idle watchdog stopped; the "
                "idle alert reports them"
            )
        if rec.instance_type.startswith(("a3-megagpu", "a3-ultragpu")):
            gaps["gpudirect"] = (
                "multi-NIC GPUDirect-TCPXO/RDMA networking for A3 Mega/Ultra is not created"
            )
        if plan.commit and rec.purchase.reserved and rec.instance_type not in v.MACHINES:
            gaps["commitment"] = (
                f"no vCPU/memory figures for {rec.instance_type}; buy the CUD by hand"
            )
        url = g.checkpoint_sync_bucket_url
        if url and not url.startswith("gs://"):
            gaps["checkpoint-sync"] = f"the VM service account gets no access to {url} (not gs://)"
        return gaps

