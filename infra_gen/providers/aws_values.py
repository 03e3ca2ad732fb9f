"""Pure values for the AWS provider: enum checks, tag sanitising, alarm periods, schedule crons.

No Pulumi import here, so every rule is unit-testable in microseconds. The Pulumi SDK accepts any
string for enum-like fields (see shared/reference/pulumi-mapping.md, item 8) and AWS rejects a bad
one only at deploy time, so each value the provider emits is checked against the documented set
below first; a mismatch is our bug and raises ``RenderError`` naming the field and the doc.
"""

from __future__ import annotations

import math
import re

from infra_gen.errors import RenderError
from infra_gen.plan import ScheduleSettings
from infra_gen.pricing import HOURS_PER_MONTH

# Documented values for every enum-like string the provider sets: field -> (values, doc link).
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "spot_allocation_strategy": (
        frozenset({"lowest-price", "capacity-optimized", "capacity-optimized-prioritized",
                   "price-capacity-optimized"}),
        "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_InstancesDistribution.html",
    ),
    "on_demand_allocation_strategy": (
        frozenset({"lowest-price", "prioritized"}),
        "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_InstancesDistribution.html",
    ),
    "http_tokens": (
        frozenset({"optional", "required"}),
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplateInstanceMetadataOptionsRequest.html",
    ),
    "volume_type": (
        frozenset({"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}),
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplateEbsBlockDeviceRequest.html",
    ),
    "tag_resource_type": (
        frozenset({"instance", "volume", "network-interface", "spot-instances-request"}),
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplateTagSpecificationRequest.html",
    ),
    "capacity_reservation_preference": (
        frozenset({"capacity-reservations-only", "open", "none"}),
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplateCapacityReservationSpecificationRequest.html",
    ),
    "asg_capacity_reservation_preference": (
        frozenset({"capacity-reservations-only", "capacity-reservations-first", "none",
                   "default"}),
        "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_CapacityReservationSpecification.html",
    ),
    "instance_platform": (
        frozenset({"Linux/UNIX", "Red Hat Enterprise Linux", "SUSE Linux", "Windows",
                   "Linux with SQL Server Standard", "Ubuntu Pro"}),
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateCapacityReservation.html",
    ),
    "instance_match_criteria": (
        frozenset({"open", "targeted"}),
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateCapacityReservation.html",
    ),
    "end_date_type": (
        frozenset({"unlimited", "limited"}),
        "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateCapacityReservation.html",
    ),
    "comparison_operator": (
        frozenset({"GreaterThanOrEqualToThreshold", "GreaterThanThreshold",
                   "LessThanThreshold", "LessThanOrEqualToThreshold"}),
        "https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html",
    ),
    "statistic": (
        frozenset({"SampleCount", "Average", "Sum", "Minimum", "Maximum"}),
        "https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html",
    ),
    "treat_missing_data": (
        frozenset({"breaching", "notBreaching", "ignore", "missing"}),
        "https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html",
    ),
    "adjustment_type": (
        frozenset({"ChangeInCapacity", "ExactCapacity", "PercentChangeInCapacity"}),
        "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_PutScalingPolicy.html",
    ),
    "policy_type": (
        frozenset({"SimpleScaling", "StepScaling", "TargetTrackingScaling",
                   "PredictiveScaling"}),
        "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_PutScalingPolicy.html",
    ),
    "budget_type": (
        frozenset({"USAGE", "COST", "RI_UTILIZATION", "RI_COVERAGE", "SAVINGS_PLANS_UTILIZATION",
                   "SAVINGS_PLANS_COVERAGE"}),
        "https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_budgets_Budget.html",
    ),
    "time_unit": (
        frozenset({"DAILY", "MONTHLY", "QUARTERLY", "ANNUALLY"}),
        "https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_budgets_Budget.html",
    ),
    "notification_type": (
        frozenset({"ACTUAL", "FORECASTED"}),
        "https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_budgets_Notification.html",
    ),
    "budget_comparison_operator": (
        frozenset({"GREATER_THAN", "LESS_THAN", "EQUAL_TO"}),
        "https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_budgets_Notification.html",
    ),
    "threshold_type": (
        frozenset({"PERCENTAGE", "ABSOLUTE_VALUE"}),
        "https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_budgets_Notification.html",
    ),
    "sns_protocol": (
        frozenset({"http", "https", "email", "email-json", "sms", "sqs", "application",
                   "lambda", "firehose"}),
        "https://docs.aws.amazon.com/sns/latest/api/API_Subscribe.html",
    ),
    "savings_plan_payment_option": (
        frozenset({"All Upfront", "Partial Upfront", "No Upfront"}),
        "https://docs.aws.amazon.com/savingsplans/latest/APIReference/API_DescribeSavingsPlansOfferings.html",
    ),
}

# AWS Budgets: "A budget can have up to ten notifications"; "a notification can have one SNS
# subscriber and up to 10 email subscribers" (API_budgets_Notification.html, read 2026-11).
MAX_BUDGET_NOTIFICATIONS = 10
MAX_BUDGET_EMAILS = 10
# Tag limits (docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html): key 1-128 and
# value 0-256 Unicode characters; letters, digits, spaces and _ . : / = + - @.
TAG_KEY_MAX_CHARS = 128
TAG_VALUE_MAX_CHARS = 256
_TAG_BAD_CHARS = re.compile(r"[^\w .:/=+\-@]", re.UNICODE)
# CloudWatch alarms: a period is 10, 20, 30 or a multiple of 60 seconds, and evaluation
# periods x period must not exceed one day for periods under an hour (API_PutMetricAlarm.html).
_ALARM_MAX_WINDOW_SECONDS = 86_400
SECONDS_PER_YEAR = 31_536_000  # Savings Plans durations: 1y = 31536000 s, 3y = 94608000 s


def checked(field: str, value: str) -> str:
    """Return ``value`` if AWS documents it for ``field``; else raise (it is our bug)."""
    allowed, doc = ALLOWED[field]
    if value not in allowed:
        raise RenderError(
            f"aws {field}: expected one of {', '.join(sorted(allowed))}, got {value!r} ({doc})"
        )
    return value


def aws_tags(tags: dict[str, str]) -> dict[str, str]:
    """Tags valid for AWS: disallowed characters become '-', lengths are cut to the limits,
    and the reserved ``aws:`` prefix is dropped from keys."""
    clean: dict[str, str] = {}
    for key, value in sorted(tags.items()):
        safe_key = _TAG_BAD_CHARS.sub("-", key)
        if safe_key.lower().startswith("aws:"):
            safe_key = safe_key[4:]
        safe_key = safe_key[:TAG_KEY_MAX_CHARS] or "tag"
        clean[safe_key] = _TAG_BAD_CHARS.sub("-", value)[:TAG_VALUE_MAX_CHARS]
    return clean


def partition(region: str) -> str:
    """The ARN partition of a region (aws, aws-cn, aws-us-gov)."""
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def ec2_stop_action_arn(region: str) -> str:
    """CloudWatch's built-in EC2 stop action (CloudWatch user guide, "Using alarm actions")."""
    return f"arn:{partition(region)}:automate:{region}:ec2:stop"


def alarm_window(idle_minutes: int) -> tuple[int, int]:
    """(period_seconds, evaluation_periods) whose product is exactly ``idle_minutes``.

    Five-minute periods when the idle time divides by five (fewer datapoints, same answer), else
    one-minute periods. The CloudWatch agent publishes every 60 s by default.
    """
    if idle_minutes <= 0:
        raise RenderError(f"auto_shutdown.idle_minutes: expected > 0, got {idle_minutes}")
    period = 300 if idle_minutes % 5 == 0 else 60
    periods = idle_minutes * 60 // period
    if period * periods > _ALARM_MAX_WINDOW_SECONDS:
        raise RenderError(
            f"auto_shutdown.idle_minutes: CloudWatch alarms look back at most one day "
            f"(1440 minutes), got {idle_minutes}"
        )
    return period, periods


def schedule_is_limited(schedule: ScheduleSettings) -> bool:
    """True when the workload does not run around the clock, so capacity is scheduled."""
    return schedule.hours_per_day < 24 or schedule.days_per_week < 7


def schedule_crons(schedule: ScheduleSettings) -> tuple[str, str] | None:
    """(start, stop) cron recurrences for Auto Scaling scheduled actions, or None for 24x7.

    Days run Monday first (cron day 1) for ``days_per_week`` days; the stop time is
    ``start_hour + hours_per_day``, which moves to the next day when it passes midnight.
    Auto Scaling recurrences are five-field Unix cron, evaluated in the action's time zone.
    """
    if not schedule_is_limited(schedule) or schedule.days_per_week == 0:
        return None
    if schedule.hours_per_day <= 0:
        return None
    days = [(1 + i) % 7 for i in range(schedule.days_per_week)]  # Mon=1 ... Sun=0
    start_minute = schedule.start_hour * 60
    stop_minute = start_minute + round(schedule.hours_per_day * 60)
    shift, stop_of_day = divmod(stop_minute, 24 * 60)
    stop_days = [(day + shift) % 7 for day in days]
    start = f"0 {schedule.start_hour} * * {_cron_days(days)}"
    stop = f"{stop_of_day % 60} {stop_of_day // 60} * * {_cron_days(stop_days)}"
    return start, stop


def _cron_days(days: list[int]) -> str:
    if len(set(days)) == 7:
        return "*"
    return ",".join(str(day) for day in sorted(set(days)))


def iana_zone(timezone: str) -> str:
    """Auto Scaling wants canonical IANA names; 'UTC' is an alias of 'Etc/UTC'."""
    return "Etc/UTC" if timezone == "UTC" else timezone


def hourly_commitment_usd(monthly_usd: float) -> str:
    """A Savings Plan commitment is USD per hour, as a string with at most 3 decimals; rounded
    down, so the commitment never exceeds what the plan's reserved capacity uses."""
    return f"{math.floor(monthly_usd / HOURS_PER_MONTH * 1000) / 1000:.3f}"
