"""Run the Pulumi program for a plan under Pulumi's mocks and record every resource it creates.

This is how ``infra-gen render`` and ``infra-gen check`` see a stack without the Pulumi CLI or
cloud credentials, and what the provider tests assert on. Inputs are recorded exactly as the
engine would receive them (engine property names, e.g. ``instanceType``). Data-source calls
(AMI lookups, default VPC, caller identity) get fixed, plausible answers from ``_CALL_RESULTS``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pulumi

from infra_gen.plan import Plan
from infra_gen.providers.base import RenderOptions

MOCK_ACCOUNT_ID = "123456789012"

# Answers to provider functions (invokes) under mocks, by function token. Providers add the
# functions they call; an unknown token answers {} so a missing entry shows up as a None.
_CALL_RESULTS: dict[str, dict[str, Any]] = {
    "aws:ssm/getParameter:getParameter": {
        "value": "ami-0123456789abcdef0",
        "type": "String",
        "name": "/aws/service/deeplearning/ami/x86_64/"
        "base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id",
    },
    "aws:index/getCallerIdentity:getCallerIdentity": {
        "accountId": MOCK_ACCOUNT_ID,
        "arn": f"arn:aws:iam::{MOCK_ACCOUNT_ID}:user/mock",
        "userId": "AIDAMOCK",
    },
    "aws:ec2/getVpc:getVpc": {"id": "vpc-0mock", "cidrBlock": "172.31.0.0/16"},
    "aws:ec2/getSubnets:getSubnets": {"ids": ["subnet-0mocka", "subnet-0mockb"]},
    "gcp:organizations/getProject:getProject": {"projectId": "mock-project", "number": "123456"},
    "gcp:organizations/getClientConfig:getClientConfig": {"project": "mock-project"},
    "azure-native:authorization:getClientConfig": {
        "subscriptionId": "00000000-0000-0000-0000-000000000000",
        "tenantId": "11111111-1111-1111-1111-111111111111",
        "clientId": "22222222-2222-2222-2222-222222222222",
        "objectId": "33333333-3333-3333-3333-333333333333",
    },
}


@dataclass(frozen=True)
class RenderedResource:
    type: str
    name: str
    inputs: dict[str, Any]
    urn: str = ""

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "inputs": self.inputs}


def render_plan(plan: Plan, options: RenderOptions | None = None) -> list[RenderedResource]:
    """Every resource the program creates for ``plan``, sorted by (type, name)."""
    mocks = _RecordingMocks(plan.recommendation.region)
    pulumi.runtime.set_mocks(mocks, project="infra-gen", stack=plan.workload, preview=False)

    from infra_gen.providers.component import GpuWorkload

    def program() -> None:
        GpuWorkload(plan.workload, plan, options)

    _run(program)
    return sorted(mocks.resources, key=lambda r: (r.type, r.name))


def resources_json(resources: list[RenderedResource]) -> str:
    payload = {"resources": [r.to_json_dict() for r in resources]}
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


def _run(program: Any) -> None:
    from pulumi.runtime.settings import SETTINGS
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    SETTINGS.rpc_manager.clear()
    SETTINGS.outputs.clear()
    _sync_await(run_pulumi_func(program))


class _RecordingMocks(pulumi.runtime.Mocks):
    """pulumi.runtime.Mocks that records registrations and echoes inputs back as state."""

    def __init__(self, region: str) -> None:
        self.region = region
        self.resources: list[RenderedResource] = []

    def new_resource(self, args: Any) -> tuple[str, dict[str, Any]]:
        self.resources.append(RenderedResource(args.typ, args.name, dict(args.inputs)))
        state = dict(args.inputs)
        resource_id = f"{args.name}-id"
        if args.typ.startswith("aws:"):
            service = args.typ.split(":")[1].split("/")[0]
            state.setdefault(
                "arn", f"arn:aws:{service}:{self.region}:{MOCK_ACCOUNT_ID}:{args.name}"
            )
        state.setdefault("name", args.name)
        return resource_id, state

    def call(self, args: Any) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        # The failures list must be a list: pulumi's mock monitor iterates it (None crashes).
        result = dict(_CALL_RESULTS.get(args.token, {}))
        result.update(_regional_result(args.token, self.region, dict(args.args)))
        return result, []


def _regional_result(token: str, region: str, args: dict[str, Any]) -> dict[str, Any]:
    """Invoke answers that depend on the plan's region (zones, subnets, offerings)."""
    if token == "aws:index/getRegion:getRegion":
        return {"name": region, "region": region, "id": region}
    if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
        return {"names": [f"{region}a", f"{region}b", f"{region}c"], "state": "available"}
    if token == "aws:ec2/getSubnet:getSubnet":
        subnet_id = str(args.get("id") or "subnet-0mocka")
        zone = "b" if subnet_id.endswith("b") else "a"
        return {"id": subnet_id, "availabilityZone": f"{region}{zone}", "vpcId": "vpc-0mock"}
    if token == "aws:savingsplans/getOfferings:getOfferings":
        family = _filter_value(args, "instanceFamily")
        return {"offerings": [{"offeringId": f"mock-offering-{family}-{region}",
                               "planType": "EC2Instance", "currency": "USD"}]}
    return {}


def _filter_value(args: dict[str, Any], name: str) -> str:
    for item in args.get("filters") or []:
        if item.get("name") == name:
            return str((item.get("values") or [""])[0])
    return ""
