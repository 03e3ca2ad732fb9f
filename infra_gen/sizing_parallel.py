"""Which GPU layouts to try, in the order a careful engineer would, and the first that fits.

Order (issue 3): the fewest GPUs first; among equal counts single GPU, then FSDP/ZeRO-3 within a
node (training only), then tensor parallel within a node (NVLink-class links only; degree a
power of two dividing the attention heads), then pipeline parallel (within a node over PCIe, or
across nodes). Across nodes, NVLink GPUs use tensor parallel inside each node and pipeline
stages across nodes; tensor parallel never spans nodes. Plain data parallel (DDP) never lowers
per-GPU memory, so it is never the smallest layout; ``run_hours`` uses it to add speed.
Non-transformer models (CNN, diffusion) run on one GPU per replica.
"""

from __future__ import annotations

from dataclasses import dataclass

from infra_gen.catalog.models import Accelerator
from infra_gen.model_table import ModelArch

GPUS_PER_NODE = 8  # the largest GPU instance shape on AWS, GCP and Azure (p5, a3, ND H100 v5)
MAX_NODES = 64  # training: the largest job sized here (512 GPUs)
# Serving: one replica spans at most 2 nodes, the largest multi-node layout vLLM documents
# (Llama-3.1-405B in bf16 over 2 x 8 H100); beyond that, quantize instead.
MAX_SERVING_NODES = 2
SAFETY_MARGIN = 0.90  # a layout fits when its per-GPU total <= 90% of the GPU's memory


@dataclass(frozen=True)
class Layout:
    parallelism: str
    gpus: int
    tp: int = 1
    pp: int = 1
    shards: int = 1  # FSDP / ZeRO-3 degree

    @property
    def nodes(self) -> int:
        return -(-self.gpus // GPUS_PER_NODE)


_RANK = {"single": 0, "fsdp": 2, "tensor": 3, "pipeline": 4, "tensor+pipeline": 5}


def _tp_degrees(arch: ModelArch) -> list[int]:
    return [t for t in (2, 4, 8) if arch.attention_heads % t == 0]


def candidate_layouts(arch: ModelArch, accelerator: Accelerator, training: bool) -> list[Layout]:
    """Every layout worth trying, sorted by (GPU count, preference)."""
    layouts = [Layout("single", 1)]
    if arch.kind in ("cnn", "diffusion"):
        return layouts
    if training:
        layouts += [Layout("fsdp", n, shards=n) for n in range(2, GPUS_PER_NODE + 1)]
    nvlink = accelerator.has_nvlink
    if nvlink:
        layouts += [Layout("tensor", t, tp=t) for t in _tp_degrees(arch)]
    within = range(2, min(GPUS_PER_NODE, arch.layers) + 1)
    layouts += [Layout("pipeline", p, pp=p) for p in within]
    tp_node = max(_tp_degrees(arch), default=1) if nvlink else 1
    for nodes in range(2, (MAX_NODES if training else MAX_SERVING_NODES) + 1):
        gpus = nodes * GPUS_PER_NODE
        pp = gpus // tp_node
        if pp > arch.layers:
            break
        kind = "tensor+pipeline" if tp_node > 1 else "pipeline"
        layouts.append(Layout(kind, gpus, tp=tp_node, pp=pp))
    return sorted(layouts, key=lambda lay: (lay.gpus, _RANK[lay.parallelism]))


def usable_gib(accelerator: Accelerator) -> float:
    return accelerator.memory_gib * SAFETY_MARGIN
