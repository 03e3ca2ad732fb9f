"""Same workload + same catalog -> byte-identical plan, render and check JSON, in any process.

String hashing is salted per process (PYTHONHASHSEED), so anything that iterates a set or
builds a dict from one can reorder output between runs. Each check here runs fresh processes
with PYTHONHASHSEED 0, 1 and 12345 and compares their bytes, plus a repeat within a process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STACKS = ROOT / "stacks"
SEEDS = ("0", "1", "12345")
EXAMPLES = sorted(p for p in STACKS.glob("*.yaml") if not p.name.startswith("Pulumi."))

# A workload with its guardrails off, so `check` has violations (of several rules) to order.
UNGUARDED = """\
version: 1
name: unguarded-sweep
type: fine-tuning
owner: {team: ranking, project: feed-ranker, cost_center: ml-rnd}
model: {parameters_b: 1.5, precision: bf16}
training: {method: lora, duration_hours: 2, checkpoint_minutes: 10, runs_per_month: 40}
placement: {clouds: [aws]}
guardrails: {auto_shutdown: null, budget: null}
"""

# Everything the product emits as JSON for a few inputs, in one process: every example plan,
# one workload rendered on each cloud, and a policy check over three files.
SCRIPT = """
import json, sys
from pathlib import Path
from infra_gen.catalog.load import load_catalog
from infra_gen.loading import load_workload
from infra_gen.optimizer import plan_workload
from infra_gen.policy import PolicyConfig
from infra_gen.policy.check import CHECK_RENDER_OPTIONS, check_files
from infra_gen.render import render_plan, resources_json

examples, qlora, unguarded = sys.argv[1].split(','), sys.argv[2], sys.argv[3]
out = {}
for path in examples:
    out['plan ' + Path(path).name] = plan_workload(load_workload(path), load_catalog()).to_json()
for cloud in ('aws', 'gcp', 'azure'):
    plan = plan_workload(load_workload(qlora), load_catalog(), cloud=cloud)
    out['render ' + cloud] = resources_json(render_plan(plan, CHECK_RENDER_OPTIONS))
files = [Path(qlora), Path(unguarded), Path(examples[0])]
out['check'] = check_files(files, PolicyConfig(), jobs=1).to_json()
sys.stdout.write(json.dumps(out, sort_keys=True))
"""


def _env(seed: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "INFRA_GEN_CATALOG"}
    env["PYTHONHASHSEED"] = seed
    return env


def _run(argv: list[str], seed: str) -> str:
    done = subprocess.run(argv, cwd=ROOT, env=_env(seed), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """The script's JSON per hash seed (the expensive part, shared by the tests below)."""
    unguarded = tmp_path_factory.mktemp("det") / "unguarded.yaml"
    unguarded.write_text(UNGUARDED, "utf-8")
    qlora = str(STACKS / "llama7b-qlora-finetune.yaml")
    argv = [sys.executable, "-c", SCRIPT, ",".join(map(str, EXAMPLES)), qlora, str(unguarded)]
    # The three processes run at once: each is mostly single-threaded CPU (Pulumi imports).
    running = {seed: subprocess.Popen(argv, cwd=ROOT, env=_env(seed), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True) for seed in SEEDS}
    found: dict[str, dict[str, str]] = {}
    for seed, process in running.items():
        stdout, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr[-2000:]
        found[seed] = json.loads(stdout)
    return found


def test_every_output_is_byte_identical_across_hash_seeds(
    outputs: dict[str, dict[str, str]],
) -> None:
    reference = outputs[SEEDS[0]]
    assert len(reference) == len(EXAMPLES) + 3 + 1
    for seed in SEEDS[1:]:
        assert outputs[seed].keys() == reference.keys()
        for key, text in reference.items():
            assert outputs[seed][key] == text, f"{key} differs between seeds 0 and {seed}"


def test_outputs_are_real_and_ordered(outputs: dict[str, dict[str, str]]) -> None:
    """Guard against comparing empty strings: each output has its real content, sorted."""
    out = outputs[SEEDS[0]]
    for example in EXAMPLES:
        plan = json.loads(out["plan " + example.name])
        assert plan["recommendation"]["monthly_usd"] > 0
    for cloud in ("aws", "gcp", "azure"):
        resources = json.loads(out["render " + cloud])["resources"]
        assert len(resources) >= 3
        keys = [(r["type"], r["name"]) for r in resources]
        assert keys == sorted(keys)
    check = json.loads(out["check"])
    assert check["checked"] == 3
    policies = {v["policy"] for v in check["violations"]}
    assert len(policies) >= 2, policies  # auto-shutdown and budget rules at least
    assert all(v["workload"] for v in check["violations"])


def test_cli_plan_json_is_identical_across_seeds_and_runs() -> None:
    """The real command, twice with one seed and once with each other seed."""
    path = str(STACKS / "llama70b-serving.yaml")
    argv = [sys.executable, "-m", "infra_gen", "plan", path, "--format", "json"]
    texts = [_run(argv, seed) for seed in (*SEEDS, SEEDS[0])]
    assert texts[0].startswith("{") and '"recommendation"' in texts[0]
    assert all(t == texts[0] for t in texts[1:])


def test_render_repeated_in_one_process_is_identical() -> None:
    """Pulumi's mocks keep state between programs; a second render must not differ."""
    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload
    from infra_gen.policy.check import CHECK_RENDER_OPTIONS
    from infra_gen.render import render_plan, resources_json

    plan = plan_workload(load_workload(STACKS / "resnet50-inference.yaml"), load_catalog(),
                         cloud="aws")
    first = resources_json(render_plan(plan, CHECK_RENDER_OPTIONS))
    assert first == resources_json(render_plan(plan, CHECK_RENDER_OPTIONS))


def test_plan_json_does_not_depend_on_where_the_catalog_file_sits(tmp_path: Path) -> None:
    """The same catalog in two directories (two checkouts, two CI machines) gives one plan."""
    import shutil

    from infra_gen.catalog.load import load_catalog
    from infra_gen.loading import load_workload
    from infra_gen.optimizer import plan_workload

    workload = load_workload(Path("stacks/resnet50-inference.yaml"))
    plans = []
    for where in ("a", "b/c"):
        target = tmp_path / where / "catalog.csv"
        target.parent.mkdir(parents=True)
        shutil.copy("tests/golden/catalog.csv", target)
        plans.append(plan_workload(workload, load_catalog(target)).to_json())
    assert plans[0] == plans[1]
    assert '"source": "catalog.csv"' in plans[0]
