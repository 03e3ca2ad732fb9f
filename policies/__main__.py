"""The CrossGuard pack: builds the PolicyPack from infra_gen.policy's rules and nothing else.

``PolicyPack(...)`` starts the analyzer's gRPC server and never returns, so tests never run this
file as is; they call ``infra_gen.policy.crossguard.build_policies()`` and the policies' validate
functions instead (tests/policy/test_crossguard.py also runs this file with a recording stand-in).
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from infra_gen.policy.crossguard import PACK_NAME, build_policies

PolicyPack(
    name=PACK_NAME,
    enforcement_level=EnforcementLevel.ADVISORY,  # each policy sets its own level
    policies=build_policies(),
)
