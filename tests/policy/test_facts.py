"""Stack facts: built from the Plan, read back from the component's props."""

from __future__ import annotations

import json

from infra_gen.plan import GuardrailSettings, PurchaseMix, ScheduleSettings
from infra_gen.policy.facts import FACTS_KEY, StackFacts, always_on_floor, facts_from_plan
from tests.factories import sample_plan


def test_facts_from_a_plan_round_trip_through_engine_floats() -> None:
    plan = sample_plan(
        "aws", purchase=PurchaseMix(reserved=1, on_demand=1, spot=2, reserved_term="1y")
    )
    facts = facts_from_plan(plan)
    # sample_plan: 14 GiB needed at 0.6 utilisation -> 14 / 0.6 = 23.3 GiB accelerator.
    assert facts.accelerator_memory_gib == 23.3
    assert facts.needed_memory_gib_per_gpu == 14.0
    assert (facts.instances_peak, facts.reserved_instances, facts.reserved_term) == (4, 1, "1y")
    assert facts.hourly_usd == round(1.006 * 4, 4)
    assert facts.tags["cost-center"] == "ml-prod"
    wire = json.loads(json.dumps({FACTS_KEY: facts.to_props()}), parse_int=float)
    assert StackFacts.from_props(wire) == facts
    assert StackFacts.from_props({}) is None
    assert StackFacts.from_props({FACTS_KEY: {"workloadType": "inference"}}) is None


def _guard(hours: float, days: int) -> GuardrailSettings:
    return GuardrailSettings(
        auto_shutdown_idle_minutes=30,
        schedule=ScheduleSettings(hours_per_day=hours, days_per_week=days),
    )


def test_always_on_floor() -> None:
    # 24x7 service: replicas_floor (1) x 1 instance per replica = 1 of 4 instances.
    assert (
        always_on_floor(
            sample_plan("aws", purchase=PurchaseMix(on_demand=4), guardrails=_guard(24, 7))
        )
        == 1
    )
    # Weekdays only: nothing runs every hour of the week.
    assert (
        always_on_floor(
            sample_plan("aws", purchase=PurchaseMix(on_demand=4), guardrails=_guard(24, 5))
        )
        == 0
    )
    # Training running 730 h/month on 2 instances: both always on; 200 h/month: none.
    busy = sample_plan(
        "aws",
        workload_type="training",
        purchase=PurchaseMix(on_demand=2),
        guardrails=_guard(24, 7),
        hours_per_month=730.0,
    )
    assert always_on_floor(busy) == 2
    idle = sample_plan(
        "aws",
        workload_type="training",
        purchase=PurchaseMix(on_demand=2),
        guardrails=_guard(24, 7),
        hours_per_month=200.0,
    )
    assert always_on_floor(idle) == 0


def test_interruptible_and_latency_critical() -> None:
    train = facts_from_plan(sample_plan("gcp", workload_type="training"))
    assert train.checkpoint_minutes == 30 and train.interruptible and not train.latency_critical
    serve = facts_from_plan(sample_plan("gcp"))
    assert serve.latency_critical and not serve.interruptible


def test_facts_survive_a_real_render_where_none_values_are_dropped() -> None:
    from infra_gen.policy.model import Resource
    from infra_gen.policy.registry import find_facts
    from infra_gen.render import render_plan

    plan = sample_plan("aws")  # no reserved term, no checkpoint, no cap: all None
    rendered = render_plan(plan)
    component = next(r for r in rendered if r.type == "infra-gen:index:GpuWorkload")
    assert "reservedTerm" not in component.inputs[FACTS_KEY]  # the engine dropped it
    facts = find_facts([Resource(r.type, r.name, r.inputs) for r in rendered])
    assert facts == facts_from_plan(plan)
