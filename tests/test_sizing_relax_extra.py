"""What to relax when nothing fits (sizing_relax.relaxation_hint), checked against sizing itself.

A hint is only useful if it is true: every "it would fit with ..." hint is re-sized here with the
suggested precision, and must fit on exactly the GPU count it names.
"""

from __future__ import annotations

import math
import re

from infra_gen.catalog.load import load_catalog
from infra_gen.catalog.models import Accelerator
from infra_gen.sizing import size
from infra_gen.sizing_relax import relaxation_hint
from tests.fakes import workload

HINT = re.compile(r"^it would fit with model\.precision (\w+) on (\d+) x (\S+) \((\w[\w+]*)\)$")


def _accelerators(*names: str) -> list[Accelerator]:
    catalog = load_catalog()
    return [catalog.accelerators[n] for n in names]


def test_fp32_lora_hint_names_a_lower_precision_that_really_fits() -> None:
    w = workload("fine-tuning", model={"parameters_b": 13, "precision": "fp32"},
                 training={"method": "lora", "duration_hours": 8})
    [l4] = _accelerators("L4")
    assert not size(w, l4).fits  # the precondition: fp32 does not fit on the L4s allowed
    match = HINT.match(relaxation_hint(w, [l4]))
    assert match, relaxation_hint(w, [l4])
    precision, gpus, name, parallelism = match.groups()
    assert (precision, name) == ("bf16", "L4")  # the next lower precision is tried first
    # bf16 weights alone: 13e9 x 2 bytes = 24.2 GiB > one L4's 24 GiB x 0.9 = 21.6 GiB usable,
    # so the hint cannot name fewer than 2 GPUs.
    assert int(gpus) >= math.ceil(13e9 * 2 / 2**30 / (24 * 0.9)) == 2
    relaxed = w.model_copy(update={"model": w.model.model_copy(update={"precision": precision})})
    again = size(relaxed, l4)
    assert again.fits and again.gpus == int(gpus) and again.parallelism == parallelism


def test_full_training_is_never_told_to_train_in_int8_or_int4() -> None:
    # 70B full fine-tune on T4s: from bf16 the hint tries fp8 (still does not fit: Adam keeps
    # fp32 states, ~12 bytes/param whatever the weights' precision), then reaches int8, where
    # full training stops (int8/int4 are not training formats) and falls back to advice.
    w = workload("fine-tuning", model={"parameters_b": 70, "precision": "bf16"},
                 training={"method": "full", "duration_hours": 8})
    hint = relaxation_hint(w, _accelerators("T4"))
    assert "int8" not in hint and "int4" not in hint
    assert hint.startswith("relax: lower training.batch_size or seq_len")
    assert "qlora" in hint


def test_lowest_precision_that_still_does_not_fit_gets_generic_advice() -> None:
    w = workload("inference", model={"parameters_b": 70, "precision": "int4"})
    hint = relaxation_hint(w, _accelerators("T4"))
    assert hint == ("relax: use a lower model.precision, a smaller model, or allow larger "
                    "accelerators")
