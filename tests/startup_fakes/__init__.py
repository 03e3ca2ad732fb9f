"""Fakes for running the rendered startup scripts for real: a sandbox of fake commands on PATH
(nvidia-smi, shutdown, logger, systemctl, cloud CLIs) and a fake metadata server per cloud."""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from infra_gen import startup
from infra_gen.plan import GuardrailSettings, Plan, PurchaseMix
from tests.factories import sample_plan

FAKES_DIR = Path(__file__).parent
BUCKETS = {"aws": "s3://petsnap-ckpt/run-1", "gcp": "gs://petsnap-ckpt/run-1",
           "azure": "https://petsnap.blob.core.windows.net/ckpt"}
# Two GPUs: GPU 1 is held by a process (30 GiB in use) but computes nothing: idle (seed 002).
IDLE_ROWS = "0, 0, 0\n1, 3, 30512\n"
RECORDED = ("shutdown", "logger", "systemctl", "systemd-tmpfiles", "aws", "gcloud", "azcopy")


class Sandbox:
    """A scratch directory whose bin/ shadows the commands the scripts call."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.bin.mkdir(parents=True)
        for name in RECORDED:
            (self.bin / name).symlink_to(FAKES_DIR / "record")
        (self.bin / "nvidia-smi").symlink_to(FAKES_DIR / "nvidia-smi")
        # The real interpreter, not a version-manager shim that costs ~100 ms a call.
        (self.bin / "python3").symlink_to(sys.executable)
        self.calls_file = root / "calls.log"
        self.calls_file.touch()
        self.state_dir = root / "state"
        self.nvidia_output = root / "nvidia-smi.out"
        self.nvidia_rc = root / "nvidia-smi.rc"

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "PATH": f"{self.bin}:{os.environ['PATH']}",
            "HOME": str(self.root),
            "FAKE_CALLS": str(self.calls_file),
            "FAKE_NVIDIA_SMI_OUTPUT": str(self.nvidia_output),
            "FAKE_NVIDIA_SMI_RC": str(self.nvidia_rc),
            "INFRA_GEN_STATE_DIR": str(self.state_dir),
        }
        env.update(extra)
        return env

    def calls(self, name: str | None = None) -> list[list[str]]:
        records = self.calls_file.read_text().split("\x1e")
        calls = [record.split("\x1f") for record in records if record]
        return [call[1:] for call in calls if name is None or call[0] == name]

    def logs(self) -> list[str]:
        """Messages sent to logger (its last argument, after ``--``)."""
        return [call[-1] for call in self.calls("logger")]

    def run_script(self, script: Path, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(script)], env=self.env(**env), capture_output=True,
                              text=True, timeout=20, check=False)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class MetadataServer:
    """A fake instance metadata service for one cloud on 127.0.0.1.

    ``notice`` switches the interruption notice on; ``requests`` records (method, path, headers,
    body) of every request. AWS insists on an IMDSv2 token, GCP on ``Metadata-Flavor: Google``,
    Azure on ``Metadata: true``, as the real services do (401/403/400 otherwise).
    """

    AZURE_EVENT_ID = "C7061BAC-AFDC-4513-B24B-AA5F13A16123"
    OTHER_VM_EVENT_ID = "1B4A0B2C-0000-4000-8000-000000000002"
    RESOURCE_ID = ("/subscriptions/sub-1/resourceGroups/rg-1/providers/Microsoft.Compute"
                   "/virtualMachines/vm-1")

    def __init__(self, cloud: str, port: int = 0) -> None:
        self.cloud = cloud
        self.notice = False
        self.rebalance = False  # AWS only: the earlier rebalance recommendation
        self.requests: list[tuple[str, str, dict[str, str], str]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                with server.lock:
                    server.requests.append((self.command, self.path, dict(self.headers), body))
                status, text = server.answer(self.command, self.path, self.headers)
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = _answer

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = int(self.httpd.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> MetadataServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def count(self, predicate: Callable[[str, str], bool]) -> int:
        with self.lock:
            return sum(1 for method, path, _, _ in self.requests if predicate(method, path))

    def answer(self, method: str, path: str, headers: Any) -> tuple[int, str]:
        return {"aws": self._aws, "gcp": self._gcp, "azure": self._azure}[self.cloud](
            method, path, headers)

    def _aws(self, method: str, path: str, headers: Any) -> tuple[int, str]:
        if method == "PUT" and path == "/latest/api/token":
            ok = headers.get("X-aws-ec2-metadata-token-ttl-seconds", "").isdigit()
            return (200, "token-123") if ok else (400, "missing ttl")
        if headers.get("X-aws-ec2-metadata-token") != "token-123":
            return 401, "unauthorized"
        if path == "/latest/meta-data/spot/instance-action" and self.notice:
            return 200, '{"action": "terminate", "time": "2026-10-01T08:22:00Z"}'
        if path == "/latest/meta-data/events/recommendations/rebalance" and self.rebalance:
            return 200, '{"noticeTime": "2026-10-01T08:17:00Z"}'
        return 404, "not found"

    def _gcp(self, method: str, path: str, headers: Any) -> tuple[int, str]:
        if headers.get("Metadata-Flavor") != "Google":
            return 403, "missing Metadata-Flavor"
        if path == "/computeMetadata/v1/instance/preempted":
            return 200, "TRUE" if self.notice else "FALSE"
        return 404, "not found"

    def _azure(self, method: str, path: str, headers: Any) -> tuple[int, str]:
        if path.startswith("/subscriptions/"):  # Azure Resource Manager, for the deallocate
            ok = method == "POST" and headers.get("Authorization") == "Bearer arm-token"
            return (202, "") if ok else (401, "unauthorized")
        if headers.get("Metadata") != "true":
            return 400, "missing Metadata header"
        if path.startswith("/metadata/instance/compute/name"):
            return 200, "vm-1"
        if path.startswith("/metadata/instance/compute/resourceId"):
            return 200, self.RESOURCE_ID
        if path.startswith("/metadata/identity/oauth2/token"):
            return 200, json.dumps({"access_token": "arm-token", "token_type": "Bearer"})
        if path == "/metadata/scheduledevents?api-version=2020-07-01":
            return 200, json.dumps(self._azure_events()) if method == "GET" else ""
        return 404, "not found"

    def _azure_events(self) -> dict[str, Any]:
        """A Preempt for another VM of the scale set and a Freeze for us are always there and
        must be ignored; our own Preempt appears with ``notice``."""
        events: list[dict[str, Any]] = [
            {"EventId": self.OTHER_VM_EVENT_ID, "EventType": "Preempt", "ResourceType":
             "VirtualMachine", "Resources": ["vm-2"], "EventStatus": "Scheduled",
             "NotBefore": "Mon, 19 Sep 2026 18:29:47 GMT", "EventSource": "Platform"},
            {"EventId": "F0000000-0000-4000-8000-000000000003", "EventType": "Freeze",
             "Resources": ["vm-1"], "EventStatus": "Scheduled"},
        ]
        if self.notice:
            events.append({"EventId": self.AZURE_EVENT_ID, "EventType": "Preempt",
                           "ResourceType": "VirtualMachine", "Resources": ["vm-1"],
                           "EventStatus": "Scheduled", "EventSource": "Platform",
                           "NotBefore": "Mon, 19 Sep 2026 18:29:47 GMT", "DurationInSeconds": -1})
        return {"DocumentIncarnation": 2 if self.notice else 1, "Events": events}


def wait_for(condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    """Poll ``condition`` every 20 ms until it holds or ``timeout_s`` passes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


# --- plans and runners shared by the tests ---------------------------------------------------


def plan_for(cloud: str = "aws", *, spot: int = 0, **guard: object) -> Plan:
    settings: dict[str, object] = {"auto_shutdown_idle_minutes": 30, "gpu_utilization_below": 5.0}
    settings.update(guard)
    mix = PurchaseMix(spot=spot) if spot else PurchaseMix(on_demand=1)
    return sample_plan(cloud, purchase=mix, workload_type="training",
                       guardrails=GuardrailSettings(**settings))  # type: ignore[arg-type]


def full_plan(cloud: str, **guard: object) -> Plan:
    """Every guardrail on: watchdog, spot handler, checkpoint sync, 2.5 h hard stop."""
    settings: dict[str, object] = {
        "checkpoint_sync_directory": "/opt/checkpoints",
        "checkpoint_sync_bucket_url": BUCKETS[cloud], "max_run_hours": 2.5}
    settings.update(guard)
    return plan_for(cloud, spot=2, **settings)


def write(sandbox: Sandbox, name: str, text: str | None) -> Path:
    assert text is not None
    path = sandbox.root / name
    path.write_text(text)
    return path


class Watchdog:
    """Runs the rendered watchdog once per call, as the one-minute timer would."""

    def __init__(self, sandbox: Sandbox, plan: Plan, cloud: str = "aws", **env: str) -> None:
        self.sandbox = sandbox
        self.script = write(sandbox, "watchdog.sh", startup.render_watchdog(plan, cloud))
        self.env = env

    def run(self, now: int, rows: str = IDLE_ROWS, rc: int = 0) -> None:
        self.sandbox.nvidia_output.write_text(rows)
        self.sandbox.nvidia_rc.write_text(str(rc))
        done = self.sandbox.run_script(self.script, INFRA_GEN_NOW=str(now), **self.env)
        assert done.returncode == 0, done.stderr

    @property
    def poweroffs(self) -> list[list[str]]:
        return self.sandbox.calls("shutdown")


def start_handler(sandbox: Sandbox, plan: Plan, cloud: str, url: str,
                  **env: str) -> subprocess.Popen[str]:
    script = write(sandbox, "interruption.sh", startup.render_interruption_handler(plan, cloud))
    return subprocess.Popen(
        ["bash", str(script)], text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=sandbox.env(INFRA_GEN_METADATA_URL=url, INFRA_GEN_POLL_SECONDS="0.05", **env),
        start_new_session=True)  # its own group, so the test can stop it and its sleeps


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=5)


def run_startup(sandbox: Sandbox, plan: Plan, cloud: str) -> Path:
    script = write(sandbox, "startup.sh", startup.render_startup_script(plan, cloud))
    root = sandbox.root / "root"
    done = sandbox.run_script(script, INFRA_GEN_ROOT=str(root))
    assert done.returncode == 0, done.stderr
    return root
