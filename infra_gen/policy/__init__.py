"""Policy as code: cost, guardrail and security rules over rendered Pulumi resources.

Two doors share the rules: ``infra-gen check`` (``check.py``, no Pulumi CLI needed) and the
CrossGuard pack in ``policies/`` (``crossguard.build_policies``). Importing this package is cheap:
no Pulumi SDK, no ``pulumi_policy``, no catalog load.
"""

from infra_gen.policy.config import PolicyConfig as PolicyConfig
from infra_gen.policy.config import load_policy_config as load_policy_config
from infra_gen.policy.facts import FACTS_KEY as FACTS_KEY
from infra_gen.policy.facts import StackFacts as StackFacts
from infra_gen.policy.facts import facts_from_plan as facts_from_plan
from infra_gen.policy.model import Resource as Resource
from infra_gen.policy.model import Rule as Rule
from infra_gen.policy.model import Violation as Violation
from infra_gen.policy.registry import RULES as RULES
from infra_gen.policy.registry import RULES_BY_ID as RULES_BY_ID
from infra_gen.policy.registry import evaluate as evaluate

__all__ = [
    "FACTS_KEY",
    "RULES",
    "RULES_BY_ID",
    "PolicyConfig",
    "Resource",
    "Rule",
    "StackFacts",
    "Violation",
    "evaluate",
    "facts_from_plan",
    "load_policy_config",
]
