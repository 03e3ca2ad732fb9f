"""The CrossGuard door's plumbing: the pack file, the policy objects, unknowns during preview."""

from __future__ import annotations

import re
import runpy
from pathlib import Path
from typing import Any

import pulumi_policy
import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

from infra_gen.policy.config import PolicyConfig
from infra_gen.policy.crossguard import PACK_NAME, build_policies, plain
from infra_gen.policy.model import UNKNOWN
from infra_gen.policy.registry import RULES
from tests.policy import stacks as s
from tests.policy.doors import UNKNOWN_STRING, crossguard_door, prices

ROOT = Path(__file__).resolve().parents[2]
EXPECTED_IDS = [
    "gpu-auto-shutdown-required",
    "budget-required",
    "cost-allocation-tags",
    "max-hourly-cost",
    "spot-for-interruptible-work",
    "no-spot-only-latency-critical",
    "reservation-within-floor",
    "irreversible-commitment",
    "right-sized-gpu",
    "imdsv2-required",
    "encrypted-disks",
    "no-public-ssh",
    "no-public-ip",
]
EXPECTED_LEVELS = {
    "spot-for-interruptible-work": "advisory",
    "reservation-within-floor": "advisory",
    "right-sized-gpu": "advisory",
    "no-public-ip": "advisory",
}


def test_pack_main_builds_the_pack_from_the_rules_only(monkeypatch: pytest.MonkeyPatch) -> None:
    built: dict[str, Any] = {}

    def recording_pack(**kwargs: Any) -> None:  # the real one serves gRPC forever
        built.update(kwargs)

    monkeypatch.setattr(pulumi_policy, "PolicyPack", recording_pack)
    runpy.run_path(str(ROOT / "policies" / "__main__.py"), run_name="__main__")
    assert built["name"] == PACK_NAME == "infra-gen-gpu-cost"
    assert [p.name for p in built["policies"]] == EXPECTED_IDS


def test_policy_objects_carry_id_level_description_and_docs_link() -> None:
    policies = build_policies(prices=prices())
    for policy, rule in zip(policies, RULES, strict=True):
        assert policy.name == rule.id
        level = EXPECTED_LEVELS.get(rule.id, "mandatory")
        assert policy.enforcement_level == EnforcementLevel(level)
        assert policy.url == f"policies/README.md#{rule.id}"
        kind = ResourceValidationPolicy if rule.scope == "resource" else StackValidationPolicy
        assert isinstance(policy, kind)
    schema = next(p for p in policies if p.name == "right-sized-gpu").config_schema
    assert schema.properties["max_memory_ratio"]["default"] == 2.0


def test_config_levels_become_the_policies_default_levels() -> None:
    config = PolicyConfig(
        levels={"no-public-ip": "disabled"},
        all_level="mandatory",
        settings={"max-hourly-cost": {"max_hourly_usd": 50.0}},
    )
    policies = {p.name: p for p in build_policies(config, prices())}
    assert policies["no-public-ip"].enforcement_level == EnforcementLevel.DISABLED
    assert policies["right-sized-gpu"].enforcement_level == EnforcementLevel.MANDATORY
    assert policies["max-hourly-cost"].config_schema.properties["max_hourly_usd"]["default"] == 50.0


def test_every_rule_is_documented_under_its_anchor() -> None:
    readme = (ROOT / "policies" / "README.md").read_text()
    headings = re.findall(r"^## ([a-z0-9-]+)$", readme, re.MULTILINE)
    assert headings == EXPECTED_IDS


def test_plain_turns_proxies_and_sentinels_into_data() -> None:
    from pulumi_policy.proxy import unknown_checking_proxy

    proxied = unknown_checking_proxy({"a": [1, {"b": UNKNOWN_STRING}], "c": "x"})
    assert plain(proxied) == {"a": [1, {"b": UNKNOWN}], "c": "x"}


def test_unknown_props_during_preview_do_not_crash_or_pass_silently() -> None:
    # The whole tags map unknown: no verdict on it. httpTokens unknown: benefit of the doubt.
    stack = s.replace(
        s.aws_instance_stack(),
        "petsnap-serving-instance",
        tags=UNKNOWN,
        metadataOptions={"httpTokens": UNKNOWN},
    )
    assert crossguard_door(stack, "cost-allocation-tags") == []
    assert crossguard_door(stack, "imdsv2-required") == []
    # An unknown reference still needs the resource it would point at.
    gone = s.without(
        s.replace(
            s.aws_instance_stack(), "petsnap-serving-instance", userDataBase64=s.b64(s.NO_WATCHDOG)
        ),
        "aws:cloudwatch/metricAlarm:MetricAlarm",
    )
    assert [r for r, _ in crossguard_door(gone, "gpu-auto-shutdown-required")] == [
        "petsnap-serving-instance"
    ]
