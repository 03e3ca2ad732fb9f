"""Hypothesis: memory responds to the workload the way physics says it must.

More parameters, longer sequences, larger batches never need less memory; sharding the same
workload over more GPUs (FSDP, tensor or pipeline) never needs more per GPU.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from infra_gen.sizing import size
from infra_gen.sizing_arch import resolve_arch
from infra_gen.sizing_memory import overhead_bytes, sharded_terms
from infra_gen.sizing_workload import sizing_inputs
from tests.sizing_helpers import ACCELERATORS, fine_tune, serve

H200 = ACCELERATORS["H200"]
methods = st.sampled_from(["full", "lora", "qlora", "freeze"])
precisions = st.sampled_from(["bf16", "fp16", "fp32"])
params_b = st.floats(min_value=0.05, max_value=500, allow_nan=False)
_FAST = settings(max_examples=60, deadline=None)


def _train(p: float, method: str, precision: str, **training: Any) -> Any:
    return fine_tune({"parameters_b": p, "precision": precision}, method=method, **training)


def _total(w: Any) -> float:
    return size(w, H200).memory_gib.total


@_FAST
@given(params_b, params_b, methods, precisions, st.booleans())
def test_more_parameters_never_need_less_memory(
    a: float, b: float, method: str, precision: str, ckpt: bool
) -> None:
    small, large = sorted((a, b))
    kw = {"gradient_checkpointing": ckpt, "batch_size": 2, "seq_len": 1024}
    assert _total(_train(small, method, precision, **kw)) <= _total(
        _train(large, method, precision, **kw)) + 1e-9


@_FAST
@given(params_b, st.integers(1, 32768), st.integers(1, 32768), methods, st.booleans())
def test_longer_sequences_never_need_less_memory(
    p: float, s1: int, s2: int, method: str, ckpt: bool
) -> None:
    short, long = sorted((s1, s2))
    kw = {"gradient_checkpointing": ckpt, "batch_size": 1}
    assert _total(_train(p, method, "bf16", seq_len=short, **kw)) <= _total(
        _train(p, method, "bf16", seq_len=long, **kw)) + 1e-9


@_FAST
@given(params_b, st.integers(1, 64), st.integers(1, 64), methods)
def test_larger_batches_never_need_less_memory(p: float, b1: int, b2: int, method: str) -> None:
    small, large = sorted((b1, b2))
    assert _total(_train(p, method, "bf16", batch_size=small, seq_len=512)) <= _total(
        _train(p, method, "bf16", batch_size=large, seq_len=512)) + 1e-9


@_FAST
@given(params_b, st.integers(1, 4096), st.integers(1, 256), st.integers(1, 256))
def test_serving_more_context_or_concurrency_never_needs_less(
    p: float, tokens: int, c1: int, c2: int
) -> None:
    low, high = sorted((c1, c2))
    model = {"parameters_b": p}
    base = _total(serve(model, input_tokens=tokens, max_concurrency=low))
    assert base <= _total(serve(model, input_tokens=tokens, max_concurrency=high)) + 1e-9
    assert base <= _total(serve(model, input_tokens=tokens + 1, max_concurrency=low)) + 1e-9


def _per_gpu(w: Any, tp: int, pp: int, shards: int) -> float:
    inp = sizing_inputs(w, resolve_arch(w.model))
    terms = sharded_terms(inp, tp, pp, shards)
    return terms.tensors + overhead_bytes(terms)


@_FAST
@given(params_b, methods, st.integers(1, 7), st.sampled_from([1, 2, 4]), st.integers(1, 7))
def test_more_shards_never_need_more_per_gpu(
    p: float, method: str, shards: int, tp: int, pp: int
) -> None:
    w = _train(p, method, "bf16", batch_size=4, seq_len=2048)
    base = _per_gpu(w, tp, pp, shards)
    assert _per_gpu(w, tp, pp, shards + 1) <= base + 1e-6
    assert _per_gpu(w, tp * 2, pp, shards) <= base + 1e-6
    assert _per_gpu(w, tp, pp + 1, shards) <= base + 1e-6


@_FAST
@given(params_b, st.sampled_from([1, 2, 4]), st.integers(1, 7), st.integers(1, 128))
def test_serving_sharding_never_needs_more_per_gpu(
    p: float, tp: int, pp: int, concurrency: int
) -> None:
    w = serve({"parameters_b": p}, max_concurrency=concurrency)
    base = _per_gpu(w, tp, pp, 1)
    assert _per_gpu(w, tp * 2, pp, 1) <= base + 1e-6
    assert _per_gpu(w, tp, pp + 1, 1) <= base + 1e-6


@_FAST
@given(params_b, methods)
def test_chosen_layout_fits_its_margin_or_says_so(p: float, method: str) -> None:
    req = size(_train(p, method, "bf16", batch_size=1, seq_len=1024), ACCELERATORS["A100-80GB"])
    within = req.memory_gib_per_gpu.total <= 0.9 * 80
    assert req.fits == within
    assert req.memory_gib_per_gpu.total <= req.memory_gib.total + 1e-9
