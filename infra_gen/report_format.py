"""Display formatting shared by the Markdown and HTML reports, the charts and ``diff``.

Money prints as $1,234.56 (hourly catalog prices keep 4 decimals: $0.2247/h); the figures are
the Plan's, already rounded to cents by ``plan.py``; nothing here recomputes a cost.
"""

from __future__ import annotations

import re

from infra_gen.plan import Candidate, Plan, PurchaseMix

MEMORY_TERMS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "overhead")
MEMORY_LABELS = {"weights": "weights", "kv_cache": "KV cache", "activations": "activations",
                 "gradients": "gradients", "optimizer": "optimizer", "overhead": "overhead"}
CLOUD_NAMES = {"aws": "AWS", "gcp": "GCP", "azure": "Azure"}

# Backslash-escape what starts Markdown syntax (emphasis, code, links, tables, strike, headings
# and images); &, <, > and @ become entities (HTML tags, autolinks, @-mentions on GitHub).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#!])")
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "&#64;"}


def md_escape(value: object) -> str:
    """One line of user text, safe anywhere in a Markdown paragraph or table cell."""
    text = _MD_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))
    return "".join(_MD_ENTITIES.get(ch, ch) for ch in text)  # after: entities keep their #


def usd(value: float | None, digits: int = 2) -> str:
    """$1,234.56; None (no per-run cost for a service) prints as an em dash."""
    if value is None:
        return "—"
    sign = "-" if value < 0 else ""
    return f"{sign}${abs(value):,.{digits}f}"


def hourly(value: float) -> str:
    """Hourly prices keep 4 decimals (catalog prices like $0.2247/h), others 2."""
    return usd(value, 4 if abs(value) < 10 else 2)


def percent(fraction: float) -> str:
    return f"{fraction:.0%}"


def mix_text(mix: PurchaseMix) -> str:
    parts = []
    if mix.reserved:
        parts.append(f"{mix.reserved} reserved {mix.reserved_term}")
    if mix.on_demand:
        parts.append(f"{mix.on_demand} on-demand")
    if mix.spot:
        parts.append(f"{mix.spot} spot")
    return " + ".join(parts) or "none"


def gib(value: float) -> str:
    return f"{value:,.2f}"


def ranks_by_run(plan: Plan) -> bool:
    """Whether the optimizer ranked by per-run cost (one-off training, runs_per_month <= 1).

    The Plan does not carry the flag, so it is read from the figures: a training plan whose
    monthly cost is at most its per-run cost runs at most once a month (monthly = per-run x
    runs, or 730 h of a run longer than a month); with more runs monthly exceeds per-run.
    """
    rec = plan.recommendation
    return (plan.workload_type in ("training", "fine-tuning") and rec.per_run_usd is not None
            and rec.monthly_usd <= rec.per_run_usd + 0.005)


def ranking_cost(plan: Plan, candidate: Candidate) -> float:
    """The cost the candidates are ranked by: per run for one-off training, else monthly."""
    if ranks_by_run(plan) and candidate.per_run_usd is not None:
        return candidate.per_run_usd
    return candidate.monthly_usd
