"""From a Workload to the numbers sizing needs, the checks no hardware can fix, and the list
of assumptions a user sees next to every estimate."""

from __future__ import annotations

from infra_gen.errors import SizingError
from infra_gen.model_table import ModelArch
from infra_gen.sizing_memory import (
    CONTEXT_OVERHEAD_GIB,
    FRAGMENTATION,
    FREEZE_TRAINABLE_LAYERS,
    PREFILL_CHUNK_TOKENS,
    SizingInputs,
)
from infra_gen.sizing_parallel import GPUS_PER_NODE, MAX_NODES, SAFETY_MARGIN
from infra_gen.sizing_throughput import (
    ALLREDUCE_SECONDS,
    ALLREDUCES_PER_LAYER,
    BANDWIDTH_EFFICIENCY,
    MFU,
    PER_NODE_DOUBLING_EFFICIENCY,
    QLORA_SLOWDOWN,
)
from infra_gen.spec import Workload

BATCH_JOB_CONCURRENCY = 32  # sequences per forward for batch jobs (no inference block)


def _training_precision(workload: Workload, method: str) -> str:
    precision = workload.model.precision
    if method in ("full", "freeze") and precision in ("int8", "int4"):
        raise SizingError(
            f"{workload.name}: model.precision {precision} cannot be trained with method "
            f"{method}; use precision bf16 (or fp8), or training.method qlora for a "
            f"quantized frozen base"
        )
    if precision == "fp8" and method != "qlora":
        return "bf16"  # FP8 training keeps bf16 weights; only the GEMMs run in fp8
    return precision


def _check_context(workload: Workload, arch: ModelArch, tokens: int, what: str) -> None:
    limit = arch.max_context
    if limit is not None and tokens > limit:
        raise SizingError(
            f"{workload.name}: {what} {tokens} exceeds {arch.name}'s maximum context of "
            f"{limit} tokens; use at most {limit} or a longer-context model"
        )


def sizing_inputs(workload: Workload, arch: ModelArch) -> SizingInputs:
    """The workload's figures that memory depends on; SizingError for impossible contexts."""
    training = workload.training
    if workload.is_training and training is not None:
        method = training.method or ("full" if workload.type == "training" else "lora")
        _check_context(workload, arch, training.seq_len, "training.seq_len")
        return SizingInputs(
            arch=arch, training=True, method=method,
            precision=_training_precision(workload, method), optimizer=training.optimizer,
            seq_len=training.seq_len, batch=training.batch_size,
            checkpointing=training.gradient_checkpointing, lora_rank=training.lora_rank,
        )
    spec = workload.inference
    if spec is not None:
        if arch.kind == "encoder":
            _check_context(workload, arch, spec.input_tokens, "inference.input_tokens")
        elif arch.kind == "decoder":
            total = spec.input_tokens + spec.output_tokens
            _check_context(workload, arch, total, "inference.input_tokens + output_tokens")
        return SizingInputs(
            arch=arch, training=False, method="none", precision=workload.model.precision,
            batch=spec.max_concurrency, input_tokens=spec.input_tokens,
            output_tokens=spec.output_tokens,
        )
    return _offline_inputs(workload, arch)


def _offline_inputs(workload: Workload, arch: ModelArch) -> SizingInputs:
    """Batch jobs: 32 sequences of 512 tokens per forward (encoders: no generated tokens);
    dev boxes: one interactive sequence of 512 + 256 tokens."""
    batch = BATCH_JOB_CONCURRENCY if workload.type == "batch" else 1
    input_tokens = min(512, arch.max_context or 512)
    output_tokens = 0 if arch.kind == "encoder" else 256
    return SizingInputs(
        arch=arch, training=False, method="none", precision=workload.model.precision,
        batch=batch, input_tokens=input_tokens, output_tokens=output_tokens,
    )


def tokens_per_run(workload: Workload) -> float:
    training = workload.training
    if training is None or training.tokens_b is None:
        return 0.0
    return training.tokens_b * 1e9


def assumptions_for(workload: Workload, arch: ModelArch, inp: SizingInputs) -> tuple[str, ...]:
    """Every rule and default behind this workload's numbers, in the order they apply."""
    notes = [
        f"model: {arch.name}, {arch.parameters_b:g}B parameters ({arch.source})",
        f"fits when per-GPU total <= {SAFETY_MARGIN:.0%} of GPU memory; at most {MAX_NODES} "
        f"nodes x {GPUS_PER_NODE} GPUs; tensor parallel only over NVLink within one node",
        f"overhead: {CONTEXT_OVERHEAD_GIB} GiB CUDA context per GPU + {FRAGMENTATION:.0%} "
        f"allocator fragmentation",
    ]
    if arch.kind in ("cnn", "diffusion"):
        notes.append(f"{arch.kind}: weights + per-item activation workspace rule of thumb "
                     "(not the transformer formulas); one GPU per replica")
    if inp.training:
        notes += _training_notes(inp)
    else:
        notes += _serving_notes(workload, inp)
    return tuple(notes)


def _training_notes(inp: SizingInputs) -> list[str]:
    notes = [
        f"training {inp.method}: micro-batch {inp.batch} per GPU x seq_len {inp.seq_len}, "
        f"gradient checkpointing {'on' if inp.checkpointing else 'off'}",
        "activations: Korthikanti et al. 2022 per-layer s*b*h*(10+24/t) bytes (+5as/h for "
        "encoders, FlashAttention assumed for decoders), 2*s*b*h per layer when "
        "recomputing, fp32 logits 4*s*b*vocab",
        f"compute: MFU {MFU:.0%}, scaling efficiency 0.95 within a node, "
        f"x{PER_NODE_DOUBLING_EFFICIENCY} per doubling of nodes",
    ]
    if inp.method == "full":
        notes.append(f"full: weights + grads in {inp.precision}; optimizer {inp.optimizer} "
                     "states (+ fp32 master weights in mixed precision): 16 bytes/param for "
                     "bf16 AdamW (ZeRO paper); FLOPs 6 x params x tokens (+2 when recomputing)")
    elif inp.method in ("lora", "qlora"):
        base = "4-bit NF4 (4.127 bits/param)" if inp.method == "qlora" else inp.precision
        notes.append(f"{inp.method}: frozen base in {base}; rank-{inp.lora_rank} adapters on "
                     "every linear layer, trained in fp32 with their optimizer states; FLOPs "
                     "4 x params x tokens + 6 x adapter params x tokens")
        if inp.method == "qlora":
            notes.append(f"qlora: {QLORA_SLOWDOWN}x LoRA's run time for dequantization "
                         "(Raschka 2023)")
    else:
        notes.append(f"freeze: last {FREEZE_TRAINABLE_LAYERS} layers trainable "
                     "(LLaMA-Factory default), the rest frozen at the model precision")
    notes.append("sharding: FSDP/ZeRO-3 divides model states by N (+2 gathered layers); "
                 "tensor parallel divides states and activations by t; pipeline divides "
                 "states by p (activations stay one model's worth under 1F1B)")
    return notes


def _serving_notes(workload: Workload, inp: SizingInputs) -> list[str]:
    notes = [f"serving {inp.precision} weights; {inp.batch} concurrent sequences of "
             f"{inp.input_tokens} + {inp.output_tokens} tokens"]
    if inp.arch.kind in ("decoder", "encoder-decoder"):
        notes += [
            "KV cache: 2 x layers x kv_heads x head_dim x tokens x sequences x 2 bytes "
            "(vLLM; grouped-query attention honoured), reserved for max_concurrency",
            f"activation workspace: one layer over a {PREFILL_CHUNK_TOKENS}-token prefill "
            "chunk + fp32 last-token logits",
            f"decode memory-bound at {BANDWIDTH_EFFICIENCY:.0%} of HBM bandwidth; prefill "
            "compute-bound at 50% of dense peak",
            f"token latency: bytes read / (tensor-parallel degree x HBM bandwidth x "
            f"{BANDWIDTH_EFFICIENCY:.0%}) + {ALLREDUCES_PER_LAYER} all-reduces per layer x "
            f"{ALLREDUCE_SECONDS * 1e6:g} us when tensor parallel; pipeline stages add "
            "throughput, not speed",
        ]
        target = workload.inference.latency_target_ms_per_token if workload.inference else None
        if target is not None:
            notes.append(f"latency target {target:g} ms/token: the layout that meets it at "
                         "batch 1 with the fewest GPUs at peak (per replica x replicas), batch "
                         "per replica capped by it; no such layout: the accelerator does not "
                         "fit")
    if workload.type == "batch":
        notes.append("batch hours: items / (items_per_gpu_second x GPUs)")
    return notes
