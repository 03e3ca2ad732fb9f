"""Cost rules (hourly cap, spot, reservations, commitments, right-sizing) through both doors."""

from __future__ import annotations

from tests.policy import stacks as s
from tests.policy.doors import both_doors
from tests.policy.doors import one_violation as _one

# --- max-hourly-cost ------------------------------------------------------------------------


def _cap_doors(resources: list, cap: float) -> list[tuple[str, str]]:
    from infra_gen.policy.config import PolicyConfig
    from tests.policy.doors import check_door, crossguard_door

    via_check = check_door(
        resources,
        "max-hourly-cost",
        PolicyConfig(settings={"max-hourly-cost": {"max_hourly_usd": cap}}),
    )
    assert via_check == crossguard_door(resources, "max-hourly-cost", {"max_hourly_usd": cap})
    return via_check


def test_max_hourly_prices_rendered_capacity_from_the_catalog() -> None:
    # g5.xlarge us-east-1 (catalog): 1y reserved $0.6589, on-demand $1.006, spot $0.397.
    # 1 reserved + 1 on-demand + 2 spot = 0.6589 + 1.006 + 2 x 0.397 = $2.4589/h.
    stack = s.aws_group_stack(spot=2, base=2, reserved=1)
    assert _cap_doors(stack, 2.46) == []
    [(resource, message)] = _cap_doors(stack, 2.45)
    assert resource == ""
    assert "estimated $2.46/h at peak exceeds the $2.45/h cap from policy config" in message
    assert "2 x g5.xlarge spot at $0.397/h" in message


def test_max_hourly_uses_the_workloads_own_cap_without_config() -> None:
    # GCP g2-standard-4 us-central1: 1 on-demand $0.70683 + 2 spot x $0.28184 = $1.27051/h.
    stack = s.gcp_stack(spot=2)
    facts = dict(stack[0].props["infraGenFacts"], maxHourlyUsd=1.25)
    stack[0] = s.Resource(stack[0].type, stack[0].name, {"infraGenFacts": facts})
    [(_, message)] = both_doors(stack, "max-hourly-cost")
    assert "$1.27/h at peak exceeds the $1.25/h cap from the workload's guardrails" in message
    assert both_doors(s.gcp_stack(spot=2), "max-hourly-cost") == []  # no cap, no check


def test_max_hourly_falls_back_to_the_plan_estimate_for_unknown_types() -> None:
    stack = s.replace(
        s.azure_stack(),
        "petsnap-serving-vmss",
        sku={"name": "Standard_Unlisted_v9", "capacity": 3.0},
    )
    # sample_plan: 3 x Standard_NC4as_T4_v3 at $0.526 = $1.578/h (the plan's own figure).
    [(_, message)] = _cap_doors(stack, 1.0)
    assert "$1.58/h" in message and "the plan's estimate for 3 x Standard_NC4as_T4_v3" in message


# --- spot-for-interruptible-work / no-spot-only-latency-critical -------------------------------


def _as_training(resources: list, checkpoint: float | None = 30.0) -> list:
    first = resources[0]
    facts = dict(
        first.props["infraGenFacts"], workloadType="fine-tuning", checkpointMinutes=checkpoint
    )
    return [s.Resource(first.type, first.name, {"infraGenFacts": facts}), *resources[1:]]


def test_checkpointed_training_above_the_reserved_baseline_should_be_spot() -> None:
    on_demand = _as_training(s.aws_group_stack(spot=0, base=4, reserved=1))
    resource, message = _one(on_demand, "spot-for-interruptible-work")
    assert resource == "petsnap-serving-asg"
    assert "3 of 4 GPU instances run on-demand above the reserved baseline of 1" in message
    assert "checkpointed every 30 min" in message
    assert (
        both_doors(
            _as_training(s.aws_group_stack(spot=3, base=1, reserved=1)),
            "spot-for-interruptible-work",
        )
        == []
    )
    # Without checkpoints spot would lose work: no advice.
    assert (
        both_doors(
            _as_training(s.aws_group_stack(spot=0, base=4), checkpoint=None),
            "spot-for-interruptible-work",
        )
        == []
    )


def test_inference_must_not_be_all_spot() -> None:
    all_spot = s.azure_stack(spot=3, base=0)
    resource, message = _one(all_spot, "no-spot-only-latency-critical")
    assert resource == "petsnap-serving-vmss"
    assert "all 3 GPU instances" in message
    assert both_doors(s.azure_stack(spot=2, base=1), "no-spot-only-latency-critical") == []
    gcp = s.without(s.gcp_stack(), "petsnap-serving-on-demand-group")
    assert _one(gcp, "no-spot-only-latency-critical")[0] == "petsnap-serving-spot-group"
    # Training may be all spot.
    assert both_doors(_as_training(all_spot), "no-spot-only-latency-critical") == []


def test_aws_percentage_above_base_counts_as_on_demand() -> None:
    stack = s.aws_group_stack(spot=4, base=0, reserved=0)
    assert _one(stack, "no-spot-only-latency-critical")[0] == "petsnap-serving-asg"
    policy = stack[3].props["mixedInstancesPolicy"]
    mixed = dict(
        policy,
        instancesDistribution=dict(
            policy["instancesDistribution"], onDemandPercentageAboveBaseCapacity=25.0
        ),
    )
    # 25% of 4 above a base of 0 = 1 on-demand instance.
    assert (
        both_doors(
            s.replace(stack, "petsnap-serving-asg", mixedInstancesPolicy=mixed),
            "no-spot-only-latency-critical",
        )
        == []
    )


# --- reservation-within-floor ---------------------------------------------------------------


def test_reservation_above_the_always_on_floor() -> None:
    # sample_plan inference, 24x7, replicas_floor 1, 1 GPU per replica on 1-GPU instances:
    # floor = ceil(1 x 1 / 1) = 1 instance. Reserving 2 exceeds it.
    stack = s.replace(s.aws_group_stack(), "petsnap-serving-reservation", instanceCount=2.0)
    resource, message = _one(stack, "reservation-within-floor")
    assert resource == "petsnap-serving-reservation"
    assert "2 instances are reserved" in message and "only 1 run every hour" in message


# --- irreversible-commitment ----------------------------------------------------------------


def test_commitments_need_approval() -> None:
    plan = s.Resource(
        "aws:savingsplans/savingsPlan:SavingsPlan",
        "petsnap-serving-savings-plan-0",
        {"commitment": "0.66", "savingsPlanOfferingId": "off-1", "tags": s.TAGS},
    )
    stack = [*s.aws_instance_stack(), plan]
    resource, message = _one(stack, "irreversible-commitment")
    assert resource == "petsnap-serving-savings-plan-0"
    assert "commitment $0.66/h" in message and "cannot be cancelled" in message

    from infra_gen.policy.config import PolicyConfig
    from tests.policy.doors import check_door, crossguard_door

    approved = {"approved": ["petsnap-serving-savings-plan-0"]}
    assert (
        check_door(
            stack,
            "irreversible-commitment",
            PolicyConfig(settings={"irreversible-commitment": approved}),
        )
        == []
    )
    assert crossguard_door(stack, "irreversible-commitment", approved) == []
    cud = s.Resource(
        "gcp:compute/regionCommitment:RegionCommitment",
        "cud",
        {"plan": "TWELVE_MONTH", "resources": [{"type": "ACCELERATOR", "amount": "2"}]},
    )
    assert (
        "plan TWELVE_MONTH: 2 ACCELERATOR"
        in _one([*s.gcp_stack(), cud], "irreversible-commitment")[1]
    )


# --- right-sized-gpu ------------------------------------------------------------------------


def test_accelerator_far_bigger_than_the_need_is_flagged() -> None:
    stack = s.aws_instance_stack()
    facts = dict(stack[0].props["infraGenFacts"], neededMemoryGibPerGpu=8.0)
    stack[0] = s.Resource(stack[0].type, stack[0].name, {"infraGenFacts": facts})
    # A10G: 22.35 GiB in the catalog; 22.35 / 8 = 2.79x > 2x.
    message = _one(stack, "right-sized-gpu")[1]
    assert "A10G has 22.35 GiB per GPU but the sizing needs 8 GiB (2.8x, limit 2x)" in message
    assert "smaller accelerators on aws that fit: T4 (16 GiB)" in message
    facts["neededMemoryGibPerGpu"] = 11.2  # 22.35 / 11.2 = 1.996x: fine
    stack[0] = s.Resource(stack[0].type, stack[0].name, {"infraGenFacts": facts})
    assert both_doors(stack, "right-sized-gpu") == []


def test_smallest_fitting_accelerator_is_not_flagged() -> None:
    # Azure T4 (16 GiB) for a 2 GiB need is 8x, but no smaller Azure GPU exists in the catalog.
    stack = s.azure_stack()
    facts = dict(stack[0].props["infraGenFacts"], neededMemoryGibPerGpu=2.0)
    stack[0] = s.Resource(stack[0].type, stack[0].name, {"infraGenFacts": facts})
    assert both_doors(stack, "right-sized-gpu") == []
