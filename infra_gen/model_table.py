"""Built-in architecture figures for well-known open models, so ``model.name`` alone is enough.

Each figure is copied from the model's published ``config.json`` on the Hugging Face Hub (fields
``num_hidden_layers``, ``hidden_size``, ``num_attention_heads``, ``num_key_value_heads``,
``vocab_size``, ``intermediate_size``, ``max_position_embeddings``) or from the paper named in
``source``; parameter counts are the model cards' figures. Read 2026-11. Names are lowercase with
'-' separators; aliases map common spellings to them.

Non-transformer rows (ResNet-50, SDXL) carry ``layers``/``hidden_size`` only as rough shape
hints: sizing treats ``cnn`` and ``diffusion`` models by weights + a per-item activation
workspace (see ``sizing_memory``), never by the transformer formulas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ModelKind = Literal["decoder", "encoder", "encoder-decoder", "cnn", "diffusion"]


@dataclass(frozen=True)
class ModelArch:
    name: str
    parameters_b: float
    kind: ModelKind
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    vocab_size: int
    intermediate_size: int
    max_context: int | None
    source: str
    experts: int | None = None
    experts_active: int | None = None
    # Forward FLOPs for one item (image) where 2 x params x tokens does not apply (CNNs).
    flops_per_item_g: float | None = None

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.attention_heads

    @property
    def active_parameters_b(self) -> float:
        """Parameters one token passes through: all of them, except in mixture-of-experts."""
        if not self.experts or not self.experts_active:
            return self.parameters_b
        idle = 1 - self.experts_active / self.experts
        return self.parameters_b - self.expert_parameters_b * idle

    @property
    def expert_parameters_b(self) -> float:
        """Parameters in all experts' MLPs (3 matrices h x i each, SwiGLU), 0 for dense models."""
        if not self.experts:
            return 0.0
        per_expert = 3 * self.hidden_size * self.intermediate_size * self.layers
        return per_expert * self.experts / 1e9


_HF = "https://huggingface.co/"
_TABLE: tuple[ModelArch, ...] = (
    ModelArch("llama-2-7b", 6.74, "decoder", 32, 4096, 32, 32, 32000, 11008, 4096,
              _HF + "meta-llama/Llama-2-7b-hf config.json; Touvron et al. 2023"),
    ModelArch("llama-2-13b", 13.0, "decoder", 40, 5120, 40, 40, 32000, 13824, 4096,
              _HF + "meta-llama/Llama-2-13b-hf config.json"),
    ModelArch("llama-2-70b", 69.0, "decoder", 80, 8192, 64, 8, 32000, 28672, 4096,
              _HF + "meta-llama/Llama-2-70b-hf config.json (GQA, 8 KV heads)"),
    ModelArch("llama-3-8b", 8.03, "decoder", 32, 4096, 32, 8, 128256, 14336, 8192,
              _HF + "meta-llama/Meta-Llama-3-8B config.json"),
    ModelArch("llama-3-70b", 70.6, "decoder", 80, 8192, 64, 8, 128256, 28672, 8192,
              _HF + "meta-llama/Meta-Llama-3-70B config.json"),
    ModelArch("llama-3.1-8b", 8.03, "decoder", 32, 4096, 32, 8, 128256, 14336, 131072,
              _HF + "meta-llama/Llama-3.1-8B config.json (max_position_embeddings 131072)"),
    ModelArch("llama-3.1-70b", 70.6, "decoder", 80, 8192, 64, 8, 128256, 28672, 131072,
              _HF + "meta-llama/Llama-3.1-70B config.json (max_position_embeddings 131072)"),
    ModelArch("mistral-7b", 7.24, "decoder", 32, 4096, 32, 8, 32000, 14336, 32768,
              _HF + "mistralai/Mistral-7B-v0.1 config.json"),
    ModelArch("mixtral-8x7b", 46.7, "decoder", 32, 4096, 32, 8, 32000, 14336, 32768,
              _HF + "mistralai/Mixtral-8x7B-v0.1 config.json (num_local_experts 8, "
              "num_experts_per_tok 2; 46.7B total, 12.9B active per the model card)",
              experts=8, experts_active=2),
    ModelArch("qwen2.5-7b", 7.62, "decoder", 28, 3584, 28, 4, 152064, 18944, 131072,
              _HF + "Qwen/Qwen2.5-7B config.json (same shape as Qwen2-7B)"),
    ModelArch("qwen2.5-14b", 14.7, "decoder", 48, 5120, 40, 8, 152064, 13824, 131072,
              _HF + "Qwen/Qwen2.5-14B config.json"),
    ModelArch("qwen2.5-32b", 32.5, "decoder", 64, 5120, 40, 8, 152064, 27648, 131072,
              _HF + "Qwen/Qwen2.5-32B config.json"),
    ModelArch("qwen2.5-72b", 72.7, "decoder", 80, 8192, 64, 8, 152064, 29568, 131072,
              _HF + "Qwen/Qwen2.5-72B config.json (same shape as Qwen2-72B)"),
    ModelArch("bert-base", 0.110, "encoder", 12, 768, 12, 12, 30522, 3072, 512,
              _HF + "google-bert/bert-base-uncased config.json; Devlin et al. 2018 (110M)"),
    ModelArch("bert-large", 0.336, "encoder", 24, 1024, 16, 16, 30522, 4096, 512,
              _HF + "google-bert/bert-large-uncased config.json; Devlin et al. 2018 (336M)"),
    ModelArch("whisper-large", 1.55, "encoder-decoder", 32, 1280, 20, 20, 51866, 5120, None,
              _HF + "openai/whisper-large-v3 config.json (32 encoder + 32 decoder layers, "
              "d_model 1280; 1.55B); audio input is 1500 encoder frames, output <= 448 tokens"),
    ModelArch("resnet-50", 0.0256, "cnn", 50, 2048, 1, 1, 1000, 2048, None,
              "He et al. 2015; torchvision resnet50 (25.6M parameters, 4.09 GMACs at 224x224)",
              flops_per_item_g=8.2),
    ModelArch("sdxl", 3.5, "diffusion", 70, 2048, 1, 1, 49408, 2048, None,
              "Podell et al. 2023 (SDXL): 2.6B UNet + 817M text encoders + 84M VAE; "
              + _HF + "stabilityai/stable-diffusion-xl-base-1.0"),
)

KNOWN_MODELS: dict[str, ModelArch] = {arch.name: arch for arch in _TABLE}

_ALIASES: dict[str, str] = {
    "llama2-7b": "llama-2-7b",
    "llama2-13b": "llama-2-13b",
    "llama2-70b": "llama-2-70b",
    "llama3-8b": "llama-3-8b",
    "meta-llama-3-8b": "llama-3-8b",
    "llama3-70b": "llama-3-70b",
    "meta-llama-3-70b": "llama-3-70b",
    "llama3.1-8b": "llama-3.1-8b",
    "meta-llama-3.1-8b": "llama-3.1-8b",
    "llama3.1-70b": "llama-3.1-70b",
    "meta-llama-3.1-70b": "llama-3.1-70b",
    "mistral-7b-v0.1": "mistral-7b",
    "mixtral-8x7b-v0.1": "mixtral-8x7b",
    "qwen2-7b": "qwen2.5-7b",
    "qwen2-72b": "qwen2.5-72b",
    "bert-base-uncased": "bert-base",
    "bert-base-cased": "bert-base",
    "bert-large-uncased": "bert-large",
    "bert-large-cased": "bert-large",
    "whisper-large-v3": "whisper-large",
    "whisper-large-v2": "whisper-large",
    "resnet50": "resnet-50",
    "stable-diffusion-xl": "sdxl",
    "stable-diffusion-xl-base-1.0": "sdxl",
    "sdxl-base": "sdxl",
}


def canonical_model_name(name: str) -> str | None:
    """The table's name for ``name`` (case, '_' and ' ' forgiven), or None if unknown."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    key = key.split("/")[-1]
    for suffix in ("-instruct", "-chat", "-hf"):
        if key.endswith(suffix) and key not in KNOWN_MODELS and key not in _ALIASES:
            key = key[: -len(suffix)]
    if key in KNOWN_MODELS:
        return key
    return _ALIASES.get(key)


def all_models() -> tuple[ModelArch, ...]:
    """Every built-in row, sorted by name (for ``infra-gen models``)."""
    return tuple(sorted(_TABLE, key=lambda arch: arch.name))
