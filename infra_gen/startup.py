"""Instance startup scripts (user data): idle watchdog, spot-interruption handler, checkpoint sync.

CONTRACT for providers (issue 11 implements it fully):
    render_startup_script(plan, cloud) -> str   # a bash script for cloud-init user data
Providers base64-encode it where the cloud requires (AWS launch templates, Azure).
"""

from __future__ import annotations

from infra_gen.plan import Plan


def render_startup_script(plan: Plan, cloud: str) -> str:
    """Placeholder until issue 11 lands: a valid script that only logs who it is."""
    return f"#!/bin/bash\nset -euo pipefail\necho 'infra-gen {cloud} startup for {plan.workload}'\n"
