"""The instance guardrails (issue 11), tested by running the rendered scripts under bash.

Fakes (tests/startup_fakes): nvidia-smi prints the utilisation rows a test scripts for each
one-minute run; shutdown, logger, systemctl and the cloud CLIs record their arguments; a fake
metadata server per cloud answers on 127.0.0.1. The watchdog's clock is INFRA_GEN_NOW (seconds
since boot), so a 30-minute window takes milliseconds, not minutes.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from infra_gen import startup
from infra_gen.errors import RenderError
from infra_gen.plan import Plan
from tests.startup_fakes import (
    BUCKETS,
    IDLE_ROWS,
    MetadataServer,
    Sandbox,
    Watchdog,
    free_port,
    full_plan,
    plan_for,
    run_startup,
    start_handler,
    stop,
    wait_for,
    write,
)

CLOUDS = ("aws", "gcp", "azure")
GPU1_BUSY_ROWS = "0, 0, 0\n1, 97, 30512\n"


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


# --- idle watchdog ---------------------------------------------------------------------------


def test_watchdog_powers_off_after_the_idle_window_and_not_before(sandbox: Sandbox) -> None:
    dog = Watchdog(sandbox, plan_for(auto_shutdown_idle_minutes=30))
    for now in (0, 60, 900, 1740):  # window: 30 min x 60 s = 1800 s after the first idle run
        dog.run(now)
    assert dog.poweroffs == []
    dog.run(1800)
    assert dog.poweroffs == [["-h", "now"]]  # the default command: shutdown -h now
    why = sandbox.logs()[-1]
    assert why.startswith(
        "powering off: workload petsnap-train idle: every GPU below 5% for 30 min")
    assert "gpu1=3%/30512MiB" in why  # memory held, yet idle: it says so


def test_one_busy_gpu_restarts_the_window(sandbox: Sandbox) -> None:
    dog = Watchdog(sandbox, plan_for(auto_shutdown_idle_minutes=30))
    dog.run(0)
    dog.run(900, GPU1_BUSY_ROWS)  # GPU 1 at 97 %: the window restarts at the next idle run
    dog.run(960)
    dog.run(1800)  # would have fired without the reset
    dog.run(2700)  # 960 + 1740
    assert dog.poweroffs == []
    dog.run(2760)  # 960 + 1800
    assert len(dog.poweroffs) == 1


def test_a_gpu_at_exactly_the_threshold_is_busy(sandbox: Sandbox) -> None:
    dog = Watchdog(sandbox, plan_for(auto_shutdown_idle_minutes=5, gpu_utilization_below=5.0))
    for now in range(0, 3601, 300):
        dog.run(now, "0, 0, 0\n1, 5, 100\n")  # "below 5 %" is strict: 5 % is busy
    assert dog.poweroffs == []


def test_busy_marker_holds_the_machine_up(sandbox: Sandbox) -> None:
    marker = sandbox.root / "job is loading data"
    dog = Watchdog(sandbox, plan_for(auto_shutdown_idle_minutes=30, busy_marker=str(marker)))
    marker.touch()
    for now in range(0, 3601, 600):
        dog.run(now)
    assert dog.poweroffs == []
    marker.unlink()  # the window starts when the marker goes, not when the GPUs went idle
    dog.run(3660)
    dog.run(5400)
    assert dog.poweroffs == []
    dog.run(5460)  # 3660 + 1800
    assert len(dog.poweroffs) == 1


@pytest.mark.parametrize("failure", ["exit-code", "not-supported", "no-rows", "missing"])
def test_unreadable_gpus_never_power_off(sandbox: Sandbox, failure: str) -> None:
    dog = Watchdog(sandbox, plan_for(auto_shutdown_idle_minutes=5))
    if failure == "missing":
        (sandbox.bin / "nvidia-smi").unlink()
    rows, rc = {"exit-code": ("NVIDIA-SMI has failed because it couldn't communicate with the "
                              "NVIDIA driver.\n", 9),
                "not-supported": ("0, [N/A], 0\n", 0), "no-rows": ("", 0),
                "missing": ("", 0)}[failure]
    for now in range(0, 7201, 600):
        dog.run(now, rows, rc)
    assert dog.poweroffs == []
    assert any("treating the GPUs as busy" in line for line in sandbox.logs())


def test_a_failed_reading_restarts_the_window(sandbox: Sandbox) -> None:
    dog = Watchdog(sandbox, plan_for(auto_shutdown_idle_minutes=30))
    dog.run(0)
    dog.run(900, "", rc=9)
    dog.run(1800)
    assert dog.poweroffs == []


def test_watchdog_on_the_real_uptime_clock(sandbox: Sandbox) -> None:
    """No INFRA_GEN_NOW: the clock is /proc/uptime; a "minute" is 1 s via the knob."""
    plan = plan_for(auto_shutdown_idle_minutes=1)
    script = write(sandbox, "watchdog.sh", startup.render_watchdog(plan, "aws"))
    sandbox.nvidia_output.write_text(IDLE_ROWS)
    sandbox.run_script(script, INFRA_GEN_MINUTE_SECONDS="1")
    time.sleep(1.1)
    sandbox.run_script(script, INFRA_GEN_MINUTE_SECONDS="1")
    assert sandbox.calls("shutdown") == [["-h", "now"]]


def test_azure_deallocates_instead_of_a_billed_os_stop(sandbox: Sandbox) -> None:
    with MetadataServer("azure") as server:
        dog = Watchdog(sandbox, plan_for("azure"), "azure", INFRA_GEN_METADATA_URL=server.url,
                       INFRA_GEN_AZURE_ARM_URL=server.url)
        dog.run(0)
        dog.run(1800)
    deallocates = [r for r in server.requests
                   if r[1].endswith("/deallocate?api-version=2024-07-01")]
    assert [(r[0], r[1].split("?")[0]) for r in deallocates] == [
        ("POST", MetadataServer.RESOURCE_ID + "/deallocate")]
    assert deallocates[0][2]["Authorization"] == "Bearer arm-token"
    assert dog.poweroffs == []


def test_azure_falls_back_to_os_poweroff_and_says_it_is_still_billed(sandbox: Sandbox) -> None:
    dog = Watchdog(sandbox, plan_for("azure"), "azure",
                   INFRA_GEN_METADATA_URL=f"http://127.0.0.1:{free_port()}")
    dog.run(0)
    dog.run(1800)
    assert dog.poweroffs == [["-h", "now"]]
    assert any("still billed" in line for line in sandbox.logs())


# --- spot interruption handler ---------------------------------------------------------------

NOTICE_POLLS = {
    "aws": lambda method, path: path == "/latest/meta-data/spot/instance-action",
    "gcp": lambda method, path: path == "/computeMetadata/v1/instance/preempted",
    "azure": lambda method, path: method == "GET" and path.startswith("/metadata/scheduledevents"),
}


def hook_plan(cloud: str, hook_log: Path) -> Plan:
    return plan_for(cloud, spot=1, checkpoint_command=f"echo ran >> {shlex.quote(str(hook_log))}",
                    checkpoint_deadline_seconds=5)


@pytest.mark.parametrize("cloud", CLOUDS)
def test_handler_runs_the_hook_exactly_once_per_notice(sandbox: Sandbox, cloud: str) -> None:
    hook_log = sandbox.root / "hook.log"
    polls = NOTICE_POLLS[cloud]
    with MetadataServer(cloud) as server:
        handler = start_handler(sandbox, hook_plan(cloud, hook_log), cloud, server.url)
        try:
            assert wait_for(lambda: server.count(polls) >= 3)
            assert not hook_log.exists()  # no notice (Azure: only another VM's Preempt), no hook
            server.notice = True
            assert wait_for(hook_log.exists)
            seen = server.count(polls)
            assert wait_for(lambda: server.count(polls) >= seen + 5)  # notice still up...
            assert hook_log.read_text() == "ran\n"  # ...and the hook ran once
            assert handler.poll() is None
        finally:
            stop(handler)
    notices = [line for line in sandbox.logs() if line.startswith("interruption notice")]
    assert len(notices) == 1 and "workload petsnap-train" in notices[0]
    acks = [json.loads(body) for method, _, _, body in server.requests if method == "POST"]
    if cloud == "azure":  # our event acknowledged once; the other VM's never
        assert acks == [{"StartRequests": [{"EventId": MetadataServer.AZURE_EVENT_ID}]}]
    else:
        assert acks == []


def test_a_restarted_handler_does_not_repeat_the_hook(sandbox: Sandbox) -> None:
    """systemd restarts the handler if it dies; the notice it already handled stays handled."""
    hook_log = sandbox.root / "hook.log"
    polls = NOTICE_POLLS["gcp"]

    def run_handler(server: MetadataServer) -> None:
        handler = start_handler(sandbox, hook_plan("gcp", hook_log), "gcp", server.url)
        try:
            assert wait_for(hook_log.exists)
            target = server.count(polls) + 3
            assert wait_for(lambda: server.count(polls) >= target)
        finally:
            stop(handler)

    with MetadataServer("gcp") as server:
        server.notice = True
        run_handler(server)
        run_handler(server)  # as systemd's Restart=always would
    assert hook_log.read_text() == "ran\n"


def test_aws_rebalance_then_interruption_are_two_notices(sandbox: Sandbox) -> None:
    hook_log = sandbox.root / "hook.log"
    polls = NOTICE_POLLS["aws"]
    with MetadataServer("aws") as server:
        handler = start_handler(sandbox, hook_plan("aws", hook_log), "aws", server.url)
        try:
            server.rebalance = True  # the early warning: checkpoint now
            assert wait_for(hook_log.exists)
            server.notice = True  # then the two-minute interruption notice: once more
            assert wait_for(lambda: hook_log.read_text() == "ran\nran\n")
            seen = server.count(polls)
            assert wait_for(lambda: server.count(polls) >= seen + 5)
        finally:
            stop(handler)
    assert hook_log.read_text() == "ran\nran\n"
    notices = [m for m in sandbox.logs() if m.startswith("interruption notice")]
    assert [m.split(": ", 1)[1].split(" ")[0] for m in notices] == [
        "events/recommendations/rebalance", "spot/instance-action"]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_handler_survives_the_metadata_service_being_down(sandbox: Sandbox, cloud: str) -> None:
    hook_log = sandbox.root / "hook.log"
    port = free_port()
    handler = start_handler(sandbox, hook_plan(cloud, hook_log), cloud, f"http://127.0.0.1:{port}")
    try:
        time.sleep(0.5)  # about 10 failed polls at 0.05 s
        assert handler.poll() is None
        assert sum("unreachable" in line for line in sandbox.logs()) == 1  # logged once, not 10x
        with MetadataServer(cloud, port=port) as server:
            server.notice = True
            assert wait_for(hook_log.exists)
    finally:
        stop(handler)
    assert hook_log.read_text() == "ran\n"
    assert "metadata service reachable again" in sandbox.logs()


def test_default_hook_signals_the_training_process_group(sandbox: Sandbox) -> None:
    pid_file, checkpointed = sandbox.root / "training.pid", sandbox.root / "checkpointed"
    training = subprocess.Popen(
        ["bash", "-c", f"trap 'echo saved > {shlex.quote(str(checkpointed))}; exit 0' USR1; "
                       f"echo $$ > {shlex.quote(str(pid_file))}; while :; do sleep 0.05; done"],
        start_new_session=True)
    threading.Thread(target=training.wait, daemon=True).start()  # reap it, as init would
    assert wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
    plan = plan_for("aws", spot=1, checkpoint_deadline_seconds=5)  # no command: the default hook
    with MetadataServer("aws") as server:
        server.notice = True
        handler = start_handler(sandbox, plan, "aws", server.url, INFRA_GEN_PID_FILE=str(pid_file))
        try:
            assert wait_for(lambda: training.poll() is not None)
            assert wait_for(lambda: any("finished with exit code 0" in m for m in sandbox.logs()))
        finally:
            stop(handler)
            if training.poll() is None:
                os.killpg(training.pid, signal.SIGKILL)
    assert checkpointed.read_text() == "saved\n"
    assert f"sent SIGUSR1 to process group {training.pid} (pid {training.pid}); waiting up to 5s" \
        in sandbox.logs()


def test_default_hook_without_a_pid_file_logs_and_carries_on(sandbox: Sandbox) -> None:
    plan = plan_for("gcp", spot=1)
    with MetadataServer("gcp") as server:
        server.notice = True
        handler = start_handler(sandbox, plan, "gcp", server.url,
                                INFRA_GEN_PID_FILE=str(sandbox.root / "absent.pid"))
        try:
            assert wait_for(lambda: any("exit code 1" in m for m in sandbox.logs()))
            assert handler.poll() is None
        finally:
            stop(handler)
    assert any(m.startswith("no training pid file") for m in sandbox.logs())


# --- checkpoint sync, hard stop, the startup script ------------------------------------------

SYNC_ARGV = {
    "aws": ["s3", "sync", "--only-show-errors", "{dir}", "{url}"],
    "gcp": ["storage", "rsync", "--recursive", "{dir}", "{url}"],
    "azure": ["sync", "{dir}", "{url}", "--recursive=true", "env:AZCOPY_AUTO_LOGIN_TYPE=MSI"],
}
SYNC_CLI = {"aws": "aws", "gcp": "gcloud", "azure": "azcopy"}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_checkpoint_sync_uses_the_clouds_cli(sandbox: Sandbox, cloud: str) -> None:
    directory = sandbox.root / "ckpt"
    plan = full_plan(cloud, checkpoint_sync_directory=str(directory))
    script = write(sandbox, "sync.sh", startup.render_checkpoint_sync(plan, cloud))
    assert sandbox.run_script(script).returncode == 0  # no directory yet: nothing to do
    assert sandbox.calls(SYNC_CLI[cloud]) == []
    directory.mkdir()
    assert sandbox.run_script(script).returncode == 0
    expected = [a.format(dir=directory, url=BUCKETS[cloud]) for a in SYNC_ARGV[cloud]]
    assert sandbox.calls(SYNC_CLI[cloud]) == [expected]
    failed = sandbox.run_script(script, **{f"FAKE_EXIT_{SYNC_CLI[cloud]}": "1"})
    assert failed.returncode == 1
    assert sandbox.logs()[-1].startswith("checkpoint sync of")


def test_max_run_stops_the_machine_and_its_timer_rounds_up(sandbox: Sandbox) -> None:
    plan = full_plan("aws", max_run_hours=2.51)
    script = write(sandbox, "max-run.sh", startup.render_max_run(plan, "aws"))
    assert sandbox.run_script(script).returncode == 0
    assert sandbox.calls("shutdown") == [["-h", "now"]]
    assert "reached max_run_hours=2.51 since boot" in sandbox.logs()[-1]
    timer = startup.render_units(plan, "aws")["infra-gen-max-run.timer"]
    assert "OnBootSec=151min" in timer  # 2.51 h x 60 = 150.6 min, rounded up


@pytest.mark.parametrize("cloud", CLOUDS)
def test_startup_installs_enables_and_starts_everything(sandbox: Sandbox, cloud: str) -> None:
    plan = full_plan(cloud)
    root = run_startup(sandbox, plan, cloud)
    lib, units = root / "usr/local/lib/infra-gen", root / "etc/systemd/system"
    expected_scripts = {
        "watchdog.sh": startup.render_watchdog(plan, cloud),
        "interruption.sh": startup.render_interruption_handler(plan, cloud),
        "checkpoint-sync.sh": startup.render_checkpoint_sync(plan, cloud),
        "max-run.sh": startup.render_max_run(plan, cloud)}
    for name, text in expected_scripts.items():  # byte for byte through the heredocs
        assert (lib / name).read_text() == text
        assert (lib / name).stat().st_mode & 0o777 == 0o755
    assert {p.name: p.read_text() for p in units.iterdir()} == startup.render_units(plan, cloud)
    assert "OnUnitActiveSec=15min" in (units / "infra-gen-checkpoint-sync.timer").read_text()
    assert sandbox.calls("systemctl") == [["daemon-reload"], [
        "enable", "--now", "infra-gen-checkpoint-sync.timer", "infra-gen-interruption.service",
        "infra-gen-max-run.timer", "infra-gen-watchdog.timer"]]
    assert (root / "etc/tmpfiles.d/infra-gen.conf").read_text().startswith(
        "d /run/infra-gen 1777 root root -\n")
    assert sandbox.logs()[-1] == (
        "guardrails for workload petsnap-train: idle watchdog (power-off after 30 min with every "
        f"GPU below 5%); {cloud} spot interruption handler (SIGUSR1 to training.pid); checkpoint "
        "sync every 15 min; hard stop 150 min after boot")


def test_startup_with_guardrails_off_disables_leftover_units(sandbox: Sandbox) -> None:
    plan = plan_for("gcp", auto_shutdown_idle_minutes=None)  # on demand, no sync, no max run
    assert startup.render_watchdog(plan, "gcp") is None
    assert startup.render_interruption_handler(plan, "gcp") is None
    run_startup(sandbox, plan, "gcp")
    disabled = [call[2] for call in sandbox.calls("systemctl") if call[:2] == ["disable", "--now"]]
    assert disabled == ["infra-gen-watchdog.timer", "infra-gen-watchdog.service",
                        "infra-gen-interruption.service", "infra-gen-checkpoint-sync.timer",
                        "infra-gen-checkpoint-sync.service", "infra-gen-max-run.timer",
                        "infra-gen-max-run.service"]
    assert not any(call[0] == "enable" for call in sandbox.calls("systemctl"))
    assert sandbox.logs()[-1].endswith("none enabled (auto-shutdown is off in the workload file)")


# --- hostile values --------------------------------------------------------------------------

HOSTILE = [
    "$(touch {marker})", "`touch {marker}`", "'; touch {marker}; '", '"; touch {marker}; "',
    "x\ntouch {marker}\n", "; rm -rf / ; touch {marker}", "${{IFS}}$(touch${{IFS}}{marker})",
    "\\'$(touch {marker})\\", "line\nINFRA_GEN_EOF\ntouch {marker}\n#", "-- $((1/0)) %s {marker}",
]


def printing(script: str, *names: str) -> str:
    """The script with its last line (``main "$@"``) replaced by a print of its settings."""
    body, last = script.rstrip("\n").rsplit("\n", 1)
    assert last == 'main "$@"'
    return body + "\nprintf '%s\\x1f' " + " ".join(f'"${name}"' for name in names) + "\n"


@pytest.mark.parametrize("cloud", CLOUDS)
@pytest.mark.parametrize("template", HOSTILE)
def test_hostile_values_stay_data(sandbox: Sandbox, cloud: str, template: str) -> None:
    marker = sandbox.root / "pwned"
    value = template.format(marker=marker)
    directory = f"{sandbox.root}/ckpt/{value}"
    os.makedirs(directory)
    plan = full_plan(cloud, checkpoint_command=value, busy_marker=f"{sandbox.root}/{value}",
                     checkpoint_sync_directory=directory,
                     checkpoint_sync_bucket_url=BUCKETS[cloud] + "/" + value)
    plan = plan.model_copy(update={"workload": value})
    text = startup.render_startup_script(plan, cloud)
    assert subprocess.run(["bash", "-n"], input=text, text=True, check=False).returncode == 0
    root = run_startup(sandbox, plan, cloud)
    assert sandbox.logs()[-1].startswith(f"guardrails for workload {value}: ")
    lib = root / "usr/local/lib/infra-gen"
    checks = {"watchdog.sh": ("WORKLOAD", "BUSY_MARKER"),
              "interruption.sh": ("WORKLOAD", "CHECKPOINT_COMMAND"),
              "checkpoint-sync.sh": ("SYNC_DIRECTORY", "BUCKET_URL")}
    expected = {"WORKLOAD": value, "BUSY_MARKER": f"{sandbox.root}/{value}",
                "CHECKPOINT_COMMAND": value, "SYNC_DIRECTORY": directory,
                "BUCKET_URL": BUCKETS[cloud] + "/" + value}
    for name, variables in checks.items():
        probe = write(sandbox, "probe.sh", printing((lib / name).read_text(), *variables))
        printed = sandbox.run_script(probe).stdout.split("\x1f")[:-1]
        assert printed == [expected[v] for v in variables]
    assert sandbox.run_script(lib / "checkpoint-sync.sh").returncode == 0
    url_at = SYNC_ARGV[cloud].index("{url}")
    assert sandbox.calls(SYNC_CLI[cloud])[0][url_at] == expected["BUCKET_URL"]
    sandbox.nvidia_output.write_text(IDLE_ROWS)
    assert sandbox.run_script(lib / "watchdog.sh", INFRA_GEN_NOW="0").returncode == 0
    assert not marker.exists()


# --- validation, size, shellcheck ------------------------------------------------------------


@pytest.mark.parametrize(("guard", "field"), [
    ({"auto_shutdown_idle_minutes": 0}, "guardrails.auto_shutdown.idle_minutes"),
    ({"auto_shutdown_idle_minutes": 100_000}, "guardrails.auto_shutdown.idle_minutes"),
    ({"gpu_utilization_below": 0.0}, "guardrails.auto_shutdown.gpu_utilization_below"),
    ({"gpu_utilization_below": float("nan")}, "guardrails.auto_shutdown.gpu_utilization_below"),
    ({"gpu_utilization_below": 101.0}, "guardrails.auto_shutdown.gpu_utilization_below"),
    ({"busy_marker": "busy"}, "guardrails.auto_shutdown.busy_marker"),
    ({"checkpoint_deadline_seconds": -1}, "guardrails.interruption.deadline_seconds"),
    ({"checkpoint_sync_bucket_url": "gs://wrong-cloud"}, "guardrails.checkpoint_sync.bucket_url"),
    ({"checkpoint_sync_directory": "ckpt"}, "guardrails.checkpoint_sync.directory"),
    ({"checkpoint_sync_interval_minutes": 0}, "guardrails.checkpoint_sync.interval_minutes"),
    ({"max_run_hours": -2.0}, "guardrails.max_run_hours"),
    ({"checkpoint_command": "a\x00b"}, "NUL"),
])
def test_bad_settings_are_one_clear_render_error(guard: dict[str, object], field: str) -> None:
    with pytest.raises(RenderError, match=field.replace(".", r"\.")):
        startup.render_startup_script(full_plan("aws", **guard), "aws")


def test_unknown_cloud_and_unquoted_template_values_are_refused() -> None:
    with pytest.raises(RenderError, match="expected one of aws, gcp, azure, got 'oracle'"):
        startup.render_startup_script(full_plan("aws"), "oracle")
    with pytest.raises(RenderError, match="unquoted value"):
        startup._environment().from_string("rm {{ path }}").render(path="/; reboot")


def test_aws_user_data_limit_is_enforced() -> None:
    """AWS caps user data at 16,384 bytes; GCP (256 KB) and Azure (64 KB) take the same plan."""
    plan = full_plan("aws", checkpoint_command="echo " + "x" * 3000)
    with pytest.raises(RenderError, match="over AWS's 16384-byte user-data limit"):
        startup.render_startup_script(plan, "aws")
    assert len(startup.render_startup_script(full_plan("aws"), "aws").encode()) < 16384
    gcp = full_plan("gcp", checkpoint_command="echo " + "x" * 3000)
    assert len(startup.render_startup_script(gcp, "gcp").encode()) > 16384


def test_sync_without_a_directory_uses_the_workload_files_default() -> None:
    plan = plan_for("aws", checkpoint_sync_bucket_url=BUCKETS["aws"])
    assert "SYNC_DIRECTORY=/opt/checkpoints\n" in str(startup.render_checkpoint_sync(plan, "aws"))


def test_rendering_is_deterministic() -> None:
    assert startup.render_startup_script(full_plan("azure"), "azure") == \
        startup.render_startup_script(full_plan("azure"), "azure")


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_script_is_shellcheck_clean(tmp_path: Path, cloud: str) -> None:
    if shutil.which("shellcheck") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("shellcheck is not installed; CI must install Debian's shellcheck package")
        pytest.skip("shellcheck not installed (apt-get install shellcheck); CI runs this check")
    scripts: list[str] = []
    for guard in ({}, {"checkpoint_command": "python save.py --now"}):
        plan = full_plan(cloud, **guard)
        texts = [startup.render_startup_script(plan, cloud), startup.render_watchdog(plan, cloud),
                 startup.render_interruption_handler(plan, cloud),
                 startup.render_checkpoint_sync(plan, cloud), startup.render_max_run(plan, cloud)]
        if cloud == "gcp":
            texts.append(startup.render_gcp_shutdown_script(plan))
        for index, text in enumerate(texts):
            path = tmp_path / f"{len(scripts)}-{index}.sh"
            path.write_text(text or "")
            scripts.append(str(path))
    done = subprocess.run(["shellcheck", "--severity=style", *scripts], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("cloud", ["aws", "azure"])
def test_systemd_accepts_the_units(sandbox: Sandbox, cloud: str) -> None:
    """``systemd-analyze verify`` warns on unknown keys and fails on missing programs."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not installed")
    root = run_startup(sandbox, full_plan(cloud), cloud)
    units = sorted((root / "etc/systemd/system").iterdir())
    for unit in units:  # point ExecStart at the scripts the startup script just installed
        unit.write_text(unit.read_text().replace("/usr/local/", f"{root}/usr/local/"))
    done = subprocess.run(["systemd-analyze", "verify", *map(str, units)], capture_output=True,
                          text=True, check=False, env={**os.environ, "SYSTEMD_LOG_LEVEL": "info"})
    assert (done.returncode, done.stderr) == (0, "")


# --- GCP shutdown-script ------------------------------------------------------------------------


def test_gcp_shutdown_script_quotes_values_and_caps_the_preemption_deadline() -> None:
    command = "python save.py --tag 'a b'; echo $HOME"
    plan = full_plan("gcp", checkpoint_command=command)
    script = startup.render_gcp_shutdown_script(plan)
    assert f"CHECKPOINT_COMMAND={shlex.quote(command)}\n" in script
    # 90 s on a plain stop; GCP allows ~30 s after a preemption notice, so 25 s then.
    assert "DEADLINE_SECONDS=90\n" in script and "DEADLINE_SECONDS=25\n" in script
    subprocess.run(["bash", "-n"], input=script, text=True, check=True)


@pytest.mark.parametrize(("preempted", "handled", "runs_hook"), [
    ("TRUE", True, False),   # the interruption handler already checkpointed this preemption
    ("TRUE", False, True),   # the handler missed it (not yet polled): checkpoint now
    ("FALSE", True, True),   # a plain stop or delete always checkpoints
])
def test_gcp_shutdown_runs_the_hook_once_per_preemption(
    tmp_path: Path, preempted: str, handled: bool, runs_hook: bool,
) -> None:
    marker = tmp_path / "checkpointed"
    script = startup.render_gcp_shutdown_script(
        full_plan("gcp", checkpoint_command=f"touch {shlex.quote(str(marker))}"))
    bin_dir, state = tmp_path / "bin", tmp_path / "state"
    bin_dir.mkdir()
    state.mkdir()
    (bin_dir / "curl").write_text(f"#!/bin/sh\necho {preempted}\n")  # the metadata answer
    (bin_dir / "logger").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "gcloud").write_text("#!/bin/sh\nexit 0\n")
    for fake in bin_dir.iterdir():
        fake.chmod(0o755)
    if handled:
        (state / "handled-notices").write_text("gcp-preempted\n")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "INFRA_GEN_STATE_DIR": str(state)}
    subprocess.run(["bash", "-c", script], env=env, check=True, timeout=30)
    assert marker.exists() == runs_hook
