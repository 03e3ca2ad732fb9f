"""The workload's weekly schedule as Azure needs it: a daily shutdown time, or scale events.

Azure has two schedule mechanisms and both are plain data here (no Pulumi import):
- a single VM gets a DevTest Labs auto-shutdown at a daily "HHmm" (it can only stop, never
  start: starting again is the user's or the pipeline's job);
- a scale set gets autoscale profiles with a weekly recurrence. A recurring profile stays in
  force until the next one begins (learn.microsoft.com/azure/azure-monitor/autoscale/
  autoscale-multiprofile), so "run" profiles at each start time and "stop" profiles at each end
  time describe the week exactly.

Days run from Monday: ``days_per_week: 5`` is Monday to Friday, as in the workload schema.
"""

from __future__ import annotations

from dataclasses import dataclass

from infra_gen.plan import ScheduleSettings
from infra_gen.providers.azure_values import WEEKDAYS

MINUTES_PER_DAY = 24 * 60
MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY


@dataclass(frozen=True)
class ScaleEvent:
    """One autoscale profile: at ``hour:minute`` on ``days`` the set goes to run or stop."""

    kind: str  # "run" (capacity = plan's instances) or "stop" (capacity 0)
    days: tuple[str, ...]
    hour: int
    minute: int

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.hour:02d}{self.minute:02d}"


def is_always_on(schedule: ScheduleSettings) -> bool:
    """True for a 24x7 schedule, where no shutdown schedule is rendered."""
    return schedule.hours_per_day >= 24 and schedule.days_per_week >= 7


def autoscale_needed(schedule: ScheduleSettings, spot_count: int) -> bool:
    """A scale set gets an autoscale setting when its schedule is less than 24x7, or when it
    holds spot machines: a profile whose minimum is the plan's count makes Azure autoscale
    re-create machines lost to evictions with policy Delete (autoscale scales out whenever
    the count is below the active profile's minimum)."""
    return not is_always_on(schedule) or spot_count > 0


def runs_daily_window(schedule: ScheduleSettings) -> bool:
    """True when each running day ends before the next starts (a daily shutdown fits)."""
    return 0 < schedule.hours_per_day < 24 and schedule.days_per_week > 0


def daily_shutdown_time(schedule: ScheduleSettings) -> str:
    """End of the daily window as DevTest Labs' "HHmm", e.g. start 9 + 10 h -> "1900"."""
    end = (schedule.start_hour * 60 + round(schedule.hours_per_day * 60)) % MINUTES_PER_DAY
    return f"{end // 60:02d}{end % 60:02d}"


def scale_events(schedule: ScheduleSettings) -> list[ScaleEvent]:
    """Run/stop profiles for the week, grouped by time of day; empty if it never runs."""
    if schedule.days_per_week <= 0 or schedule.hours_per_day <= 0:
        return []
    duration = round(schedule.hours_per_day * 60)
    starts = {(d * MINUTES_PER_DAY + schedule.start_hour * 60) % MINUTES_PER_WEEK
              for d in range(schedule.days_per_week)}
    # A stop that falls exactly on a start (back-to-back 24 h days) is no stop at all.
    stops = {(s + duration) % MINUTES_PER_WEEK for s in starts} - starts
    groups: dict[tuple[str, int], list[int]] = {}
    for kind, times in (("run", starts), ("stop", stops)):
        for t in times:
            day, minute_of_day = divmod(t, MINUTES_PER_DAY)
            groups.setdefault((kind, minute_of_day), []).append(day)
    return [
        ScaleEvent(kind, tuple(WEEKDAYS[d] for d in sorted(days)), mod // 60, mod % 60)
        for (kind, mod), days in sorted(groups.items())
    ]
