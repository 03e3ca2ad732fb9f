"""Hours and replicas: how long a run takes and how many replicas serve the traffic.

- Training FLOPs = 6 x params x tokens (Kaplan et al. 2020; EleutherAI "Transformer Math 101"),
  with active parameters for mixture-of-experts. Full activation recomputation adds one forward
  (2 x params x tokens) of work that MFU does not count (Korthikanti et al. 2022, section 5).
  LoRA/QLoRA skip the weight gradients of the frozen base but still back-propagate activation
  gradients through it: 2 (forward) + 2 (activation backward) = 4 x params x tokens, plus the
  adapters' own 6 x adapter params x tokens; LoRA's authors measured a 25% speed-up over full
  fine-tuning of GPT-3 175B (Hu et al. 2021, section 4.2), consistent with 4/6.
  QLoRA also dequantizes every weight in each forward and backward; Raschka ("Practical Tips
  for Finetuning LLMs Using LoRA", 2023) measured ~39% more run time than LoRA, so its
  throughput is divided by 1.39. Freeze-tuning: 2 x params (forward) + 4 x trainable params.
- Time = FLOPs / (GPUs x dense peak at the precision x MFU x scaling efficiency). MFU 40%
  (well-tuned runs reach 35-55%: PaLM 46%, Megatron 3072-GPU GPT 52%); scaling efficiency 1.0
  on one GPU, 0.95 within one node, and x0.92 per doubling of nodes beyond one (assumed).
- Decode is memory-bound: one step reads every weight once plus each sequence's KV cache, at
  80% of peak HBM bandwidth (assumed); prefill is compute-bound at 2 x params x input tokens,
  at 50% of dense peak (assumed).
- Per-token latency of one sequence: tensor parallel degree t splits every weight matrix, so
  each GPU reads 1/t of the bytes: step = bytes / (t x bandwidth x 80%) + the all-reduces.
  Megatron-style tensor parallelism does 2 all-reduces per layer per forward (Shoeybi et al.
  2019, section 3); decode messages are tiny (batch x hidden x 2 bytes), so each costs NCCL's
  small-message latency floor over NVLink, ~10 us (assumed; the order of nccl-tests'
  all_reduce_perf latencies for KB-sized messages on NVSwitch hosts). Llama-3-70B: 2 x 80 x
  10 us = 1.6 ms per token. Pipeline stages run one after another for a given token, so they
  add no speed to it; they raise throughput instead, with one micro-batch per stage in flight
  (vLLM's pipeline-parallel virtual engines): p micro-batches of m sequences, each getting a
  token every step(m).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from infra_gen.catalog.models import Accelerator
from infra_gen.model_table import ModelArch
from infra_gen.sizing_arch import layer_params, lora_params, weight_bytes
from infra_gen.sizing_memory import FREEZE_TRAINABLE_LAYERS, SizingInputs, kv_cache_bytes

MFU = 0.40
PREFILL_MFU = 0.50
BANDWIDTH_EFFICIENCY = 0.80
INTRA_NODE_EFFICIENCY = 0.95
PER_NODE_DOUBLING_EFFICIENCY = 0.92
QLORA_SLOWDOWN = 1.39
ALLREDUCES_PER_LAYER = 2
ALLREDUCE_SECONDS = 10e-6


def peak_flops(accelerator: Accelerator, precision: str) -> float:
    """Dense tensor FLOP/s at ``precision``: fp8 uses the fp8 peak where the GPU has one, int8
    the int8 peak, fp32 runs as TF32 at half the bf16 peak (A100/H100 datasheets); int4
    weight-only quantization computes in 16-bit."""
    half = accelerator.bf16_dense_tflops or accelerator.fp16_dense_tflops or 0.0
    table = {
        "fp8": accelerator.fp8_dense_tflops or half,
        "int8": accelerator.int8_dense_tops or half,
        "fp32": half / 2,
    }
    return table.get(precision, half) * 1e12


def scaling_efficiency(gpus: int, nodes: int) -> float:
    if gpus <= 1:
        return 1.0
    if nodes <= 1:
        return INTRA_NODE_EFFICIENCY
    return INTRA_NODE_EFFICIENCY * PER_NODE_DOUBLING_EFFICIENCY ** math.log2(nodes)


def training_flops(inp: SizingInputs, tokens: float) -> float:
    """Model FLOPs of one run over ``tokens`` tokens, recomputation and QLoRA cost included."""
    arch = inp.arch
    params = arch.active_parameters_b * 1e9
    recompute = 2.0 * params if inp.checkpointing else 0.0
    if inp.method == "full":
        per_token = 6.0 * params + recompute
    elif inp.method in ("lora", "qlora"):
        per_token = 4.0 * params + 6.0 * lora_params(arch, inp.lora_rank) + recompute
        if inp.method == "qlora":
            per_token *= QLORA_SLOWDOWN
    else:
        trainable = layer_params(arch) * min(FREEZE_TRAINABLE_LAYERS, arch.layers)
        per_token = 2.0 * params + 4.0 * trainable
    return per_token * tokens


def training_hours(
    inp: SizingInputs, accelerator: Accelerator, compute_precision: str, tokens: float,
    gpus: int, nodes: int,
) -> float:
    """Wall-clock hours of a run on ``gpus`` GPUs spread over ``nodes`` instances."""
    rate = gpus * peak_flops(accelerator, compute_precision) * MFU * scaling_efficiency(gpus, nodes)
    return training_flops(inp, tokens) / rate / 3600.0


@dataclass(frozen=True)
class ServingEstimate:
    requests_per_second_per_replica: float
    batch: int  # concurrent sequences per replica (p micro-batches of up to batch / p)
    ms_per_token: float  # token latency of one sequence at that batch
    latency_met: bool
    ms_per_token_batch1: float = 0.0  # the fastest this replica can decode one sequence


def tp_comm_seconds(arch: ModelArch, tp: int) -> float:
    """All-reduce time per token under tensor parallel ``tp`` (none on one GPU)."""
    return 0.0 if tp <= 1 else ALLREDUCES_PER_LAYER * arch.layers * ALLREDUCE_SECONDS


def step_seconds(inp: SizingInputs, accelerator: Accelerator, tp: int, micro_batch: int) -> float:
    """One sequence's token latency in a micro-batch of ``micro_batch`` sequences: every
    weight and their KV caches read once, split over ``tp`` GPUs (pipeline stages take their
    share in turn, so the sum is the whole model), plus tensor-parallel all-reduces."""
    arch = inp.arch
    kv_per_seq = kv_cache_bytes(_with_batch(inp, 1))
    read = weight_bytes(arch, inp.precision) + micro_batch * kv_per_seq * 0.5  # half full avg
    bandwidth = tp * accelerator.memory_bandwidth_gb_s * 1e9 * BANDWIDTH_EFFICIENCY
    memory_s = read / bandwidth
    compute_s = 2.0 * arch.active_parameters_b * 1e9 * micro_batch / (
        tp * peak_flops(accelerator, inp.precision) * PREFILL_MFU
    )
    return max(memory_s, compute_s) + tp_comm_seconds(arch, tp)


def _with_batch(inp: SizingInputs, batch: int) -> SizingInputs:
    return replace(inp, batch=batch)


def _item_flops(arch: ModelArch, inp: SizingInputs) -> float:
    if arch.flops_per_item_g is not None:
        return arch.flops_per_item_g * 1e9
    return 2.0 * arch.active_parameters_b * 1e9 * (inp.input_tokens + inp.output_tokens)


def serving_estimate(
    inp: SizingInputs, accelerator: Accelerator, tp: int, pp: int, latency_ms: float | None,
) -> ServingEstimate:
    """Requests/s one replica (``tp`` x ``pp`` GPUs) sustains with continuous batching up to
    ``inp.batch`` sequences, at the largest batch whose token latency meets ``latency_ms``
    (latency grows with the batch, throughput too). When even batch 1 misses the target, the
    batch-1 figures come back with ``latency_met`` False."""
    arch = inp.arch
    gpus = tp * pp
    compute = gpus * peak_flops(accelerator, inp.precision) * PREFILL_MFU
    if arch.kind not in ("decoder", "encoder-decoder"):
        return ServingEstimate(compute / _item_flops(arch, inp), inp.batch, 0.0, True)
    prefill_s = 2.0 * arch.active_parameters_b * 1e9 * inp.input_tokens / compute
    first = step_seconds(inp, accelerator, tp, 1)
    best = ServingEstimate(0.0, 1, 0.0, False)
    for batch in _batches(inp.batch):
        step = step_seconds(inp, accelerator, tp, -(-batch // pp))
        met = latency_ms is None or step * 1000 <= latency_ms
        if not met and best.requests_per_second_per_replica > 0:
            break  # a larger batch only reads more KV cache per step: slower still
        rps = 1.0 / (prefill_s + inp.output_tokens * step / batch)
        if rps >= best.requests_per_second_per_replica:
            best = ServingEstimate(rps, batch, step * 1000, met, first * 1000)
    return best


def _batches(max_batch: int) -> list[int]:
    sizes = [1]
    while sizes[-1] * 2 < max_batch:
        sizes.append(sizes[-1] * 2)
    if max_batch > 1:
        sizes.append(max_batch)
    return sizes


def replicas_for(rps: float, per_replica: float) -> int:
    if rps <= 0:
        return 0
    if per_replica <= 0:
        return 1
    return max(1, math.ceil(rps / per_replica - 1e-9))
