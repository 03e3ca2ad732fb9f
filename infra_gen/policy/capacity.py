"""GPU capacity as rendered: which resources run GPU instances, how many, and bought how.

One ``CapacityUnit`` per capacity resource (AWS instance or Auto Scaling group, GCP instance or
managed instance group, Azure VM or scale set) with its peak instance count split into spot and
non-spot, read from the resource props exactly as each cloud's API interprets them:

- AWS mixed instances policy: ``onDemandBaseCapacity`` (default 0) instances first, then
  ``onDemandPercentageAboveBaseCapacity`` (default 100) percent of the rest on-demand
  (docs.aws.amazon.com/autoscaling/ec2/userguide/mixed-instances-groups-set-up-overview.html).
- GCP: an instance template with ``scheduling.provisioningModel: SPOT`` (or ``preemptible``).
- Azure scale set: ``priority: Spot`` with ``priorityMixPolicy`` ``baseRegularPriorityCount``
  and ``regularPriorityPercentageAboveBase`` (learn.microsoft.com/azure/virtual-machine-scale-sets/
  spot-priority-mix).

Percentages above the base round the non-spot share up (the conservative reading for the
"not all spot" rule; AWS and Azure do not document the rounding of a fractional instance).
References between resources (a group's launch template, an alarm's instance) are matched by
name, id, ARN or self link; an unknown reference (preview) matches any candidate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from infra_gen.policy.model import Resource, Stack, as_list, get_path, is_unknown

AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_GROUP = "aws:autoscaling/group:Group"
AWS_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
GCP_INSTANCE = "gcp:compute/instance:Instance"
GCP_GROUPS = (
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
    "gcp:compute/instanceGroupManager:InstanceGroupManager",
)
GCP_TEMPLATES = (
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
)
AZURE_VM = "azure-native:compute:VirtualMachine"
AZURE_VMSS = "azure-native:compute:VirtualMachineScaleSet"
CAPACITY_TYPES = (AWS_INSTANCE, AWS_GROUP, GCP_INSTANCE, *GCP_GROUPS, AZURE_VM, AZURE_VMSS)

# GPU and ML-accelerator instance families by each cloud's naming scheme (AWS accelerated
# computing families p/g/gr/trn/inf/dl; GCP accelerator-optimized a2/a3/a4 and g2/g4; Azure
# N-series). GCP N1 machines count when they attach guestAccelerators.
_GPU_TYPE = re.compile(
    r"^((p|g|gr|trn|inf|dl)\d[a-z0-9-]*\.[a-z0-9]+|(a\d|g\d)-[a-z0-9-]+|Standard_N[A-Z]?\w*)$"
)
# Reserved (capacity reservation) resources and where their instance count lives.
RESERVATION_COUNT = {
    "aws:ec2/capacityReservation:CapacityReservation": "instanceCount",
    "gcp:compute/reservation:Reservation": "specificReservation.count",
    "azure-native:compute:CapacityReservation": "sku.capacity",
}


@dataclass(frozen=True)
class CapacityUnit:
    resource: Resource
    instance_type: str | None  # None when the type cannot be resolved (unknown in preview)
    instances: int  # at peak
    spot: int  # of ``instances``
    gpu: bool

    @property
    def non_spot(self) -> int:
        return self.instances - self.spot


def is_gpu_type(instance_type: Any) -> bool:
    return isinstance(instance_type, str) and bool(_GPU_TYPE.match(instance_type))


def refers_to(value: Any, target: Resource) -> bool:
    """Does ``value`` (or any string in it) reference ``target``? UNKNOWN matches anything."""
    if is_unknown(value):
        return True
    if isinstance(value, dict):
        return any(refers_to(v, target) for v in value.values())
    if isinstance(value, list | tuple):
        return any(refers_to(v, target) for v in value)
    if not isinstance(value, str) or not value:
        return False
    handles = {target.name}
    for key in ("id", "name", "arn", "selfLink", "selfLinkUnique"):
        handle = target.props.get(key)
        if isinstance(handle, str) and handle:
            handles.add(handle)
    parts = set(re.split(r"[/:]", value))
    # ``<name>-id`` is the id render.py's mocks give every resource; real ids, ARNs and self
    # links are matched exactly or by a whole path segment, so "x-vm" never matches "x-vmss".
    return any(value in (h, f"{h}-id") or h in parts for h in handles)


def referenced(value: Any, candidates: Iterable[Resource]) -> Resource | None:
    """The one candidate ``value`` references, or the only candidate if the link is unknown."""
    pool = list(candidates)
    known = [r for r in pool if not is_unknown(value) and refers_to(value, r)]
    if len(known) == 1:
        return known[0]
    if (is_unknown(value) or value is None or not known) and len(pool) == 1:
        return pool[0]
    return known[0] if known else None


def capacity(stack: Stack) -> list[CapacityUnit]:
    """Every capacity resource in the stack, GPU or not (``gpu`` says which)."""
    units: list[CapacityUnit] = []
    for res in stack.resources:
        unit = _unit(res, stack)
        if unit is not None:
            units.append(unit)
    return units


def gpu_capacity(stack: Stack) -> list[CapacityUnit]:
    return [u for u in capacity(stack) if u.gpu]


def reserved_instances(stack: Stack) -> list[tuple[Resource, int]]:
    """Capacity reservations and their instance counts (UNKNOWN counts as 0)."""
    found = []
    for res in stack.resources:
        path = RESERVATION_COUNT.get(res.type)
        if path is not None:
            found.append((res, _int(res.get(path), 0)))
    return found


def _unit(res: Resource, stack: Stack) -> CapacityUnit | None:
    if res.type == AWS_INSTANCE:
        spot = res.get("instanceMarketOptions.marketType") == "spot"
        return _single(res, res.get("instanceType"), spot)
    if res.type == AWS_GROUP:
        return _aws_group(res, stack)
    if res.type == GCP_INSTANCE:
        return _single(
            res,
            res.get("machineType"),
            _gcp_spot(res.props),
            gpu_extra=bool(as_list(res.get("guestAccelerators"))),
        )
    if res.type in GCP_GROUPS:
        return _gcp_group(res, stack)
    if res.type == AZURE_VM:
        spot = res.get("priority") in ("Spot", "Low")
        return _single(res, res.get("hardwareProfile.vmSize"), spot)
    if res.type == AZURE_VMSS:
        return _azure_scale_set(res, stack)
    return None


def _single(res: Resource, instance_type: Any, spot: bool, gpu_extra: bool = False) -> CapacityUnit:
    kind = instance_type if isinstance(instance_type, str) else None
    gpu = is_gpu_type(kind) or gpu_extra or kind is None
    return CapacityUnit(res, kind, 1, 1 if spot else 0, gpu)


def _aws_group(res: Resource, stack: Stack) -> CapacityUnit:
    peak = _int(res.get("maxSize"), _int(res.get("desiredCapacity"), 0))
    policy = res.get("mixedInstancesPolicy")
    spec = (
        get_path(policy, "launchTemplate.launchTemplateSpecification")
        if policy
        else res.get("launchTemplate")
    )
    ref = (
        get_path(spec, "launchTemplateId")
        or get_path(spec, "id")
        or get_path(spec, "launchTemplateName")
        or get_path(spec, "name")
    )
    template = referenced(ref, stack.of_type(AWS_TEMPLATE))
    types = [
        o.get("instanceType")
        for o in as_list(get_path(policy, "launchTemplate.overrides"))
        if isinstance(o, dict)
    ]
    if template is not None:
        types.insert(0, template.get("instanceType"))
    kind = next((t for t in types if isinstance(t, str)), None)
    if policy:
        dist = get_path(policy, "instancesDistribution", {})
        base = _int(get_path(dist, "onDemandBaseCapacity"), 0)
        percent = _int(get_path(dist, "onDemandPercentageAboveBaseCapacity"), 100)
        spot = _spot_above_base(peak, base, percent)
    else:
        market = get_path(template.props if template else {}, "instanceMarketOptions.marketType")
        spot = peak if market == "spot" else 0
    gpu = any(is_gpu_type(t) for t in types) or kind is None
    return CapacityUnit(res, kind, peak, spot, gpu)


def _gcp_spot(props: Any) -> bool:
    model = get_path(props, "scheduling.provisioningModel")
    return model == "SPOT" or get_path(props, "scheduling.preemptible") is True


def _gcp_group(res: Resource, stack: Stack) -> CapacityUnit:
    refs = [v.get("instanceTemplate") for v in as_list(res.get("versions")) if isinstance(v, dict)]
    ref = refs[0] if refs else res.get("instanceTemplate")
    templates = [t for t in stack.resources if t.type in GCP_TEMPLATES]
    template = referenced(ref, templates) or _same_role(res, templates)
    props = template.props if template else {}
    kind = get_path(props, "machineType")
    peak = max([_int(res.get("targetSize"), 0), *_autoscaled_max(res, stack)])
    gpu = is_gpu_type(kind) or bool(as_list(get_path(props, "guestAccelerators"))) or kind is None
    kind = kind if isinstance(kind, str) else None
    return CapacityUnit(res, kind, peak, peak if _gcp_spot(props) else 0, gpu)


def _same_role(group: Resource, templates: list[Resource]) -> Resource | None:
    """Last resort when a group's template link is unresolved: pair spot with spot by name."""
    spot = "spot" in group.name
    matches = [t for t in templates if ("spot" in t.name) == spot]
    return matches[0] if len(matches) == 1 else None


def _azure_scale_set(res: Resource, stack: Stack) -> CapacityUnit:
    peak = max([_int(res.get("sku.capacity"), 0), *_autoscaled_max(res, stack)])
    kind = res.get("sku.name")
    spot_priority = res.get("virtualMachineProfile.priority") in ("Spot", "Low")
    if not spot_priority:
        spot = 0
    elif res.get("priorityMixPolicy") is not None:
        base = _int(res.get("priorityMixPolicy.baseRegularPriorityCount"), 0)
        percent = _int(res.get("priorityMixPolicy.regularPriorityPercentageAboveBase"), 0)
        spot = _spot_above_base(peak, base, percent)
    else:
        spot = peak
    kind = kind if isinstance(kind, str) else None
    return CapacityUnit(res, kind, peak, spot, is_gpu_type(kind) or kind is None)


_AUTOSCALERS = {
    "gcp:compute/regionAutoscaler:RegionAutoscaler": ("target", "autoscalingPolicy.maxReplicas"),
    "gcp:compute/autoscaler:Autoscaler": ("target", "autoscalingPolicy.maxReplicas"),
    "azure-native:monitor:AutoscaleSetting": ("targetResourceUri", "profiles[].capacity.maximum"),
}


def _autoscaled_max(group: Resource, stack: Stack) -> list[int]:
    """The most instances an autoscaler targeting ``group`` may run: the group's true peak
    (GCP groups under an autoscaler leave targetSize unset; Azure profiles set the maximum)."""
    found = []
    for scaler in stack.resources:
        spec = _AUTOSCALERS.get(scaler.type)
        if spec is None or not refers_to(scaler.get(spec[0]), group):
            continue
        if spec[1].startswith("profiles[]"):
            found += [
                _int(get_path(p, "capacity.maximum"), 0) for p in as_list(scaler.get("profiles"))
            ]
        else:
            found.append(_int(scaler.get(spec[1]), 0))
    return found


def _spot_above_base(peak: int, base: int, non_spot_percent: int) -> int:
    above = max(peak - base, 0)
    return above - math.ceil(above * non_spot_percent / 100)


def _int(value: Any, default: int) -> int:
    if isinstance(value, bool) or is_unknown(value) or value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
