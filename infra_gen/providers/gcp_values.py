"""Pure values for the GCP provider: enum checks, label sanitising, machine facts, schedule crons.

No Pulumi import here, so every rule is unit-testable in microseconds. The Pulumi SDK accepts any
string for enum-like fields (shared/reference/pulumi-mapping.md, item 8) and GCP rejects a bad one
only at deploy time, so every value the provider emits is checked against the documented set below
first; a mismatch is our bug and raises ``RenderError`` naming the field and the doc.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from infra_gen.errors import RenderError
from infra_gen.plan import ScheduleSettings

_COMPUTE_REST = "https://cloud.google.com/compute/docs/reference/rest/v1"

# Documented values for every enum-like string the provider sets: field -> (values, doc link).
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "provisioning_model": (
        frozenset({"STANDARD", "SPOT", "FLEX_START", "RESERVATION_BOUND"}),
        f"{_COMPUTE_REST}/instances#Scheduling",
    ),
    "on_host_maintenance": (
        frozenset({"MIGRATE", "TERMINATE"}),
        f"{_COMPUTE_REST}/instances#Scheduling",
    ),
    "instance_termination_action": (
        frozenset({"STOP", "DELETE"}),
        f"{_COMPUTE_REST}/instances#Scheduling",
    ),
    "reservation_affinity": (
        frozenset({"ANY_RESERVATION", "SPECIFIC_RESERVATION", "NO_RESERVATION"}),
        f"{_COMPUTE_REST}/instances#ReservationAffinity",
    ),
    "reservation_affinity_key": (
        frozenset({"compute.googleapis.com/reservation-name"}),
        "https://cloud.google.com/compute/docs/instances/reservations-consume",
    ),
    "disk_type": (
        frozenset({"pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"}),
        "https://cloud.google.com/compute/docs/disks#disk-types",
    ),
    "accelerator_type": (
        frozenset(
            {
                "nvidia-tesla-t4",
                "nvidia-tesla-v100",
                "nvidia-tesla-p4",
                "nvidia-tesla-p100",
                "nvidia-l4",
                "nvidia-tesla-a100",
                "nvidia-a100-80gb",
                "nvidia-h100-80gb",
                "nvidia-h100-mega-80gb",
                "nvidia-h200-141gb",
                "nvidia-b200",
            }
        ),
        "https://cloud.google.com/compute/docs/gpus",
    ),
    "commitment_plan": (
        frozenset({"TWELVE_MONTH", "THIRTY_SIX_MONTH"}),
        f"{_COMPUTE_REST}/regionCommitments",
    ),
    # The SDK docstring lists GENERAL_PURPOSE, ACCELERATOR_OPTIMIZED and GRAPHICS_OPTIMIZED_G2;
    # the A3 types are from the REST reference's Commitment.type enum.
    "commitment_type": (
        frozenset(
            {
                "GENERAL_PURPOSE",
                "ACCELERATOR_OPTIMIZED",
                "ACCELERATOR_OPTIMIZED_A3",
                "ACCELERATOR_OPTIMIZED_A3_MEGA",
                "ACCELERATOR_OPTIMIZED_A3_ULTRA",
                "GRAPHICS_OPTIMIZED_G2",
            }
        ),
        f"{_COMPUTE_REST}/regionCommitments",
    ),
    "commitment_category": (
        frozenset({"MACHINE", "LICENSE"}),
        f"{_COMPUTE_REST}/regionCommitments",
    ),
    "autoscaler_mode": (
        frozenset({"OFF", "ONLY_SCALE_OUT", "ONLY_UP", "ON"}),
        f"{_COMPUTE_REST}/regionAutoscalers",
    ),
    "commitment_resource_type": (
        frozenset({"VCPU", "MEMORY", "LOCAL_SSD", "ACCELERATOR"}),
        f"{_COMPUTE_REST}/regionCommitments",
    ),
    "distribution_target_shape": (
        frozenset({"EVEN", "BALANCED", "ANY", "ANY_SINGLE_ZONE"}),
        f"{_COMPUTE_REST}/regionInstanceGroupManagers",
    ),
    "update_policy_type": (
        frozenset({"OPPORTUNISTIC", "PROACTIVE"}),
        f"{_COMPUTE_REST}/regionInstanceGroupManagers",
    ),
    "minimal_action": (
        frozenset({"NONE", "REFRESH", "RESTART", "REPLACE"}),
        f"{_COMPUTE_REST}/regionInstanceGroupManagers",
    ),
    "instance_redistribution_type": (
        frozenset({"NONE", "PROACTIVE"}),
        f"{_COMPUTE_REST}/regionInstanceGroupManagers",
    ),
    "default_action_on_failure": (
        frozenset({"REPAIR", "DO_NOTHING"}),
        f"{_COMPUTE_REST}/regionInstanceGroupManagers",
    ),
    "spend_basis": (
        frozenset({"CURRENT_SPEND", "FORECASTED_SPEND"}),
        "https://cloud.google.com/billing/docs/reference/budget/rest/v1/billingAccounts.budgets#basis",
    ),
    "calendar_period": (
        frozenset({"MONTH", "QUARTER", "YEAR"}),
        "https://cloud.google.com/billing/docs/reference/budget/rest/v1/billingAccounts.budgets#calendarperiod",
    ),
    "comparison": (
        # The SDK docstring: the Monitoring API only takes LT and GT for metric thresholds.
        frozenset({"COMPARISON_GT", "COMPARISON_LT"}),
        "https://cloud.google.com/monitoring/api/ref_v3/rest/v3/projects.alertPolicies#comparisontype",
    ),
    "per_series_aligner": (
        frozenset({"ALIGN_MEAN", "ALIGN_MAX", "ALIGN_MIN"}),
        "https://cloud.google.com/monitoring/api/ref_v3/rest/v3/projects.alertPolicies#aligner",
    ),
    "cross_series_reducer": (
        frozenset({"REDUCE_MEAN", "REDUCE_MAX", "REDUCE_MIN"}),
        "https://cloud.google.com/monitoring/api/ref_v3/rest/v3/projects.alertPolicies#reducer",
    ),
    "alert_combiner": (
        frozenset({"AND", "OR", "AND_WITH_MATCHING_RESOURCE"}),
        "https://cloud.google.com/monitoring/api/ref_v3/rest/v3/projects.alertPolicies#conditioncombinertype",
    ),
    "nic_type": (frozenset({"GVNIC", "VIRTIO_NET"}), f"{_COMPUTE_REST}/instances#NetworkInterface"),
    "notification_channel_type": (
        frozenset({"email"}),
        "https://cloud.google.com/monitoring/support/notification-options",
    ),
}


def check(field: str, value: str) -> str:
    """``value`` if GCP documents it for ``field``; else RenderError naming the valid set."""
    allowed, doc = ALLOWED[field]
    if value not in allowed:
        raise RenderError(
            f"gcp {field}: expected one of {', '.join(sorted(allowed))}, got {value!r} (see {doc})"
        )
    return value


# ---- labels --------------------------------------------------------------------------------

LABEL_MAX_CHARS = 63  # keys and values; https://cloud.google.com/compute/docs/labeling-resources
_INVALID = re.compile(r"[^a-z0-9_-]+")


def sanitize_label_value(raw: str) -> str:
    """GCP label value: lowercase ASCII letters, digits, ``_`` and ``-``, at most 63 chars.

    GCP also accepts lowercase international letters, but billing exports and budget filters
    are compared byte for byte, so we fold to ASCII (``Équipe`` -> ``equipe``) for one stable
    spelling. Runs of other characters become one ``_`` (``ML Research & Ops`` ->
    ``ml_research_ops``). A value that would be cut, or that folds to nothing (``研究``), keeps a
    short SHA-256 suffix of the original, so two different team names never share a label.
    """
    folded = unicodedata.normalize("NFKD", raw).encode("ascii", "ignore").decode("ascii")
    clean = _INVALID.sub("_", folded.lower()).strip("_")
    digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
    if not clean:
        return f"x-{digest}"
    if len(clean) > LABEL_MAX_CHARS:
        return f"{clean[: LABEL_MAX_CHARS - 9].rstrip('_-')}-{digest}"
    return clean


def sanitize_label_key(raw: str) -> str:
    """GCP label key: as a value, and non-empty and starting with a lowercase letter."""
    value = sanitize_label_value(raw)
    if not value[0].isalpha():
        value = f"k_{value}"[:LABEL_MAX_CHARS]
    return value


def gcp_labels(tags: dict[str, str]) -> dict[str, str]:
    """The cost tags as GCP labels, sorted by key (deterministic output)."""
    return {sanitize_label_key(k): sanitize_label_value(v) for k, v in sorted(tags.items())}


# ---- machines ------------------------------------------------------------------------------

# Accelerator type names, https://cloud.google.com/compute/docs/gpus (read 2026).
ACCELERATOR_TYPES: dict[str, str] = {
    "T4": "nvidia-tesla-t4",
    "V100": "nvidia-tesla-v100",
    "L4": "nvidia-l4",
    "A100-40GB": "nvidia-tesla-a100",
    "A100": "nvidia-tesla-a100",
    "A100-80GB": "nvidia-a100-80gb",
    "H100": "nvidia-h100-80gb",
    "H100-MEGA": "nvidia-h100-mega-80gb",
    "H200": "nvidia-h200-141gb",
    "B200": "nvidia-b200",
}

# N1 is the only family where GPUs are attached (guest_accelerators) rather than bundled with
# the machine type; https://cloud.google.com/compute/docs/gpus#gpu-models.
ATTACHED_GPU_FAMILIES = frozenset({"n1"})
ATTACHABLE_TO_N1 = frozenset({"T4", "V100", "P4", "P100"})


@dataclass(frozen=True)
class MachineFacts:
    vcpus: int
    memory_gib: float
    commitment_type: str


# vCPUs and memory per machine type, from /work/shared/reference/gpu-prices.csv (SkyPilot GCP
# catalog v7, read 2026) and https://cloud.google.com/compute/docs/gpus; used to size
# committed-use discounts, which are bought per vCPU / GB of memory / GPU.
MACHINES: dict[str, MachineFacts] = {
    "n1-standard-4": MachineFacts(4, 15, "GENERAL_PURPOSE"),
    "n1-standard-8": MachineFacts(8, 30, "GENERAL_PURPOSE"),
    "n1-standard-16": MachineFacts(16, 60, "GENERAL_PURPOSE"),
    "g2-standard-4": MachineFacts(4, 16, "GRAPHICS_OPTIMIZED_G2"),
    "g2-standard-8": MachineFacts(8, 32, "GRAPHICS_OPTIMIZED_G2"),
    "g2-standard-12": MachineFacts(12, 48, "GRAPHICS_OPTIMIZED_G2"),
    "g2-standard-24": MachineFacts(24, 96, "GRAPHICS_OPTIMIZED_G2"),
    "g2-standard-48": MachineFacts(48, 192, "GRAPHICS_OPTIMIZED_G2"),
    "a2-highgpu-1g": MachineFacts(12, 85, "ACCELERATOR_OPTIMIZED"),
    "a2-highgpu-2g": MachineFacts(24, 170, "ACCELERATOR_OPTIMIZED"),
    "a2-highgpu-4g": MachineFacts(48, 340, "ACCELERATOR_OPTIMIZED"),
    "a2-highgpu-8g": MachineFacts(96, 680, "ACCELERATOR_OPTIMIZED"),
    "a2-ultragpu-1g": MachineFacts(12, 170, "ACCELERATOR_OPTIMIZED"),
    "a2-ultragpu-8g": MachineFacts(96, 1360, "ACCELERATOR_OPTIMIZED"),
    "a3-highgpu-8g": MachineFacts(208, 1872, "ACCELERATOR_OPTIMIZED_A3"),
    "a3-megagpu-8g": MachineFacts(208, 1872, "ACCELERATOR_OPTIMIZED_A3_MEGA"),
    "a3-ultragpu-8g": MachineFacts(224, 2952, "ACCELERATOR_OPTIMIZED_A3_ULTRA"),
}

# Boot disk types each family supports (https://cloud.google.com/compute/docs/gpus and the
# machine-family pages, read 2026): A3 Mega/Ultra take Hyperdisk only.
_HYPERDISK_ONLY = ("a3-megagpu", "a3-ultragpu", "a4-")


def family(machine_type: str) -> str:
    return machine_type.split("-", 1)[0]


def accelerator_type(accelerator: str) -> str:
    try:
        return check("accelerator_type", ACCELERATOR_TYPES[accelerator])
    except KeyError:
        known = ", ".join(sorted(ACCELERATOR_TYPES))
        raise RenderError(
            f"gcp accelerator: expected one of {known}, got {accelerator!r}"
        ) from None


def attached_accelerator(machine_type: str, accelerator: str, count: int) -> tuple[str, int] | None:
    """(type, count) for ``guest_accelerators`` on N1; None where the GPU comes with the type."""
    if family(machine_type) not in ATTACHED_GPU_FAMILIES:
        return None
    if accelerator not in ATTACHABLE_TO_N1:
        raise RenderError(
            f"gcp machine type {machine_type}: N1 takes T4, V100, P4 or P100 GPUs, "
            f"got {accelerator}"
        )
    return accelerator_type(accelerator), count


def boot_disk_type(machine_type: str) -> str:
    kind = "hyperdisk-balanced" if machine_type.startswith(_HYPERDISK_ONLY) else "pd-balanced"
    return check("disk_type", kind)


# ---- zones ---------------------------------------------------------------------------------

# Zones per region (https://cloud.google.com/compute/docs/regions-zones, read 2026). Regions
# not listed fall back to -a/-b/-c; us-east1 and europe-west1 have no "-a" zone.
ZONES: dict[str, tuple[str, ...]] = {
    "us-central1": ("us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"),
    "us-east1": ("us-east1-b", "us-east1-c", "us-east1-d"),
    "us-east4": ("us-east4-a", "us-east4-b", "us-east4-c"),
    "us-west1": ("us-west1-a", "us-west1-b", "us-west1-c"),
    "europe-west1": ("europe-west1-b", "europe-west1-c", "europe-west1-d"),
    "europe-west4": ("europe-west4-a", "europe-west4-b", "europe-west4-c"),
    "asia-southeast1": ("asia-southeast1-a", "asia-southeast1-b", "asia-southeast1-c"),
}


def zones(region: str) -> tuple[str, ...]:
    return ZONES.get(region, tuple(f"{region}-{z}" for z in "abc"))


# ---- schedules -----------------------------------------------------------------------------


def always_on(schedule: ScheduleSettings) -> bool:
    return schedule.hours_per_day >= 24 and schedule.days_per_week >= 7


def _days(first: int, count: int) -> str:
    """Cron day-of-week list for ``count`` days from ``first`` (1 = Monday, 0 = Sunday)."""
    if count >= 7:
        return "*"
    return ",".join(str((first + i) % 7) for i in range(count))


def _check_runs(schedule: ScheduleSettings) -> None:
    if schedule.hours_per_day <= 0 or schedule.days_per_week <= 0:
        raise RenderError(
            "schedule: runs 0 hours a week; expected hours_per_day and days_per_week above 0"
        )


def start_stop_crons(schedule: ScheduleSettings) -> tuple[str, str]:
    """(start, stop) unix-cron strings for an instance schedule, in the schedule's time zone.

    The workload runs ``hours_per_day`` from ``start_hour`` on the first ``days_per_week`` days
    from Monday. A stop past midnight moves to the next day; a 24-hour day starts once on Monday
    and stops after the last day, so a start and a stop never fire at the same minute.
    """
    _check_runs(schedule)
    start = f"0 {schedule.start_hour} * * "
    if schedule.hours_per_day >= 24:
        last_day_after = (1 + schedule.days_per_week) % 7
        return start + "1", f"0 {schedule.start_hour} * * {last_day_after}"
    end_minutes = schedule.start_hour * 60 + round(schedule.hours_per_day * 60)
    day_shift, minute_of_day = divmod(end_minutes, 24 * 60)
    hour, minute = divmod(minute_of_day, 60)
    stop = f"{minute} {hour} * * {_days(1 + day_shift, schedule.days_per_week)}"
    return start + _days(1, schedule.days_per_week), stop


def scaling_window(schedule: ScheduleSettings) -> tuple[str, int]:
    """(cron, duration_sec) for an autoscaler scaling schedule covering the run window."""
    _check_runs(schedule)
    cron = f"0 {schedule.start_hour} * * {_days(1, schedule.days_per_week)}"
    return cron, round(min(schedule.hours_per_day, 24) * 3600)


# ---- names ---------------------------------------------------------------------------------


def service_account_id(workload: str) -> str:
    """An account id GCP accepts: 6-30 chars, ``[a-z]([-a-z0-9]*[a-z0-9])``.

    https://cloud.google.com/iam/docs/service-accounts-create#creating
    """
    base = re.sub(r"[^a-z0-9-]", "-", workload.lower())
    account = f"ig-{base}"[:26].rstrip("-") + "-gpu"
    if not re.fullmatch(r"[a-z][-a-z0-9]{4,28}[a-z0-9]", account):  # pragma: no cover - guard
        raise RenderError(f"gcp service account id {account!r} is invalid")
    return account
