"""Pure AWS values (no Pulumi): enum checks, alarm windows, schedule crons, tag sanitising."""

from __future__ import annotations

import pytest

from infra_gen.errors import RenderError
from infra_gen.plan import ScheduleSettings
from infra_gen.providers import aws_values


def test_enum_values_are_checked_against_documented_sets() -> None:
    assert aws_values.checked("http_tokens", "required") == "required"
    with pytest.raises(RenderError, match="spot_allocation_strategy.*price-capacity-optimized"):
        aws_values.checked("spot_allocation_strategy", "cheapest")


def test_alarm_window_multiplies_to_idle_minutes() -> None:
    assert aws_values.alarm_window(30) == (300, 6)
    assert aws_values.alarm_window(7) == (60, 7)
    assert aws_values.alarm_window(1440) == (300, 288)  # 86400 s: CloudWatch's one-day cap


def test_schedule_crossing_midnight_moves_stop_to_next_day() -> None:
    night = ScheduleSettings(hours_per_day=10, days_per_week=5, start_hour=20)
    # Mon-Fri 20:00 + 10 h = Tue-Sat 06:00.
    assert aws_values.schedule_crons(night) == ("0 20 * * 1,2,3,4,5", "0 6 * * 2,3,4,5,6")
    half = ScheduleSettings(hours_per_day=8.5, days_per_week=7, start_hour=9)
    assert aws_values.schedule_crons(half) == ("0 9 * * *", "30 17 * * *")
    weekend_24h = ScheduleSettings(hours_per_day=24, days_per_week=2, start_hour=0)
    # Mon 00:00 + 24 h = Tue 00:00, Tue 00:00 + 24 h = Wed 00:00.
    assert aws_values.schedule_crons(weekend_24h) == ("0 0 * * 1,2", "0 0 * * 2,3")
    assert aws_values.schedule_crons(ScheduleSettings()) is None


def test_tags_are_sanitised_for_aws_limits() -> None:
    tags = aws_values.aws_tags({"team": "ML Research & Ops!", "aws:owner": "x" * 300,
                                "k" * 200: "v"})
    assert tags["team"] == "ML Research - Ops-"
    assert tags["owner"] == "x" * 256
    assert "k" * 128 in tags
