"""The example workloads (stacks/*.yaml) planned on AWS by the real optimizer and rendered:
each plan's instance type, count, purchase split and reservation show up in the resources, and
each file's guardrail figures (read from the files, not computed) reach the alarm and budget.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from infra_gen.plan import Plan
from infra_gen.providers import aws_values
from infra_gen.render import RenderedResource, render_plan
from tests.providers.aws_helpers import (
    ALARM,
    ASG,
    BUDGET,
    EVENT_RULE,
    INSTANCE,
    LT,
    RESERVATION,
    SAVINGS_PLAN,
    SCHEDULE,
    accepts_tags,
    of_type,
    one,
)

EXAMPLES = sorted(p.stem for p in (Path(__file__).parents[2] / "stacks").glob("*.yaml")
                  if not p.name.startswith("Pulumi."))
# Figures straight from the workload files (not computed by the code under test):
# name: (idle_minutes, gpu_utilization_below, budget monthly_usd, limited schedule)
EXAMPLE_GUARDRAILS = {
    "resnet50-inference": (60, 2.0, 1500.0, False),
    "hparam-sweep": (15, 5.0, 3000.0, True),  # 12 h x 5 days
    "embeddings-nightly-batch": (15, 5.0, 500.0, True),  # 4 h a day
    "llama7b-qlora-finetune": (30, 5.0, 800.0, True),  # 10 h x 5 days
}


@cache
def example(name: str) -> tuple[Plan, tuple[RenderedResource, ...]]:
    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload

    root = Path(__file__).parents[2]
    plan = plan_workload(load_workload(root / "stacks" / f"{name}.yaml"), load_catalog(),
                         cloud="aws")
    return plan, tuple(render_plan(plan))


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_workload_renders_its_plan(name: str) -> None:
    plan, res = example(name)
    rec, mix = plan.recommendation, plan.recommendation.purchase
    tags = aws_values.aws_tags({"team": plan.owner.team, "project": plan.owner.project,
                                "cost-center": plan.owner.cost_center,
                                "workload": plan.workload, "managed-by": "infra-gen"})
    if of_type(res, INSTANCE):
        inst = one(res, INSTANCE)
        assert (inst["instanceType"], rec.instances, mix.on_demand) == (rec.instance_type, 1, 1)
        assert inst["metadataOptions"]["httpTokens"] == "required"
        assert inst["rootBlockDevice"]["encrypted"] is True
    else:
        group, lt = one(res, ASG), one(res, LT)
        assert lt["instanceType"] == rec.instance_type
        assert group["maxSize"] == group["desiredCapacity"] == rec.instances
        dist = group["mixedInstancesPolicy"]["instancesDistribution"]
        assert dist["onDemandBaseCapacity"] == mix.reserved + mix.on_demand
        assert dist["onDemandPercentageAboveBaseCapacity"] == (0 if mix.spot else 100)
        assert lt["metadataOptions"]["httpTokens"] == "required"
        assert lt["blockDeviceMappings"][0]["ebs"]["encrypted"] == "true"
        assert lt["blockDeviceMappings"][0]["ebs"]["volumeSize"] == plan.root_volume_gib
        assert "instanceMarketOptions" not in lt
        assert len(of_type(res, EVENT_RULE)) == (1 if mix.spot else 0)
    reservations = of_type(res, RESERVATION)
    assert [r.inputs["instanceCount"] for r in reservations] == ([mix.reserved] if mix.reserved
                                                                  else [])
    assert of_type(res, SAVINGS_PLAN) == []  # no example sets purchasing.commit
    for r in res:
        if accepts_tags(r.type) and r.type != ASG:
            assert r.inputs.get("tags") == tags, r.name
    sg = one(res, "aws:ec2/securityGroup:SecurityGroup")
    assert sg.get("ingress", []) == []


@pytest.mark.parametrize("name", sorted(EXAMPLE_GUARDRAILS))
def test_example_workload_guardrails_match_the_file(name: str) -> None:
    plan, res = example(name)
    idle, below, budget, limited = EXAMPLE_GUARDRAILS[name]
    alarm = one(res, ALARM)
    assert alarm["threshold"] == below
    assert alarm["period"] * alarm["evaluationPeriods"] == idle * 60
    region = plan.recommendation.region
    if of_type(res, INSTANCE):
        assert alarm["alarmActions"][0] == f"arn:aws:automate:{region}:ec2:stop"
    else:
        assert alarm["dimensions"] == {"AutoScalingGroupName": f"{plan.workload}-asg"}
    assert one(res, BUDGET)["limitAmount"] == f"{budget:.2f}"
    assert len(of_type(res, SCHEDULE)) == (2 if limited else 0)
