"""Cost rules over the rendered capacity and the workload's facts: the hourly cap, spot where
work is interruptible, never all-spot serving, reservations within the always-on floor, and
accelerators not far bigger than the sizing needs."""

from __future__ import annotations

from dataclasses import dataclass

from infra_gen.policy.capacity import CapacityUnit, gpu_capacity, reserved_instances
from infra_gen.policy.model import Finding, Rule, RuleConfig, Stack


@dataclass(frozen=True)
class HourlyEstimate:
    usd_per_hour: float
    basis: str  # how it was priced, for the message


def estimate_hourly(stack: Stack) -> HourlyEstimate | None:
    """The stack's GPU capacity at peak, priced from the catalog: spot instances at the spot
    price, the plan's reserved count (if it has a term) at the reserved price, the rest
    on-demand. Falls back to the plan's own estimate when a type is not in the catalog."""
    units = gpu_capacity(stack)
    facts = stack.facts
    priced = _price_units(units, stack) if stack.prices is not None and units else None
    if priced is not None:
        return priced
    if facts is not None:
        return HourlyEstimate(
            facts.hourly_usd,
            f"the plan's estimate for {facts.instances_peak} x {facts.instance_type}",
        )
    return None


def _price_units(units: list[CapacityUnit], stack: Stack) -> HourlyEstimate | None:
    facts = stack.facts
    reserved_left = facts.reserved_instances if facts and facts.reserved_term else 0
    total, parts = 0.0, []
    for unit in units:
        region = (facts.region if facts else None) or str(
            unit.resource.get("region") or unit.resource.get("location") or ""
        )
        offer = (
            stack.prices.offer(unit.resource.cloud, region, unit.instance_type)
            if unit.instance_type
            else None
        )
        if offer is None:
            return None
        reserved = min(reserved_left, unit.non_spot)
        reserved_left -= reserved
        for count, market in (
            (reserved, "reserved"),
            (unit.non_spot - reserved, "on-demand"),
            (unit.spot, "spot"),
        ):
            if count:
                price = stack.prices.hourly_usd(
                    offer, market, facts.reserved_term if facts else None
                )
                total += count * price
                parts.append(f"{count} x {offer.instance_type} {market} at ${price:.3f}/h")
    return HourlyEstimate(
        total, f"{'; '.join(parts) or 'no instances'} (catalog {stack.prices.as_of})"
    )


def check_max_hourly(stack: Stack, config: RuleConfig) -> list[Finding]:
    caps = []
    if config.get("max_hourly_usd") is not None:
        caps.append((float(config["max_hourly_usd"]), "policy config max_hourly_usd"))
    if stack.facts is not None and stack.facts.max_hourly_usd is not None:
        caps.append((stack.facts.max_hourly_usd, "the workload's guardrails.max_hourly_usd"))
    estimate = estimate_hourly(stack) if caps else None
    if estimate is None:
        return []
    cap, source = min(caps)
    if estimate.usd_per_hour <= cap:
        return []
    return [
        Finding(
            "",
            f"estimated ${estimate.usd_per_hour:,.2f}/h at peak exceeds the "
            f"${cap:,.2f}/h cap from {source}: {estimate.basis}",
        )
    ]


def check_spot_for_interruptible(stack: Stack, config: RuleConfig) -> list[Finding]:
    facts = stack.facts
    if facts is None or not facts.interruptible:
        return []
    units = gpu_capacity(stack)
    baseline = max(sum(n for _, n in reserved_instances(stack)), facts.reserved_instances)
    non_spot = sum(u.non_spot for u in units)
    if non_spot <= baseline:
        return []
    total = sum(u.instances for u in units)
    why = (
        f"checkpointed every {facts.checkpoint_minutes} min"
        if facts.checkpoint_minutes
        else "batch items are retried"
    )
    return [
        Finding(
            units[0].resource.name if len(units) == 1 else "",
            (
                f"{non_spot - baseline} of {total} GPU instances run on-demand above the reserved "
                f"baseline of {baseline}, but this {facts.workload_type} work is interruptible "
                f"({why}); "
                "spot typically costs 60-90% less (set purchasing.spot: auto or always)"
            ),
        )
    ]


def check_no_spot_only(stack: Stack, config: RuleConfig) -> list[Finding]:
    facts = stack.facts
    if facts is None or not facts.latency_critical:
        return []
    units = gpu_capacity(stack)
    total = sum(u.instances for u in units)
    if total == 0 or any(u.non_spot > 0 for u in units):
        return []
    names = ", ".join(repr(u.resource.name) for u in units)
    return [
        Finding(
            units[0].resource.name if len(units) == 1 else "",
            (
                f"all {total} GPU instances serving this latency-critical inference workload are "
                f"spot ({names}); a spot reclaim can take the service down: keep at least one "
                "on-demand or "
                "reserved instance (on-demand base capacity >= 1)"
            ),
        )
    ]


def check_reservation_floor(stack: Stack, config: RuleConfig) -> list[Finding]:
    facts = stack.facts
    if facts is None:
        return []
    findings = []
    reserved = reserved_instances(stack)
    total = sum(n for _, n in reserved)
    if total > facts.always_on_floor_instances:
        names = ", ".join(f"{r.name!r} ({n})" for r, n in reserved)
        findings.append(
            Finding(
                reserved[0][0].name if len(reserved) == 1 else "",
                (
                    f"{total} instances are reserved ({names}) but only "
                    f"{facts.always_on_floor_instances} run every hour of the week; reserved "
                    "capacity "
                    "is billed whether used or not"
                ),
            )
        )
    return findings


def check_right_sized(stack: Stack, config: RuleConfig) -> list[Finding]:
    facts = stack.facts
    if facts is None or facts.needed_memory_gib_per_gpu <= 0:
        return []
    need = facts.needed_memory_gib_per_gpu
    memory = facts.accelerator_memory_gib
    offer = (
        stack.prices.offer(facts.cloud, facts.region, facts.instance_type) if stack.prices else None
    )
    memory = offer.accelerator_memory_gib if offer is not None else memory
    limit = float(config.get("max_memory_ratio", 2.0))
    if memory is None or memory / need <= limit:
        return []
    smaller = stack.prices.smaller_fits(facts.cloud, need, memory) if stack.prices else []
    if stack.prices is not None and not smaller:
        return []  # already the smallest accelerator on this cloud that fits: nothing to do
    options = ", ".join(f"{name} ({mem:g} GiB)" for name, mem in smaller[:4])
    return [
        Finding(
            "",
            (
                f"{facts.accelerator} has {memory:g} GiB per GPU but the sizing needs {need:g} GiB "
                f"({memory / need:.1f}x, limit {limit:g}x); smaller accelerators on {facts.cloud} "
                f"that fit: {options or 'see the catalog'} (pin placement.accelerator if one meets "
                "the throughput target, or accept: the bigger one may be the cheapest offer)"
            ),
        )
    ]


MAX_HOURLY = Rule(
    id="max-hourly-cost",
    description="The stack's estimated hourly cost at peak, priced from the catalog, stays "
    "under the cap (config max_hourly_usd, or the workload's guardrails.max_hourly_usd).",
    level="mandatory",
    scope="stack",
    check=check_max_hourly,
    remediation="Lower replicas/instances, allow spot, or raise the cap deliberately.",
    config_schema={
        "max_hourly_usd": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "Cap in USD per hour for the stack.",
        }
    },
)
SPOT_INTERRUPTIBLE = Rule(
    id="spot-for-interruptible-work",
    description="Checkpointed training and batch capacity above the reserved baseline uses spot.",
    level="advisory",
    scope="stack",
    check=check_spot_for_interruptible,
    remediation="Set purchasing.spot to auto or always.",
)
NO_SPOT_ONLY = Rule(
    id="no-spot-only-latency-critical",
    description="Inference capacity is not 100% spot: a reclaim must not take serving down.",
    level="mandatory",
    scope="stack",
    check=check_no_spot_only,
    remediation="Keep an on-demand or reserved base (purchasing.spot: auto, not always).",
)
RESERVATION_FLOOR = Rule(
    id="reservation-within-floor",
    description="Reserved capacity does not exceed the always-on floor (instances needed every "
    "hour of the week).",
    level="advisory",
    scope="stack",
    check=check_reservation_floor,
    remediation="Reserve at most the quietest hour's need; buy peaks on-demand or spot.",
)
RIGHT_SIZED = Rule(
    id="right-sized-gpu",
    description="The chosen accelerator's memory is not more than ~2x what the sizing needs.",
    level="advisory",
    scope="stack",
    check=check_right_sized,
    remediation="Pin a smaller placement.accelerator if one meets the throughput target.",
    config_schema={
        "max_memory_ratio": {
            "type": "number",
            "minimum": 1,
            "default": 2.0,
            "description": "Accelerator memory / needed memory.",
        }
    },
)
