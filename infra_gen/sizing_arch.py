"""The model's shape for sizing: the built-in table row, the workload's overrides, or a shape
derived from the parameter count alone.

Derivation rule for unknown models (stated in every Requirement's assumptions): the shape of
the nearest published model size on a fixed ladder, from GPT-3's table 2.1 (Brown et al. 2020:
125M 12x768, 350M 24x1024, 760M 24x1536, 1.3B 24x2048, 2.7B 32x2560, 6.7B 32x4096, 13B
40x5120, 175B 96x12288) plus Llama-2-70B (80x8192) and Llama-3.1-405B (126x16384); heads of
128 dims; full multi-head attention (kv_heads = heads: the largest KV cache, never an
under-estimate); vocab 32000; MLP 4 x hidden. Layers and hidden size never shrink as the
parameter count grows, so memory never does either.
"""

from __future__ import annotations

import dataclasses

from infra_gen.model_table import KNOWN_MODELS, ModelArch
from infra_gen.spec import ModelSpec

# Bytes per parameter at each storage precision. int4 is 4.127 bits: NF4 with double
# quantization stores 0.127 bits/param of scales (Dettmers et al. 2023, QLoRA, section 3).
BYTES_PER_PARAM: dict[str, float] = {
    "fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 4.127 / 8,
}
_DERIVED_HEAD_DIM = 128
# (upper bound in billions of parameters, layers, hidden): bounds are geometric midpoints.
_LADDER: tuple[tuple[float, int, int], ...] = (
    (0.21, 12, 768), (0.52, 24, 1024), (0.99, 24, 1536), (1.9, 24, 2048), (4.2, 32, 2560),
    (9.3, 32, 4096), (30.0, 40, 5120), (110.0, 80, 8192), (266.0, 96, 12288),
    (float("inf"), 126, 16384),
)


def derive_arch(name: str, parameters_b: float) -> ModelArch:
    """A plausible dense-decoder shape for ``parameters_b`` billion parameters."""
    layers, hidden = next((lay, hid) for bound, lay, hid in _LADDER if parameters_b <= bound)
    heads = hidden // _DERIVED_HEAD_DIM
    return ModelArch(
        name=name, parameters_b=parameters_b, kind="decoder", layers=layers,
        hidden_size=hidden, attention_heads=heads, kv_heads=heads, vocab_size=32000,
        intermediate_size=4 * hidden, max_context=None,
        source=f"shape derived from the parameter count ({layers} layers x {hidden} hidden, "
        "GPT-3 size ladder)",
    )


_OVERRIDES = ("parameters_b", "layers", "hidden_size", "attention_heads", "kv_heads",
              "vocab_size", "intermediate_size", "experts", "experts_active", "max_context")


def resolve_arch(model: ModelSpec) -> ModelArch:
    """Table row (or derived shape) with every field the workload states taking precedence."""
    known = KNOWN_MODELS.get(model.name or "")
    if known is not None:
        base = known
    else:
        if model.parameters_b is None:  # spec.consistency_errors rejects this before sizing
            raise ValueError("model needs a known name or parameters_b")
        base = derive_arch(model.name or "custom", model.parameters_b)
    updates = {key: getattr(model, key) for key in _OVERRIDES if getattr(model, key) is not None}
    if "attention_heads" in updates and "kv_heads" not in updates and known is None:
        updates["kv_heads"] = updates["attention_heads"]
    return dataclasses.replace(base, **updates) if updates else base


def embedding_params(arch: ModelArch) -> float:
    """Input embedding + untied output head (decoders), input embedding only otherwise.

    These stay in 16-bit when the rest is quantized (bitsandbytes and AWQ/GPTQ keep embeddings
    and lm_head unquantized)."""
    if arch.kind in ("cnn", "diffusion"):
        return 0.0
    copies = 2 if arch.kind == "decoder" else 1
    return min(copies * arch.vocab_size * arch.hidden_size, arch.parameters_b * 1e9 * 0.5)


def weight_bytes(arch: ModelArch, precision: str) -> float:
    """Bytes of all weights stored at ``precision`` (embeddings kept 16-bit when quantized)."""
    total = arch.parameters_b * 1e9
    per_param = BYTES_PER_PARAM[precision]
    if per_param >= 2:
        return total * per_param
    embed = embedding_params(arch)
    return (total - embed) * per_param + embed * 2.0


def lora_params(arch: ModelArch, rank: int) -> float:
    """LoRA adapter parameters with adapters on every linear layer of every block, as QLoRA
    (Dettmers et al. 2023, section 4) and LLaMA-Factory's ``lora_target: all`` do:
    rank x (d_in + d_out) per matrix; q, o: h->h; k, v: h->kv_heads*head_dim; gate, up: h->i;
    down: i->h, with the MLP matrices repeated per expert in mixture-of-experts models."""
    h = arch.hidden_size
    kv = arch.kv_heads * arch.head_dim
    attn = 2 * (h + h) + 2 * (h + kv)
    mlp = 3 * (h + arch.intermediate_size) * (arch.experts or 1)
    return float(rank * (attn + mlp) * arch.layers)


def layer_params(arch: ModelArch) -> float:
    """Parameters of one transformer block (all blocks assumed equal)."""
    return (arch.parameters_b * 1e9 - embedding_params(arch)) / max(1, arch.layers)
