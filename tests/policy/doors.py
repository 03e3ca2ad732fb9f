"""Run one stack through both doors: the check engine, and the CrossGuard policy objects called
the way the pulumi-policy SDK's analyzer calls them (real ``ResourceValidationArgs`` /
``StackValidationArgs``, props wrapped in its unknown-checking proxy, a fake report_violation).
"""

from __future__ import annotations

import functools
from typing import Any

from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyProviderResource,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
)
from pulumi_policy.proxy import unknown_checking_proxy

from infra_gen.catalog.load import load_catalog
from infra_gen.policy.check import check_rendered
from infra_gen.policy.config import PolicyConfig
from infra_gen.policy.crossguard import build_policies
from infra_gen.policy.model import UNKNOWN, Resource
from infra_gen.policy.pricing import PriceBook

UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # pulumi_policy.proxy sentinel


@functools.cache
def prices() -> PriceBook:
    return PriceBook.from_catalog(load_catalog())


def check_door(
    resources: list[Resource],
    rule_id: str,
    config: PolicyConfig | None = None,
) -> list[tuple[str, str]]:
    """(resource, message) of ``rule_id``'s violations through the check engine."""
    found = check_rendered(list(resources), prices(), config or PolicyConfig(), "w.yaml")
    return sorted((v.resource, v.message) for v in found if v.policy == rule_id)


def crossguard_door(
    resources: list[Resource],
    rule_id: str,
    config: dict[str, Any] | None = None,
) -> list[tuple[str, str]]:
    """(resource, message) of ``rule_id``'s violations through its pulumi_policy object."""
    policy = next(p for p in build_policies(prices=prices()) if p.name == rule_id)
    reported: list[tuple[str, str]] = []
    by_urn = {_urn(r): r.name for r in resources}
    if isinstance(policy, ResourceValidationPolicy):
        for res in resources:
            if res.type.startswith("pulumi:providers:"):
                continue
            args = ResourceValidationArgs(
                res.type,
                unknown_checking_proxy(_wire(res.props)),
                _urn(res),
                res.name,
                _opts(),
                _provider(res, resources),
                config,
            )
            policy.validate(args, lambda msg, urn=None, name=res.name: reported.append((name, msg)))
    else:
        stack = [
            PolicyResource(
                r.type,
                unknown_checking_proxy(_wire(r.props)),
                _urn(r),
                r.name,
                _opts(),
                _provider(r, resources),
                None,
                [],
                {},
            )
            for r in resources
        ]
        policy.validate(
            StackValidationArgs(stack, config),
            lambda msg, urn=None: reported.append((by_urn.get(urn, ""), msg)),
        )
    return sorted(reported)


def both_doors(resources: list[Resource], rule_id: str) -> list[tuple[str, str]]:
    """The violations, after asserting both doors report exactly the same ones."""
    via_check = check_door(resources, rule_id)
    via_crossguard = crossguard_door(resources, rule_id)
    assert via_check == via_crossguard
    return via_check


def _urn(res: Resource) -> str:
    return f"urn:pulumi:test::infra-gen::{res.type}::{res.name}"


def _opts() -> PolicyResourceOptions:
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], None)


def _provider(res: Resource, resources: list[Resource]) -> PolicyProviderResource | None:
    package = res.type.split(":", 1)[0]
    for other in resources:
        if other.type == f"pulumi:providers:{package}":
            return PolicyProviderResource(other.type, dict(other.props), _urn(other), other.name)
    return None


def _wire(value: Any) -> Any:
    """Props as the analyzer receives them: UNKNOWN as pulumi_policy's sentinel string."""
    if value is UNKNOWN:
        return UNKNOWN_STRING
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    return value


def one_violation(resources: list[Resource], rule_id: str) -> tuple[str, str]:
    """The one violation of ``rule_id`` (both doors agreeing), with its id and docs link."""
    found = both_doors(resources, rule_id)
    assert len(found) == 1, found
    resource, message = found[0]
    assert message.startswith(f"[{rule_id}] ")
    assert message.endswith(f"See policies/README.md#{rule_id}")
    return resource, message
