"""Built-in architecture figures for well-known open models, so ``model.name`` alone is enough.

Each figure is copied from the model's published ``config.json`` (Hugging Face Hub model card)
or paper; the ``source`` field names it. Names are lowercase with '-' separators; aliases map
common spellings to them.
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

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.attention_heads


_TABLE: tuple[ModelArch, ...] = (
    ModelArch(
        "llama-2-7b", 6.74, "decoder", 32, 4096, 32, 32, 32000, 11008, 4096,
        "meta-llama/Llama-2-7b-hf config.json; Touvron et al. 2023",
    ),
    ModelArch(
        "llama-2-13b", 13.0, "decoder", 40, 5120, 40, 40, 32000, 13824, 4096,
        "meta-llama/Llama-2-13b-hf config.json",
    ),
    ModelArch(
        "llama-2-70b", 69.0, "decoder", 80, 8192, 64, 8, 32000, 28672, 4096,
        "meta-llama/Llama-2-70b-hf config.json (GQA, 8 KV heads)",
    ),
    ModelArch(
        "llama-3-8b", 8.03, "decoder", 32, 4096, 32, 8, 128256, 14336, 8192,
        "meta-llama/Meta-Llama-3-8B config.json",
    ),
    ModelArch(
        "llama-3-70b", 70.6, "decoder", 80, 8192, 64, 8, 128256, 28672, 8192,
        "meta-llama/Meta-Llama-3-70B config.json",
    ),
    ModelArch(
        "mistral-7b", 7.24, "decoder", 32, 4096, 32, 8, 32000, 14336, 32768,
        "mistralai/Mistral-7B-v0.1 config.json",
    ),
    ModelArch(
        "resnet-50", 0.0256, "cnn", 50, 2048, 1, 1, 1000, 2048, None,
        "He et al. 2015; torchvision resnet50 (25.6M parameters)",
    ),
)

KNOWN_MODELS: dict[str, ModelArch] = {arch.name: arch for arch in _TABLE}

_ALIASES: dict[str, str] = {
    "llama2-7b": "llama-2-7b",
    "llama3-8b": "llama-3-8b",
    "meta-llama-3-8b": "llama-3-8b",
    "llama-3.1-8b": "llama-3-8b",
    "llama3-70b": "llama-3-70b",
    "llama-3.1-70b": "llama-3-70b",
    "mistral-7b-v0.1": "mistral-7b",
    "resnet50": "resnet-50",
}


def canonical_model_name(name: str) -> str | None:
    """The table's name for ``name`` (case, '_' and ' ' forgiven), or None if unknown."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    key = key.split("/")[-1]
    if key in KNOWN_MODELS:
        return key
    return _ALIASES.get(key)
