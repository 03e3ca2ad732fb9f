"""What to relax when nothing fits: the cheapest change that would make the workload fit."""

from __future__ import annotations

from infra_gen.catalog.models import Accelerator
from infra_gen.spec import Workload

_LOWER_PRECISIONS = ("bf16", "fp8", "int8", "int4")


def _first_fit(workload: Workload, accelerators: list[Accelerator]) -> str | None:
    from infra_gen.errors import SizingError
    from infra_gen.sizing import size

    fitting = []
    for accelerator in accelerators:
        try:
            req = size(workload, accelerator)
        except SizingError:
            return None
        if req.fits:
            fitting.append((req.gpus, accelerator.memory_gib, req.accelerator, req.parallelism))
    if not fitting:
        return None
    gpus, _, name, parallelism = min(fitting)
    return f"{gpus} x {name} ({parallelism})"


def relaxation_hint(workload: Workload, accelerators: list[Accelerator]) -> str:
    """'would fit at int8 on 16 x H100 (tensor+pipeline)', or the generic advice."""
    current = workload.model.precision
    order = _LOWER_PRECISIONS[_LOWER_PRECISIONS.index(current) + 1:] if current in (
        _LOWER_PRECISIONS) else _LOWER_PRECISIONS
    training = workload.training
    for precision in order:
        if training is not None and training.method in ("full", "freeze") and precision in (
            "int8", "int4"
        ):
            break
        model = workload.model.model_copy(update={"precision": precision})
        found = _first_fit(workload.model_copy(update={"model": model}), accelerators)
        if found is not None:
            return f"it would fit with model.precision {precision} on {found}"
    if training is not None:
        return ("relax: lower training.batch_size or seq_len, turn on gradient_checkpointing, "
                "use training.method qlora, or allow larger accelerators in placement")
    return "relax: use a lower model.precision, a smaller model, or allow larger accelerators"
