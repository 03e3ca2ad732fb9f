"""Hostile strings in a workload file stay data in everything infra-gen writes.

Workload names are [a-z0-9-] by schema, but owner team/project/cost_center, budget e-mails,
the busy marker, the checkpoint command and the bucket URL are free text. Here one workload file
carries shell, YAML and HTML metacharacters in all of them and goes the whole way: YAML file ->
loader -> optimizer -> Pulumi program under mocks (per cloud) and the Markdown/HTML reports.

The startup scripts' own quoting is exercised by *running* them with hostile values in
tests/test_startup.py (test_hostile_values_stay_data); this file checks the end-to-end path:
that the values reach the scripts only in their quoted form and the scripts still parse, that
tags and labels obey each cloud's character rules, that resource names carry none of it, and
that the reports escape it.
"""

from __future__ import annotations

import base64
import io
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from infra_gen.catalog.load import load_catalog
from infra_gen.loading import load_workload
from infra_gen.optimizer import plan_workload
from infra_gen.plan import Plan

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = ROOT / "infra_gen" / "catalog" / "data" / "offers.csv"

HTML = "<script>alert('x')</script>"
TEAM = f"ml {HTML}"
PROJECT = "p: {a: [b]} # &anchor *ref | > !!python/object"  # YAML syntax, as a plain value
COST_CENTER = "cc; rm -rf / `id` $(touch /tmp/pwn) \"q\" 'q' & | [link](http://x)"
EMAIL = "x'$(touch${IFS}/tmp/pwn)<b>|@example.com"  # valid by the schema: no space, one @
BUSY_MARKER = "/run/x'; touch /tmp/pwn; echo '"
CHECKPOINT = 'kill -USR1 "$(cat /run/t.pid)"; echo `id` > /tmp/pwn # \'q\''
BUCKETS = {"aws": "s3://bucket/ckpt/$(touch${IFS}/tmp/pwn)';`id`",
           "gcp": "gs://bucket/ckpt/$(touch${IFS}/tmp/pwn)';`id`",
           "azure": "https://acct.blob.core.windows.net/c/$(touch${IFS}/tmp/pwn)';`id`"}
SHELL_VALUES = (BUSY_MARKER, CHECKPOINT)


def hostile_workload(cloud: str) -> dict[str, Any]:
    return {
        "version": 1, "name": f"hostile-{cloud}", "type": "fine-tuning",
        "owner": {"team": TEAM, "project": PROJECT, "cost_center": COST_CENTER},
        "model": {"parameters_b": 1.5, "precision": "bf16"},
        "training": {"method": "lora", "duration_hours": 2, "checkpoint_minutes": 10,
                     "runs_per_month": 8},
        "placement": {"clouds": [cloud]},
        "guardrails": {
            "auto_shutdown": {"idle_minutes": 30, "busy_marker": BUSY_MARKER},
            "budget": {"monthly_usd": 500, "emails": [EMAIL]},
            "interruption": {"checkpoint_command": CHECKPOINT},
            "checkpoint_sync": {"bucket_url": BUCKETS[cloud]},
        },
    }


def hostile_plan(cloud: str, tmp_path: Path) -> Plan:
    """Written as YAML (ruamel quotes what needs quoting) and loaded like a user's file."""
    path = tmp_path / f"hostile-{cloud}.yaml"
    stream = io.StringIO()
    YAML(typ="safe").dump(hostile_workload(cloud), stream)
    path.write_text(stream.getvalue(), "utf-8")
    return plan_workload(load_workload(path), load_catalog(BUILTIN), cloud=cloud)


def test_yaml_metacharacters_load_as_plain_values(tmp_path: Path) -> None:
    plan = hostile_plan("aws", tmp_path)
    assert (plan.owner.team, plan.owner.project, plan.owner.cost_center) == (
        TEAM, PROJECT, COST_CENTER)
    assert plan.guardrails.emails == [EMAIL]
    assert plan.guardrails.busy_marker == BUSY_MARKER
    assert plan.guardrails.checkpoint_command == CHECKPOINT


# ---------------------------------------------------------------- rendered resources
def _strings(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _strings(value, f"{path}[{index}]")
    elif isinstance(node, str):
        yield path, node


def _tag_maps(node: Any, keys: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """Every mapping under one of ``keys`` anywhere in a resource's inputs."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in keys and isinstance(value, dict):
                yield value
            yield from _tag_maps(value, keys)
    elif isinstance(node, list):
        for value in node:
            yield from _tag_maps(value, keys)


def _tag_keys(resource_type: str) -> tuple[str, ...]:
    # A GCP notification channel's ``labels`` are its settings (the e-mail address), not
    # resource labels; its resource labels are ``userLabels``.
    if resource_type == "gcp:monitoring/notificationChannel:NotificationChannel":
        return ("userLabels",)
    # An Azure budget's ``filter.tags`` is a {name, operator, values} filter on the workload tag.
    if resource_type == "azure-native:consumption:Budget":
        return ()
    return ("tags", "labels", "userLabels")


def _scripts(resources: list[Any]) -> list[str]:
    """Startup/shutdown scripts: plain (GCP metadata) or base64 (AWS userData, Azure)."""
    found = []
    for resource in resources:
        for _, value in _strings(resource.inputs):
            if value.startswith("#!"):
                found.append(value)
            elif value.startswith("IyEv"):  # base64 of "#!/"
                found.append(base64.b64decode(value).decode("utf-8"))
    return found


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    from infra_gen.policy.check import CHECK_RENDER_OPTIONS
    from infra_gen.render import render_plan

    tmp = tmp_path_factory.mktemp("hostile")
    return {cloud: render_plan(hostile_plan(cloud, tmp), CHECK_RENDER_OPTIONS)
            for cloud in ("aws", "gcp", "azure")}


# EC2 "Tag restrictions": letters, digits, spaces and + - = . _ : / @; values up to 256.
AWS_TAG = re.compile(r"^[\w .:/=+\-@]{0,256}$")
GCP_LABEL = re.compile(r"^[a-z0-9_-]{0,63}$")  # Resource Manager "Requirements for labels"
AZURE_TAG_NAME_FORBIDDEN = re.compile(r"[<>%&\\?/]")  # ARM "Limitations" for tag names


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure"])
def test_tags_and_labels_obey_each_clouds_rules(cloud: str,
                                                rendered: dict[str, list[Any]]) -> None:
    seen_team = False
    for resource in rendered[cloud]:
        if resource.type.startswith("infra-gen:"):
            continue  # the component itself: Pulumi-side inputs, never sent to a cloud API
        for tags in _tag_maps(resource.inputs, _tag_keys(resource.type)):
            for key, value in tags.items():
                assert isinstance(value, str), (resource.name, key, value)
                if cloud == "aws":
                    assert AWS_TAG.match(key) and AWS_TAG.match(value), (resource.name, key, value)
                elif cloud == "gcp":
                    assert GCP_LABEL.match(key) and GCP_LABEL.match(value), (key, value)
                else:
                    assert not AZURE_TAG_NAME_FORBIDDEN.search(key) and len(value) <= 256
                if key == "team":
                    seen_team = True
                    assert "<" not in value if cloud != "azure" else value == TEAM
    assert seen_team, f"{cloud}: no resource carries the team tag"


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure"])
def test_resource_names_carry_no_user_text(cloud: str, rendered: dict[str, list[Any]]) -> None:
    for resource in rendered[cloud]:
        if resource.type.startswith("pulumi:providers:"):
            continue
        assert re.fullmatch(r"[a-z0-9-]+", resource.name), resource.name
        assert resource.name.startswith(f"hostile-{cloud}")


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure"])
def test_scripts_hold_hostile_values_only_quoted(cloud: str, rendered: dict[str, list[Any]],
                                                 tmp_path: Path) -> None:
    scripts = _scripts(rendered[cloud])
    assert scripts, f"{cloud}: no startup script rendered"
    text = "\n".join(scripts)
    for value in (*SHELL_VALUES, BUCKETS[cloud]):
        quoted = shlex.quote(value)
        assert quoted in text, f"{cloud}: {value!r} is not in the scripts in quoted form"
        # every raw occurrence is inside a quoted one ("'" in value: never raw at all)
        assert text.count(value) == (0 if "'" in value else text.count(quoted))
    for team_like in (TEAM, COST_CENTER, EMAIL):
        assert team_like not in text  # owner text has no business in a script
    if shutil.which("bash"):
        for index, script in enumerate(scripts):
            path = tmp_path / f"{cloud}-{index}.sh"
            path.write_text(script, "utf-8")
            done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True,
                                  check=False)
            assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- reports
@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    report = pytest.importorskip("infra_gen.report")
    plan = hostile_plan("aws", tmp_path_factory.mktemp("report"))
    return {"markdown": report.render_markdown(plan), "html": report.render_html(plan)}


def test_html_report_escapes_user_text(reports: dict[str, str]) -> None:
    html = reports["html"]
    assert HTML not in html and "<b>" not in html
    assert "&lt;script&gt;" in html  # shown as text, not dropped
    assert html.count("<script") == html.count("</script>")  # only the page's own, if any
    for value in (TEAM, COST_CENTER):
        assert value not in html
    assert "x&#39;$(touch${IFS}/tmp/pwn)&lt;b&gt;|@example.com" in html  # the e-mail, as text


def test_markdown_report_escapes_user_text(reports: dict[str, str]) -> None:
    md = reports["markdown"]
    assert "<script>" not in md and "<b>" not in md
    assert "[link](http://x)" not in md  # no live link from a cost-center tag
    assert "&lt;script&gt;" in md
    for line in md.splitlines():  # a user value cannot add a table cell
        if line.startswith("|") and "cc; rm" in line:
            assert "\\|" in line
    assert "@example.com" not in md  # no @-mention / autolink from an e-mail
    assert "x'$(touch${IFS}/tmp/pwn)&lt;b&gt;\\|&#64;example.com" in md  # shown, escaped
    assert "\\[link\\](http://x)" in md
