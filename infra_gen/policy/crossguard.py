"""The CrossGuard door: every rule as a ``pulumi_policy`` policy object.

``policies/__main__.py`` passes ``build_policies()`` to ``PolicyPack``, whose constructor serves
gRPC forever; tests call the policies' ``validate`` with real ``ResourceValidationArgs`` /
``StackValidationArgs`` instead. Resource rules become ``ResourceValidationPolicy`` (they see
inputs); stack rules become ``StackValidationPolicy`` (they see outputs, where the GpuWorkload
component registers its ``infraGenFacts``). ``pulumi_policy`` is imported only inside
``build_policies``, so the rest of the engine never pays for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from infra_gen.policy.config import PolicyConfig
from infra_gen.policy.model import DOCS_URL, UNKNOWN, Resource, Rule, Stack
from infra_gen.policy.pricing import PriceBook, default_price_book
from infra_gen.policy.registry import RULES, find_facts

PACK_NAME = "infra-gen-gpu-cost"
_LEVEL_KEY = "enforcementLevel"


def build_policies(
    config: PolicyConfig | None = None, prices: PriceBook | None = None
) -> list[Any]:
    """One pulumi_policy policy per rule. ``config`` sets default levels and settings (Pulumi's
    ``--policy-pack-config`` still overrides them); ``prices`` defaults to the catalog, loaded
    on first use."""
    from pulumi_policy import (
        EnforcementLevel,
        PolicyConfigSchema,
        ResourceValidationPolicy,
        StackValidationPolicy,
    )

    config = config or PolicyConfig()
    book = _Prices(prices)
    policies: list[Any] = []
    for rule in RULES:
        common: dict[str, Any] = {
            "name": rule.id,
            "description": rule.description,
            "enforcement_level": EnforcementLevel(config.level(rule)),
            "remediation_steps": rule.remediation,
            "url": f"{DOCS_URL}#{rule.id}",
        }
        if rule.config_schema:
            common["config_schema"] = PolicyConfigSchema(properties=_schema(rule, config))
        if rule.scope == "resource":
            policies.append(
                ResourceValidationPolicy(validate=_resource_validator(rule, config), **common)
            )
        else:
            policies.append(
                StackValidationPolicy(validate=_stack_validator(rule, config, book), **common)
            )
    return policies


def _schema(rule: Rule, config: PolicyConfig) -> dict[str, dict[str, Any]]:
    settings = config.settings.get(rule.id, {})
    return {
        key: {**spec, **({"default": settings[key]} if key in settings else {})}
        for key, spec in rule.config_schema.items()
    }


class _Prices:
    """The price book, loaded once, on the first stack policy that needs it."""

    def __init__(self, prices: PriceBook | None) -> None:
        self._prices = prices
        self._loaded = prices is not None

    def get(self) -> PriceBook | None:
        if not self._loaded:
            self._prices, self._loaded = default_price_book(), True
        return self._prices


def _settings(rule: Rule, config: PolicyConfig, args: Any) -> dict[str, Any]:
    given = {k: v for k, v in plain(args.get_config() or {}).items() if k != _LEVEL_KEY}
    return {**config.settings_for(rule), **given}


def _resource_validator(rule: Rule, config: PolicyConfig) -> Callable[[Any, Any], None]:
    def validate(args: Any, report_violation: Callable[..., None]) -> None:
        provider = plain(args.provider.props) if args.provider is not None else {}
        res = Resource(args.resource_type, args.name, plain(args.props), args.urn, provider)
        for text in rule.check(res, _settings(rule, config, args)):
            report_violation(rule.message(text), None)

    return validate


def _stack_validator(rule: Rule, config: PolicyConfig, book: _Prices) -> Callable[[Any, Any], None]:
    def validate(args: Any, report_violation: Callable[..., None]) -> None:
        resources = tuple(to_resource(r) for r in args.resources)
        stack = Stack(resources, find_facts(resources), book.get())
        urns = {r.name: r.urn for r in resources}
        for finding in rule.check(stack, _settings(rule, config, args)):
            report_violation(rule.message(finding.message), urns.get(finding.resource) or None)

    return validate


def to_resource(policy_resource: Any) -> Resource:
    """A ``PolicyResource`` (stack validation) as the rules see it."""
    provider = policy_resource.provider
    return Resource(
        policy_resource.resource_type,
        policy_resource.name,
        plain(policy_resource.props),
        policy_resource.urn,
        plain(provider.props) if provider is not None else {},
    )


def plain(value: Any) -> Any:
    """Plain dicts/lists from pulumi_policy's proxies, with preview-unknown sentinels (which the
    proxies raise on) turned into ``UNKNOWN`` so rules can decide instead of being skipped."""
    from pulumi_policy import proxy
    from pulumi_policy.secret import Secret

    if isinstance(value, Secret):
        return plain(value.value)
    if isinstance(value, str):
        return UNKNOWN if value in _sentinels() else value
    if isinstance(value, Mapping):
        raw = value["__target"] if isinstance(value, proxy._DictProxy) else value
        return {key: plain(item) for key, item in raw.items()}
    if isinstance(value, Sequence):
        raw = value["__target"] if isinstance(value, proxy._ListProxy) else value
        return [plain(item) for item in raw]
    return value


@functools.cache
def _sentinels() -> frozenset[str]:
    """pulumi_policy's UNKNOWN_*_VALUE strings (boolean, number, string, array, ...)."""
    from pulumi_policy import proxy

    return frozenset(
        getattr(proxy, name)
        for name in dir(proxy)
        if name.startswith("UNKNOWN_") and name.endswith("_VALUE")
    )
