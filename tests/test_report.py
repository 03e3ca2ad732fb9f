"""Markdown and HTML reports: goldens for the example workloads, figures checked by hand from
the golden catalog (tests/golden/catalog.csv), escaping of user strings, chart geometry and a
static check that the HTML page fetches nothing."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra_gen.catalog.load import load_catalog
from infra_gen.loading import load_workload
from infra_gen.optimizer import plan_workload
from infra_gen.plan import Plan, PurchaseMix
from infra_gen.report import render_html, render_markdown
from infra_gen.report_charts import cost_chart, memory_chart, nice_max, utilization_chart
from infra_gen.report_format import md_escape
from tests.factories import sample_plan

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "reports"
CATALOG = ROOT / "tests" / "golden" / "catalog.csv"
TODAY = dt.date(2025, 2, 1)  # 31 days after the golden catalog's as_of: no stale warning
CASES = sorted(p.stem for p in (ROOT / "stacks").glob("*.yaml") if not p.name.startswith("Pulumi"))


def example_plan(case: str, *, tco: bool = False) -> Plan:
    plan = plan_workload(load_workload(ROOT / "stacks" / f"{case}.yaml"), load_catalog(CATALOG),
                         today=TODAY)
    if tco:
        from infra_gen.planning import plan_with_tco

        plan = plan_with_tco(load_workload(ROOT / "stacks" / f"{case}.yaml"),
                             load_catalog(CATALOG), today=TODAY, tco=True)
    return plan


def check_golden(path: Path, actual: str, update: bool) -> None:
    if update or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            str(path), "actual"))
        pytest.fail(f"{path.name} differs (pytest --update-golden to accept):\n{diff}")


def test_examples_exist() -> None:
    assert len(CASES) == 7


@pytest.mark.parametrize("case", CASES)
def test_markdown_golden(case: str, update_golden: bool) -> None:
    check_golden(GOLDEN / f"{case}.md", render_markdown(example_plan(case)), update_golden)


@pytest.mark.parametrize("case", ["llama70b-pretraining", "resnet50-inference"])
def test_html_golden(case: str, update_golden: bool) -> None:
    check_golden(GOLDEN / f"{case}.html", render_html(example_plan(case, tco=True)),
                 update_golden)


def _row(markdown: str, first_cells: str) -> list[str]:
    line = next(ln for ln in markdown.splitlines() if ln.startswith(first_cells))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_resnet50_markdown_figures_by_hand() -> None:
    md = render_markdown(example_plan("resnet50-inference"))
    # g4dn.xlarge 3y reserved 0.2247 $/h x 730 h = 164.031 -> $164.03/month; the baseline is
    # on demand all month: 0.526 x 730 = 383.98; saving 383.98 - 164.03 = 219.95 = 57.3%.
    assert "1x g4dn.xlarge (1x T4) on **AWS us-east-1**, bought as **1 reserved 3y**" in md
    assert _row(md, "| $0.2247 ") == ["$0.2247", "**$164.03**", "—", "$383.98",
                                      "**57.3%** ($219.95/month)"]
    # Alternatives: Azure NC4as_T4_v3 3y 0.2367 x 730 = 172.79 (+8.76, +5%); GCP n1-standard-4
    # with a T4, 3y 0.243 x 730 = 177.39 (+13.36, 13.36 / 164.03 = +8%).
    assert _row(md, "| 2 |")[5:] == ["1 reserved 3y", "$0.2367", "$172.79", "—", "+$8.76 (+5%)"]
    assert _row(md, "| 3 |")[1:4] == ["GCP", "us-central1", "n1-standard-4"]
    assert _row(md, "| 3 |")[-1] == "+$13.36 (+8%)"
    assert "budget $1,500.00/month, alerts at 50%, 80%, 100% to ml-oncall&#64;example.com" in md
    assert "catalog as of **2025-01-01** (20 offers, catalog.csv)" in md
    assert "<details><summary>Assumptions (14)</summary>" in md


def test_llama70b_pretraining_markdown_figures_by_hand() -> None:
    plan = example_plan("llama70b-pretraining")
    md = render_markdown(plan)
    # max_run_hours 720 must hold for the expected wall-clock hours, not just compute hours.
    # Spot rework, unknown class 0.02/h, 60-min checkpoints (lost 30 + 10 min = 2/3 h), all
    # nodes of the gang rolled back: wall-clock = run x (1 + 0.02 x 2/3 x nodes).
    # - 78x Standard_ND96asr_v4 spot (the old pick): 716.32 x (1 + 0.02 x 2/3 x 78) = 1,461 h;
    #   its rework alone is 78 x 716.32 node-hours x 0.02 x 2/3 = 745 h > 720 at any count.
    # - 21x p5.48xlarge spot: 716.78 x (1 + 0.02 x 2/3 x 21) = 716.78 x 1.28 = 917 h, late;
    #   30x: ~523.75 h x 1.40 = 733 h, late; 31x: 508.85 x 1.41333 = 719.2 h <= 720: in time.
    # 31 x 20.9934 $/h spot = 650.7954 $/h; one run 650.7954 x 508.85 h x 1.41333 = 468,036
    # (+-4.6 for run_hours shown rounded to 0.01 h); runs_per_month 1, so per month the same.
    # Runner-up: 145x g6e.12xlarge 3y reserved at 4.4822 = 649.919 $/h x 730 h = 474,440.87.
    assert "31x p5.48xlarge (248x H100) on **AWS us-east-1**" in md
    cells = _row(md, "| $650.80 ")
    assert cells[:3] == ["$650.80", "**$468,038.85**", "$468,038.85 (508.9 h)"]
    rec = plan.recommendation
    assert (rec.instances, rec.purchase.spot) == (31, 31)
    run_hours = rec.run_hours
    assert run_hours is not None and run_hours == pytest.approx(508.85)
    assert run_hours * (1 + 0.02 * 2 / 3 * 31) <= 720  # 719.17 h
    assert rec.per_run_usd == pytest.approx(31 * 20.9934 * run_hours * (1 + 0.02 * 2 / 3 * 31),
                                            abs=5.0)
    # On demand every hour: 31 x 98.32 x 730 = 2,224,981.60; saves 1,756,942.75 = 79.0%.
    assert "| $2,224,981.60 | **79.0%** ($1,756,942.75/month) |" in md
    assert plan.alternatives[0].instance_type == "g6e.12xlarge"
    assert plan.alternatives[0].per_run_usd == 474440.87
    # One-off training ranks by cost per run, so the deltas are per run.
    assert "vs ★ per run" in md
    assert "#### Warnings" in md and "spot chosen with checkpoints every 60 min" in md
    assert ("one run is expected to take 719.2 h wall-clock, 508.9 h of compute + 41% rework"
            in md)


def test_markdown_escapes_user_strings() -> None:
    nasty = "<img src=x onerror=alert(1)> *bold* [link](http://evil) | @ml-team `x` # h"
    plan = sample_plan().model_copy(update={"workload": nasty, "warnings": [nasty]})
    md = render_markdown(plan)
    assert "<img" not in md and "[link](" not in md and "@ml-team" not in md
    assert "\\*bold\\*" in md and "\\[link\\]" in md and "\\|" in md and "&#64;ml-team" in md
    assert md_escape("a\nb|c") == "a b\\|c"  # one line: a newline could end a table row
    # Every table row still has the header's cell count (no cell was split by a '|').
    header = _row(md, "| # |")
    assert len(_row(md, "| 1 ★ |")) == len(header)


def test_html_escapes_user_strings_and_fetches_nothing() -> None:
    nasty = '</title><script>alert(1)</script><img src="http://evil/x.png">'
    plan = sample_plan().model_copy(update={"workload": nasty})
    page = render_html(plan)
    assert "<script" not in page and "<img" not in page
    assert "&lt;/title&gt;&lt;script&gt;" in page
    assert_self_contained(render_html(example_plan("llama70b-pretraining", tco=True)))


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def elements(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(page)
    return parser.found


def assert_self_contained(page: str) -> None:
    """No element may load anything: no script, iframe, img, object; links only data: URLs."""
    for tag, attrs in elements(page):
        assert tag not in ("script", "iframe", "img", "object", "embed", "video", "audio", "use")
        for name in ("src", "href", "srcset", "poster", "action", "data", "xlink:href"):
            value = attrs.get(name)
            assert value is None or value.startswith("data:"), (tag, name, value)
    assert "url(" not in page and "@import" not in page
    assert "default-src 'none'" in page  # CSP: the browser itself refuses any fetch


def _in_chart(page: str, chart_id: str) -> list[tuple[str, dict[str, str | None]]]:
    """Elements between <svg id=chart_id> and the next </svg>."""
    start = page.index(f'<svg id="{chart_id}"')
    return elements(page[start:page.index("</svg>", start)])


def test_html_charts_have_the_expected_marks() -> None:
    plan = example_plan("llama70b-pretraining", tco=True)
    page = render_html(plan)
    memory = [a for t, a in _in_chart(page, "memory-chart") if t == "rect" and a["class"] == "bar"]
    # weights, activations, gradients, optimizer, overhead (no KV cache in training).
    assert len(memory) == 5
    cost = [a for t, a in _in_chart(page, "cost-chart") if t == "rect" and a["class"] == "bar"]
    assert len(cost) == 1 + len(plan.alternatives) == 5
    lines = [a for t, a in _in_chart(page, "utilization-chart") if t == "polyline"]
    assert len(lines) == 3  # on demand, this plan, on-prem A100
    assert all(len((a["points"] or "").split()) == 11 for a in lines)
    for chart_id in ("memory-chart", "cost-chart", "utilization-chart"):
        tags = [t for t, _ in _in_chart(page, chart_id)]
        assert "title" in tags and "desc" in tags


def test_memory_chart_segments_are_proportional() -> None:
    plan = example_plan("resnet50-inference")
    chart = memory_chart(plan)
    m = plan.requirement.memory_gib
    scale = chart.plot[2] / nice_max(m.total / plan.recommendation.memory_utilization)[0]
    # weights 0.0477, activations 0.5, overhead 1.277 GiB: three non-zero terms, laid end to end.
    assert [round(b.width / scale, 3) for b in chart.bars] == [
        round(m.weights, 3), round(m.activations, 3), round(m.overhead, 3)]
    assert chart.bars[1].x == pytest.approx(chart.bars[0].x + chart.bars[0].width)
    # T4: the offer's 16 GiB of GPU memory behind the bars.
    assert plan.recommendation.accelerator_memory_gib == 16.0
    assert chart.backgrounds[0].width / scale == pytest.approx(16.0, abs=0.01)


def test_cost_chart_bars_scale_with_monthly_cost() -> None:
    chart = cost_chart(example_plan("resnet50-inference"))
    widths = [b.width for b in chart.bars]
    # 164.03, 172.79, 177.39, 232.21, 250.97 $/month (hand-checked above and in the golden).
    for width, usd in zip(widths, (164.03, 172.79, 177.39, 232.21, 250.97), strict=True):
        assert width / widths[0] == pytest.approx(usd / 164.03, rel=1e-6)
    assert chart.rules[0].title.endswith("$383.98/month")  # the baseline line


def test_utilization_chart_break_even_for_h100_on_demand_by_hand() -> None:
    plan = sample_plan("aws", instance_type="p5.48xlarge", accelerator="H100",
                       accelerators_per_instance=8, hourly_usd=98.32,
                       purchase=PurchaseMix(on_demand=1))
    chart = utilization_chart(plan)
    # On demand 98.32 / 8 = 12.29 $/GPU-h. Seed 002 on-prem H100: fixed 425,000 / 8 / 3 +
    # 1.5 x 250,000 / 64 = 17,708.33 + 5,859.375 = 23,567.71 $/GPU/year; variable 0.7 kW x 1.3
    # x 0.10 + 0.10 network = 0.191 $/h. Break-even u = 23,567.71 / (8760 x (12.29 - 0.191))
    # = 23,567.71 / 105,987.2 = 0.2224 -> 22%.
    assert [m.label for m in chart.markers] == ["this plan: 100%", "break-even 22%"]
    # Axis: 98.32 x 730 = 71,773.60 at 100%, nice maximum 80,000 (steps of 20,000).
    assert [t.label for t in chart.y_ticks] == ["$0", "$20k", "$40k", "$60k", "$80k"]
    # On-prem at 100%: 8 x (23,567.71 / 12 + 0.191 x 730) = 8 x 2,103.41 = 16,827.3 $/month,
    # drawn at y = top 20 + height 250 - 16,827.3 / 80,000 x 250 = 217.4.
    on_prem = chart.series[2]
    assert on_prem.name.startswith("on-prem H100")
    assert on_prem.points.split()[-1] == "860.0,217.4"
    assert "on-prem is cheaper above 22% utilisation" in chart.caption


def test_utilization_chart_without_on_prem_figures_says_so() -> None:
    chart = utilization_chart(sample_plan("azure"))  # T4: no hardware figures in seed 002
    assert len(chart.series) == 2
    assert "No on-prem line" in chart.caption and "not T4" in chart.caption


def test_markdown_tco_section_and_service_per_run() -> None:
    md = render_markdown(example_plan("llama70b-pretraining", tco=True))
    assert "#### Cloud vs on-prem (H100, per productive GPU-hour)" in md
    # 31 spot p5.48xlarge busy 508.85 of 730 h = 70%; 468,038.85 / (508.85 h x 248 GPUs) = 3.71.
    # On-prem H100: (425,000 / 8 / 3 y + 1.5 x 250,000 / 64 staff) = 23,567.71 USD/GPU/year
    # / (8,760 h x 0.6971) = 3.86, + 0.7 kW x 1.3 x 0.10 + 0.10 network = 0.191: 4.05.
    # Break-even: 23,567.71 / (8,760 x (3.71 - 0.191)) = 76%; 3y reserved 42 / 98.32 = 43%.
    assert re.search(r"\| 70% \| \$3\.71 \| \$4\.05 \| 76% utilisation \| 43% of hours", md)
    assert "TCO: on-prem hardware 53,125 USD/GPU over 3 years" in md


def test_cli_plan_markdown_and_html_to_a_file(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from infra_gen.cli import app

    spec = str(ROOT / "stacks" / "resnet50-inference.yaml")
    runner = CliRunner()
    md = runner.invoke(app, ["plan", spec, "--format", "markdown", "--catalog", str(CATALOG)])
    assert md.exit_code == 0, md.output
    assert md.stdout.startswith("### infra-gen plan: petsnap-resnet50-serving\n")
    assert "**$164.03**" in md.stdout
    out = tmp_path / "report.html"
    html = runner.invoke(app, ["plan", spec, "--format", "html", "-o", str(out), "--catalog",
                               str(CATALOG)])
    assert html.exit_code == 0, html.output
    assert html.stdout == f"wrote {out}\n"
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "$164.03" in page
    assert_self_contained(page)
    bad = runner.invoke(app, ["plan", spec, "--format", "html", "-o",
                              str(tmp_path / "no" / "such" / "dir.html"), "--catalog",
                              str(CATALOG)])
    assert bad.exit_code == 2 and "cannot write the report" in bad.stderr
    assert list(tmp_path.iterdir()) == [out]  # nothing half-written left behind


@given(st.text())
def test_md_escape_leaves_no_markdown_or_html_syntax(text: str) -> None:
    out = md_escape(text)
    assert "\n" not in out and "\r" not in out
    assert not set(out) & set("<>@")
    # '&' only starts the four entities we write (user text "&lt;" comes out as "&amp;lt;").
    bare = re.sub(r"&(amp|lt|gt|#64);", "", out)
    assert "&" not in bare
    # Every special character is preceded by an odd number of backslashes (escaped).
    for match in re.finditer(r"(\\*)([`*_\[\]|~#!])", bare):
        assert len(match.group(1)) % 2 == 1, (text, out)


def test_reports_never_import_pulumi() -> None:
    import subprocess
    import sys

    code = ("import sys, infra_gen.report, infra_gen.diff, infra_gen.report_charts; "
            "bad = [m for m in sys.modules if m.startswith('pulumi')]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
