"""The cost model: what one way of buying capacity costs per month and per run.

Every figure the planner prints comes from the functions here and the constants below, each
with its source. Money is integer micro-dollars wherever it is added up (one rounding per cost
component, to the micro-dollar) and is rounded to cents only in the Plan (``to_usd``).

The model separates *quantities* from *prices*, as Infracost's cost components do: ``Usage``
and ``Hours`` say how many instance-hours a purchase mix bills at each price (they depend on
the workload and the instance shape, never on an offer's prices); ``price_hours`` multiplies
them by one offer's prices. The optimizer computes the hours once per instance shape and
prices them for thousands of offers.

Purchase options:
- on-demand: instance-hours x on-demand price;
- spot: instance-hours x spot price, plus expected rework = instance-hours x interruptions per
  hour x (half the checkpoint interval + restart time), x the number of nodes of a synchronous
  training job (one reclaimed node rolls them all back). Rework is billed at the spot price for
  runs (the lost work is redone on spot) and at the on-demand price for serving overflow (an
  on-demand replacement covers the gap, seed 002's "on-demand emergency");
- reserved 1y/3y: billed for every hour of the term, HOURS_PER_MONTH per instance per month,
  whether the instance runs or not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal, NamedTuple

from infra_gen.catalog.models import Offer
from infra_gen.spec import Workload

# One hours-per-month constant (Infracost's HourToMonthUnitMultiplier): 365 days x 24 / 12.
HOURS_PER_MONTH = 730
HOURS_PER_WEEK = 168
# Weeks per month such that a 24 x 7 schedule is exactly HOURS_PER_MONTH (365/7/12 = 4.345,
# not 52/12 = 4.333, which would make "always on" 728 h in one place and 730 h in another).
WEEKS_PER_MONTH = HOURS_PER_MONTH / HOURS_PER_WEEK
MICROS_PER_USD = 1_000_000

# Spot interruptions. AWS Spot Instance Advisor publishes "frequency of interruption: the rate at
# which Spot has reclaimed capacity during the trailing month" in buckets (spot-advisor-data.json,
# read 2026). We take each bucket's midpoint as the chance an instance is reclaimed in a month of
# running (30% for the open ">20%" bucket) and spread it over HOURS_PER_MONTH hours.
INTERRUPTIONS_PER_MONTH: dict[str, float] = {
    "<5%": 0.025,
    "5-10%": 0.075,
    "10-15%": 0.125,
    "15-20%": 0.175,
    ">20%": 0.30,
}
# Unknown class (GCP and Azure publish none): seed 002's worked example, "interruption
# probability per hour is 2%", deliberately pessimistic so unknown risk never looks cheap.
UNKNOWN_INTERRUPTIONS_PER_HOUR = 0.02
# Every rate ``interruptions_per_hour`` can return, for searches that must cover each of them.
INTERRUPTION_RATES: tuple[float, ...] = tuple(sorted(
    {share / HOURS_PER_MONTH for share in INTERRUPTIONS_PER_MONTH.values()}
    | {UNKNOWN_INTERRUPTIONS_PER_HOUR}))
# Time to get a replacement working again: node launch (~1-2 min, seed 002's Karpenter note),
# image pull and checkpoint load. An assumption, not a measurement.
RESTART_MINUTES = 10
# Serving: with only the peak and the quietest-hour traffic known, traffic is taken to move
# evenly between them over the day, so an overflow instance above the floor runs half the time.
OVERFLOW_DUTY = 0.5

# Data egress, USD per GB moved out (seed 002, "Data egress costs": AWS to internet $0.09/GB,
# GCP $0.08/GB, Azure $0.087/GB; cross-region $0.02-0.08/GB, we take AWS's inter-region $0.02).
EGRESS_OUT_OF_CLOUD_USD_PER_GB: dict[str, float] = {"aws": 0.09, "gcp": 0.08, "azure": 0.087}
EGRESS_CROSS_REGION_USD_PER_GB = 0.02

Term = Literal["1y", "3y"]
TERMS: tuple[Term, ...] = ("1y", "3y")


def to_micros(usd: float) -> int:
    """USD (a catalog price with at most 6 decimals) to integer micro-dollars, exactly."""
    return round(usd * MICROS_PER_USD)


def to_usd(micros: int) -> float:
    """Micro-dollars to USD rounded half-up to cents: the only rounding money ever gets."""
    cents = (Decimal(micros) / MICROS_PER_USD).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return float(cents)


def to_usd_precise(micros: int) -> float:
    """Micro-dollars to USD with 4 decimals, for hourly prices that are quoted that way."""
    value = (Decimal(micros) / MICROS_PER_USD).quantize(
        Decimal("0.0001"), rounding=ROUND_HALF_UP
    )
    return float(value)


def interruptions_per_hour(interruption_class: str | None) -> float:
    """Expected reclaims per running instance-hour for an offer's Spot Advisor bucket."""
    if interruption_class is None:
        return UNKNOWN_INTERRUPTIONS_PER_HOUR
    return INTERRUPTIONS_PER_MONTH[interruption_class] / HOURS_PER_MONTH


# ``interruptions_per_hour`` as a table, for the per-offer loops (same arithmetic, same floats).
INTERRUPTIONS_PER_HOUR_BY_CLASS: dict[str | None, float] = {
    None: UNKNOWN_INTERRUPTIONS_PER_HOUR,
    **{name: share / HOURS_PER_MONTH for name, share in INTERRUPTIONS_PER_MONTH.items()},
}


@dataclass(frozen=True, slots=True)
class Profile:
    """What the workload file says about time and buying, independent of any offer."""

    is_run: bool  # training, fine-tuning, batch: priced per run; else a service
    is_training: bool
    is_inference: bool
    window_hours: float  # schedule hours per month
    runs_per_month: float | None
    interruptible: bool  # may run on spot at all
    spot_only: bool  # purchasing.spot == always
    terms: tuple[Term, ...]  # reserved terms the workload allows
    reserve_above_floor: bool  # an explicit term: reservations may exceed the always-on floor
    checkpoint_hours: float | None
    scale_to_zero: bool
    rank_by_run: bool  # one-off training: the run is the unit of spend
    egress_gb: float
    data_cloud: str | None
    data_region: str | None
    # training.max_run_hours / batch.deadline_hours: compute hours must meet it, and so must
    # the expected wall-clock hours of a run with spot (``expected_run_hours``).
    run_limit_hours: float | None = None


def profile_of(workload: Workload) -> Profile:
    schedule = workload.schedule
    window = schedule.hours_per_day * schedule.days_per_week * WEEKS_PER_MONTH
    runs: float | None = None
    checkpoint: float | None = None
    limit: float | None = None
    if workload.training is not None:
        runs = workload.training.runs_per_month
        limit = workload.training.max_run_hours
        if workload.training.checkpoint_minutes is not None:
            checkpoint = workload.training.checkpoint_minutes / 60
    elif workload.batch is not None:
        runs = workload.batch.runs_per_month
        limit = workload.batch.deadline_hours
    spot_policy = workload.purchasing.spot
    interruptible = spot_policy != "never" and (
        workload.type in ("batch", "dev", "inference")
        or checkpoint is not None
        or spot_policy == "always"
    )
    reserved = workload.purchasing.reserved
    terms: tuple[Term, ...] = () if reserved == "none" else TERMS if reserved == "auto" else (
        reserved,
    )
    data = workload.placement.data
    inference = workload.inference
    return Profile(
        is_run=not workload.is_service,
        is_training=workload.is_training,
        is_inference=workload.type == "inference",
        window_hours=window,
        runs_per_month=runs,
        interruptible=interruptible,
        spot_only=spot_policy == "always",
        terms=terms,
        reserve_above_floor=reserved in TERMS,
        checkpoint_hours=checkpoint,
        scale_to_zero=inference is not None and inference.scale_to_zero,
        rank_by_run=workload.is_training and (runs or 1.0) <= 1.0,
        egress_gb=data.size_gb if data is not None else 0.0,
        data_cloud=data.cloud if data is not None else None,
        data_region=data.region if data is not None else None,
        run_limit_hours=limit,
    )


@dataclass(frozen=True, slots=True)
class Usage:
    """Instance-hours of one instance shape, before choosing how to buy them.

    Instances ``[0, floor)`` run ``floor_hours`` a month; ``[floor, instances)`` are overflow
    running ``overflow_hours``. Runs (training, batch) have every instance in the floor.
    """

    instances: int
    floor: int
    floor_hours: float
    overflow_hours: float
    run_hours: float | None  # wall-clock hours of one run (runs only)
    lost_hours: float  # work lost per spot interruption: half a checkpoint interval + restart
    rework_at_on_demand: bool  # serving: an on-demand replacement covers an interruption
    always_on_floor: int  # instances that run every hour of the month
    gang: int = 1  # instances that lose work when any one is interrupted (synchronous training)


def run_usage(profile: Profile, instances: int, run_hours: float) -> Usage:
    """A training or batch run: all instances busy for the run, runs_per_month times."""
    runs = profile.runs_per_month or 1.0
    monthly = min(runs * run_hours, profile.window_hours)
    checkpoint = profile.checkpoint_hours
    if checkpoint is None and profile.is_training:
        checkpoint = run_hours  # no checkpoints: an interruption loses half the run on average
    # Batch items are independent: a restarted job skips finished items and loses only restart.
    lost = (checkpoint or 0.0) / 2 + RESTART_MINUTES / 60
    return Usage(
        instances=instances, floor=instances, floor_hours=monthly, overflow_hours=0.0,
        run_hours=run_hours, lost_hours=lost, rework_at_on_demand=False,
        always_on_floor=instances if monthly >= HOURS_PER_MONTH else 0,
        # Data/tensor/pipeline-parallel training steps in lock-step: one reclaimed node rolls
        # every node back to the last checkpoint. Batch instances work independently.
        gang=instances if profile.is_training else 1,
    )


def service_usage(profile: Profile, instances: int, floor: int) -> Usage:
    """A service: ``floor`` instances for the whole schedule, the rest for part of it."""
    floor = 0 if profile.scale_to_zero else min(floor, instances)
    window = profile.window_hours
    overflow_duty = OVERFLOW_DUTY if profile.is_inference else 1.0
    return Usage(
        instances=instances, floor=floor, floor_hours=window,
        overflow_hours=window * overflow_duty, run_hours=None,
        lost_hours=RESTART_MINUTES / 60, rework_at_on_demand=profile.is_inference,
        always_on_floor=floor if window >= HOURS_PER_MONTH else 0,
    )


@dataclass(frozen=True, slots=True)
class Mix:
    """Instances by purchase option; reserved take the busiest slots, spot the idlest."""

    reserved: int = 0
    term: Term | None = None
    on_demand: int = 0
    spot: int = 0

    @property
    def total(self) -> int:
        return self.reserved + self.on_demand + self.spot


@dataclass(frozen=True, slots=True)
class Hours:
    """Instance-hours one mix bills at each price over one period (a month, or one run)."""

    reserved: float
    term: Term | None
    on_demand: float
    spot: float
    rework: float  # spot instance-hours x lost hours x gang; x interruptions/hour = rework hours
    rework_at_on_demand: bool


def slot_hours(usage: Usage, start: int, count: int) -> float:
    """Sum of monthly hours of slots ``[start, start + count)``."""
    in_floor = max(0, min(start + count, usage.floor) - start)
    return in_floor * usage.floor_hours + (count - in_floor) * usage.overflow_hours


def monthly_hours(usage: Usage, mix: Mix) -> Hours:
    """Monthly instance-hours of ``mix`` (reserved: every hour of the month)."""
    od_hours = slot_hours(usage, mix.reserved, mix.on_demand)
    spot_hours = slot_hours(usage, mix.reserved + mix.on_demand, mix.spot)
    return Hours(
        reserved=float(mix.reserved * HOURS_PER_MONTH), term=mix.term, on_demand=od_hours,
        spot=spot_hours, rework=spot_hours * usage.lost_hours * usage.gang,
        rework_at_on_demand=usage.rework_at_on_demand,
    )


def run_hours_billed(usage: Usage, mix: Mix, runs_per_month: float) -> Hours:
    """Instance-hours billed for one run. A reservation is charged for the time between run
    starts (HOURS_PER_MONTH / runs_per_month), or the whole run if it is longer."""
    run = usage.run_hours or 0.0
    reserved_span = max(run, HOURS_PER_MONTH / runs_per_month)
    spot_hours = mix.spot * run
    return Hours(
        reserved=mix.reserved * reserved_span, term=mix.term, on_demand=mix.on_demand * run,
        spot=spot_hours, rework=spot_hours * usage.lost_hours * usage.gang,
        rework_at_on_demand=False,
    )


def expected_run_hours(usage: Usage, mix: Mix, interruptions_per_hour: float) -> float:
    """Expected wall-clock hours of one run: compute hours stretched by the rework spot costs.

    All spot, this is the rework ``run_hours_billed`` charges, as time: each reclaim loses
    ``lost_hours`` of work on the ``gang`` nodes it rolls back, so a run takes
    run x (1 + interruptions/hour x lost hours x gang). Any spot instance in a mix stretches
    the run by that same all-spot fraction: a synchronous gang stalls for every reclaim, and a
    batch job ends when its slowest instance does (items are not assumed to move between
    instances). Conservative for a mixed run (its on-demand nodes are never reclaimed), and it
    keeps feasibility a function of the count and "any spot" only, so the cheapest mix that
    meets a deadline is still a pure one (``candidate_mixes``' argument holds).
    """
    run = usage.run_hours or 0.0
    if not mix.spot:
        return run
    return run * (1 + interruptions_per_hour * usage.lost_hours * usage.gang)


class Prices(NamedTuple):
    """One offer's prices in micro-dollars per instance-hour (None = not sold).

    A NamedTuple rather than a frozen dataclass: one is built for every feasible offer of a
    search (up to 100k), and a frozen dataclass's ``__init__`` (one ``object.__setattr__`` per
    field) made that a fifth of the optimizer's per-offer time; a tuple is as immutable."""

    on_demand: int
    spot: int | None
    reserved_1y: int | None
    reserved_3y: int | None
    interruptions_per_hour: float


def prices_of(offer: Offer) -> Prices:
    """Micro-dollar prices of one offer (inlined ``to_micros`` and ``interruptions_per_hour``:
    this runs once per offer)."""
    spot, r1, r3 = offer.spot_usd_hr, offer.reserved_1y_usd_hr, offer.reserved_3y_usd_hr
    return Prices(
        round(offer.on_demand_usd_hr * MICROS_PER_USD),
        None if spot is None else round(spot * MICROS_PER_USD),
        None if r1 is None else round(r1 * MICROS_PER_USD),
        None if r3 is None else round(r3 * MICROS_PER_USD),
        INTERRUPTIONS_PER_HOUR_BY_CLASS[offer.spot_interruption],
    )


def reserved_price(prices: Prices, term: Term | None) -> int | None:
    if term is None:
        return None
    return prices.reserved_1y if term == "1y" else prices.reserved_3y


def price_hours(hours: Hours, prices: Prices) -> int | None:
    """Micro-dollars for ``hours`` at ``prices``; None when the offer lacks a needed price."""
    total = round(prices.on_demand * hours.on_demand) if hours.on_demand else 0
    if hours.reserved:
        reserved = reserved_price(prices, hours.term)
        if reserved is None:
            return None
        total += round(reserved * hours.reserved)
    if hours.spot:
        if prices.spot is None:
            return None
        rework_price = prices.on_demand if hours.rework_at_on_demand else prices.spot
        total += round(prices.spot * hours.spot)
        total += round(rework_price * hours.rework * prices.interruptions_per_hour)
    return total


def hourly_micros(mix: Mix, prices: Prices) -> int | None:
    """All instances running for one hour at the mix's prices (reserved at its hourly rate)."""
    total = prices.on_demand * mix.on_demand
    if mix.reserved:
        reserved = reserved_price(prices, mix.term)
        if reserved is None:
            return None
        total += reserved * mix.reserved
    if mix.spot:
        if prices.spot is None:
            return None
        total += prices.spot * mix.spot
    return total


def egress_usd_per_gb(data_cloud: str | None, data_region: str | None, offer: Offer) -> float:
    """Rate for moving the workload's data from where it lives to ``offer``'s region."""
    if data_cloud is None:
        return 0.0
    if offer.cloud != data_cloud:
        return EGRESS_OUT_OF_CLOUD_USD_PER_GB[data_cloud]
    if offer.region != data_region:
        return EGRESS_CROSS_REGION_USD_PER_GB
    return 0.0


def egress_micros_per_run(profile: Profile, offer: Offer) -> int:
    if not profile.egress_gb:
        return 0
    rate = egress_usd_per_gb(profile.data_cloud, profile.data_region, offer)
    return round(profile.egress_gb * rate * MICROS_PER_USD)


def transfers_per_month(profile: Profile) -> float:
    """Runs move their data once per run; services once a month (a refresh of what they read)."""
    if profile.is_run and profile.runs_per_month is not None:
        return profile.runs_per_month
    return 1.0


def instances_for(gpus_per_replica: int, replicas: int, gpus_per_instance: int) -> int:
    """Whole instances for ``replicas`` replicas: small replicas share an instance, large ones
    span ``ceil(gpus / gpus_per_instance)`` instances each."""
    if replicas <= 0:
        return 0
    if gpus_per_replica <= gpus_per_instance:
        return math.ceil(replicas / (gpus_per_instance // gpus_per_replica))
    return replicas * math.ceil(gpus_per_replica / gpus_per_instance)


def spot_allowed(profile: Profile, usage: Usage) -> bool:
    """Spot only for interruptible work; for serving only above a non-spot floor."""
    if not profile.interruptible:
        return False
    if profile.is_inference:
        return usage.floor >= 1 and usage.instances > usage.floor
    return True


def mix_allowed(profile: Profile, usage: Usage, mix: Mix) -> bool:
    """The purchasing rules, as one predicate over any mix (the brute-force reference uses it)."""
    if mix.total != usage.instances or min(mix.reserved, mix.on_demand, mix.spot) < 0:
        return False
    if mix.reserved and mix.term not in profile.terms:
        return False
    if not mix.reserved and mix.term is not None:
        return False
    if mix.reserved > usage.floor and not profile.reserve_above_floor:
        return False
    if mix.spot and not spot_allowed(profile, usage):
        return False
    if profile.is_inference and mix.spot > usage.instances - usage.floor:
        return False
    return not (profile.spot_only and mix.spot != usage.instances)


def candidate_mixes(profile: Profile, usage: Usage) -> list[Mix]:
    """The mixes worth pricing. Cost is linear in each slot's option and slots of one kind
    (floor, overflow) are alike, so the cheapest mix buys every floor slot one way and every
    overflow slot one way: no split within a kind can beat both of its pure ends. Every pure
    pair that ``mix_allowed`` accepts is returned, in a fixed order, without duplicates."""
    kinds: list[tuple[str, Term | None]] = [("od", None), ("spot", None)]
    kinds += [("reserved", term) for term in profile.terms]
    floor, overflow = usage.floor, usage.instances - usage.floor
    mixes: list[Mix] = []
    for floor_kind, floor_term in kinds:
        for over_kind, over_term in kinds:
            if floor_term and over_term and floor_term != over_term:
                continue  # one reservation term per mix
            counts = {"od": 0, "reserved": 0, "spot": 0}
            counts[floor_kind] += floor
            counts[over_kind] += overflow
            term = (floor_term or over_term) if counts["reserved"] else None
            mix = Mix(reserved=counts["reserved"], term=term, on_demand=counts["od"],
                      spot=counts["spot"])
            if mix not in mixes and mix_allowed(profile, usage, mix):
                mixes.append(mix)
    return mixes


# Under max_hourly_usd, reserved/spot/on-demand splits are enumerated for clusters of up to this
# many instances: there are ~n^2 splits per count, and at 30-170 nodes (70B pre-training) the
# search ran for minutes. Larger clusters choose among the pure mixes, as uncapped searches do.
SPLIT_MAX_INSTANCES = 16


def every_mix(profile: Profile, usage: Usage) -> list[Mix]:
    """Every allowed mix, splits included. Needed only under a max hourly price: the cap is a
    constraint across slots, so a split (say 1 reserved + 5 on-demand) can be the cheapest mix
    that stays under it while neither pure end does."""
    n = usage.instances
    mixes: list[Mix] = []
    for reserved in range(n + 1):
        for spot in range(n - reserved + 1):
            for term in ((None,) if reserved == 0 else profile.terms):
                mix = Mix(reserved=reserved, term=term, on_demand=n - reserved - spot, spot=spot)
                if mix_allowed(profile, usage, mix):
                    mixes.append(mix)
    return mixes
