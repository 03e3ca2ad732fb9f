"""The optimizer: every feasible (offer x instance count x purchase mix), ranked by cost.

Search, not heuristics. Offers are filtered by placement and pins; the workload is sized once
per accelerator (few) rather than once per offer (up to 100k); each instance shape (accelerator
x GPUs per instance) gets its instance counts, usage and candidate purchase mixes once; then
every surviving offer prices every candidate mix of its shape with integer micro-dollars. The
result is the exact minimum over that space, with deterministic tie-breaks, checked against
a brute-force enumeration in tests/test_optimizer.py.

Why only some mixes and counts are priced (both are proven, not guessed):
- mixes: see ``pricing.candidate_mixes`` (cost is linear per slot, so pure ends win);
- counts: a count whose billed hours are all >= those of a smaller count is dropped, since
  prices are non-negative it can never be cheaper (``_prune``).

Deadlines (training.max_run_hours, batch.deadline_hours): every count meets them in compute
hours; an option with spot must also meet them in expected wall-clock hours, compute plus the
rework interruptions cause (``pricing.expected_run_hours``). The interruption rate belongs to
the offer, so that check is made per offer, where options are priced (``_estimates``).

Rank key: expected monthly cost, or per-run cost for one-off training (runs_per_month <= 1),
plus data egress for the same period. Ties: cloud, region, instance type, catalog order, fewer
instances, then the least committed mix (on-demand before spot before reserved).
"""

from __future__ import annotations

import datetime as dt
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import NamedTuple, Protocol

from infra_gen import pricing, sizing
from infra_gen.catalog.models import Accelerator, Catalog, Offer
from infra_gen.errors import InfraGenError, PlanningError
from infra_gen.placement import placement_filter
from infra_gen.plan import Plan
from infra_gen.pricing import Hours, Mix, Prices, Profile, Usage
from infra_gen.sizing import Requirement
from infra_gen.spec import Workload

# Interconnects fast enough for one replica (model shard) to span instances (seed 003:
# "for multi-node training ... the network between nodes becomes the constraint").
FAST_INTERCONNECTS = frozenset({"efa", "infiniband", "gpudirect-tcpx"})
# Instance counts tried above the smallest that fits and meets the deadline. More instances
# only finish sooner at the same or higher GPU-hours; _prune drops them when they cannot win.
EXTRA_COUNTS = 4
MAX_INSTANCES = 1024  # the largest cluster searched for a deadline (64x p5 = 512 GPUs is 64)


class Sizer(Protocol):
    """``infra_gen.sizing`` satisfies this; tests pass hand-made requirements instead."""

    def size(self, workload: Workload, accelerator: Accelerator) -> Requirement: ...

    def run_hours(
        self, workload: Workload, requirement: Requirement, accelerator: Accelerator,
        total_gpus: int, nodes: int,
    ) -> float | None: ...


@dataclass(frozen=True, slots=True)
class Option:
    """One (instance count, purchase mix) of a shape with its billed hours."""

    usage: Usage
    mix: Mix
    monthly: Hours
    per_run: Hours | None
    rank: tuple[int, int, int, str]  # instances, reserved, spot, term: the tie-break order
    pure: bool = True  # one purchase option per slot kind (see pricing.candidate_mixes)


@dataclass(frozen=True, slots=True)
class Shape:
    accelerator: Accelerator
    gpus_per_instance: int
    requirement: Requirement
    options: tuple[Option, ...]


@dataclass(frozen=True, slots=True)
class Choice:
    """The best option of one offer."""

    key: int  # micro-dollars: monthly or per-run cost including egress
    offer: Offer
    offer_index: int  # position in the catalog: the last tie-break
    shape: Shape
    option: Option
    prices: Prices
    order: tuple[int, str, str, str, int]  # key, cloud, region, instance type, catalog index


@dataclass(frozen=True)
class SearchResult:
    profile: Profile
    ranked: list[Choice]  # one per feasible offer, best first
    requirements: dict[str, Requirement]  # by accelerator, fitting ones only
    candidates_priced: int  # (offer x count x mix) combinations priced
    notes: list[str]  # what the search left out and why


def plan_workload(
    workload: Workload, catalog: Catalog, *, cloud: str | None = None,
    region: str | None = None, top: int = 5, today: dt.date | None = None,
) -> Plan:
    """The cheapest plan for ``workload`` over ``catalog``, with ``top`` - 1 alternatives."""
    from infra_gen.planning import assemble_plan

    result = search(workload, catalog, cloud=cloud, region=region)
    return assemble_plan(workload, catalog, result, top=top, today=today or dt.date.today())


def search(
    workload: Workload, catalog: Catalog, *, cloud: str | None = None,
    region: str | None = None, sizer: Sizer | ModuleType = sizing,
) -> SearchResult:
    profile = pricing.profile_of(workload)
    offers = placement_filter(workload, catalog, cloud, region)
    requirements = _size_all(workload, catalog, offers, sizer)
    shapes = _shapes(workload, catalog, offers, requirements, profile, sizer)
    position = {id(o): i for i, o in enumerate(catalog.offers)}
    ranked, priced = _price_all(workload, offers, shapes, profile, position)
    ranked.sort(key=_ORDER)
    return SearchResult(
        profile=profile, ranked=ranked,
        requirements={k: r for k, r in requirements.items() if r.fits},
        candidates_priced=priced, notes=_notes(workload, profile),
    )


_ORDER = operator.attrgetter("order")  # sort key of ranked choices (C, not a Python call)


def _size_all(
    workload: Workload, catalog: Catalog, offers: list[Offer], sizer: Sizer | ModuleType,
) -> dict[str, Requirement]:
    """Size once per accelerator present; raise when none fits."""
    requirements: dict[str, Requirement] = {}
    failures: list[str] = []
    for name in sorted({o.accelerator for o in offers}):
        accelerator = catalog.accelerators.get(name)
        if accelerator is None:
            failures.append(f"{name}: not in the catalog's accelerator table")
            continue
        try:
            requirement = sizer.size(workload, accelerator)
        except InfraGenError as err:
            failures.append(f"{name}: {err}")
            continue
        requirements[name] = requirement
        if not requirement.fits:
            failures.append(f"{name}: {requirement.unfit_reason}" if requirement.unfit_reason
                            else f"{name}: does not fit ({requirement.memory_utilization:.0%} "
                            "memory)")
    latency = sizing.latency_no_fit(workload, list(requirements.values()))
    if latency:
        raise PlanningError(f"no candidate left: sizing removed the last {len(offers)} "
                            f"offer(s): {latency}")
    if not any(r.fits for r in requirements.values()):
        raise PlanningError(
            f"no candidate left: sizing removed the last {len(offers)} offer(s), the workload "
            f"fits no allowed accelerator ({'; '.join(failures[:6])}); to fix: allow larger "
            "accelerators or clouds, or lower precision, batch_size or seq_len"
        )
    return requirements


def _shapes(
    workload: Workload, catalog: Catalog, offers: list[Offer],
    requirements: dict[str, Requirement], profile: Profile, sizer: Sizer | ModuleType,
) -> dict[tuple[str, int, bool], Shape]:
    keys = sorted({_shape_key(o) for o in offers})
    shapes: dict[tuple[str, int, bool], Shape] = {}
    reasons: list[str] = []
    for name, gpus, fast in keys:
        requirement = requirements.get(name)
        if requirement is None or not requirement.fits:
            continue
        accelerator = catalog.accelerators[name]
        why = _shape_infeasible(requirement, accelerator, gpus, fast)
        if why:
            reasons.append(why)
            continue
        options = _options(workload, profile, requirement, accelerator, gpus, sizer)
        if not options:
            reasons.append(f"{gpus}x {name}: no instance count meets the run deadline")
            continue
        shapes[(name, gpus, fast)] = Shape(accelerator, gpus, requirement, options)
    if not shapes:
        raise PlanningError(
            f"no candidate left: instance shapes removed the last {len(offers)} offer(s) "
            f"({'; '.join(reasons[:6])}); to fix: allow instances with more or NVLink-connected "
            "GPUs, or relax training.max_run_hours / batch.deadline_hours"
        )
    return shapes


def _shape_key(offer: Offer) -> tuple[str, int, bool]:
    return (offer.accelerator, offer.accelerators, offer.interconnect in FAST_INTERCONNECTS)


def _shape_infeasible(
    requirement: Requirement, accelerator: Accelerator, gpus: int, fast: bool,
) -> str:
    name = accelerator.name
    if requirement.gpus > gpus and not fast:
        return (f"{gpus}x {name}: one replica spans {math.ceil(requirement.gpus / gpus)} "
                "instances and needs EFA/InfiniBand/GPUDirect-TCPX, this has Ethernet")
    if requirement.min_gpus_per_node > gpus:
        return (f"{gpus}x {name}: tensor parallelism needs {requirement.min_gpus_per_node} "
                "GPUs in one instance")
    tensor = requirement.needs_nvlink and requirement.min_gpus_per_node > 1
    if tensor and not accelerator.has_nvlink:
        return (f"{gpus}x {name}: tensor parallelism needs NVLink, {name} has "
                f"{accelerator.intra_node_link}")
    return ""


def _options(
    workload: Workload, profile: Profile, requirement: Requirement, accelerator: Accelerator,
    gpus: int, sizer: Sizer | ModuleType,
) -> tuple[Option, ...]:
    usages = (
        _run_usages(workload, profile, requirement, accelerator, gpus, sizer)
        if profile.is_run else [_service_usage(profile, requirement, gpus)]
    )
    options: list[Option] = []
    capped = workload.guardrails.max_hourly_usd is not None
    for usage in usages:
        pure = pricing.candidate_mixes(profile, usage)
        options += [_option(profile, usage, mix) for mix in pure]
        if capped and usage.instances <= pricing.SPLIT_MAX_INSTANCES:
            options += [_option(profile, usage, mix, pure=False)
                        for mix in pricing.every_mix(profile, usage) if mix not in pure]
    timed = profile.run_limit_hours is not None
    return tuple(sorted(_prune(options, timed), key=lambda o: o.rank))


def _service_usage(profile: Profile, requirement: Requirement, gpus: int) -> Usage:
    instances = pricing.instances_for(requirement.gpus, requirement.replicas, gpus)
    if profile.is_inference:
        floor = pricing.instances_for(requirement.gpus, requirement.replicas_floor, gpus)
    else:
        floor = instances
    return pricing.service_usage(profile, instances, floor)


def _run_usages(
    workload: Workload, profile: Profile, requirement: Requirement, accelerator: Accelerator,
    gpus: int, sizer: Sizer | ModuleType,
) -> list[Usage]:
    """Counts from the smallest that fits and meets the deadline, plus EXTRA_COUNTS more; with
    a deadline and spot allowed, the same window again for all spot at each interruption rate
    (spot may need more instances to absorb its rework), so spot is searched as far as
    on-demand is."""
    def hours_at(count: int) -> float | None:
        return sizer.run_hours(workload, requirement, accelerator, count * gpus, count)

    start = max(1, math.ceil(requirement.gpus / gpus))
    found = _count_window(profile, hours_at, start, 0.0)
    if profile.run_limit_hours is not None and profile.interruptible:
        for rate in pricing.INTERRUPTION_RATES:
            found.update(_count_window(profile, hours_at, start, rate))
    return [found[count] for count in sorted(found)]


def _count_window(
    profile: Profile, hours_at: Callable[[int], float | None], start: int, rate: float,
) -> dict[int, Usage]:
    """The first EXTRA_COUNTS + 1 counts from ``start`` whose run meets the deadline: in
    compute hours (rate 0), or all spot in expected wall-clock hours at ``rate``."""
    limit = profile.run_limit_hours
    count = start
    usages: dict[int, Usage] = {}
    while count <= MAX_INSTANCES and len(usages) <= EXTRA_COUNTS:
        hours = hours_at(count)
        if hours is None or hours <= 0:
            if usages:
                break
            count += 1
            continue
        usage = pricing.run_usage(profile, count, hours)
        if limit is None or pricing.expected_run_hours(usage, Mix(spot=count), rate) <= limit:
            usages[count] = usage
        elif usages or _rework_alone_too_long(profile, usage, rate, limit):
            break
        else:
            # Jump towards the limit: with scaling efficiency <= 1 no count below
            # count x hours / limit can meet it (wall-clock >= compute hours), so nothing
            # feasible is skipped.
            count = max(count + 1, math.ceil(count * hours / limit))
            continue
        count += 1
    return usages


def _rework_alone_too_long(profile: Profile, usage: Usage, rate: float, limit: float) -> bool:
    """Synchronous training on spot: the stall from rework alone, node-hours x rate x lost
    hours, exceeds the limit. Node-hours never fall as nodes are added (scaling efficiency
    <= 1) and lost hours are fixed by the checkpoint interval, so no larger count meets it."""
    fixed_loss = profile.checkpoint_hours is not None
    gang = usage.gang == usage.instances > 1
    node_hours = (usage.run_hours or 0.0) * usage.instances
    return fixed_loss and gang and node_hours * rate * usage.lost_hours > limit


def _option(profile: Profile, usage: Usage, mix: Mix, *, pure: bool = True) -> Option:
    per_run = (
        pricing.run_hours_billed(usage, mix, profile.runs_per_month or 1.0)
        if profile.is_run else None
    )
    rank = (usage.instances, mix.reserved, mix.spot, mix.term or "")
    return Option(usage, mix, pricing.monthly_hours(usage, mix), per_run, rank, pure)


def _prune(options: list[Option], timed: bool) -> list[Option]:
    """Drop an option when another with the same kind of mix bills no more of anything, has
    no more instances (for max_hourly_usd) and comes first in the tie-break order.

    ``timed`` (a run deadline): a spot option of another count never drops it. A smaller
    count bills fewer hours but runs longer, and with spot its expected wall-clock hours
    depend on each offer's interruption rate, so it may miss the deadline where this one
    meets it."""
    kept: list[Option] = []
    for option in sorted(options, key=lambda o: o.rank):
        if not any(_dominates(k, option, timed) for k in kept):
            kept.append(option)
    return kept


def _dominates(a: Option, b: Option, timed: bool) -> bool:
    if timed and a.mix.spot and a.usage.instances != b.usage.instances:
        return False
    same_kind = (
        a.mix.term == b.mix.term and bool(a.mix.reserved) == bool(b.mix.reserved)
        and bool(a.mix.spot) == bool(b.mix.spot) and bool(a.mix.on_demand) == bool(b.mix.on_demand)
    )
    if not same_kind or a.mix.total > b.mix.total or a.mix.reserved > b.mix.reserved:
        return False
    if a.mix.spot > b.mix.spot or a.mix.on_demand > b.mix.on_demand:
        return False
    return _hours_le(a.monthly, b.monthly) and (
        a.per_run is None or b.per_run is None or _hours_le(a.per_run, b.per_run)
    )


def _hours_le(a: Hours, b: Hours) -> bool:
    return (a.reserved <= b.reserved and a.on_demand <= b.on_demand and a.spot <= b.spot
            and a.rework <= b.rework)


def _price_all(
    workload: Workload, offers: list[Offer], shapes: dict[tuple[str, int, bool], Shape],
    profile: Profile, position: dict[int, int],
) -> tuple[list[Choice], int]:
    """Price every option of every offer; keep each offer's best. Raises if none survive.

    The hot loop estimates each option in floating-point USD, then prices exactly (integer
    micro-dollars, ``pricing.price_hours``) only the options within FLOAT_SLACK_USD of the
    cheapest estimate: exact and float costs differ by under 3 micro-dollars (one rounding per
    component), so no option outside the slack can be the exact best.
    """
    limit = workload.guardrails.max_hourly_usd
    max_hourly = None if limit is None else pricing.to_micros(limit)
    transfers = 1.0 if profile.rank_by_run else pricing.transfers_per_month(profile)
    egress_free = not profile.egress_gb  # no data to move: skip the per-offer egress lookup
    terms = {key: _terms_of(shape, profile.rank_by_run) for key, shape in shapes.items()}
    pure = {key: tuple(t for t in all_terms if t.option.pure) for key, all_terms in terms.items()}
    deadline = profile.run_limit_hours
    choices: list[Choice] = []
    stats = [0, 0, 0, 0]  # priced, unpriceable, too dear, spot past the deadline
    for offer in offers:
        key = (offer.accelerator, offer.accelerators, offer.interconnect in FAST_INTERCONNECTS)
        shape = shapes.get(key)
        if shape is None:
            continue
        best = _best_option(offer, pure[key], terms[key], max_hourly, deadline, stats)
        if best is None:
            continue
        cost, option, prices = best
        if egress_free:
            total = cost
        else:
            egress = pricing.egress_micros_per_run(profile, offer)
            total = cost + (egress if transfers == 1.0 else round(egress * transfers))
        index = position[id(offer)]
        order = (total, offer.cloud, offer.region, offer.instance_type, index)
        choices.append(Choice(total, offer, index, shape, option, prices, order))
    if not choices:
        raise _pricing_error(workload, profile, stats, limit)
    return choices, stats[0]


FLOAT_SLACK_USD = 1e-5
_RATES = pricing.INTERRUPTIONS_PER_HOUR_BY_CLASS
# Options are priced in two passes under max_hourly_usd: the pure mixes first; only when the
# cheapest of them breaks the cap are the splits priced (the unconstrained optimum is pure).


class _Term(NamedTuple):
    """One option's figures, unpacked once per shape so the per-offer loops read locals only
    (a tuple: unpacking it is the cheapest access Python has)."""

    on_demand_h: float  # billed hours at each price (the period ranked: a month or a run)
    spot_h: float
    rework_h: float
    reserved_h: float
    term: int  # 0 none, 1 = 1y, 3 = 3y (which reserved price the hours use)
    rework_at_on_demand: bool
    option: Option
    hours: Hours
    on_demand_n: int  # instances by purchase option, for the hourly cap (pricing.hourly_micros)
    spot_n: int
    reserved_n: int
    mix_term: int  # mix.term as ``term``; 0 when the mix has none
    run_h: float  # usage.run_hours or 0.0, lost hours and gang: pricing.expected_run_hours
    lost_h: float
    gang: int


def _terms_of(shape: Shape, by_run: bool) -> tuple[_Term, ...]:
    out = []
    for option in shape.options:
        hours = option.per_run if by_run and option.per_run is not None else option.monthly
        term = 0 if not hours.reserved else (1 if hours.term == "1y" else 3)
        mix, usage = option.mix, option.usage
        mix_term = {"1y": 1, "3y": 3}.get(mix.term or "", 0)
        out.append(_Term(hours.on_demand, hours.spot, hours.rework, hours.reserved, term,
                         hours.rework_at_on_demand, option, hours, mix.on_demand, mix.spot,
                         mix.reserved, mix_term, usage.run_hours or 0.0, usage.lost_hours,
                         usage.gang))
    return tuple(out)


def _best_option(
    offer: Offer, pure: tuple[_Term, ...], terms: tuple[_Term, ...], max_hourly: int | None,
    deadline: float | None, stats: list[int],
) -> tuple[int, Option, Prices] | None:
    rate = _RATES[offer.spot_interruption]
    estimates, cheapest = _estimates(offer, pure, stats, deadline, rate)
    if not estimates:
        return None
    prices = pricing.prices_of(offer)
    best = _exact_best(estimates, cheapest, prices)
    if max_hourly is None or best is None:
        stats[0] += len(estimates)
        return best
    if (pricing.hourly_micros(best[1].mix, prices) or 0) <= max_hourly:
        stats[0] += len(estimates)
        return best  # the unconstrained optimum already respects the cap
    kept, cheapest, too_dear = _estimates_under_cap(
        offer, terms, deadline, rate, prices, max_hourly)
    stats[0] += len(kept)
    stats[2] += too_dear
    return _exact_best(kept, cheapest, prices) if kept else None


def _estimates(
    offer: Offer, terms: tuple[_Term, ...], stats: list[int], deadline: float | None,
    rate: float,
) -> tuple[list[tuple[float, Hours, Option]], float]:
    """Float USD estimate of every option the offer can price and, with spot, finish by the
    deadline at this offer's interruption rate, in option (tie-break) order; and the
    cheapest estimate."""
    od, spot = offer.on_demand_usd_hr, offer.spot_usd_hr
    out: list[tuple[float, Hours, Option]] = []
    cheapest = math.inf
    for (h_od, h_spot, h_rework, h_res, term, at_od, option, hours,
         _, _, _, _, run, lost, gang) in terms:
        cost = od * h_od
        if h_res:
            price = offer.reserved_1y_usd_hr if term == 1 else offer.reserved_3y_usd_hr
            if price is None:
                stats[1] += 1
                continue
            cost += price * h_res
        if h_spot:
            if spot is None:
                stats[1] += 1
                continue
            # pricing.expected_run_hours inlined (same expression, same float): h_spot > 0
            # means the mix has spot, where it stretches the run.
            if deadline is not None and run * (1 + rate * lost * gang) > deadline:
                stats[3] += 1
                continue
            cost += spot * h_spot + (od if at_od else spot) * h_rework * rate
        out.append((cost, hours, option))
        if cost < cheapest:
            cheapest = cost
    return out, cheapest


def _estimates_under_cap(
    offer: Offer, terms: tuple[_Term, ...], deadline: float | None, rate: float,
    prices: Prices, max_hourly: int,
) -> tuple[list[tuple[float, Hours, Option]], float, int]:
    """``_estimates`` of the options whose hourly price (``pricing.hourly_micros``, inlined:
    this runs for every option of every offer whose pure optimum breaks the cap) is within
    ``max_hourly``, the cheapest of them, and how many estimable options were over it."""
    od, spot = offer.on_demand_usd_hr, offer.spot_usd_hr
    p_od, p_spot = prices.on_demand, prices.spot
    p_reserved = (None, prices.reserved_1y, None, prices.reserved_3y)
    out: list[tuple[float, Hours, Option]] = []
    cheapest = math.inf
    too_dear = 0
    for (h_od, h_spot, h_rework, h_res, term, at_od, option, hours,
         n_od, n_spot, n_res, mix_term, run, lost, gang) in terms:
        cost = od * h_od
        if h_res:
            price = offer.reserved_1y_usd_hr if term == 1 else offer.reserved_3y_usd_hr
            if price is None:
                continue
            cost += price * h_res
        if h_spot:
            if spot is None or (
                    deadline is not None and run * (1 + rate * lost * gang) > deadline):
                continue
            cost += spot * h_spot + (od if at_od else spot) * h_rework * rate
        # hourly_micros is None (taken as 0, as _best_option does) when a price is missing
        reserved = p_reserved[mix_term] if n_res else 0
        spot_micros = (p_spot if n_spot else 0)
        if reserved is None or spot_micros is None:
            hourly = 0
        else:
            hourly = p_od * n_od + reserved * n_res + spot_micros * n_spot
        if hourly > max_hourly:
            too_dear += 1
            continue
        out.append((cost, hours, option))
        if cost < cheapest:
            cheapest = cost
    return out, cheapest, too_dear


def _exact_best(
    estimates: list[tuple[float, Hours, Option]], cheapest: float, prices: Prices,
) -> tuple[int, Option, Prices] | None:
    """Exact micro-dollar minimum among the estimates within FLOAT_SLACK_USD of the cheapest
    (``cheapest``: their minimum, kept while they were made)."""
    slack = FLOAT_SLACK_USD + cheapest * 1e-9
    best: tuple[int, Option, Prices] | None = None
    for cost, hours, option in estimates:
        if cost <= cheapest + slack:
            exact = pricing.price_hours(hours, prices)
            if exact is not None and (best is None or exact < best[0]):
                best = (exact, option, prices)
    return best


def _pricing_error(
    workload: Workload, profile: Profile, stats: list[int], limit: float | None,
) -> PlanningError:
    unpriceable, too_dear, stretched = stats[1], stats[2], stats[3]
    field = "batch.deadline_hours" if workload.batch is not None else "training.max_run_hours"
    late = "" if not stretched else (
        f"spot rework stretches every run past {field} {profile.run_limit_hours or 0:g} h "
        f"({stretched} spot candidate(s) removed: expected wall-clock = run hours x "
        "(1 + interruptions/hour x lost hours per interruption x nodes rolled back))")
    if stretched and not too_dear:
        sooner = ", or checkpoint more often" if workload.is_training else ""
        return PlanningError(
            f"no candidate left: {late}; to fix: allow on-demand (purchasing.spot: auto or "
            f"never) or raise {field}{sooner}"
        )
    if too_dear:
        also = f"; {late}" if stretched else ""
        return PlanningError(
            f"no candidate left: guardrails.max_hourly_usd {limit} removed the last {too_dear} "
            f"candidate(s){also}; to fix: raise guardrails.max_hourly_usd or allow cheaper "
            "accelerators"
        )
    policy = "purchasing.spot always" if profile.spot_only else "purchasing.reserved"
    return PlanningError(
        f"no candidate left: {policy} removed the last {unpriceable} candidate(s), no offer "
        "left sells that purchase option; to fix: relax purchasing or allow other regions"
    )


def _notes(workload: Workload, profile: Profile) -> list[str]:
    notes: list[str] = []
    training = workload.training
    if (workload.is_training and training is not None and training.checkpoint_minutes is None
            and workload.purchasing.spot == "auto"):
        notes.append(
            "spot not considered: training.checkpoint_minutes is unset, so an interruption "
            "would lose the run; set it to let spot compete"
        )
    return notes
