"""Azure's documented values, limits and lookups, checked before anything is sent to ARM.

The azure-native SDK accepts any string for enum-like fields (``priority="Spott"`` registers
fine under mocks and fails only at deploy time), so every such value the provider emits goes
through :func:`check` against the table below, each entry citing the Azure document it comes
from. Nothing here imports Pulumi: the tables are plain data, cheap to import and to test.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from infra_gen.errors import RenderError
from infra_gen.plan import Plan

# Documented values, by field. Sources (read 2026-11, via the search tool):
# - compute: learn.microsoft.com/rest/api/compute/virtual-machine-scale-sets/create-or-update
#   (VirtualMachinePriorityTypes, VirtualMachineEvictionPolicyTypes, OrchestrationMode) and
#   learn.microsoft.com/azure/virtual-machines/spot-vms ("Spot" priority, Deallocate|Delete).
# - consumption budgets: learn.microsoft.com/rest/api/consumption/budgets/create-or-update
#   (TimeGrainType, OperatorType, ThresholdType, CategoryType, BudgetOperatorType).
# - autoscale: learn.microsoft.com/rest/api/monitor/autoscale-settings/create-or-update
#   (RecurrenceFrequency, RecurrentSchedule.days).
# - metric alerts: learn.microsoft.com/rest/api/monitor/metric-alerts/create-or-update
#   (Operator, AggregationTypeEnum, windowSize/evaluationFrequency ISO 8601 durations).
# - DevTest Labs global schedule: learn.microsoft.com/rest/api/dtl/global-schedules
#   (EnableStatus; taskType "ComputeVmShutdownTask" per hashicorp/terraform-provider-azurerm#4135).
# - NSG rules: learn.microsoft.com/rest/api/virtualnetwork/security-rules (access, direction,
#   protocol).
ALLOWED: dict[str, frozenset[str]] = {
    "priority": frozenset({"Regular", "Low", "Spot"}),
    "eviction_policy": frozenset({"Deallocate", "Delete"}),
    "orchestration_mode": frozenset({"Uniform", "Flexible"}),
    "budget_category": frozenset({"Cost"}),
    "budget_time_grain": frozenset(
        {"Monthly", "Quarterly", "Annually", "BillingMonth", "BillingQuarter", "BillingAnnual"}
    ),
    "budget_filter_operator": frozenset({"In"}),
    "budget_operator": frozenset({"EqualTo", "GreaterThan", "GreaterThanOrEqualTo"}),
    "budget_threshold_type": frozenset({"Actual", "Forecasted"}),
    "recurrence_frequency": frozenset(
        {"None", "Second", "Minute", "Hour", "Day", "Week", "Month", "Year"}
    ),
    "weekday": frozenset(
        {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
    ),
    "metric_operator": frozenset(
        {"Equals", "GreaterThan", "GreaterThanOrEqual", "LessThan", "LessThanOrEqual"}
    ),
    "metric_aggregation": frozenset({"Average", "Count", "Minimum", "Maximum", "Total"}),
    "metric_window": frozenset({"PT1M", "PT5M", "PT15M", "PT30M", "PT1H", "PT6H", "PT12H", "P1D"}),
    "metric_frequency": frozenset({"PT1M", "PT5M", "PT15M", "PT30M", "PT1H"}),
    "schedule_status": frozenset({"Enabled", "Disabled"}),
    "schedule_task_type": frozenset({"ComputeVmShutdownTask"}),
    "nsg_access": frozenset({"Allow", "Deny"}),
    "nsg_direction": frozenset({"Inbound", "Outbound"}),
    "nsg_protocol": frozenset({"Tcp", "Udp", "Icmp", "Esp", "*", "Ah"}),
}

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# Azure tag limits (learn.microsoft.com/azure/azure-resource-manager/management/tag-resources,
# "Limitations"): 50 tags per resource, name <= 512 characters, value <= 256, and names may not
# contain < > % & \ ? /.
MAX_TAGS = 50
MAX_TAG_NAME_CHARS = 512
MAX_TAG_VALUE_CHARS = 256
TAG_NAME_FORBIDDEN = re.compile(r"[<>%&\\?/]")

# IANA -> Windows time zone ids, which both DevTest Labs schedules (timeZoneId) and autoscale
# recurrences (schedule.timeZone) require. From the Unicode CLDR mapping
# (github.com/unicode-org/cldr, common/supplemental/windowsZones.xml, "001" territory rows).
# Zones not listed are refused with a clear error rather than guessed.
IANA_TO_WINDOWS: dict[str, str] = {
    "UTC": "UTC",
    "Etc/UTC": "UTC",
    "Europe/London": "GMT Standard Time",
    "Europe/Dublin": "GMT Standard Time",
    "Europe/Lisbon": "GMT Standard Time",
    "Europe/Berlin": "W. Europe Standard Time",
    "Europe/Amsterdam": "W. Europe Standard Time",
    "Europe/Rome": "W. Europe Standard Time",
    "Europe/Stockholm": "W. Europe Standard Time",
    "Europe/Vienna": "W. Europe Standard Time",
    "Europe/Zurich": "W. Europe Standard Time",
    "Europe/Paris": "Romance Standard Time",
    "Europe/Madrid": "Romance Standard Time",
    "Europe/Brussels": "Romance Standard Time",
    "Europe/Copenhagen": "Romance Standard Time",
    "Europe/Warsaw": "Central European Standard Time",
    "Europe/Prague": "Central Europe Standard Time",
    "Europe/Budapest": "Central Europe Standard Time",
    "Europe/Helsinki": "FLE Standard Time",
    "Europe/Kiev": "FLE Standard Time",
    "Europe/Athens": "GTB Standard Time",
    "Europe/Bucharest": "GTB Standard Time",
    "Europe/Istanbul": "Turkey Standard Time",
    "Europe/Moscow": "Russian Standard Time",
    "America/New_York": "Eastern Standard Time",
    "America/Toronto": "Eastern Standard Time",
    "America/Chicago": "Central Standard Time",
    "America/Denver": "Mountain Standard Time",
    "America/Phoenix": "US Mountain Standard Time",
    "America/Los_Angeles": "Pacific Standard Time",
    "America/Vancouver": "Pacific Standard Time",
    "America/Anchorage": "Alaskan Standard Time",
    "Pacific/Honolulu": "Hawaiian Standard Time",
    "America/Sao_Paulo": "E. South America Standard Time",
    "America/Mexico_City": "Central Standard Time (Mexico)",
    "Asia/Tokyo": "Tokyo Standard Time",
    "Asia/Seoul": "Korea Standard Time",
    "Asia/Shanghai": "China Standard Time",
    "Asia/Hong_Kong": "China Standard Time",
    "Asia/Singapore": "Singapore Standard Time",
    "Asia/Kolkata": "India Standard Time",
    "Asia/Dubai": "Arabian Standard Time",
    "Asia/Jerusalem": "Israel Standard Time",
    "Australia/Sydney": "AUS Eastern Standard Time",
    "Australia/Melbourne": "AUS Eastern Standard Time",
    "Australia/Perth": "W. Australia Standard Time",
    "Pacific/Auckland": "New Zealand Standard Time",
    "Africa/Johannesburg": "South Africa Standard Time",
}

# VM size families the NVIDIA GPU Driver Extension (Microsoft.HpcCompute/NvidiaGpuDriverLinux)
# lists as supported, from Azure/azhpc-extensions NvidiaGPU/Nvidia-GPU-Linux-Resources.json
# (metadata version 20240829): NC, NCv2, NCv3, NC_A100_v4, NCasT4_v3, NVv3, NVadsA10_v5.
# H100 (NCads_H100_v5, ND_H100_v5) and ND A100 v4 are not in that list: on those sizes the
# default Ubuntu-HPC image's preinstalled driver is relied on and no extension is rendered.
_DRIVER_EXTENSION_SIZE_PATTERNS = (
    re.compile(r"^Standard_NC\d+as_T4_v3$"),
    re.compile(r"^Standard_NC\d+ads_A100_v4$"),
    re.compile(r"^Standard_NV\d+ads_A10_v5$"),
    re.compile(r"^Standard_NC\d+s_v3$"),
    re.compile(r"^Standard_NV\d+s_v3$"),
)

# Encryption at host needs the subscription feature Microsoft.Compute/EncryptionAtHost and a
# size whose SKU capability EncryptionAtHostSupported is True (`az vm list-skus`). That
# capability cannot be read offline; the sizes below are the retired/legacy GPU families
# (NC/NCv2/NCv3/ND/NV/NVv3, announced retired by Microsoft 2023-2025) for which we do not
# claim support, so encryption at host is left off there and reported by unsupported().
# Every current GPU family (NCasT4_v3, NVadsA10_v5, NC_A100_v4, ND_A100_v4, NCads_H100_v5,
# ND_H100_v5) gets it on. Unverified per size against a live subscription.
_NO_ENCRYPTION_AT_HOST = re.compile(r"^Standard_(NC\d+r?(s_v2|s_v3)?|ND\d+r?s|NV\d+(s_v3)?)$")

# Alert windows Azure accepts, in minutes, for picking the one that covers the idle period.
_WINDOW_MINUTES = (
    (1, "PT1M"), (5, "PT5M"), (15, "PT15M"), (30, "PT30M"), (60, "PT1H"),
    (360, "PT6H"), (720, "PT12H"), (1440, "P1D"),
)


def check(field: str, value: str) -> str:
    """Return ``value`` if Azure documents it for ``field``; otherwise raise RenderError."""
    allowed = ALLOWED[field]
    if value not in allowed:
        raise RenderError(
            f"azure {field}: expected one of {', '.join(sorted(allowed))}, got {value!r}"
        )
    return value


def windows_time_zone(iana: str) -> str:
    """The Windows time zone id Azure schedules need for an IANA zone, or a clear error."""
    try:
        return IANA_TO_WINDOWS[iana]
    except KeyError:
        raise RenderError(
            f"schedule.timezone: Azure schedules need a Windows time zone id and infra-gen "
            f"has no mapping for {iana!r}; use one of {', '.join(sorted(IANA_TO_WINDOWS))}"
        ) from None


def azure_tags(tags: Mapping[str, str]) -> dict[str, str]:
    """Validate cost tags against Azure's limits; refuse rather than silently truncate."""
    if len(tags) > MAX_TAGS:
        raise RenderError(f"azure tags: at most {MAX_TAGS} tags per resource, got {len(tags)}")
    for name, value in tags.items():
        if not name or len(name) > MAX_TAG_NAME_CHARS or TAG_NAME_FORBIDDEN.search(name):
            raise RenderError(
                f"azure tag name {name!r}: 1-{MAX_TAG_NAME_CHARS} characters without <>%&\\?/"
            )
        if len(value) > MAX_TAG_VALUE_CHARS:
            raise RenderError(
                f"azure tag {name!r}: value is {len(value)} characters, limit "
                f"{MAX_TAG_VALUE_CHARS}"
            )
    return dict(sorted(tags.items()))


def parse_image(urn: str) -> tuple[str, str, str, str]:
    """``publisher:offer:sku:version`` (the `az vm create --image` URN form) as four parts."""
    parts = urn.split(":")
    if len(parts) != 4 or not all(parts):
        raise RenderError(
            f"image: expected an Azure image URN 'publisher:offer:sku:version' "
            f"(e.g. microsoft-dsvm:ubuntu-hpc:2204:latest), got {urn!r}"
        )
    return parts[0], parts[1], parts[2], parts[3]


def driver_extension_supported(vm_size: str) -> bool:
    """Whether the NVIDIA GPU Driver Extension lists this size's family as supported."""
    return any(p.match(vm_size) for p in _DRIVER_EXTENSION_SIZE_PATTERNS)


def encryption_at_host_supported(vm_size: str) -> bool:
    """Whether infra-gen turns on encryption at host for this size (see the table above)."""
    return not _NO_ENCRYPTION_AT_HOST.match(vm_size)


def alert_window(idle_minutes: int) -> str:
    """The shortest Azure metric-alert window that covers ``idle_minutes`` (capped at 1 day)."""
    for minutes, window in _WINDOW_MINUTES:
        if minutes >= idle_minutes:
            return window
    return "P1D"


# In Azure size names a lowercase "s" among the feature letters after the vCPU count marks
# premium-storage capable sizes (learn.microsoft.com/azure/virtual-machines/vm-naming-conventions),
# e.g. Standard_NC4as_T4_v3 ("as") and Standard_ND96isr_H100_v5 ("isr"); legacy Standard_NC6 has
# none and cannot attach Premium SSD.
_SIZE_FEATURES = re.compile(r"^Standard_[A-Z]+\d+(?:-\d+)?([a-z]*)")


def os_disk_storage_type(vm_size: str) -> str:
    """Premium SSD where the size supports it, else Standard SSD."""
    match = _SIZE_FEATURES.match(vm_size)
    return "Premium_LRS" if match and "s" in match.group(1) else "StandardSSD_LRS"


def spot_eviction_policy(plan: Plan) -> str:
    """What Azure does to an evicted Spot VM: keep it deallocated, or delete it.

    Deallocate when the workload writes checkpoints to local disk and does not sync them to a
    bucket: the OS disk survives eviction, so the job resumes from its last checkpoint when the
    VM is restarted (the disk keeps billing while deallocated, and the VM keeps counting against
    the regional vCPU quota). Delete otherwise (inference, stateless batch, or checkpoints synced
    off the machine): nothing on the disk is worth paying for, and autoscale's minimum
    re-creates a fresh VM (learn.microsoft.com/azure/virtual-machines/spot-vms, "Eviction
    policy"). A deallocated Spot VM still counts toward the scale set, so it is not replaced:
    it waits to be started again (by the user or a pipeline) with its disk intact.
    """
    g = plan.guardrails
    local_checkpoints = g.checkpoint_minutes is not None and not g.checkpoint_sync_bucket_url
    return "Deallocate" if local_checkpoints else "Delete"
