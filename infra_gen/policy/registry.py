"""Every rule, in report order, and the one evaluation loop both doors share."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from infra_gen.policy.config import PolicyConfig
from infra_gen.policy.facts import COMPONENT_TYPE, StackFacts
from infra_gen.policy.model import Resource, Rule, Stack, Violation
from infra_gen.policy.rules_budget import BUDGET, COMMITMENT
from infra_gen.policy.rules_cost import (
    MAX_HOURLY,
    NO_SPOT_ONLY,
    RESERVATION_FLOOR,
    RIGHT_SIZED,
    SPOT_INTERRUPTIBLE,
)
from infra_gen.policy.rules_guardrails import AUTO_SHUTDOWN
from infra_gen.policy.rules_security import ENCRYPTED_DISKS, IMDSV2, NO_PUBLIC_IP, NO_PUBLIC_SSH
from infra_gen.policy.rules_tags import TAGS

RULES: tuple[Rule, ...] = (
    AUTO_SHUTDOWN,
    BUDGET,
    TAGS,
    MAX_HOURLY,
    SPOT_INTERRUPTIBLE,
    NO_SPOT_ONLY,
    RESERVATION_FLOOR,
    COMMITMENT,
    RIGHT_SIZED,
    IMDSV2,
    ENCRYPTED_DISKS,
    NO_PUBLIC_SSH,
    NO_PUBLIC_IP,
)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
PROVIDER_PREFIX = "pulumi:providers:"


def evaluate(stack: Stack, config: PolicyConfig, workload: str = "") -> list[Violation]:
    """Every violation of every enabled rule, sorted (mandatory first, then by rule)."""
    found: list[Violation] = []
    for rule in RULES:
        level = config.level(rule)
        if level == "disabled":
            continue
        settings = config.settings_for(rule)
        if rule.scope == "resource":
            for res in stack.resources:
                found += [
                    Violation(rule.id, level, workload, res.name, rule.message(text))
                    for text in rule.check(res, settings)
                ]
        else:
            found += [
                Violation(rule.id, level, workload, f.resource, rule.message(f.message))
                for f in rule.check(stack, settings)
            ]
    return sorted(found, key=Violation.sort_key)


def find_facts(resources: Iterable[Resource]) -> StackFacts | None:
    """The facts of the stack's first infra-gen component (one workload per stack)."""
    for res in resources:
        if res.type == COMPONENT_TYPE:
            facts = StackFacts.from_props(res.props)
            if facts is not None:
                return facts
    return None


def with_provider_props(resources: list[Resource]) -> list[Resource]:
    """Give each resource its cloud's provider inputs (``defaultTags``) when the stack has
    exactly one explicit provider for that package (what ``render_plan`` records; CrossGuard
    passes the provider of each resource itself)."""
    providers: dict[str, list[Mapping[str, Any]]] = {}
    for res in resources:
        if res.type.startswith(PROVIDER_PREFIX):
            providers.setdefault(res.type.removeprefix(PROVIDER_PREFIX), []).append(res.props)
    out = []
    for res in resources:
        package = res.type.split(":", 1)[0]
        found = providers.get(package, [])
        if len(found) == 1 and not res.provider_props and not res.type.startswith("pulumi:"):
            res = Resource(res.type, res.name, res.props, res.urn, _decoded(found[0]))
        out.append(res)
    return out


def _decoded(props: Mapping[str, Any]) -> dict[str, Any]:
    """Provider inputs: the Python SDK sends nested values JSON-encoded."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if isinstance(value, str) and value[:1] in "{[":
            with contextlib.suppress(ValueError):
                value = json.loads(value)
        out[key] = value
    return out
