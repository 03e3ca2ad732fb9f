"""The inference latency target changes the hardware, not just a note.

Rule under test (sizing.size / sizing_throughput.step_seconds): one sequence's token takes
bytes read / (tensor-parallel degree t x HBM bandwidth x 0.8) + 2 all-reduces per layer x 10 us
when t > 1; pipeline stages add no speed to one token. Among the layouts that fit memory and
meet the target at batch 1, sizing takes the one with the fewest GPUs at peak (GPUs per
replica x replicas), each replica's batch capped by the target; when none meets it the
accelerator does not fit, and the error names latency_target_ms_per_token and what would meet
it. Figures are worked by hand in the comments (GB = 1e9 bytes).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infra_gen.catalog.load import load_catalog
from infra_gen.errors import PlanningError, SizingError
from infra_gen.loading import load_workload
from infra_gen.optimizer import plan_workload
from infra_gen.sizing import require_fit, size
from infra_gen.sizing_throughput import step_seconds
from tests.sizing_helpers import ACCELERATORS, serve

ROOT = Path(__file__).parent.parent
GOLDEN = ROOT / "tests" / "golden"
H100, H200, L4, L40S = (ACCELERATORS[n] for n in ("H100", "H200", "L4", "L40S"))
# Llama-3-70B at fp8: 70.6e9 params x 1 B, embeddings and lm_head kept 16-bit
# (2 x 128,256 x 8,192 = 2.101e9 params, +1 B each): 72.70e9 B read per token.
W70 = 70.6e9 + 2 * 128_256 * 8_192
# KV cache: 2 x 80 layers x 8 kv heads x 128 x 2 B = 327,680 B/token; one sequence of
# 1024 + 256 tokens read half full on average: 0.5 x 1280 x 327,680 = 209.7e6 B.
KV70 = 0.5 * 1280 * 327_680
COMM70_MS = 2 * 80 * 0.010  # 2 all-reduces x 80 layers x 10 us = 1.6 ms with tensor parallel


def _serve70(target: float | None, **inference: Any) -> Any:
    inference.setdefault("input_tokens", 1024)
    inference.setdefault("output_tokens", 256)
    return serve({"name": "llama-3-70b", "precision": "fp8"},
                 latency_target_ms_per_token=target, **inference)


def test_70b_fp8_on_one_gpu_is_bandwidth_bound_at_batch_1() -> None:
    # H200 holds 70B fp8 on one GPU: 72.91e9 B / (4800e9 x 0.8) = 18.99 ms/token.
    loose = size(_serve70(25, max_concurrency=1), H200)
    assert (loose.gpus, loose.parallelism) == (1, "single") and loose.fits
    assert loose.ms_per_token == pytest.approx((W70 + KV70) / (4800e9 * 0.8) * 1000)
    assert loose.ms_per_token == pytest.approx(18.99, abs=0.01)
    # H100 single GPU would be 72.91e9 / 2680e9 = 27.2 ms (the "~26 ms" of 70 GB / 2680 GB/s).
    inp_ms = (W70 + KV70) / (3350e9 * 0.8) * 1000
    assert inp_ms == pytest.approx(27.2, abs=0.05)


def test_tight_target_takes_tensor_parallel_within_the_node() -> None:
    # 15 ms on H200: one GPU is 18.99 ms, too slow; TP=2 reads half per GPU:
    # 72.91e9 / (2 x 3840e9) = 9.49 ms + 1.6 ms all-reduces = 11.09 ms.
    req = size(_serve70(15, max_concurrency=1), H200)
    assert req.fits and (req.gpus, req.tensor_parallel, req.parallelism) == (2, 2, "tensor")
    assert req.needs_nvlink and req.min_gpus_per_node == 2
    assert req.ms_per_token == pytest.approx(
        (W70 + KV70) / (2 * 4800e9 * 0.8) * 1000 + COMM70_MS)
    # 20 ms on H100: 2 x H100 is both what memory needs and 13.6 + 1.6 = 15.2 ms at batch 1.
    h100 = size(_serve70(20, max_concurrency=1), H100)
    assert h100.fits and h100.tensor_parallel == 2
    assert step_seconds_ms(h100) == pytest.approx(
        (W70 + KV70) / (2 * 3350e9 * 0.8) * 1000 + COMM70_MS)


def step_seconds_ms(req: Any) -> float:
    from infra_gen.sizing_arch import resolve_arch
    from infra_gen.sizing_workload import sizing_inputs

    w = _serve70(20, max_concurrency=1)
    inp = sizing_inputs(w, resolve_arch(w.model))
    return step_seconds(inp, ACCELERATORS[req.accelerator], req.tensor_parallel, 1) * 1000


def test_pcie_gpus_cannot_buy_latency_with_pipeline_stages() -> None:
    # L40S (48 GB, PCIe, no tensor parallel): 70B fp8 fits in 2-stage pipeline, but each token
    # still reads all 72.91e9 B at one GPU's 864 GB/s x 0.8: 105.5 ms > 20 ms -> does not fit.
    req = size(_serve70(20, max_concurrency=8), L40S)
    assert not req.fits and req.parallelism == "pipeline" and req.tensor_parallel == 1
    assert req.memory_gib_per_gpu.total <= req.usable_memory_gib  # memory was not the reason
    assert req.ms_per_token == pytest.approx((W70 + KV70) / (864e9 * 0.8) * 1000)
    assert req.unfit_reason.startswith("inference.latency_target_ms_per_token 20 not met: "
                                       "105.5 ms/token at batch 1")
    # No target: the same layout fits (memory only), as before.
    assert size(_serve70(None, max_concurrency=8), L40S).fits


def test_7b_int4_on_l4_meets_50_ms_and_the_batch_is_capped_by_it() -> None:
    # Llama-2-7B int4: (6.74e9 - 262.1e6 embeddings) x 4.127/8 B + 262.1e6 x 2 B = 3.866e9 B;
    # KV 524,288 B/token x (512 + 256) tokens, half full = 201.3e6 B per sequence.
    weights = (6.74e9 - 2 * 32_000 * 4_096) * 4.127 / 8 + 2 * 32_000 * 4_096 * 2
    kv = 0.5 * 768 * 524_288
    one = serve({"name": "llama-2-7b", "precision": "int4"}, max_concurrency=1,
                latency_target_ms_per_token=50)
    req = size(one, L4)
    # batch 1: (3.866e9 + 0.201e9) / (300e9 x 0.8) = 16.9 ms <= 50 ms
    assert req.fits and req.gpus == 1
    assert req.ms_per_token == pytest.approx((weights + kv) / 240e9 * 1000)
    assert req.ms_per_token == pytest.approx(16.9, abs=0.1)
    # 16 concurrent: (3.866 + 16 x 0.2013)e9 / 240e9 = 29.5 ms <= 50: batch stays 16.
    sixteen = size(one.model_copy(update={"inference": one.inference.model_copy(  # type: ignore
        update={"max_concurrency": 16})}), L4)
    assert sixteen.batch_per_replica == 16
    assert sixteen.ms_per_token == pytest.approx((weights + 16 * kv) / 240e9 * 1000)
    # 20 ms caps it: batch 8 takes (3.866 + 1.610)e9 / 240e9 = 22.8 ms; batch 4 takes
    # (3.866 + 0.805)e9 / 240e9 = 19.5 ms -> 4 sequences per replica, more replicas.
    capped = size(serve({"name": "llama-2-7b", "precision": "int4"}, max_concurrency=16,
                        requests_per_second=2, latency_target_ms_per_token=20), L4)
    assert capped.batch_per_replica == 4
    assert capped.replicas > size(serve({"name": "llama-2-7b", "precision": "int4"},
                                        max_concurrency=16, requests_per_second=2), L4).replicas


def test_no_accelerator_fast_enough_raises_naming_the_latency_target() -> None:
    # 70B fp8 at 10 ms on L4 / L40S: no tensor parallel over PCIe, >= 105 ms/token.
    with pytest.raises(SizingError) as err:
        require_fit(_serve70(10, max_concurrency=8), [L4, L40S])
    text = str(err.value)
    assert "inference.latency_target_ms_per_token 10 removed the last accelerators" in text
    assert "fastest: 2 x L40S (pipeline) at 105.5 ms/token" in text
    assert "at least 105.5" in text  # 105.48 ms rounded up to a tenth


# ------------------------------------------------------------------ property
_FAST = settings(max_examples=40, deadline=None)
_ACCS = st.sampled_from(["H100", "A100-80GB", "L4", "H200"])


@_FAST
@given(st.floats(1, 80), st.sampled_from(["bf16", "fp8", "int4"]), st.integers(1, 64),
       st.floats(0.5, 40), st.floats(2, 200), st.floats(2, 200), _ACCS)
def test_a_tighter_target_never_needs_fewer_gpus(
    params_b: float, precision: str, concurrency: int, rps: float, t1: float, t2: float,
    name: str,
) -> None:
    tight_ms, loose_ms = sorted((t1, t2))
    model = {"parameters_b": params_b, "precision": precision}
    kw = {"max_concurrency": concurrency, "requests_per_second": rps}
    tight = size(serve(model, latency_target_ms_per_token=tight_ms, **kw), ACCELERATORS[name])
    loose = size(serve(model, latency_target_ms_per_token=loose_ms, **kw), ACCELERATORS[name])
    assert not tight.fits or loose.fits  # what meets a tight target meets a looser one
    if tight.fits:
        # GPUs at peak (per replica x replicas) never fall as the target tightens; the chosen
        # layout meets the target per token at its batch.
        assert tight.gpus * tight.replicas >= loose.gpus * loose.replicas
        assert tight.ms_per_token is not None and tight.ms_per_token <= tight_ms + 1e-9
        if (tight.gpus, tight.parallelism) == (loose.gpus, loose.parallelism):
            assert tight.replicas >= loose.replicas
            assert (tight.batch_per_replica or 0) <= (loose.batch_per_replica or 0)
    elif tight.memory_gib_per_gpu.total <= tight.usable_memory_gib:
        assert "latency_target_ms_per_token" in tight.unfit_reason


# ------------------------------------------------------------------ end to end
def _plan_at(target: float) -> Any:
    w = load_workload(ROOT / "stacks" / "llama70b-serving.yaml")
    assert w.inference is not None
    w = w.model_copy(update={"inference": w.inference.model_copy(
        update={"latency_target_ms_per_token": target})})
    return plan_workload(w, load_catalog(GOLDEN / "catalog.csv"), today=dt.date(2025, 2, 1))


def test_plan_tight_target_takes_more_gpus_per_replica_or_a_faster_gpu() -> None:
    # 60 ms (the stack): A100-40GB TP=4, batch-1 step 72.91e9 / (4 x 1244e9) = 14.65 ms + 1.6;
    # 2 replicas share one 8-GPU Standard_ND96asr_v4 at 12.2386 $/h 3y x 730 h = $8,934.18.
    base = _plan_at(60).recommendation
    assert (base.accelerator, base.gpus_per_replica, base.replicas) == ("A100-40GB", 4, 2)
    assert base.monthly_usd == pytest.approx(12.2386 * 730, abs=0.01)
    # 12 ms: TP=4 (16.25 ms) misses, TP=8 meets: 72.91e9 / (8 x 1244e9) = 7.33 + 1.6 = 8.93 ms;
    # at batch 64 (86.12e9 B) 8.65 + 1.6 = 10.25 ms; prefill 2 x 70.6e9 x 1024 / (8 x 312e12 x
    # 0.5) = 115.9 ms; 1 / (0.1159 + 256 x 0.01025 / 64) = 6.37 rps >= 6 -> one 8-GPU replica.
    tight = _plan_at(12).recommendation
    assert (tight.accelerator, tight.gpus_per_replica, tight.replicas) == ("A100-40GB", 8, 1)
    assert tight.monthly_usd == pytest.approx(12.2386 * 730, abs=0.01)
    # 6 ms: A100-80GB TP=8 is 72.91e9 / (8 x 1631e9) = 5.59 + 1.6 = 7.19 ms, too slow; only
    # H100 TP=8 (3.40 + 1.6 = 5.00 ms) meets it: a3-highgpu-8g 3y 39.4849 $/h x 730 = $28,823.98.
    fast = _plan_at(6).recommendation
    assert (fast.accelerator, fast.gpus_per_replica, fast.instance_type) == (
        "H100", 8, "a3-highgpu-8g")
    assert fast.monthly_usd == pytest.approx(39.4849 * 730, abs=0.01)


def test_plan_impossible_target_names_the_latency_target_and_what_meets_it() -> None:
    # 2 ms: the fastest option is 8 x H100 at (72.70e9 + 209.7e6) / (8 x 2680e9) = 3.40 ms
    # + 1.6 ms = 5.0 ms, so the message says at least 5.1 (rounded up to a tenth).
    with pytest.raises(PlanningError) as err:
        _plan_at(2)
    text = str(err.value)
    assert text.startswith("no candidate left: sizing removed the last 20 offer(s): "
                           "inference.latency_target_ms_per_token 2 removed the last")
    assert "fastest: 8 x H100 (tensor) at 5.0 ms/token at batch 1" in text
    assert "raise inference.latency_target_ms_per_token to at least 5.1" in text


def test_cli_plan_impossible_target_exits_2_with_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from infra_gen.cli import app

    text = (ROOT / "stacks" / "llama70b-serving.yaml").read_text()
    spec = tmp_path / "fast.yaml"
    spec.write_text(text.replace("latency_target_ms_per_token: 60",
                                 "latency_target_ms_per_token: 2"))
    result = CliRunner().invoke(app, ["plan", str(spec), "--catalog",
                                      str(GOLDEN / "catalog.csv")])
    assert result.exit_code == 2
    assert "latency_target_ms_per_token 2" in result.output
    assert "Traceback" not in result.output


def test_size_report_option_carries_the_reason() -> None:
    from infra_gen.sizing_report import option

    opt = option(size(_serve70(20, max_concurrency=8), L40S))
    assert opt["fits"] is False
    assert opt["unfit_reason"].startswith("inference.latency_target_ms_per_token 20 not met")
