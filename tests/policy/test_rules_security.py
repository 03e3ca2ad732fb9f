"""Security basics (IMDSv2, encrypted disks, public SSH, public IP) through both doors."""

from __future__ import annotations

import pytest

from tests.policy import stacks as s
from tests.policy.doors import both_doors
from tests.policy.doors import one_violation as _one

# --- security basics ------------------------------------------------------------------------


def test_imdsv1_fails_on_templates_and_instances() -> None:
    lt = s.replace(
        s.aws_group_stack(), "petsnap-serving-lt", metadataOptions={"httpTokens": "optional"}
    )
    assert "httpTokens is optional" in _one(lt, "imdsv2-required")[1]
    inst = s.replace(s.aws_instance_stack(), "petsnap-serving-instance", metadataOptions=None)
    assert "httpTokens is unset" in _one(inst, "imdsv2-required")[1]


def test_unencrypted_ebs_fails() -> None:
    lt = s.replace(
        s.aws_group_stack(),
        "petsnap-serving-lt",
        blockDeviceMappings=[
            {"deviceName": "/dev/sda1", "ebs": {"volumeSize": 200.0, "encrypted": "false"}}
        ],
    )
    assert "blockDeviceMappings[/dev/sda1].ebs is not encrypted" in _one(lt, "encrypted-disks")[1]
    inst = s.replace(
        s.aws_instance_stack(), "petsnap-serving-instance", rootBlockDevice={"volumeSize": 200.0}
    )
    assert "rootBlockDevice is not encrypted" in _one(inst, "encrypted-disks")[1]


@pytest.mark.parametrize(
    ("resource", "hit"),
    [
        (
            s.Resource(
                "aws:ec2/securityGroup:SecurityGroup",
                "sg",
                {
                    "ingress": [
                        {
                            "protocol": "tcp",
                            "fromPort": 20.0,
                            "toPort": 25.0,
                            "cidrBlocks": ["0.0.0.0/0"],
                        }
                    ]
                },
            ),
            True,
        ),
        (
            s.Resource(
                "aws:ec2/securityGroup:SecurityGroup",
                "sg",
                {
                    "ingress": [
                        {
                            "protocol": "tcp",
                            "fromPort": 22.0,
                            "toPort": 22.0,
                            "cidrBlocks": ["10.0.0.0/8"],
                        }
                    ]
                },
            ),
            False,
        ),
        (
            s.Resource(
                "aws:ec2/securityGroup:SecurityGroup",
                "sg",
                {
                    "ingress": [
                        {
                            "protocol": "tcp",
                            "fromPort": 443.0,
                            "toPort": 443.0,
                            "cidrBlocks": ["0.0.0.0/0"],
                        }
                    ]
                },
            ),
            False,
        ),
        (
            s.Resource(
                "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
                "r",
                {"ipProtocol": "-1", "cidrIpv6": "::/0"},
            ),
            True,
        ),
        (
            s.Resource(
                "gcp:compute/firewall:Firewall",
                "fw",
                {
                    "network": "default",
                    "sourceRanges": ["0.0.0.0/0"],
                    "allows": [{"protocol": "tcp", "ports": ["22"]}],
                },
            ),
            True,
        ),
        (
            s.Resource(
                "gcp:compute/firewall:Firewall",
                "fw",
                {
                    "network": "default",
                    "sourceRanges": ["35.235.240.0/20"],  # IAP's range
                    "allows": [{"protocol": "tcp", "ports": ["22"]}],
                },
            ),
            False,
        ),
        (
            s.Resource(
                "azure-native:network:NetworkSecurityGroup",
                "nsg",
                {
                    "securityRules": [
                        {
                            "name": "ssh",
                            "direction": "Inbound",
                            "access": "Allow",
                            "protocol": "Tcp",
                            "sourceAddressPrefix": "Internet",
                            "destinationPortRange": "22",
                        }
                    ]
                },
            ),
            True,
        ),
        (
            s.Resource(
                "azure-native:network:NetworkSecurityGroup",
                "nsg",
                {
                    "securityRules": [
                        {
                            "name": "ssh",
                            "direction": "Inbound",
                            "access": "Deny",
                            "protocol": "Tcp",
                            "sourceAddressPrefix": "*",
                            "destinationPortRange": "*",
                        }
                    ]
                },
            ),
            False,
        ),
    ],
)
def test_public_ssh(resource: s.Resource, hit: bool) -> None:
    found = both_doors([resource], "no-public-ssh")
    assert bool(found) == hit
    if hit:
        assert "allows SSH (port 22) from the internet" in found[0][1]


def test_public_ip_is_advisory_and_found_on_each_cloud() -> None:
    from infra_gen.policy.registry import RULES_BY_ID

    assert RULES_BY_ID["no-public-ip"].level == "advisory"
    lt = s.replace(
        s.aws_group_stack(),
        "petsnap-serving-lt",
        networkInterfaces=[{"deviceIndex": 0.0, "associatePublicIpAddress": "true"}],
    )
    assert _one(lt, "no-public-ip")[0] == "petsnap-serving-lt"
    gcp = s.replace(
        s.gcp_stack(),
        "petsnap-serving-spot-template",
        networkInterfaces=[{"network": "default", "accessConfigs": [{}]}],
    )
    assert _one(gcp, "no-public-ip")[0] == "petsnap-serving-spot-template"
    pip = s.Resource("azure-native:network:PublicIPAddress", "pip", {"tags": s.TAGS})
    assert _one([*s.azure_stack(), pip], "no-public-ip")[0] == "pip"
