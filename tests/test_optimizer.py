"""The optimizer finds the true minimum: checked against brute force on generated catalogs and
workloads, with the "responses to change" properties, plus the errors that name a constraint."""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infra_gen import pricing
from infra_gen.catalog.models import Catalog, Offer
from infra_gen.errors import PlanningError
from infra_gen.optimizer import EXTRA_COUNTS, FAST_INTERCONNECTS, search
from infra_gen.pricing import Mix
from infra_gen.spec import Workload
from tests.fakes import ACCELERATORS, FakeSizer, make_catalog, offer, requirement, workload

Key = tuple[int, str, str, str, int, tuple[int, int, int, str]]


# ---------------------------------------------------------------- brute-force reference
def _counts(w: Workload, sizer: FakeSizer, o: Offer, gpus: int,
            rate: float) -> dict[int, float]:
    """Every count the search space contains for one rate: from the smallest that fits and
    meets the run limit (all spot at ``rate``: expected wall-clock hours; rate 0: compute
    hours), EXTRA_COUNTS more (the optimizer's documented space), no pruning, no jumps."""
    profile = pricing.profile_of(w)
    limit = profile.run_limit_hours
    acc = ACCELERATORS[o.accelerator]
    found: dict[int, float] = {}
    for n in range(max(1, math.ceil(gpus / o.accelerators)), 1025):
        hours = sizer.run_hours(w, sizer.size(w, acc), acc, n * o.accelerators, n)
        assert hours is not None
        usage = pricing.run_usage(profile, n, hours)
        ok = limit is None or pricing.expected_run_hours(usage, Mix(spot=n), rate) <= limit
        if ok:
            found[n] = hours
        if len(found) > EXTRA_COUNTS or (found and not ok):
            break
    return found


def _every_mix(n: int) -> list[Mix]:
    mixes = []
    for reserved in range(n + 1):
        for spot in range(n - reserved + 1):
            for term in ((None,) if reserved == 0 else ("1y", "3y")):
                mixes.append(Mix(reserved=reserved, term=term, on_demand=n - reserved - spot,
                                 spot=spot))
    return mixes


def _usages(w: Workload, sizer: FakeSizer, o: Offer) -> list[pricing.Usage]:
    profile = pricing.profile_of(w)
    req = sizer.size(w, ACCELERATORS[o.accelerator])
    if profile.is_run:
        counts = _counts(w, sizer, o, req.gpus, 0.0)
        if profile.run_limit_hours is not None and profile.interruptible:
            for rate in pricing.INTERRUPTION_RATES:  # spot may need more instances
                counts.update(_counts(w, sizer, o, req.gpus, rate))
        return [pricing.run_usage(profile, n, counts[n]) for n in sorted(counts)]
    n = pricing.instances_for(req.gpus, req.replicas, o.accelerators)
    floor = (pricing.instances_for(req.gpus, req.replicas_floor, o.accelerators)
             if profile.is_inference else n)
    return [pricing.service_usage(profile, n, floor)]


def _offer_ok(w: Workload, sizer: FakeSizer, o: Offer) -> bool:
    acc = ACCELERATORS[o.accelerator]
    req = sizer.size(w, acc)
    return (o.cloud in w.placement.clouds
            and (not w.placement.regions or o.region in w.placement.regions)
            and acc.vendor == "nvidia" and req.fits
            and req.min_gpus_per_node <= o.accelerators
            and not (req.needs_nvlink and req.min_gpus_per_node > 1 and not acc.has_nvlink)
            and not (req.gpus > o.accelerators and o.interconnect not in FAST_INTERCONNECTS))


def _late(profile: pricing.Profile, usage: pricing.Usage, mix: Mix, o: Offer) -> bool:
    """Spot that misses the run deadline once rework stretches it: any spot instance stretches
    the run by run x interruptions/hour x lost hours x gang (pricing.expected_run_hours)."""
    if not mix.spot or profile.run_limit_hours is None or usage.run_hours is None:
        return False
    rate = pricing.interruptions_per_hour(o.spot_interruption)
    return usage.run_hours * (1 + rate * usage.lost_hours * usage.gang) > profile.run_limit_hours


def brute_force(w: Workload, catalog: Catalog, sizer: FakeSizer) -> Key | None:
    profile = pricing.profile_of(w)
    limit = w.guardrails.max_hourly_usd
    best: Key | None = None
    for index, o in enumerate(catalog.offers):
        if not _offer_ok(w, sizer, o):
            continue
        prices = pricing.prices_of(o)
        egress = pricing.egress_micros_per_run(profile, o)
        for usage in _usages(w, sizer, o):
            for mix in _every_mix(usage.instances):
                if not pricing.mix_allowed(profile, usage, mix) or _late(profile, usage, mix, o):
                    continue
                hourly = pricing.hourly_micros(mix, prices)
                if hourly is None or (limit is not None and hourly > pricing.to_micros(limit)):
                    continue
                if profile.rank_by_run:
                    hours = pricing.run_hours_billed(usage, mix, profile.runs_per_month or 1)
                    extra = egress
                else:
                    hours = pricing.monthly_hours(usage, mix)
                    extra = round(egress * pricing.transfers_per_month(profile))
                cost = pricing.price_hours(hours, prices)
                if cost is None:
                    continue
                key: Key = (cost + extra, o.cloud, o.region, o.instance_type, index,
                            (usage.instances, mix.reserved, mix.spot, mix.term or ""))
                best = key if best is None or key < best else best
    return best


def optimum(w: Workload, catalog: Catalog, sizer: FakeSizer) -> Key | None:
    try:
        result = search(w, catalog, sizer=sizer)
    except PlanningError:
        return None
    top = result.ranked[0]
    assert [c.key for c in result.ranked] == sorted(c.key for c in result.ranked)
    o = top.offer
    return (top.key, o.cloud, o.region, o.instance_type, top.offer_index, top.option.rank)


# ---------------------------------------------------------------- generators
_price = st.integers(1, 4000).map(lambda cents: cents / 100)


@st.composite
def offers(draw: Any) -> Offer:
    on_demand = draw(_price)
    cheaper = st.one_of(st.none(), st.floats(0.1, 1.0).map(lambda f: round(on_demand * f, 4)))
    return offer(
        draw(st.sampled_from(["a.1", "b.2", "c-3", "Standard_D"])),
        cloud=draw(st.sampled_from(["aws", "gcp", "azure"])),
        region=draw(st.sampled_from(["r1", "r2"])),
        accelerator=draw(st.sampled_from(["A100-40GB", "L4", "T4", "Trainium"])),
        gpus=draw(st.sampled_from([1, 2, 4, 8])), on_demand=on_demand,
        spot=draw(cheaper), reserved_1y=draw(cheaper), reserved_3y=draw(cheaper),
        interruption=draw(st.sampled_from([None, "<5%", ">20%"])),
        interconnect=draw(st.sampled_from(["efa", "ethernet"])),
    )


@st.composite
def requirements(draw: Any) -> dict[str, Any]:
    out = {}
    for name in ("A100-40GB", "L4", "T4", "Trainium"):
        replicas = draw(st.integers(1, 4))
        out[name] = requirement(
            name, gpus=draw(st.sampled_from([1, 2, 3, 4, 8])), fits=draw(st.booleans()),
            replicas=replicas, replicas_floor=draw(st.integers(0, replicas)),
            tensor=draw(st.sampled_from([1, 1, 2, 4])),
        )
    return out


@st.composite
def workloads(draw: Any) -> Workload:
    kind = draw(st.sampled_from(["fine-tuning", "batch", "inference", "dev"]))
    spot = draw(st.sampled_from(["auto", "never"] + ([] if kind == "inference" else ["always"])))
    fields: dict[str, Any] = {
        "purchasing": {"spot": spot, "reserved": draw(st.sampled_from(["auto", "none", "1y",
                                                                       "3y"]))},
        "schedule": {"hours_per_day": draw(st.sampled_from([4, 10, 24])),
                     "days_per_week": draw(st.sampled_from([5, 7]))},
        "guardrails": {"max_hourly_usd": draw(st.one_of(st.none(), st.sampled_from([20, 200])))},
    }
    if draw(st.booleans()):
        fields["placement"] = {"data": {"cloud": draw(st.sampled_from(["aws", "gcp"])),
                                        "region": "r1", "size_gb": draw(st.sampled_from([0, 500]))}}
    runs = draw(st.sampled_from([0.5, 1, 4, 30]))
    if kind == "fine-tuning":
        fields["training"] = {"duration_hours": 8, "runs_per_month": runs,
                              "checkpoint_minutes": draw(st.sampled_from([None, 30, 240])),
                              "max_run_hours": draw(st.sampled_from([None, 5.0]))}
    if kind == "batch":
        fields["batch"] = {"items": 1000, "items_per_gpu_second": 1, "runs_per_month": runs,
                           "deadline_hours": draw(st.sampled_from([None, 3.0]))}
    if kind == "inference":
        fields["inference"] = {"requests_per_second": 10,
                               "scale_to_zero": draw(st.booleans())}
    return workload(kind, **fields)


def assert_search_matches_brute_force(
    offer_list: list[Offer], w: Workload, reqs: dict[str, Any], efficiency: float,
    gpu_hours: float,
) -> None:
    sizer = FakeSizer(reqs, gpu_hours=gpu_hours, node_efficiency=efficiency)
    catalog = make_catalog(*offer_list)
    assert optimum(w, catalog, sizer) == brute_force(w, catalog, sizer)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(offers(), min_size=1, max_size=8), workloads(), requirements(),
       st.floats(0.7, 1.0), st.sampled_from([8.0, 64.0, 400.0]))
def test_search_finds_the_brute_force_minimum(
    offer_list: list[Offer], w: Workload, reqs: dict[str, Any], efficiency: float,
    gpu_hours: float,
) -> None:
    assert_search_matches_brute_force(offer_list, w, reqs, efficiency, gpu_hours)


@st.composite
def deadline_workloads(draw: Any) -> Workload:
    """Runs with a deadline that spot may meet in compute hours yet miss once its rework
    stretches them (long checkpoints, many nodes): the case the general generator rarely hits."""
    spot = draw(st.sampled_from(["auto", "always"]))
    fields: dict[str, Any] = {
        "purchasing": {"spot": spot, "reserved": draw(st.sampled_from(["auto", "none"]))},
        "guardrails": {"max_hourly_usd": draw(st.one_of(st.none(), st.sampled_from([60, 200])))},
    }
    if draw(st.booleans()):
        return workload("batch", batch={"items": 1000, "items_per_gpu_second": 1,
                                        "deadline_hours": draw(st.sampled_from([0.3, 3.0]))},
                        **fields)
    return workload("fine-tuning", training={
        "duration_hours": 8, "runs_per_month": draw(st.sampled_from([1, 4])),
        "checkpoint_minutes": draw(st.sampled_from([30, 240, 600])),
        "max_run_hours": draw(st.sampled_from([2.0, 5.0, 12.0]))}, **fields)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(offers(), min_size=1, max_size=6), deadline_workloads(), requirements(),
       st.floats(0.7, 1.0), st.sampled_from([8.0, 64.0, 400.0]))
def test_search_finds_the_brute_force_minimum_under_a_deadline(
    offer_list: list[Offer], w: Workload, reqs: dict[str, Any], efficiency: float,
    gpu_hours: float,
) -> None:
    assert_search_matches_brute_force(offer_list, w, reqs, efficiency, gpu_hours)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(offers(), min_size=1, max_size=8), workloads(), requirements())
def test_responses_to_change(offer_list: list[Offer], w: Workload,
                             reqs: dict[str, Any]) -> None:
    sizer = FakeSizer(reqs)
    catalog = make_catalog(*offer_list)
    best = optimum(w, catalog, sizer)
    if best is None:
        return
    chosen = catalog.offers[best[4]]
    # Removing the chosen offer never lowers the cost.
    rest = [o for i, o in enumerate(catalog.offers) if i != best[4]]
    without = optimum(w, make_catalog(*rest), sizer) if rest else None
    assert without is None or without[0] >= best[0]
    # Adding a cheaper copy of it never raises the cost.
    def half(value: float | None) -> float | None:
        return None if value is None else value / 2

    copy = dataclasses.replace(
        chosen, on_demand_usd_hr=chosen.on_demand_usd_hr / 2, spot_usd_hr=half(chosen.spot_usd_hr),
        reserved_1y_usd_hr=half(chosen.reserved_1y_usd_hr),
        reserved_3y_usd_hr=half(chosen.reserved_3y_usd_hr),
    )
    cheaper = optimum(w, make_catalog(*catalog.offers, copy), sizer)
    assert cheaper is not None and cheaper[0] <= best[0]


# ---------------------------------------------------------------- behaviour
def test_sizes_once_per_accelerator_not_per_offer() -> None:
    catalog = make_catalog(*[offer(f"p{i}.x", region=f"r{i % 3}") for i in range(30)],
                           offer("g.x", accelerator="L4", gpus=1, on_demand=1.0))
    sizer = FakeSizer({"A100-40GB": requirement(gpus=2), "L4": requirement("L4")})
    search(workload("fine-tuning"), catalog, sizer=sizer)
    assert sorted(sizer.calls) == ["A100-40GB", "L4"]


def test_tensor_parallel_stays_inside_one_nvlink_instance() -> None:
    four = offer("four", gpus=4, on_demand=10.0)
    two = offer("two", gpus=2, on_demand=1.0)  # cheaper, but TP=4 cannot split over 2 nodes
    pcie = offer("pcie", accelerator="L4", gpus=8, on_demand=0.5)  # no NVLink
    sizer = FakeSizer({"A100-40GB": requirement(gpus=4, tensor=4),
                       "L4": requirement("L4", gpus=4, tensor=4)})
    result = search(workload("fine-tuning"), make_catalog(two, pcie, four), sizer=sizer)
    assert [c.offer.instance_type for c in result.ranked] == ["four"]


def test_replicas_spanning_instances_need_a_fast_interconnect() -> None:
    slow = offer("slow", gpus=1, on_demand=1.0, interconnect="ethernet")
    fast = offer("fast", gpus=1, on_demand=1.5, interconnect="efa")
    sizer = FakeSizer({"A100-40GB": requirement(gpus=2)})
    result = search(workload("fine-tuning"), make_catalog(slow, fast), sizer=sizer)
    assert [c.offer.instance_type for c in result.ranked] == ["fast"]
    assert result.ranked[0].option.usage.instances == 2


def test_deadline_buys_more_instances() -> None:
    # 64 GPU-hours on 8-GPU nodes: 1 node = 8 h; 2 nodes = 64/16/0.9 = 4.44 h <= 5 h limit.
    w = workload("fine-tuning", training={"duration_hours": 8, "checkpoint_minutes": 30,
                                          "max_run_hours": 5})
    result = search(w, make_catalog(offer()), sizer=FakeSizer({"A100-40GB": requirement()}))
    assert result.ranked[0].option.usage.instances == 2
    assert result.ranked[0].option.usage.run_hours == pytest.approx(64 / 16 / 0.9)


def test_non_cuda_accelerators_only_when_pinned() -> None:
    trn = offer("trn1.32xlarge", accelerator="Trainium", gpus=16, on_demand=1.0)
    a100 = offer(on_demand=32.77)
    sizer = FakeSizer({"A100-40GB": requirement(), "Trainium": requirement("Trainium")})
    default = search(workload("fine-tuning"), make_catalog(trn, a100), sizer=sizer)
    assert default.ranked[0].offer.instance_type == "p4d.24xlarge"
    pinned = search(workload("fine-tuning", placement={"instance_type": "trn1.32xlarge"}),
                    make_catalog(trn, a100), sizer=sizer)
    assert pinned.ranked[0].offer.instance_type == "trn1.32xlarge"


def test_ties_break_deterministically_by_cloud_region_and_type() -> None:
    same = [offer("z.x", cloud="gcp", on_demand=5.0), offer("b.x", region="us-west-2",
            on_demand=5.0), offer("a.x", region="us-west-2", on_demand=5.0)]
    sizer = FakeSizer({"A100-40GB": requirement()})
    for order in (same, same[::-1]):
        ranked = search(workload("dev"), make_catalog(*order), sizer=sizer).ranked
        assert [(c.offer.cloud, c.offer.instance_type) for c in ranked] == [
            ("aws", "a.x"), ("aws", "b.x"), ("gcp", "z.x")]


@pytest.mark.parametrize(("fields", "message"), [
    ({"placement": {"clouds": ["gcp"]}}, "clouds ['gcp'] removed the last 1 offer"),
    ({"placement": {"regions": ["eu-west-9"]}}, "regions ['eu-west-9'] removed"),
    ({"placement": {"instance_type": "p5.48xlarge"}}, "placement.instance_type 'p5.48xlarge'"),
    ({"guardrails": {"max_hourly_usd": 1}}, "guardrails.max_hourly_usd 1.0 removed the last"),
])
def test_empty_feasible_set_names_the_constraint(fields: dict[str, Any], message: str) -> None:
    sizer = FakeSizer({"A100-40GB": requirement()})
    with pytest.raises(PlanningError, match="no candidate left") as err:
        search(workload("fine-tuning", **fields), make_catalog(offer()), sizer=sizer)
    assert message in str(err.value)
    assert "to fix:" in str(err.value)


def test_nothing_fits_names_sizing() -> None:
    with pytest.raises(PlanningError, match="sizing removed the last 1 offer"):
        search(workload("fine-tuning"), make_catalog(offer()), sizer=FakeSizer({}))


def test_spot_always_without_spot_prices_names_purchasing() -> None:
    w = workload("batch", purchasing={"spot": "always"})
    with pytest.raises(PlanningError, match="purchasing.spot always removed"):
        search(w, make_catalog(offer()), sizer=FakeSizer({"A100-40GB": requirement()}))


def _synthetic_catalog(count: int) -> Catalog:
    shapes = [("A100-40GB", 8), ("L4", 1), ("L4", 4), ("T4", 1), ("H100", 8)]
    offers = []
    for i in range(count):
        accel, gpus = shapes[i % len(shapes)]
        base = 1.0 + (i * 7919 % 1000) / 100
        offers.append(offer(f"t{i}.x", cloud=("aws", "gcp", "azure")[i % 3],
                            region=f"r{i % 40}", accelerator=accel, gpus=gpus,
                            on_demand=base * gpus, spot=base * gpus * 0.4,
                            reserved_1y=base * gpus * 0.65, reserved_3y=base * gpus * 0.45))
    return make_catalog(*offers)


def test_search_is_fast_on_100k_offers() -> None:
    catalog = _synthetic_catalog(100_000)
    sizer = FakeSizer({a: requirement(a, replicas=4, replicas_floor=1) for a in ACCELERATORS})
    start = time.process_time()  # CPU time: wall time on a shared runner measures neighbours
    result = search(workload("inference"), catalog, sizer=sizer)
    elapsed = time.process_time() - start
    assert len(result.ranked) == 100_000
    assert elapsed < 5.0  # see the report for measured figures; generous for slow runners


def test_hourly_cap_can_make_a_split_mix_the_cheapest() -> None:
    # Found by the brute-force property. Dev box, 6 instances at 3.34/h on demand, 1.67/h 3y,
    # 4 h x 5 days = 86.905 h/month, max_hourly_usd 20: all on demand is 20.04/h (over the cap);
    # all reserved costs 6 x 730 x 1.67 = 7,314.60; 1 reserved + 5 on demand is 18.37/h and
    # costs 730 x 1.67 + 5 x 86.905 x 3.34 = 1,219.10 + 1,451.31 = 2,670.41.
    w = workload("dev", schedule={"hours_per_day": 4, "days_per_week": 5},
                 guardrails={"max_hourly_usd": 20})
    catalog = make_catalog(offer("a.1", gpus=1, on_demand=3.34, reserved_3y=1.67))
    sizer = FakeSizer({"A100-40GB": requirement(gpus=3, replicas=2)})
    best = search(w, catalog, sizer=sizer).ranked[0]
    assert best.option.mix == Mix(reserved=1, term="3y", on_demand=5)
    assert pricing.to_usd(best.key) == 2670.41


# ---------------------------------------------------------------- deadlines with spot rework
def test_expected_run_hours_stretches_spot_runs_by_their_rework() -> None:
    # The 70B pre-training case the rule exists for: 78 synchronous nodes, 60-min checkpoints
    # (lost 30 + 10 min = 2/3 h), unknown class 0.02/h: 716.32 x (1 + 0.02 x 2/3 x 78)
    # = 716.32 x 2.04 = 1,461.29 h, twice the 720 h max_run_hours its compute hours meet.
    w = workload("training", training={"duration_hours": 8, "checkpoint_minutes": 60})
    usage = pricing.run_usage(pricing.profile_of(w), 78, 716.32)
    assert pricing.expected_run_hours(usage, Mix(spot=78), 0.02) == pytest.approx(1461.2928)
    # One spot node in the gang stalls all of it: a mixed gang counts as all spot.
    assert pricing.expected_run_hours(usage, Mix(on_demand=77, spot=1), 0.02) == (
        pricing.expected_run_hours(usage, Mix(spot=78), 0.02))
    assert pricing.expected_run_hours(usage, Mix(on_demand=78), 0.02) == 716.32
    # Batch instances are independent (gang 1) and lose only the 10-min restart:
    # 10 h x (1 + 0.02 x 1/6) = 10.0333 h on any number of instances.
    batch = pricing.run_usage(pricing.profile_of(workload("batch")), 40, 10.0)
    assert pricing.expected_run_hours(batch, Mix(spot=40), 0.02) == pytest.approx(10.0 + 0.2 / 6)


@pytest.mark.parametrize(("spot_usd", "mix", "per_run_usd"), [
    # 3 spot: 3 x 3.292181 = 9.876543 h x 4.00 = 39.506173, + rework 9.876543 h x 0.02/h x
    # 5/12 h x 3 nodes x 4.00 = 0.987654: 40.49 (2 spot would cost 36.15 but runs 4.52 h).
    (4.0, Mix(spot=3), 40.49),
    # At 9.00 the 3 spot cost 10.123457 x 9 = 91.11 > 2 on demand: 2 x 4.444444 x 10 = 88.89.
    (9.0, Mix(on_demand=2), 88.89),
])
def test_deadline_counts_spot_rework(spot_usd: float, mix: Mix, per_run_usd: float) -> None:
    # 64 GPU-hours on 8-GPU nodes, 0.9 per extra node, max_run_hours 4.5, 30-min checkpoints
    # (an interruption loses 15 + 10 min = 5/12 h), unknown interruption class: 0.02/h.
    # 2 nodes: 64 / 16 / 0.9 = 4.444444 h <= 4.5 in compute hours, but on spot
    #   4.444444 x (1 + 0.02 x 5/12 x 2) = 4.518519 h > 4.5: late;
    # 3 nodes: 64 / 24 / 0.81 = 3.292181 h; on spot x (1 + 0.02 x 5/12 x 3) = 3.374486 h: in time.
    w = workload("fine-tuning", training={"duration_hours": 8, "checkpoint_minutes": 30,
                                          "runs_per_month": 1, "max_run_hours": 4.5})
    catalog = make_catalog(offer(on_demand=10.0, spot=spot_usd))
    best = search(w, catalog, sizer=FakeSizer({"A100-40GB": requirement()})).ranked[0]
    assert best.option.mix == mix
    nodes = mix.total
    assert best.option.usage.run_hours == pytest.approx(64 / (8 * nodes) / 0.9 ** (nodes - 1))
    assert pricing.to_usd(best.key) == per_run_usd


def test_spot_rework_past_every_deadline_names_it() -> None:
    # purchasing.spot always, 10-h checkpoints (lost 5 h + 10 min = 31/6 h), perfect scaling:
    # every count runs 8 node-hours, so the rework stall alone is 8 x 0.02 x 31/6 = 0.83 h,
    # over the 0.5 h limit whatever the count (16 nodes meet it in compute: 64/128 = 0.5 h).
    w = workload("fine-tuning", purchasing={"spot": "always"},
                 training={"duration_hours": 8, "checkpoint_minutes": 600,
                           "max_run_hours": 0.5})
    sizer = FakeSizer({"A100-40GB": requirement()}, node_efficiency=1.0)
    with pytest.raises(PlanningError) as err:
        search(w, make_catalog(offer(spot=10.0)), sizer=sizer)
    assert str(err.value).startswith(
        "no candidate left: spot rework stretches every run past training.max_run_hours 0.5 h")
    assert "allow on-demand (purchasing.spot: auto or never) or raise training.max_run_hours"\
        in str(err.value)
