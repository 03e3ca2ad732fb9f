"""The commented example workload file that ``infra-gen init`` writes, one per workload type."""

from __future__ import annotations

_HEADER = """\
# infra-gen workload file (version 1). Validate: infra-gen validate {file}
# Schema for editors: infra-gen schema > workload.schema.json
version: 1
name: my-{type}                    # lowercase letters, digits, '-'; at most 40 characters
type: {type}                       # training | fine-tuning | inference | batch | dev
owner:                             # becomes the team / project / cost-center tags or labels
  team: ml-research
  project: my-project
  cost_center: ml-rnd
model:
  name: {model}                    # a built-in model (infra-gen models) ... or
  # parameters_b: 8.0              # ... its size in billions of parameters
  precision: {precision}           # fp32 | fp16 | bf16 | fp8 | int8 | int4
"""

_BLOCKS = {
    "training": """\
training:
  method: full                     # full | lora | qlora | freeze
  tokens_b: 20                     # tokens per run, in billions ... or duration_hours
  batch_size: 8
  seq_len: 4096
  gradient_checkpointing: true
  optimizer: adamw                 # adamw | adamw-8bit | sgd
  checkpoint_minutes: 30           # null = no checkpoints, so spot capacity is not used
  runs_per_month: 1
""",
    "fine-tuning": """\
training:
  method: lora                     # full | lora | qlora | freeze
  tokens_b: 0.5                    # tokens per run, in billions ... or duration_hours
  batch_size: 8
  seq_len: 4096
  gradient_checkpointing: true
  optimizer: adamw                 # adamw | adamw-8bit | sgd
  checkpoint_minutes: 30           # null = no checkpoints, so spot capacity is not used
  runs_per_month: 4
""",
    "inference": """\
inference:
  requests_per_second: 20          # at peak
  min_requests_per_second: 5       # at the quietest hour: the always-on floor
  input_tokens: 512
  output_tokens: 256
  max_concurrency: 32
  latency_target_ms_per_token: 50
  scale_to_zero: false
""",
    "batch": """\
batch:
  items: 1000000
  items_per_gpu_second: 200
  runs_per_month: 30
""",
    "dev": "",
}

_FOOTER = """\
schedule:                          # when it runs; capacity is scaled to zero outside it
  hours_per_day: {hours}
  days_per_week: {days}
  start_hour: 9
  timezone: UTC
placement:
  clouds: [aws, gcp, azure]        # default: all three
  regions: []                      # default: every catalog region of those clouds
  # instance_type: g5.xlarge       # pin an instance type
  # accelerator: A100-80GB         # pin an accelerator
purchasing:
  spot: auto                       # auto | always | never
  reserved: auto                   # auto | none | 1y | 3y
  commit: false                    # allow irreversible commitments (Savings Plans, CUDs)
guardrails:
  auto_shutdown: {{idle_minutes: 30, gpu_utilization_below: 5}}   # null turns it off
  budget: {{monthly_usd: 5000, alert_percent: [50, 80, 100], emails: [ml-oncall@example.com]}}
  max_hourly_usd: 60
"""

_MODEL = {
    "training": ("llama-3-8b", "bf16"),
    "fine-tuning": ("llama-3-8b", "bf16"),
    "inference": ("llama-3-8b", "int4"),
    "batch": ("resnet-50", "fp16"),
    "dev": ("llama-3-8b", "bf16"),
}


def example_workload(workload_type: str) -> str:
    model, precision = _MODEL[workload_type]
    service = workload_type in ("inference",)
    hours, days = (24, 7) if service else (10, 5)
    return (
        _HEADER.format(file="workload.yaml", type=workload_type, model=model, precision=precision)
        + _BLOCKS[workload_type]
        + _FOOTER.format(hours=hours, days=days)
    )
