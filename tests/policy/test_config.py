"""Policy config files: the Pulumi policy-pack-config format, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infra_gen.errors import PolicyConfigError
from infra_gen.policy.config import load_policy_config, parse_policy_config
from infra_gen.policy.registry import RULES, RULES_BY_ID


def test_levels_and_settings_with_precedence() -> None:
    config = parse_policy_config(
        {
            "all": "mandatory",
            "no-public-ip": "disabled",
            "max-hourly-cost": {"enforcementLevel": "advisory", "max_hourly_usd": 250},
            "right-sized-gpu": {"max_memory_ratio": 3},
        },
        RULES,
    )
    assert config.level(RULES_BY_ID["no-public-ip"]) == "disabled"  # own entry beats all
    assert config.level(RULES_BY_ID["max-hourly-cost"]) == "advisory"
    assert config.level(RULES_BY_ID["right-sized-gpu"]) == "mandatory"  # from all
    assert config.settings_for(RULES_BY_ID["max-hourly-cost"]) == {"max_hourly_usd": 250}
    assert config.settings_for(RULES_BY_ID["right-sized-gpu"]) == {"max_memory_ratio": 3}
    assert config.settings_for(RULES_BY_ID["cost-allocation-tags"]) == {
        "required_tags": ["team", "project", "cost-center"]
    }


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([], "config: expected a JSON object of rule ids, got list"),
        (
            {"max-hourly-cots": "advisory"},
            "config: max-hourly-cots: expected 'all' or a rule id (budget-required, ",
        ),
        ({"max-hourly-cots": "advisory"}, "got an unknown key; did you mean 'max-hourly-cost'?"),
        (
            {"no-public-ip": "warn"},
            'config: no-public-ip: expected one of advisory | mandatory | disabled, got "warn"',
        ),
        (
            {"max-hourly-cost": {"max_hourly_usd": "lots"}},
            'config: max-hourly-cost.max_hourly_usd: expected number, got "lots"',
        ),
        (
            {"max-hourly-cost": {"max_hourly_usd": 0}},
            "config: max-hourly-cost.max_hourly_usd: expected number > 0, got 0",
        ),
        (
            {"max-hourly-cost": {"max_hourly_usd": True}},
            "config: max-hourly-cost.max_hourly_usd: expected number, got true",
        ),
        ({"irreversible-commitment": {"approved": [1]}}, "expected array of strings, got [1]"),
        (
            {"no-public-ip": {"cap": 1}},
            "config: no-public-ip: cap: expected one of this rule's settings (none) or "
            "enforcementLevel",
        ),
        ({"all": {"max_hourly_usd": 1}}, "config: all: expected only a level, got settings"),
    ],
)
def test_bad_config_is_one_clear_error(data: object, expected: str) -> None:
    with pytest.raises(PolicyConfigError) as err:
        parse_policy_config(data, RULES)
    assert expected in str(err.value)
    assert "\n" not in str(err.value)


def test_load_reports_json_position_and_missing_files(tmp_path: Path) -> None:
    bad = tmp_path / "policy.json"
    bad.write_text('{\n  "all": "mandatory",\n}\n')
    with pytest.raises(PolicyConfigError, match=r"policy.json:3:1: error: expected JSON"):
        load_policy_config(bad, RULES)
    with pytest.raises(PolicyConfigError, match="cannot read policy config"):
        load_policy_config(tmp_path / "missing.json", RULES)
    good = tmp_path / "ok.json"
    good.write_text(json.dumps({"irreversible-commitment": {"approved": ["*"]}}))
    assert load_policy_config(good, RULES).settings == {
        "irreversible-commitment": {"approved": ["*"]}
    }
