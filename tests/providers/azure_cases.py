"""Hand-built Azure plan shapes shared by the Azure provider tests.

The default sample plan (tests/factories.py) is one Standard_NC4as_T4_v3 on-demand in eastus,
idle shutdown after 30 min below 5 % GPU, a $1000 budget alerting at 50/80/100 % to
ml-oncall@example.com, catalog as_of 2026-10-01. Figures are hand-picked, not optimizer output.
"""

from __future__ import annotations

from typing import Any

from infra_gen.plan import GuardrailSettings, Plan, PurchaseMix, ScheduleSettings
from infra_gen.providers.base import RenderOptions
from tests.factories import sample_plan

SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITestKeyOnly ml@example.com"
OPTS = RenderOptions(ssh_public_key=SSH_KEY)
SUB = "00000000-0000-0000-0000-000000000000"  # render.py's mocked getClientConfig answer
TAGS = {"team": "ml-platform", "project": "petsnap", "cost-center": "ml-prod",
        "workload": "petsnap-serving", "managed-by": "infra-gen"}
OFF = GuardrailSettings(auto_shutdown_idle_minutes=None, budget_monthly_usd=None, emails=[])
OFFICE_BERLIN = ScheduleSettings(hours_per_day=10, days_per_week=5, start_hour=9,
                                 timezone="Europe/Berlin")
OFFICE_NY = ScheduleSettings(hours_per_day=10, days_per_week=7, start_hour=9,
                             timezone="America/New_York")


def guardrails(**overrides: Any) -> GuardrailSettings:
    base = dict(auto_shutdown_idle_minutes=30, gpu_utilization_below=5.0,
                budget_monthly_usd=1000.0, alert_percent=[50, 80, 100],
                emails=["ml-oncall@example.com"], schedule=ScheduleSettings())
    base.update(overrides)
    return GuardrailSettings(**base)


def plans() -> dict[str, Plan]:
    return {
        "single": sample_plan("azure"),
        "spot-mix": sample_plan("azure", purchase=PurchaseMix(on_demand=1, spot=3)),
        "reserved-spot": sample_plan(
            "azure", workload_type="training", instance_type="Standard_NC24ads_A100_v4",
            accelerator="A100", purchase=PurchaseMix(reserved=2, on_demand=1, spot=3,
                                                     reserved_term="1y")),
        "office-vmss": sample_plan("azure", purchase=PurchaseMix(on_demand=1, spot=1),
                                   guardrails=guardrails(schedule=OFFICE_BERLIN)),
        "office-vm": sample_plan("azure", guardrails=guardrails(schedule=OFFICE_NY)),
        "off": sample_plan("azure", purchase=PurchaseMix(on_demand=1, spot=1), guardrails=OFF),
        "h100-spot": sample_plan("azure", workload_type="training",
                                 instance_type="Standard_ND96isr_H100_v5",
                                 accelerator="H100", accelerators_per_instance=8,
                                 purchase=PurchaseMix(spot=2)),
    }
