"""Security basics for GPU hosts: IMDSv2, encrypted disks, no SSH from the internet, no public IP.

Levels: ``imdsv2-required``, ``encrypted-disks`` and ``no-public-ssh`` are mandatory (each closes a
known path to credentials or data that costs nothing to close); ``no-public-ip`` is advisory
(the issue's choice: a workload may ask for one with ``placement.public_ip``).

Scope per cloud: IMDSv1 exists only on AWS (GCP and Azure metadata servers always require a
header: ``Metadata-Flavor: Google`` / ``Metadata: true``). GCP persistent disks and Azure managed
disks are encrypted at rest by the platform by default (cloud.google.com/docs/security/
encryption/default-encryption; learn.microsoft.com/azure/virtual-machines/disk-encryption), while
EBS volumes are encrypted only when asked or when the account opts in per region
(docs.aws.amazon.com/ebs/latest/userguide/encryption-by-default.html), so on AWS encryption must
be explicit and on Azure unmanaged (VHD) disks fail.
"""

from __future__ import annotations

from typing import Any

from infra_gen.policy.model import Resource, Rule, RuleConfig, as_list, get_path, is_unknown

_LT = "aws:ec2/launchTemplate:LaunchTemplate"
_INSTANCE = "aws:ec2/instance:Instance"
_PUBLIC = {"0.0.0.0/0", "::/0", "*", "internet", "any", "0.0.0.0"}
SSH_PORT = 22


def check_imdsv2(res: Resource, config: RuleConfig) -> list[str]:
    if res.type not in (_LT, _INSTANCE):
        return []
    tokens = res.get("metadataOptions.httpTokens")
    if (
        is_unknown(tokens)
        or tokens == "required"
        or res.get("metadataOptions.httpEndpoint") == "disabled"
    ):
        return []
    return [
        f"{res.type} {res.name!r} allows IMDSv1 (metadataOptions.httpTokens is "
        f"{tokens or 'unset'}, need 'required'): a server-side request forgery on the GPU "
        "host could read its instance-role credentials"
    ]


def check_encrypted_disks(res: Resource, config: RuleConfig) -> list[str]:
    found = [f"{res.type} {res.name!r} {where} is not encrypted" for where in _unencrypted(res)]
    return found


def _unencrypted(res: Resource) -> list[str]:
    if res.type == _LT:
        maps = as_list(res.get("blockDeviceMappings"))
        if not maps:
            return ["root volume (no blockDeviceMappings: the AMI snapshot decides)"]
        return [
            f"blockDeviceMappings[{get_path(m, 'deviceName', i)}].ebs"
            for i, m in enumerate(maps)
            if get_path(m, "ebs") and not _true(get_path(m, "ebs.encrypted"))
        ]
    if res.type == _INSTANCE:
        bad = [] if _true(res.get("rootBlockDevice.encrypted")) else ["rootBlockDevice"]
        return bad + [
            f"ebsBlockDevices[{i}]"
            for i, d in enumerate(as_list(res.get("ebsBlockDevices")))
            if not _true(get_path(d, "encrypted"))
        ]
    if res.type == "aws:ebs/volume:Volume":
        return [] if _true(res.get("encrypted")) else ["volume"]
    if res.type == "azure-native:compute:VirtualMachine":
        return (
            ["storageProfile.osDisk (unmanaged VHD)"]
            if res.get("storageProfile.osDisk.vhd")
            else []
        )
    if res.type == "azure-native:compute:VirtualMachineScaleSet":
        vhds = res.get("virtualMachineProfile.storageProfile.osDisk.vhdContainers")
        return ["virtualMachineProfile osDisk (unmanaged VHD)"] if vhds else []
    return []


def _true(value: Any) -> bool:
    """Launch template booleans are strings ("true"); UNKNOWN gets the benefit of the doubt."""
    return is_unknown(value) or value is True or str(value).lower() == "true"


def check_public_ssh(res: Resource, config: RuleConfig) -> list[str]:
    return [
        f"{res.type} {res.name!r} {where} allows SSH (port 22) from the internet"
        for where in _public_ssh_rules(res)
    ]


def _public_ssh_rules(res: Resource) -> list[str]:
    if res.type == "aws:ec2/securityGroup:SecurityGroup":
        return [
            f"ingress[{i}]"
            for i, r in enumerate(as_list(res.get("ingress")))
            if _aws_rule_open(r, "protocol", ("cidrBlocks", "ipv6CidrBlocks"))
        ]
    if res.type == "aws:ec2/securityGroupRule:SecurityGroupRule":
        is_ingress = res.get("type") == "ingress"
        hit = is_ingress and _aws_rule_open(res.props, "protocol", ("cidrBlocks", "ipv6CidrBlocks"))
        return ["rule"] if hit else []
    if res.type == "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule":
        return ["rule"] if _aws_rule_open(res.props, "ipProtocol", ("cidrIpv4", "cidrIpv6")) else []
    if res.type == "gcp:compute/firewall:Firewall":
        return ["allows"] if _gcp_open(res) else []
    if res.type == "azure-native:network:NetworkSecurityGroup":
        return [
            f"securityRules[{get_path(r, 'name', i)}]"
            for i, r in enumerate(as_list(res.get("securityRules")))
            if _azure_open(r)
        ]
    if res.type == "azure-native:network:SecurityRule":
        return ["rule"] if _azure_open(res.props) else []
    return []


def _aws_rule_open(rule: Any, protocol_key: str, cidr_keys: tuple[str, ...]) -> bool:
    sources = [c for k in cidr_keys for c in as_list(get_path(rule, k))]
    if not any(str(c).lower() in _PUBLIC for c in sources):
        return False
    protocol = str(get_path(rule, protocol_key, "")).lower()
    if protocol in ("-1", "all"):
        return True
    low, high = get_path(rule, "fromPort", 0), get_path(rule, "toPort", 65535)
    return protocol in ("tcp", "6") and _int(low, 0) <= SSH_PORT <= _int(high, 65535)


def _gcp_open(res: Resource) -> bool:
    if res.get("disabled") is True or str(res.get("direction", "INGRESS")).upper() != "INGRESS":
        return False
    ranges = as_list(res.get("sourceRanges"))
    unsourced = not ranges and not res.get("sourceTags") and not res.get("sourceServiceAccounts")
    if not unsourced and not any(str(r) in _PUBLIC for r in ranges):
        return False
    for allow in as_list(res.get("allows")):
        if str(get_path(allow, "protocol", "")).lower() not in ("tcp", "all", "6"):
            continue
        ports = as_list(get_path(allow, "ports"))
        if not ports or any(_port_in(str(p)) for p in ports):
            return True
    return False


def _azure_open(rule: Any) -> bool:
    def get(key: str, default: Any = None) -> Any:  # flat, or under ARM's "properties"
        return get_path(rule, key, get_path(rule, f"properties.{key}", default))

    if str(get("direction", "")).lower() != "inbound" or str(get("access", "")).lower() != "allow":
        return False
    if str(get("protocol", "*")).lower() not in ("tcp", "*"):
        return False
    sources = [get("sourceAddressPrefix"), *as_list(get("sourceAddressPrefixes"))]
    if not any(str(s).lower() in _PUBLIC for s in sources if s is not None):
        return False
    ports = [get("destinationPortRange"), *as_list(get("destinationPortRanges"))]
    return any(_port_in(str(p)) for p in ports if p is not None)


def _port_in(spec: str) -> bool:
    if spec in ("*", ""):
        return True
    low, _, high = spec.partition("-")
    return _int(low, -1) <= SSH_PORT <= _int(high or low, -1)


def check_public_ip(res: Resource, config: RuleConfig) -> list[str]:
    where = _public_ip(res)
    return (
        [
            f"{res.type} {res.name!r} gets a public IP ({where}); reach GPU hosts through SSM, "
            "IAP or Bastion instead"
        ]
        if where
        else []
    )


def _public_ip(res: Resource) -> str | None:
    if res.type == _LT:
        hit = any(
            str(get_path(n, "associatePublicIpAddress")).lower() == "true"
            for n in as_list(res.get("networkInterfaces"))
        )
        return "networkInterfaces.associatePublicIpAddress" if hit else None
    if res.type == _INSTANCE:
        return "associatePublicIpAddress" if res.get("associatePublicIpAddress") is True else None
    if res.type in (
        "gcp:compute/instance:Instance",
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
    ):
        hit = any(
            as_list(get_path(n, "accessConfigs")) for n in as_list(res.get("networkInterfaces"))
        )
        return "networkInterfaces.accessConfigs" if hit else None
    if res.type == "azure-native:network:PublicIPAddress":
        return "a PublicIPAddress resource"
    if res.type == "azure-native:network:NetworkInterface":
        hit = any(get_path(c, "publicIPAddress") for c in as_list(res.get("ipConfigurations")))
        return "ipConfigurations.publicIPAddress" if hit else None
    if res.type == "azure-native:compute:VirtualMachineScaleSet":
        nics = as_list(
            res.get("virtualMachineProfile.networkProfile.networkInterfaceConfigurations")
        )
        hit = any(
            get_path(c, "publicIPAddressConfiguration")
            for n in nics
            for c in as_list(get_path(n, "ipConfigurations"))
        )
        return "ipConfigurations.publicIPAddressConfiguration" if hit else None
    return None


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


IMDSV2 = Rule(
    id="imdsv2-required",
    level="mandatory",
    scope="resource",
    check=check_imdsv2,
    description="AWS launch templates and instances require IMDSv2 (httpTokens: required).",
    remediation="Set metadataOptions.httpTokens to 'required' (infra-gen's AWS provider does).",
)
ENCRYPTED_DISKS = Rule(
    id="encrypted-disks",
    level="mandatory",
    scope="resource",
    check=check_encrypted_disks,
    description="Every EBS volume is explicitly encrypted; no unmanaged Azure disks.",
    remediation="Set ebs.encrypted: true on every block device mapping.",
)
NO_PUBLIC_SSH = Rule(
    id="no-public-ssh",
    level="mandatory",
    scope="resource",
    check=check_public_ssh,
    description="No security group, firewall or NSG rule allows SSH (22) from 0.0.0.0/0, ::/0 "
    "or Internet.",
    remediation="Use SSM Session Manager, IAP TCP forwarding or Azure Bastion.",
)
NO_PUBLIC_IP = Rule(
    id="no-public-ip",
    level="advisory",
    scope="resource",
    check=check_public_ip,
    description="GPU hosts get no public IP address.",
    remediation="Leave placement.public_ip false (the default).",
)
