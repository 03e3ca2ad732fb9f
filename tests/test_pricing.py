"""The cost model, figure by figure. Every expected number is worked out by hand in a comment."""

from __future__ import annotations

import pytest

from infra_gen import pricing
from infra_gen.pricing import Mix
from tests.fakes import offer, workload

P5 = offer("p5.48xlarge", accelerator="H100", on_demand=98.32, reserved_1y=64.40,
           reserved_3y=42.00)  # seed 002: 12.29 / 8.05 / 5.25 USD per GPU-hour x 8 GPUs


def usd(micros: int | None) -> float:
    assert micros is not None
    return pricing.to_usd(micros)


def test_money_is_exact_micro_dollars_rounded_half_up_to_cents() -> None:
    assert pricing.to_micros(32.7726) == 32_772_600
    assert pricing.to_micros(40.96575) == 40_965_750
    assert pricing.to_usd(262_180_800) == 262.18
    assert pricing.to_usd(5_000) == 0.01  # 0.005 rounds half up, not to even
    assert pricing.to_usd(4_999) == 0.0
    assert pricing.HOURS_PER_MONTH == 730


def test_seed_004_fine_tune_on_one_p4d_for_8_hours_on_demand() -> None:
    # Seed 004: "Fine-tune 7B on 1x p4d.24xlarge, 8 hours, $262 on demand": 32.77 x 8 = 262.16.
    profile = pricing.profile_of(workload("fine-tuning"))
    usage = pricing.run_usage(profile, 1, 8.0)
    prices = pricing.prices_of(offer(on_demand=32.77))
    hours = pricing.run_hours_billed(usage, Mix(on_demand=1), 1.0)
    assert usd(pricing.price_hours(hours, prices)) == 262.16


def test_seed_004_spot_run_adds_expected_rework() -> None:
    # Seed 004: spot $13.10/h x 8 h = $104.80 ("$105"). Rework with 30-min checkpoints:
    # lost per interruption = 30/2 + 10 min restart = 25 min = 0.41667 h.
    profile = pricing.profile_of(workload("fine-tuning"))
    usage = pricing.run_usage(profile, 1, 8.0)
    hours = pricing.run_hours_billed(usage, Mix(spot=1), 1.0)
    # Unknown class, 2%/h: 8 h x 0.02 x 0.41667 h = 0.06667 h x 13.10 = 0.8733 -> 105.67.
    unknown = pricing.prices_of(offer(on_demand=32.77, spot=13.10))
    assert usd(pricing.price_hours(hours, unknown)) == 105.67
    # "<5%" bucket: 2.5%/month / 730 h = 3.42e-5/h; 8 x 3.42e-5 x 0.41667 x 13.10 = $0.0015.
    calm = pricing.prices_of(offer(on_demand=32.77, spot=13.10, interruption="<5%"))
    assert usd(pricing.price_hours(hours, calm)) == 104.80


def test_interruption_buckets_map_to_hourly_rates() -> None:
    assert pricing.interruptions_per_hour("<5%") == pytest.approx(0.025 / 730)
    assert pricing.interruptions_per_hour(">20%") == pytest.approx(0.30 / 730)
    assert pricing.interruptions_per_hour(None) == 0.02
    rates = [pricing.interruptions_per_hour(c) for c in pricing.INTERRUPTIONS_PER_MONTH]
    assert rates == sorted(rates)


def test_reserved_is_billed_every_hour_of_the_month() -> None:
    # Seed 002, p5.48xlarge: on demand 98.32 x 730 = 71,773.60; 1y 64.40 x 730 = 47,012.00;
    # 3y 42.00 x 730 = 30,660.00 per month, however little the instance runs.
    profile = pricing.profile_of(workload("inference"))
    usage = pricing.service_usage(profile, 1, 1)
    prices = pricing.prices_of(P5)
    cost = {
        "od": pricing.price_hours(pricing.monthly_hours(usage, Mix(on_demand=1)), prices),
        "1y": pricing.price_hours(pricing.monthly_hours(usage, Mix(reserved=1, term="1y")), prices),
        "3y": pricing.price_hours(pricing.monthly_hours(usage, Mix(reserved=1, term="3y")), prices),
    }
    assert {k: usd(v) for k, v in cost.items()} == {"od": 71773.60, "1y": 47012.00, "3y": 30660.00}


@pytest.mark.parametrize(("busy_hours", "winner"), [(300.0, "od"), (320.0, "3y")])
def test_reserved_only_wins_for_capacity_busy_most_of_the_time(busy_hours: float,
                                                              winner: str) -> None:
    # Break-even: 42.00 / 98.32 = 42.7% of 730 h = 311.8 h/month (seed 002's "~40%").
    profile = pricing.profile_of(workload("fine-tuning", training={
        "duration_hours": busy_hours, "checkpoint_minutes": 30, "runs_per_month": 1.0}))
    usage = pricing.run_usage(profile, 1, busy_hours)
    prices = pricing.prices_of(P5)
    od = pricing.price_hours(pricing.monthly_hours(usage, Mix(on_demand=1)), prices)
    r3 = pricing.price_hours(pricing.monthly_hours(usage, Mix(reserved=1, term="3y")), prices)
    assert od is not None and r3 is not None
    assert (od < r3) == (winner == "od")


def test_hybrid_serving_reserves_the_floor_and_spots_the_overflow() -> None:
    # Floor 2 instances, peak 5, 24x7. Overflow runs 50% of 730 h = 365 h each.
    # reserved 2 x 730 x 6.50 = 9,490.00; spot 3 x 365 x 3.00 = 3,285.00;
    # rework (on-demand cover): 1,095 h x 0.02/h x 10/60 h x 10.00 = 36.50 -> 12,811.50.
    # All on demand: 2 x 730 x 10 + 3 x 365 x 10 = 25,550.00.
    profile = pricing.profile_of(workload("inference"))
    usage = pricing.service_usage(profile, 5, 2)
    prices = pricing.prices_of(offer(on_demand=10.0, spot=3.0, reserved_1y=6.50))
    hybrid = Mix(reserved=2, term="1y", spot=3)
    assert pricing.mix_allowed(profile, usage, hybrid)
    assert usd(pricing.price_hours(pricing.monthly_hours(usage, hybrid), prices)) == 12811.50
    all_od = pricing.monthly_hours(usage, Mix(on_demand=5))
    assert usd(pricing.price_hours(all_od, prices)) == 25550.00
    assert hybrid in pricing.candidate_mixes(profile, usage)


def test_serving_never_runs_only_on_spot() -> None:
    profile = pricing.profile_of(workload("inference"))
    usage = pricing.service_usage(profile, 3, 1)
    assert not pricing.mix_allowed(profile, usage, Mix(spot=3))  # spot in the floor slot
    assert pricing.mix_allowed(profile, usage, Mix(on_demand=1, spot=2))
    zero = pricing.profile_of(workload("inference", inference={
        "requests_per_second": 10, "scale_to_zero": True}))
    usage0 = pricing.service_usage(zero, 3, 1)
    assert usage0.floor == 0  # scale to zero: nothing is always on, so nothing reserved
    assert all(m.spot == 0 and m.reserved == 0 for m in pricing.candidate_mixes(zero, usage0))


def test_training_without_checkpoints_gets_no_spot_unless_asked() -> None:
    auto = pricing.profile_of(workload("fine-tuning", training={"duration_hours": 8}))
    assert not auto.interruptible
    usage = pricing.run_usage(auto, 2, 8.0)
    assert all(m.spot == 0 for m in pricing.candidate_mixes(auto, usage))
    always = pricing.profile_of(workload(
        "fine-tuning", training={"duration_hours": 8}, purchasing={"spot": "always"}))
    usage = pricing.run_usage(always, 2, 8.0)
    assert pricing.candidate_mixes(always, usage) == [Mix(spot=2)]
    # No checkpoints: an interruption loses half the run, 4 h, plus the 10-minute restart.
    assert usage.lost_hours == pytest.approx(4 + 10 / 60)


def test_schedule_hours_and_runs_per_month() -> None:
    # 10 h x 5 days x 730/168 weeks = 217.26 h; 24 x 7 is exactly 730 h.
    office = pricing.profile_of(workload("dev", schedule={"hours_per_day": 10,
                                                         "days_per_week": 5}))
    assert office.window_hours == pytest.approx(217.26, abs=0.01)
    assert pricing.profile_of(workload("dev")).window_hours == pytest.approx(730)
    # 4 runs of 20 h = 80 h/month, within the window; 40 runs of 20 h are capped at it.
    runs = pricing.profile_of(workload("fine-tuning", training={
        "duration_hours": 20, "checkpoint_minutes": 20, "runs_per_month": 4}))
    assert pricing.run_usage(runs, 1, 20.0).floor_hours == 80
    busy = pricing.profile_of(workload("fine-tuning", training={
        "duration_hours": 20, "checkpoint_minutes": 20, "runs_per_month": 40}))
    assert pricing.run_usage(busy, 1, 20.0).floor_hours == 730


def test_reserved_per_run_charges_the_time_between_runs() -> None:
    # 2 runs a month of 100 h on 1 instance at 42.00 (3y): the reservation is paid for
    # 730 / 2 = 365 h per run -> 15,330.00; a 1,000 h run pays its own 1,000 h -> 42,000.00.
    profile = pricing.profile_of(workload("training"))
    prices = pricing.prices_of(P5)
    short = pricing.run_usage(profile, 1, 100.0)
    mix = Mix(reserved=1, term="3y")
    assert usd(pricing.price_hours(pricing.run_hours_billed(short, mix, 2.0), prices)) == 15330.0
    long = pricing.run_usage(profile, 1, 1000.0)
    assert usd(pricing.price_hours(pricing.run_hours_billed(long, mix, 2.0), prices)) == 42000.0


def test_data_gravity_egress_per_run() -> None:
    # 1,000 GB in aws/us-east-1: to GCP 1,000 x 0.09 (AWS's out rate) = 90.00; to aws/us-west-2
    # 1,000 x 0.02 = 20.00; same region 0.
    profile = pricing.profile_of(workload("fine-tuning", placement={
        "data": {"cloud": "aws", "region": "us-east-1", "size_gb": 1000}}))
    assert usd(pricing.egress_micros_per_run(profile, offer(cloud="gcp", region="x"))) == 90.0
    assert usd(pricing.egress_micros_per_run(profile, offer(region="us-west-2"))) == 20.0
    assert pricing.egress_micros_per_run(profile, offer()) == 0


@pytest.mark.parametrize(("gpus", "replicas", "per_instance", "expected"), [
    (1, 3, 8, 1),    # three 1-GPU replicas share one 8-GPU instance
    (2, 5, 8, 2),    # 4 replicas per instance -> ceil(5 / 4)
    (3, 4, 8, 2),    # 2 replicas of 3 GPUs per instance
    (16, 2, 8, 4),   # each replica spans 2 instances
    (1, 0, 1, 0),
])
def test_instances_for_replicas(gpus: int, replicas: int, per_instance: int,
                                expected: int) -> None:
    assert pricing.instances_for(gpus, replicas, per_instance) == expected


def test_missing_prices_make_a_mix_unpriceable() -> None:
    profile = pricing.profile_of(workload("fine-tuning"))
    usage = pricing.run_usage(profile, 1, 8.0)
    prices = pricing.prices_of(offer(spot=None))
    assert pricing.price_hours(pricing.monthly_hours(usage, Mix(spot=1)), prices) is None
    assert pricing.hourly_micros(Mix(reserved=1, term="1y"), prices) is None


def test_one_reclaimed_node_rolls_back_a_whole_training_job() -> None:
    # 4 nodes x 10 h on spot, 30-min checkpoints (lost 25 min = 0.41667 h), unknown class 2%/h:
    # training: 40 instance-h x 0.02 x 0.41667 h x 4 nodes = 1.3333 h of rework x 1.00 = 1.33;
    # batch (independent instances): 40 x 0.02 x 10/60 h = 0.1333 h -> 0.13.
    prices = pricing.prices_of(offer(on_demand=3.0, spot=1.0))
    train = pricing.run_usage(pricing.profile_of(workload("fine-tuning")), 4, 10.0)
    batch = pricing.run_usage(pricing.profile_of(workload("batch")), 4, 10.0)
    spot = Mix(spot=4)
    assert usd(pricing.price_hours(pricing.run_hours_billed(train, spot, 1), prices)) == 41.33
    assert usd(pricing.price_hours(pricing.run_hours_billed(batch, spot, 1), prices)) == 40.13
