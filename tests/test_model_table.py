"""The built-in model table: shapes agree with the published parameter counts."""

from __future__ import annotations

import pytest

from infra_gen.model_table import KNOWN_MODELS, ModelArch, all_models, canonical_model_name

REQUIRED = ("llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b",
            "mistral-7b", "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-72b", "bert-base",
            "bert-large", "resnet-50", "sdxl", "whisper-large")


def _decoder_params_b(arch: ModelArch) -> float:
    """Parameters implied by config.json fields for a Llama-style decoder (untied embeddings,
    SwiGLU MLP with 3 matrices per expert, norms and biases ignored)."""
    h, kv = arch.hidden_size, arch.kv_heads * arch.head_dim
    attn = 2 * h * h + 2 * h * kv
    mlp = 3 * h * arch.intermediate_size * (arch.experts or 1)
    return (arch.layers * (attn + mlp) + 2 * arch.vocab_size * h) / 1e9


def test_required_models_present() -> None:
    assert set(REQUIRED) <= set(KNOWN_MODELS)


@pytest.mark.parametrize("name", [a.name for a in all_models() if a.kind == "decoder"])
def test_decoder_shape_matches_published_parameter_count(name: str) -> None:
    # e.g. llama-2-7b: 32 x (2*4096^2 + 2*4096*4096 + 3*4096*11008) + 2*32000*4096 = 6.74e9
    arch = KNOWN_MODELS[name]
    assert _decoder_params_b(arch) == pytest.approx(arch.parameters_b, rel=0.02)


def test_llama_2_7b_shape_by_hand() -> None:
    arch = KNOWN_MODELS["llama-2-7b"]
    # 32 * (33,554,432 + 33,554,432 + 135,266,304) + 262,144,000 = 6,738,149,376; the model
    # card's 6,738,415,616 adds the RMSNorm weights (65 x 4096 = 266,240) this count ignores.
    assert round(_decoder_params_b(arch) * 1e9) == 6_738_149_376
    assert arch.head_dim == 128


def test_mixtral_active_parameters_match_model_card() -> None:
    arch = KNOWN_MODELS["mixtral-8x7b"]
    # experts' MLPs: 3 * 4096 * 14336 * 32 layers * 8 = 45.1B; 6 of 8 idle per token:
    # 46.7 - 45.1 * 0.75 = 12.88B (model card: 12.9B active)
    assert arch.active_parameters_b == pytest.approx(12.9, abs=0.05)
    assert KNOWN_MODELS["llama-2-7b"].active_parameters_b == 6.74


def test_grouped_query_attention_heads_divide() -> None:
    for arch in all_models():
        assert arch.attention_heads % arch.kv_heads == 0, arch.name
    assert KNOWN_MODELS["llama-2-70b"].kv_heads == 8
    assert KNOWN_MODELS["llama-2-7b"].kv_heads == 32


def test_every_row_names_its_source() -> None:
    for arch in all_models():
        assert arch.source.strip(), arch.name
        assert arch.name == arch.name.lower() and " " not in arch.name


@pytest.mark.parametrize(("alias", "canonical"), [
    ("meta-llama/Llama-2-7b-hf", "llama-2-7b"), ("Meta-Llama-3-8B", "llama-3-8b"),
    ("llama_3.1_70b", "llama-3.1-70b"), ("mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"),
    ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"), ("google-bert/bert-base-uncased", "bert-base"),
    ("openai/whisper-large-v3", "whisper-large"), ("ResNet50", "resnet-50"),
    ("stabilityai/stable-diffusion-xl-base-1.0", "sdxl"),
])
def test_aliases(alias: str, canonical: str) -> None:
    assert canonical_model_name(alias) == canonical


def test_unknown_name_is_none_and_long_context_variants_differ() -> None:
    assert canonical_model_name("my-private-model") is None
    assert KNOWN_MODELS["llama-3-8b"].max_context == 8192
    assert KNOWN_MODELS["llama-3.1-8b"].max_context == 131072


def test_all_models_sorted() -> None:
    names = [arch.name for arch in all_models()]
    assert names == sorted(names) and len(names) == len(KNOWN_MODELS)
