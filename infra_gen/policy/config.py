"""Policy configuration: enforcement levels and rule settings, from one JSON file.

The file has the format of Pulumi's policy pack config (``pulumi preview --policy-pack policies
--policy-pack-config policy.json``), so the same file drives both doors::

    {
      "all": "mandatory",
      "no-public-ip": "disabled",
      "max-hourly-cost": {"enforcementLevel": "mandatory", "max_hourly_usd": 250},
      "irreversible-commitment": {"approved": ["trainer-savings-plan-0"]}
    }

A key is ``all`` or a rule id; a value is a level, or an object with an optional
``enforcementLevel`` and the rule's settings. A rule's own entry beats ``all``, which beats the
rule's default level. Anything else is a ``PolicyConfigError`` naming the file and key.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from infra_gen.errors import PolicyConfigError
from infra_gen.policy.model import LEVELS, Level, Rule

_LEVEL_KEY = "enforcementLevel"
_TYPES: dict[str, tuple[type, ...]] = {
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
}


@dataclass(frozen=True)
class PolicyConfig:
    levels: dict[str, Level] = field(default_factory=dict)  # overrides by rule id
    all_level: Level | None = None
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)

    def level(self, rule: Rule) -> Level:
        return self.levels.get(rule.id) or self.all_level or rule.level

    def settings_for(self, rule: Rule) -> dict[str, Any]:
        return {**rule.defaults(), **self.settings.get(rule.id, {})}


def load_policy_config(path: str | Path, rules: Iterable[Rule]) -> PolicyConfig:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise PolicyConfigError(f"{source}: cannot read policy config: {err.strerror}") from err
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise PolicyConfigError(
            f"{source}:{err.lineno}:{err.colno}: error: expected JSON, got {err.msg}"
        ) from err
    return parse_policy_config(data, rules, source)


def parse_policy_config(data: Any, rules: Iterable[Rule], source: str = "config") -> PolicyConfig:
    by_id = {rule.id: rule for rule in rules}
    if not isinstance(data, dict):
        raise PolicyConfigError(
            f"{source}: expected a JSON object of rule ids, got {type(data).__name__}"
        )
    levels: dict[str, Level] = {}
    settings: dict[str, dict[str, Any]] = {}
    all_level: Level | None = None
    for key, value in data.items():
        if key == "all":
            level, extra = _split(value, f"{source}: all")
            if extra:
                raise PolicyConfigError(
                    f"{source}: all: expected only a level, got settings {sorted(extra)}"
                )
            all_level = level
            continue
        rule = by_id.get(key) or _unknown_rule(key, by_id, source)
        level, extra = _split(value, f"{source}: {key}")
        if level is not None:
            levels[key] = level
        settings[key] = _checked_settings(rule, extra, f"{source}: {key}")
    return PolicyConfig(levels, all_level, settings)


def _unknown_rule(key: str, by_id: Mapping[str, Rule], source: str) -> Rule:
    close = difflib.get_close_matches(key, list(by_id), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise PolicyConfigError(
        f"{source}: {key}: expected 'all' or a rule id "
        f"({', '.join(sorted(by_id))}), got an unknown key{hint}"
    )


def _split(value: Any, where: str) -> tuple[Level | None, dict[str, Any]]:
    """A level string, or {"enforcementLevel": level, **settings}."""
    if isinstance(value, str):
        return _level(value, where), {}
    if not isinstance(value, dict):
        raise PolicyConfigError(f"{where}: expected a level or an object, got {json.dumps(value)}")
    extra = dict(value)
    raw = extra.pop(_LEVEL_KEY, None)
    return (None if raw is None else _level(raw, f"{where}.{_LEVEL_KEY}")), extra


def _level(value: Any, where: str) -> Level:
    if value not in LEVELS:
        raise PolicyConfigError(
            f"{where}: expected one of {' | '.join(LEVELS)}, got {json.dumps(value)}"
        )
    return cast(Level, value)


def _checked_settings(rule: Rule, extra: dict[str, Any], where: str) -> dict[str, Any]:
    for key, value in extra.items():
        spec = rule.config_schema.get(key)
        if spec is None:
            known = ", ".join(sorted(rule.config_schema)) or "none"
            raise PolicyConfigError(
                f"{where}: {key}: expected one of this rule's settings "
                f"({known}) or {_LEVEL_KEY}, got an unknown key"
            )
        _check_value(spec, value, f"{where}.{key}")
    return extra


def _check_value(spec: Mapping[str, Any], value: Any, where: str) -> None:
    kind = spec.get("type", "string")
    ok = isinstance(value, _TYPES[kind]) and not (
        kind in ("number", "integer") and isinstance(value, bool)
    )
    if ok and kind == "array":
        item_kind = spec.get("items", {}).get("type", "string")
        ok = all(isinstance(v, _TYPES[item_kind]) for v in value)
        kind = f"array of {item_kind}s"
    if ok and "exclusiveMinimum" in spec:
        ok = value > spec["exclusiveMinimum"]
        kind = f"number > {spec['exclusiveMinimum']}"
    if ok and "minimum" in spec:
        ok = value >= spec["minimum"]
        kind = f"number >= {spec['minimum']}"
    if not ok:
        raise PolicyConfigError(f"{where}: expected {kind}, got {json.dumps(value)}")
