"""The policy engine's data: resources as the rules see them, rules, findings and violations.

Rules never see Pulumi or pulumi_policy types. Both doors turn what they have into ``Resource``
(type token, name, engine-named props): ``infra-gen check`` from ``render_plan``'s records, the
CrossGuard pack from ``ResourceValidationArgs``/``PolicyResource``. A value that is not known yet
(``pulumi preview`` before the resource exists) arrives as ``UNKNOWN``; rules give it the benefit
of the doubt, as CrossGuard itself does, but still require the resource that carries it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Level = Literal["advisory", "mandatory", "disabled"]
LEVELS: tuple[Level, ...] = ("advisory", "mandatory", "disabled")
Scope = Literal["resource", "stack"]

# Where each rule is explained; violation messages end with f"{DOCS_URL}#{rule_id}".
DOCS_URL = "policies/README.md"


class _Unknown:
    """A value Pulumi cannot know during preview (an output of a resource not yet created)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN: Any = _Unknown()


def is_unknown(value: Any) -> bool:
    return value is UNKNOWN


@dataclass(frozen=True)
class Resource:
    """One resource: type token (``aws:ec2/launchTemplate:LaunchTemplate``), logical name and
    props with engine (camelCase) names. ``provider_props`` are the inputs of the provider
    resource it was created with (AWS ``defaultTags`` live there)."""

    type: str
    name: str
    props: Mapping[str, Any]
    urn: str = ""
    provider_props: Mapping[str, Any] = field(default_factory=dict)

    @property
    def cloud(self) -> str:
        """``aws``, ``gcp``, ``azure`` (from ``azure-native``), or the token's package."""
        package = self.type.split(":", 1)[0]
        return "azure" if package == "azure-native" else package

    def get(self, path: str, default: Any = None) -> Any:
        return get_path(self.props, path, default)


def get_path(value: Any, path: str, default: Any = None) -> Any:
    """``get_path(props, "metadataOptions.httpTokens")``; ``default`` where a key is missing.
    An UNKNOWN on the way is returned as UNKNOWN (the answer cannot be known yet)."""
    for key in path.split("."):
        if is_unknown(value):
            return UNKNOWN
        if not isinstance(value, Mapping) or key not in value:
            return default
        value = value[key]
    return default if value is None else value


def as_list(value: Any) -> list[Any]:
    """Lists stay lists, a lone value becomes a one-item list, None becomes []."""
    if value is None:
        return []
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return [value]


@dataclass(frozen=True)
class Finding:
    """What one rule found wrong: the offending resource's name ("" = the stack) and why."""

    resource: str
    message: str


@dataclass(frozen=True)
class Violation:
    """A finding with its rule id, effective level and workload: one row of ``check`` output."""

    policy: str
    level: Level
    workload: str
    resource: str
    message: str

    def to_json_dict(self) -> dict[str, str]:
        return {
            "policy": self.policy,
            "level": self.level,
            "workload": self.workload,
            "resource": self.resource,
            "message": self.message,
        }

    def sort_key(self) -> tuple[str, int, str, str, str]:
        return (
            self.workload,
            0 if self.level == "mandatory" else 1,
            self.policy,
            self.resource,
            self.message,
        )


RuleConfig = Mapping[str, Any]
ResourceCheck = Callable[[Resource, RuleConfig], list[str]]
StackCheck = Callable[["Stack", RuleConfig], list[Finding]]


@dataclass(frozen=True)
class Rule:
    """One policy. ``config_schema`` is JSON Schema for each config property (with its
    ``default``): CrossGuard shows and validates it, ``infra-gen check`` validates the same."""

    id: str
    description: str
    level: Level
    scope: Scope
    check: Callable[..., Any]
    remediation: str
    config_schema: dict[str, dict[str, Any]] = field(default_factory=dict)

    def defaults(self) -> dict[str, Any]:
        return {
            key: spec["default"] for key, spec in self.config_schema.items() if "default" in spec
        }

    def message(self, text: str) -> str:
        """Every violation names the rule and links its documentation."""
        return f"[{self.id}] {text.rstrip('.')}. See {DOCS_URL}#{self.id}"


@dataclass(frozen=True)
class Stack:
    """Everything stack rules look at: all resources, the workload's facts (None when the stack
    has no infra-gen component) and a price lookup (None when no catalog is available)."""

    resources: tuple[Resource, ...]
    facts: Any = None  # infra_gen.policy.facts.StackFacts | None
    prices: Any = None  # infra_gen.policy.pricing.PriceBook | None

    def of_type(self, *types: str) -> list[Resource]:
        return [r for r in self.resources if r.type in types]
