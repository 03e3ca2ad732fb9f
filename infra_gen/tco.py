"""Cloud vs on-prem per productive GPU-hour, seed 002's TCO model (``infra-gen plan --tco``).

On-prem cost per productive GPU-hour at utilisation u (fraction of the year doing work):

    fixed / (8760 u) + variable
    fixed    = hardware per GPU / amortisation years + staff per GPU per year
    variable = GPU power x PUE x electricity price + network fabric      (per productive hour)

Power is per productive hour because average draw scales with utilisation (seed 002: "700W ...
at 80% utilization, assume average 560W"). Break-even utilisation against a cloud price P per
productive GPU-hour solves fixed / (8760 u) + variable = P.

Seed 002 worked example (H100, 80%): hardware 53,125/3 = 17,708/yr -> 2.53; staff 1.5 FTE x
250k / 64 GPUs -> 0.84; power 0.7 kW x 1.3 x 0.10 -> 0.091; network 0.10: about 3.56 USD per
productive GPU-hour. Its break-even (40.5% against 3y reserved p5 at 5.25) divides an annual
18,628 USD that leaves staff out; with staff included the same model gives about 54%.
"""

from __future__ import annotations

from dataclasses import dataclass

from infra_gen import pricing
from infra_gen.optimizer import Choice
from infra_gen.plan import TcoSummary

HOURS_PER_YEAR = 8760


@dataclass(frozen=True)
class OnPrem:
    hardware_usd_per_gpu: float
    gpu_power_kw: float  # board power at full load (TDP)
    source: str
    amortization_years: float = 3.0  # seed 002: "Amortize over 3 years (typical depreciation)"
    pue: float = 1.3  # seed 002: "Data center PUE of 1.3x"
    usd_per_kwh: float = 0.10  # seed 002: US commercial rates $0.08-0.15/kWh
    staff_usd_per_gpu_year: float = 1.5 * 250_000 / 64  # seed 002: 1-2 FTE at 250k per 64 GPUs
    network_usd_per_gpu_hour: float = 0.10  # seed 002: InfiniBand fabric amortised

    @property
    def fixed_usd_per_gpu_year(self) -> float:
        return self.hardware_usd_per_gpu / self.amortization_years + self.staff_usd_per_gpu_year

    @property
    def variable_usd_per_gpu_hour(self) -> float:
        return self.gpu_power_kw * self.pue * self.usd_per_kwh + self.network_usd_per_gpu_hour

    def usd_per_productive_gpu_hour(self, utilization: float) -> float:
        return (self.fixed_usd_per_gpu_year / (HOURS_PER_YEAR * utilization)
                + self.variable_usd_per_gpu_hour)

    def break_even_utilization(self, cloud_usd_per_gpu_hour: float) -> float:
        """Utilisation above which on-prem is cheaper than ``cloud_usd_per_gpu_hour``
        (> 1 means never)."""
        margin = cloud_usd_per_gpu_hour - self.variable_usd_per_gpu_hour
        if margin <= 0:
            return float("inf")
        return self.fixed_usd_per_gpu_year / (HOURS_PER_YEAR * margin)


_A100 = OnPrem(150_000 / 8, 0.4, "seed 000: ~$150,000 per 8x A100 server; 400 W SXM4 TDP "
               "(NVIDIA A100 datasheet)")
ON_PREM: dict[str, OnPrem] = {
    "H100": OnPrem(425_000 / 8, 0.7, "seed 002: ~$425,000 per DGX H100 node (8 GPUs); "
                   "700 W SXM5 TDP"),
    "A100-40GB": _A100,
    "A100-80GB": _A100,
}


def break_even_from_annual(annual_usd_per_gpu: float, cloud_usd_per_gpu_hour: float) -> float:
    """Seed 002's own form: annual on-prem cost per GPU / (8760 x cloud price)."""
    return annual_usd_per_gpu / (HOURS_PER_YEAR * cloud_usd_per_gpu_hour)


def tco_summary(choice: Choice, monthly_usd: float) -> TcoSummary | None:
    """Cloud vs on-prem for the recommended choice; None without on-prem figures for it."""
    offer, usage = choice.offer, choice.option.usage
    model = ON_PREM.get(offer.accelerator)
    if model is None:
        return None
    used_hours = pricing.slot_hours(usage, 0, usage.instances)
    gpus = usage.instances * offer.accelerators
    utilization = used_hours / (usage.instances * pricing.HOURS_PER_MONTH)
    cloud = monthly_usd / (used_hours * offer.accelerators) if used_hours else 0.0
    reserved = None
    if offer.reserved_3y_usd_hr is not None:
        reserved = offer.reserved_3y_usd_hr / offer.on_demand_usd_hr
    return TcoSummary(
        accelerator=offer.accelerator, utilization=round(utilization, 4),
        cloud_usd_per_gpu_hour=round(cloud, 4),
        on_prem_usd_per_gpu_hour=round(model.usd_per_productive_gpu_hour(utilization), 4),
        on_prem_break_even_utilization=round(min(model.break_even_utilization(cloud), 99.0), 4),
        reserved_break_even_utilization=None if reserved is None else round(reserved, 4),
        assumptions=[
            f"{gpus} GPUs busy {utilization:.0%} of the month (the plan's schedule)",
            f"on-prem hardware {model.hardware_usd_per_gpu:,.0f} USD/GPU over "
            f"{model.amortization_years:g} years ({model.source})",
            f"staff {model.staff_usd_per_gpu_year:,.0f} USD/GPU/year, power "
            f"{model.gpu_power_kw} kW x PUE {model.pue} x {model.usd_per_kwh} USD/kWh, "
            f"network {model.network_usd_per_gpu_hour} USD/GPU-hour (seed 002)",
            "reserved break-even = 3y reserved price / on-demand price: the share of hours an "
            "instance must run for a reservation to beat on-demand",
        ],
    )
