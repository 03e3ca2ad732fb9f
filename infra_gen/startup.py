"""Instance startup scripts (user data): idle watchdog, spot-interruption handler, checkpoint sync.

Why on the instance: cloud alarms see the bill late; the machine itself sees its GPUs idle within
a minute (seed 000's $2,300 weekend, seed 003's $47,000 bill). Providers call::

    render_startup_script(plan, cloud) -> str   # bash for cloud-init user data / startup-script

It installs, under /usr/local/lib/infra-gen and systemd (so they survive reboots):

* ``watchdog.sh`` (timer, every minute): powers off once every GPU has been below
  ``gpu_utilization_below`` % for ``auto_shutdown_idle_minutes`` and the busy marker is absent.
* ``interruption.sh`` (service, only when the plan buys spot): polls the metadata service every
  5 s; on a new notice runs the checkpoint hook once. The default hook sends SIGUSR1 to the
  process group of the pid in ``/run/infra-gen/training.pid`` (the job writes it) and waits up
  to the deadline for the group to exit.
* ``checkpoint-sync.sh`` (timer, optional): ``aws s3 sync`` / ``gcloud storage rsync`` /
  ``azcopy sync`` of the checkpoint directory to the bucket.
* ``max-run.sh`` (timer, optional): a hard stop ``max_run_hours`` after each boot.

The job's side of the contract: touch the busy marker (default ``/run/infra-gen/busy``) while it
is busy without using the GPUs (loading data); write its pid to ``/run/infra-gen/training.pid``
and save a checkpoint on SIGUSR1 (or set ``checkpoint_command``). The pid file must belong to
root or to the process's own user, so no local user can aim the signal at someone else.

Power-off: ``shutdown -h now``. AWS and GCP stop billing compute for a stopped VM; Azure does not
("Stopped" is still billed, only "deallocated" is not), so on Azure the scripts first ask Azure
Resource Manager to deallocate the VM with its managed identity and fall back to the OS power-off,
logging that the VM is still billed. Inside an autoscaling group a stopped member is replaced by
the group, so there the group's own idle alarm/scale-to-zero (built by the providers) is what
ends the bill; the watchdog still stops an idle member.

Safety: templates render with autoescape off (it is shell), so every workload-derived string goes
through ``shell_quote`` (``shlex.quote``) and every number is validated here; the Jinja
``finalize`` hook refuses to print anything else, so a template that forgets to quote fails to
render instead of shipping an injection. Scripts are embedded in the startup script as quoted
heredocs whose delimiter carries the content's hash, so no value can end a heredoc early.
"""

from __future__ import annotations

import hashlib
import math
import shlex
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2

from infra_gen.errors import RenderError
from infra_gen.plan import Plan
from infra_gen.spec import CheckpointSync

CLOUDS = ("aws", "gcp", "azure")
# AWS: "User data is limited to 16 KB, in raw form, before it is base64-encoded" (EC2 User
# Guide, "Work with instance user data", read 2026). GCP (256 KB) and Azure (64 KB) allow more.
AWS_USER_DATA_LIMIT_BYTES = 16 * 1024
_METADATA_URLS = {
    "aws": "http://169.254.169.254",
    "gcp": "http://metadata.google.internal",
    "azure": "http://169.254.169.254",
}
_CLOUD_TITLES = {"aws": "AWS", "gcp": "GCP", "azure": "Azure"}
_BUCKET_SCHEMES = {"aws": "s3://", "gcp": "gs://", "azure": "https://"}
# Timer-started units, each with its oneshot service (the interruption handler is a service).
_UNITS = {
    "watchdog": ("infra-gen-watchdog.timer", "infra-gen-watchdog.service"),
    "interruption": ("infra-gen-interruption.service",),
    "checkpoint-sync": ("infra-gen-checkpoint-sync.timer", "infra-gen-checkpoint-sync.service"),
    "max-run": ("infra-gen-max-run.timer", "infra-gen-max-run.service"),
}


class ShellText(str):
    """Text that is already safe to paste into a bash script (quoted, or built by us)."""


def shell_quote(value: object) -> ShellText:
    """``shlex.quote`` as a Jinja filter; NUL cannot live in a bash string, so it is refused."""
    text = str(value)
    if "\x00" in text:
        raise RenderError(f"startup script: value {text!r} contains a NUL byte")
    return ShellText(shlex.quote(text))


def _finalize(value: Any) -> Any:
    """Only quoted text and validated integers may be printed into a script."""
    if isinstance(value, ShellText) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise RenderError(f"startup template printed an unquoted value {value!r}: use |shq")


def _load_template(name: str) -> str:
    source = resources.files("infra_gen.templates").joinpath(name).read_text(encoding="utf-8")
    return _strip_comments(source) if name.endswith(".sh.j2") else source


def _strip_comments(source: str) -> str:
    """Drop comment-only lines after a script's header block: they explain the template to its
    readers, and AWS caps user data at 16 KB. Runs on template source, before any value is
    rendered, so a quoted value's lines are never touched."""
    kept, in_header = [], True
    for line in source.splitlines(keepends=True):
        comment = line.lstrip().startswith("#") and not line.startswith("#!")
        in_header = in_header and (comment or line.startswith("#!"))
        if in_header or not comment:
            kept.append(line)
    return "".join(kept)


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_load_template),
        autoescape=False,  # shell, not HTML: quoting is shell_quote's job
        undefined=jinja2.StrictUndefined,
        finalize=_finalize,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        # bash uses "${#array[@]}", so Jinja comments get a marker bash never writes.
        comment_start_string="{##",
        comment_end_string="##}",
    )
    env.filters["shq"] = shell_quote
    return env


def _render(name: str, **context: Any) -> str:
    return _environment().get_template(name).render(**context)


# --- validation: numbers as numbers, paths as absolute paths, URLs by scheme -------------------


def _whole(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RenderError(f"{field}: expected a whole number from {low} to {high}, got {value!r}")
    return value


def _real(value: object, field: str, above: float, high: float) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not (above < float(value) <= high) or math.isnan(float(value)):  # type: ignore[arg-type]
        raise RenderError(f"{field}: expected a number above {above:g} and at most {high:g}, "
                          f"got {value!r}")
    return float(value)  # type: ignore[arg-type]


def _absolute_path(value: str, field: str) -> str:
    if not value.startswith("/"):
        raise RenderError(f"{field}: expected an absolute path such as /opt/checkpoints, "
                          f"got {value!r}")
    return value


def _decimal(value: float) -> ShellText:
    """A number as plain decimal digits (awk and bash read it; no exponent, no sign)."""
    return ShellText(f"{value:.2f}".rstrip("0").rstrip("."))


def _check_cloud(cloud: str) -> str:
    if cloud not in CLOUDS:
        raise RenderError(f"cloud: expected one of {', '.join(CLOUDS)}, got {cloud!r}")
    return cloud


def _base(plan: Plan, cloud: str) -> dict[str, Any]:
    cloud = _check_cloud(cloud)
    return {"cloud": cloud, "cloud_title": ShellText(_CLOUD_TITLES[cloud]),
            "workload": shell_quote(plan.workload)}


def _sync_target(plan: Plan, cloud: str) -> tuple[str, str] | None:
    """(directory, bucket URL) when checkpoint sync is on; the URL must suit the cloud's CLI."""
    guard = plan.guardrails
    if guard.checkpoint_sync_bucket_url is None:
        return None
    url = guard.checkpoint_sync_bucket_url
    scheme = _BUCKET_SCHEMES[_check_cloud(cloud)]
    if not url.startswith(scheme) or len(url) <= len(scheme):
        raise RenderError(f"guardrails.checkpoint_sync.bucket_url: {cloud} syncs with its own CLI, "
                          f"so expected a {scheme} URL, got {url!r}")
    # A hand-built plan may leave the directory out: use the workload file's default for it.
    default = str(CheckpointSync.model_fields["directory"].default)
    directory = _absolute_path(guard.checkpoint_sync_directory or default,
                               "guardrails.checkpoint_sync.directory")
    return directory, url


# --- the scripts -----------------------------------------------------------------------------


def render_watchdog(plan: Plan, cloud: str) -> str | None:
    """The idle watchdog script, or None when the workload switches auto-shutdown off."""
    guard = plan.guardrails
    if guard.auto_shutdown_idle_minutes is None:
        return None
    idle = _whole(guard.auto_shutdown_idle_minutes, "guardrails.auto_shutdown.idle_minutes", 1,
                  7 * 24 * 60)
    below = _real(guard.gpu_utilization_below, "guardrails.auto_shutdown.gpu_utilization_below",
                  0, 100)
    marker = _absolute_path(guard.busy_marker, "guardrails.auto_shutdown.busy_marker")
    return _render("watchdog.sh.j2", **_base(plan, cloud), idle_minutes=idle,
                   util_below=_decimal(below), busy_marker=shell_quote(marker))


def render_interruption_handler(plan: Plan, cloud: str) -> str | None:
    """The spot interruption handler, or None when the plan buys no spot capacity."""
    if plan.recommendation.purchase.spot <= 0:
        return None
    guard = plan.guardrails
    deadline = _whole(guard.checkpoint_deadline_seconds,
                      "guardrails.interruption.deadline_seconds", 1, 3600)
    return _render("interruption.sh.j2", **_base(plan, cloud),
                   checkpoint_command=shell_quote(guard.checkpoint_command or ""),
                   deadline_seconds=deadline,
                   sync_after_hook=int(_sync_target(plan, cloud) is not None),
                   metadata_url=ShellText(_METADATA_URLS[cloud]))


def render_checkpoint_sync(plan: Plan, cloud: str) -> str | None:
    """The checkpoint sync script, or None when the workload has no checkpoint_sync block."""
    target = _sync_target(plan, cloud)
    if target is None:
        return None
    return _render("checkpoint_sync.sh.j2", **_base(plan, cloud),
                   sync_directory=shell_quote(target[0]), bucket_url=shell_quote(target[1]))


def render_max_run(plan: Plan, cloud: str) -> str | None:
    """The hard-stop script, or None when the plan sets no max_run_hours."""
    hours = plan.guardrails.max_run_hours
    if hours is None:
        return None
    hours = _real(hours, "guardrails.max_run_hours", 0, 24 * 366)
    return _render("max_run.sh.j2", **_base(plan, cloud), max_run_hours=_decimal(hours))


# GCP gives a preempted VM about 30 s before it stops it; the hook must finish inside that
# (https://cloud.google.com/compute/docs/instances/spot#preemption-process).
GCP_PREEMPTION_BUDGET_SECONDS = 25


def render_gcp_shutdown_script(plan: Plan) -> str:
    """GCP ``shutdown-script`` metadata: the checkpoint hook on stop, delete or preemption,
    skipped on a preemption the interruption handler already handled; then a sync."""
    guard = plan.guardrails
    deadline = _whole(guard.checkpoint_deadline_seconds,
                      "guardrails.interruption.deadline_seconds", 1, 3600)
    target = _sync_target(plan, "gcp")
    return _render("gcp_shutdown.sh.j2", **_base(plan, "gcp"),
                   checkpoint_command=shell_quote(guard.checkpoint_command or ""),
                   deadline_seconds=deadline,
                   preempted_deadline_seconds=min(deadline, GCP_PREEMPTION_BUDGET_SECONDS),
                   metadata_url=ShellText(_METADATA_URLS["gcp"]),
                   sync_directory=shell_quote(target[0]) if target else "",
                   bucket_url=shell_quote(target[1]) if target else "")


def _max_run_minutes(plan: Plan) -> int:
    """Whole minutes for OnBootSec, rounded up so the run gets at least what it budgeted."""
    return math.ceil((plan.guardrails.max_run_hours or 0) * 60)


def render_units(plan: Plan, cloud: str) -> dict[str, str]:
    """systemd unit files (name -> text) for the guardrails the plan switches on, sorted."""
    macros: Any = _environment().get_template("units.j2").module
    parts: dict[str, Callable[[], str]] = {}
    if render_watchdog(plan, cloud) is not None:
        parts["infra-gen-watchdog.service"] = macros.watchdog_service
        parts["infra-gen-watchdog.timer"] = macros.watchdog_timer
    if render_interruption_handler(plan, cloud) is not None:
        parts["infra-gen-interruption.service"] = macros.interruption_service
    if _sync_target(plan, cloud) is not None:
        interval = _whole(plan.guardrails.checkpoint_sync_interval_minutes,
                          "guardrails.checkpoint_sync.interval_minutes", 1, 24 * 60)
        parts["infra-gen-checkpoint-sync.service"] = macros.sync_service
        parts["infra-gen-checkpoint-sync.timer"] = lambda: macros.sync_timer(interval)
    if render_max_run(plan, cloud) is not None:
        minutes = _max_run_minutes(plan)
        parts["infra-gen-max-run.service"] = macros.max_run_service
        parts["infra-gen-max-run.timer"] = lambda: macros.max_run_timer(minutes)
    return {name: str(parts[name]()) + "\n" for name in sorted(parts)}


# --- the startup script ------------------------------------------------------------------------


def _embed(target: str, mode: str, content: str) -> ShellText:
    """A ``write_file`` call with a quoted heredoc; the delimiter is the content's hash, so no
    line of the content (quoted workload values included) can close the heredoc early."""
    delimiter = "INFRA_GEN_EOF_" + hashlib.sha256(content.encode()).hexdigest()[:20]
    if delimiter in content:  # a SHA-256 prefix inside its own preimage: not in practice
        raise RenderError("startup script: heredoc delimiter collides with the content")
    body = content if content.endswith("\n") else content + "\n"
    return ShellText(f"write_file \"{target}\" {mode} <<'{delimiter}'\n{body}{delimiter}")


def _scripts(plan: Plan, cloud: str) -> dict[str, str]:
    """Installed script name -> text, for the guardrails that are on."""
    rendered = {
        "watchdog.sh": render_watchdog(plan, cloud),
        "interruption.sh": render_interruption_handler(plan, cloud),
        "checkpoint-sync.sh": render_checkpoint_sync(plan, cloud),
        "max-run.sh": render_max_run(plan, cloud),
    }
    return {name: text for name, text in rendered.items() if text is not None}


def _summary(plan: Plan, cloud: str, scripts: dict[str, str]) -> str:
    guard = plan.guardrails
    parts = []
    if "watchdog.sh" in scripts:
        parts.append(f"idle watchdog (power-off after {guard.auto_shutdown_idle_minutes} min "
                     f"with every GPU below {guard.gpu_utilization_below:g}%)")
    if "interruption.sh" in scripts:
        hook = "checkpoint command" if guard.checkpoint_command else "SIGUSR1 to training.pid"
        parts.append(f"{cloud} spot interruption handler ({hook})")
    if "checkpoint-sync.sh" in scripts:
        parts.append(f"checkpoint sync every {guard.checkpoint_sync_interval_minutes} min")
    if "max-run.sh" in scripts:
        parts.append(f"hard stop {_max_run_minutes(plan)} min after boot")
    return "; ".join(parts) or "none enabled (auto-shutdown is off in the workload file)"


def render_startup_script(plan: Plan, cloud: str) -> str:
    """The whole user-data script for ``cloud``: installs, enables and starts the guardrails."""
    scripts = _scripts(plan, cloud)
    units = render_units(plan, cloud)
    macros: Any = _environment().get_template("units.j2").module
    files = [_embed(f"$LIB_DIR/{name}", "0755", text) for name, text in scripts.items()]
    files += [_embed(f"$UNIT_DIR/{name}", "0644", text) for name, text in units.items()]
    files.append(_embed("$TMPFILES_DIR/infra-gen.conf", "0644", str(macros.tmpfiles()) + "\n"))
    enabled = [name for name in units if not _is_timer_driven_service(name, units)]
    disabled = [unit for group in _UNITS.values() for unit in group if unit not in units]
    text = _render("startup.sh.j2", **_base(plan, cloud), files=files,
                   enabled_units=ShellText(" ".join(enabled)),
                   disabled_units=ShellText(" ".join(disabled)),
                   summary=shell_quote(_summary(plan, cloud, scripts)))
    if cloud == "aws" and len(text.encode()) > AWS_USER_DATA_LIMIT_BYTES:
        raise RenderError(f"startup script is {len(text.encode())} bytes, over AWS's "
                          f"{AWS_USER_DATA_LIMIT_BYTES}-byte user-data limit; shorten "
                          "guardrails.interruption.checkpoint_command")
    return text


def _is_timer_driven_service(name: str, units: dict[str, str]) -> bool:
    """A .service started by its .timer is not enabled itself (it has no [Install])."""
    return name.endswith(".service") and name.removesuffix(".service") + ".timer" in units
