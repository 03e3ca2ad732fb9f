"""Memory terms in bytes for one replica, and how each term shards over GPUs.

Formulas (each term cites its source):
- Weights: parameters x bytes at the storage precision (``sizing_arch.weight_bytes``).
- Mixed-precision training with Adam: 2 (bf16 weights) + 2 (bf16 grads) + 12 (fp32 master copy,
  momentum, variance) = 16 bytes/param (Rajbhandari et al. 2020, ZeRO, section 3.1; EleutherAI
  "Transformer Math 101", 2023). fp32 training: 4 + 4 + optimizer states, no master copy.
  Optimizer states per trainable param: AdamW 8 bytes, 8-bit AdamW 2, SGD with momentum 4
  (HF "Model training anatomy").
- Activations per transformer layer, 16-bit, tensor-parallel degree t, no recomputation:
  s*b*h*(10 + 24/t + 5*a*s/(h*t)) bytes (Korthikanti et al. 2022, eq. 2 / table 2). Decoders are
  assumed to run FlashAttention/SDPA (Dao et al. 2022), which never stores the a*s^2 scores, so
  the last term is dropped for them; encoders keep it (eager attention, as in the HF
  measurement of BERT). With full recomputation each layer keeps only its 2*s*b*h-byte input,
  plus one layer's full working set during its recompute (Korthikanti, section 4.1).
  Decoder training adds the fp32 logits for the loss, 4*s*b*vocab bytes.
- KV cache: 2 x layers x kv_heads x head_dim x tokens x sequences x 2 bytes (vLLM, Kwon et al.
  2023; grouped-query attention honoured through kv_heads).
- Overhead per GPU: 1.25 GiB CUDA context + kernels (HF "Model training anatomy" measures
  1.3 GB on a V100) plus 5% of the tensors for allocator fragmentation (assumed).
"""

from __future__ import annotations

from dataclasses import dataclass

from infra_gen.model_table import ModelArch
from infra_gen.sizing_arch import BYTES_PER_PARAM, layer_params, lora_params, weight_bytes

GIB = 1024**3
CONTEXT_OVERHEAD_GIB = 1.25
FRAGMENTATION = 0.05
PREFILL_CHUNK_TOKENS = 8192  # tokens prefilled per forward (chunked prefill), assumed
FREEZE_TRAINABLE_LAYERS = 2  # LLaMA-Factory's default freeze_trainable_layers
OPTIMIZER_BYTES = {"adamw": 8.0, "adamw-8bit": 2.0, "sgd": 4.0}
# Non-transformer activation rules (GiB per item in flight, 16-bit), rules of thumb:
# ResNet-50 training ~45 MiB/image fits NVIDIA DeepLearningExamples' batch 256 on a 16 GB V100
# with AMP; inference keeps ~2 feature maps plus cuDNN workspace (~8 MiB/image at 224x224).
# SDXL at 1024x1024: ~2.5 GiB/image, dominated by the VAE decode (diffusers' default pipeline
# runs in ~10-12 GiB with 6.5 GiB of fp16 weights).
CNN_TRAIN_GIB_PER_ITEM = 45 / 1024
CNN_INFER_GIB_PER_ITEM = 8 / 1024
DIFFUSION_INFER_GIB_PER_ITEM = 2.5
DIFFUSION_TRAIN_GIB_PER_ITEM = 6.0


@dataclass(frozen=True)
class SizingInputs:
    """Everything memory depends on, pulled out of the workload once."""

    arch: ModelArch
    training: bool
    method: str  # "full", "lora", "qlora", "freeze", or "none" for serving
    precision: str
    optimizer: str = "adamw"
    seq_len: int = 2048
    batch: int = 1  # training micro-batch per GPU, or concurrent sequences when serving
    checkpointing: bool = True
    lora_rank: int = 16
    input_tokens: int = 512
    output_tokens: int = 256


@dataclass(frozen=True)
class Terms:
    """Byte amounts of one term set (unsharded or per GPU)."""

    weights: float
    kv_cache: float
    activations: float
    gradients: float
    optimizer: float

    @property
    def tensors(self) -> float:
        return self.weights + self.kv_cache + self.activations + self.gradients + self.optimizer


def trainable_params(inp: SizingInputs) -> float:
    """Parameters that get gradients and optimizer states."""
    arch = inp.arch
    if inp.method == "full":
        return arch.parameters_b * 1e9
    if inp.method in ("lora", "qlora"):
        return lora_params(arch, inp.lora_rank)
    if inp.method == "freeze":
        return layer_params(arch) * min(FREEZE_TRAINABLE_LAYERS, arch.layers)
    return 0.0


def base_weight_precision(inp: SizingInputs) -> str:
    """QLoRA stores the frozen base in 4-bit NF4, or 8-bit when the workload says int8."""
    if inp.method == "qlora":
        return "int8" if inp.precision == "int8" else "int4"
    return inp.precision


def model_state_bytes(inp: SizingInputs) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes for one unsharded replica."""
    weights = weight_bytes(inp.arch, base_weight_precision(inp))
    trainable = trainable_params(inp)
    if not inp.training or trainable == 0:
        return weights, 0.0, 0.0
    states = OPTIMIZER_BYTES[inp.optimizer]
    if inp.method == "full":
        mixed = inp.precision != "fp32"
        grad_bytes = 2.0 if mixed else 4.0
        master = 4.0 if mixed else 0.0
        return weights, trainable * grad_bytes, trainable * (master + states)
    # Adapters / unfrozen layers are trained in fp32 (PEFT keeps adapter weights in fp32 under
    # autocast; LLaMA-Factory upcasts freeze-tuned layers): 4 weight + 4 grad + optimizer states.
    # Freeze-tuned layers are already in the base weights at 16 bits: +2 bytes, not +4.
    extra = 2.0 if inp.method == "freeze" else 4.0
    return weights + trainable * extra, trainable * 4.0, trainable * states


def _act_scale(inp: SizingInputs) -> float:
    return 2.0 if inp.precision == "fp32" else 1.0


def training_activation_bytes(inp: SizingInputs, tp: int) -> float:
    """Korthikanti et al. 2022 per-layer activations, per GPU at tensor-parallel degree ``tp``."""
    arch = inp.arch
    if arch.kind in ("cnn", "diffusion"):
        per_item = CNN_TRAIN_GIB_PER_ITEM if arch.kind == "cnn" else DIFFUSION_TRAIN_GIB_PER_ITEM
        factor = 0.35 if inp.checkpointing else 1.0  # sqrt-style checkpointing, assumed
        return per_item * GIB * inp.batch * factor * _act_scale(inp)
    s, b, h = inp.seq_len, inp.batch, arch.hidden_size
    sbh = s * b * h
    scores = 0.0 if arch.kind == "decoder" else 5.0 * arch.attention_heads * s * s * b
    moe_extra = 19.0 * sbh * ((arch.experts_active or 1) - 1)  # MLP part (19sbh) per routed expert
    per_layer = sbh * (10 + 24 / tp) + (scores + moe_extra) / tp
    layers = arch.layers
    if inp.method == "freeze":
        layers = min(FREEZE_TRAINABLE_LAYERS, arch.layers)  # backward stops at the frozen part
    stored = 2.0 * sbh * layers / tp + per_layer if inp.checkpointing else per_layer * layers
    logits = 4.0 * s * b * arch.vocab_size / tp if arch.kind == "decoder" else 0.0
    return (stored + logits) * _act_scale(inp)


def kv_cache_bytes(inp: SizingInputs) -> float:
    """KV cache for ``batch`` concurrent sequences of input + output tokens (vLLM sizing)."""
    arch = inp.arch
    if inp.training or arch.kind not in ("decoder", "encoder-decoder"):
        return 0.0
    tokens = inp.input_tokens + inp.output_tokens
    if arch.kind == "encoder-decoder":
        tokens = 1500 + inp.output_tokens  # Whisper: cross-attention over 1500 audio frames
    element = 4.0 if inp.precision == "fp32" else 2.0
    return 2.0 * arch.layers * arch.kv_heads * arch.head_dim * tokens * inp.batch * element


def inference_workspace_bytes(inp: SizingInputs, tp: int) -> float:
    """Activation workspace of one forward: one layer's intermediates over a prefill chunk plus
    fp32 last-token logits per sequence (nothing is stored for backward)."""
    arch = inp.arch
    if arch.kind == "cnn":
        return CNN_INFER_GIB_PER_ITEM * GIB * inp.batch * _act_scale(inp)
    if arch.kind == "diffusion":
        return DIFFUSION_INFER_GIB_PER_ITEM * GIB * inp.batch * _act_scale(inp)
    h, i = arch.hidden_size, arch.intermediate_size
    kv = arch.kv_heads * arch.head_dim
    if arch.kind == "encoder":
        tokens = inp.input_tokens * inp.batch
        scores = 2.0 * arch.attention_heads * inp.input_tokens**2 * inp.batch
    else:
        tokens = min(inp.input_tokens * inp.batch, PREFILL_CHUNK_TOKENS)
        scores = 0.0
    per_token = 2.0 * (2 * h + 2 * kv + 3 * i * (arch.experts_active or 1))
    logits = 4.0 * arch.vocab_size * inp.batch if arch.kind != "encoder" else 0.0
    return ((tokens * per_token + scores) / tp + logits) * _act_scale(inp)


def unsharded_terms(inp: SizingInputs) -> Terms:
    """One replica on one (imaginary, unbounded) GPU."""
    weights, grads, optim = model_state_bytes(inp)
    acts = training_activation_bytes(inp, 1) if inp.training else inference_workspace_bytes(inp, 1)
    return Terms(weights, kv_cache_bytes(inp), acts, grads, optim)


def sharded_terms(inp: SizingInputs, tp: int, pp: int, shards: int) -> Terms:
    """Per-GPU terms under tensor parallel ``tp``, pipeline ``pp`` and FSDP/ZeRO-3 ``shards``.

    Model states divide by tp * pp * shards (ZeRO-3: 16P/N, Rajbhandari et al. 2020); FSDP also
    holds the current and the prefetched layer unsharded (2 layers at the storage precision).
    The KV cache divides by min(tp, kv_heads) (heads are replicated beyond that, as vLLM does)
    and by pp.
    Activations divide by tp only: with 1F1B the first pipeline stage holds pp micro-batches of
    layers/pp layers, i.e. one full model's worth (Korthikanti et al. 2022, section 4.2.3)."""
    weights, grads, optim = model_state_bytes(inp)
    divisor = tp * pp * shards
    stage = weights / (tp * pp)
    two_layers = 2 * weights / (max(1, inp.arch.layers) * tp)
    gather = min(two_layers, stage) * (1 - 1 / shards)  # own shard of those layers counted once
    kv = kv_cache_bytes(inp) / min(tp, max(1, inp.arch.kv_heads)) / pp
    if inp.training:
        acts = training_activation_bytes(inp, tp)
    else:
        acts = inference_workspace_bytes(inp, tp)
    return Terms(stage / shards + gather, kv, acts, grads / divisor, optim / divisor)


def overhead_bytes(terms: Terms) -> float:
    return CONTEXT_OVERHEAD_GIB * GIB + FRAGMENTATION * terms.tensors


def bytes_per_param(precision: str) -> float:
    return BYTES_PER_PARAM[precision]
