"""Workload files: every bad-input case gives one `FILE:LINE:COL: error: FIELD: ...` line."""

from __future__ import annotations

from pathlib import Path

import pytest

from infra_gen.errors import WorkloadError
from infra_gen.loading import load_workload, parse_workload

MINIMAL = """\
version: 1
name: petsnap-finetune
type: fine-tuning
owner: {team: ml-research, project: petsnap, cost_center: ml-rnd}
model:
  parameters_b: 8.0
training:
  tokens_b: 0.5
"""


def error_of(text: str) -> WorkloadError:
    with pytest.raises(WorkloadError) as info:
        parse_workload(text, "w.yaml")
    return info.value


def test_minimal_file_gets_sensible_defaults() -> None:
    workload = parse_workload(MINIMAL, "w.yaml")
    assert workload.training is not None
    assert workload.training.method == "lora"  # fine-tuning defaults to LoRA
    assert workload.model.precision == "bf16"
    assert workload.placement.clouds == ["aws", "gcp", "azure"]
    assert workload.schedule.hours_per_week == 24 * 7
    assert workload.guardrails.auto_shutdown is not None
    assert workload.guardrails.auto_shutdown.idle_minutes == 30
    assert workload.guardrails.budget is not None
    assert workload.guardrails.budget.alert_percent == [50, 80, 100]


def test_training_type_defaults_to_full_training() -> None:
    workload = parse_workload(MINIMAL.replace("fine-tuning", "training"), "w.yaml")
    assert workload.training is not None and workload.training.method == "full"


def test_known_model_name_is_enough_and_aliases_are_canonicalised() -> None:
    text = MINIMAL.replace("  parameters_b: 8.0", "  name: Meta-Llama-3-8B")
    assert parse_workload(text, "w.yaml").model.name == "llama-3-8b"


def test_invalid_yaml_points_at_the_problem() -> None:
    err = error_of("version: 1\nname: [unclosed\ntype: dev\n")
    assert str(err).startswith("w.yaml:")
    assert "error: expected valid YAML, got" in str(err)
    assert err.line >= 2


def test_unknown_field_suggests_the_closest_name() -> None:
    text = MINIMAL + "guardrails:\n  auto_shutdown: {idle_minute: 10}\n"
    err = error_of(text)
    assert (err.line, err.col) == (10, 19)
    assert err.field == "guardrails.auto_shutdown.idle_minute"
    assert "did you mean 'idle_minutes'?" in str(err)
    assert str(err).startswith("w.yaml:10:19: error: guardrails.auto_shutdown.idle_minute: ")


def test_wrong_type_names_expected_and_found() -> None:
    err = error_of(MINIMAL + "  batch_size: eight\n")
    assert str(err) == (
        "w.yaml:9:3: error: training.batch_size: expected an integer, got 'eight'"
    )


@pytest.mark.parametrize(
    ("extra", "field", "message"),
    [
        ("schedule: {hours_per_day: -2}\n", "schedule.hours_per_day",
         "expected a number >= 0, got -2"),
        ("schedule: {hours_per_day: 25}\n", "schedule.hours_per_day",
         "expected a number <= 24, got 25"),
        ("schedule: {days_per_week: 8}\n", "schedule.days_per_week",
         "expected a number <= 7, got 8"),
    ],
)
def test_out_of_range_numbers(extra: str, field: str, message: str) -> None:
    err = error_of(MINIMAL + extra)
    assert err.line == 9
    assert err.field == field
    assert err.message == message


def test_zero_parameters_is_out_of_range() -> None:
    err = error_of(MINIMAL.replace("parameters_b: 8.0", "parameters_b: 0"))
    assert (err.line, err.field) == (6, "model.parameters_b")
    assert err.message == "expected a number > 0, got 0"


def test_bad_enum_lists_the_valid_values() -> None:
    err = error_of(MINIMAL.replace("type: fine-tuning", "type: finetune"))
    assert (err.line, err.col, err.field) == (3, 1, "type")
    assert "expected one of training | fine-tuning | inference | batch | dev" in err.message
    assert "got 'finetune'" in err.message


def test_inference_with_a_training_block_is_contradictory() -> None:
    err = error_of(MINIMAL.replace("type: fine-tuning", "type: inference"))
    assert (err.line, err.field) == (7, "training")
    assert err.message == "expected no training block for type inference, got one"


def test_pinned_instance_type_of_a_cloud_not_allowed() -> None:
    text = MINIMAL + "placement:\n  clouds: [gcp]\n  instance_type: p4d.24xlarge\n"
    err = error_of(text)
    assert (err.line, err.field) == (11, "placement.instance_type")
    assert err.message == "expected an instance type of gcp, got 'p4d.24xlarge' (aws)"


def test_tokens_and_duration_together_are_contradictory() -> None:
    err = error_of(MINIMAL + "  duration_hours: 3\n")
    assert (err.line, err.field) == (9, "training.duration_hours")
    assert "got both" in err.message


def test_training_needs_tokens_or_duration() -> None:
    err = error_of(MINIMAL.replace("  tokens_b: 0.5\n", "  batch_size: 4\n"))
    assert err.field == "training"
    assert err.message == "expected tokens_b or duration_hours, got neither"


def test_missing_required_field_points_at_its_parent() -> None:
    err = error_of(MINIMAL.replace("owner: {team: ml-research, ", "owner: {"))
    assert (err.line, err.field) == (4, "owner.team")
    assert "required field is missing" in err.message


def test_unknown_model_without_parameters() -> None:
    err = error_of(MINIMAL.replace("  parameters_b: 8.0", "  name: my-secret-model"))
    assert (err.line, err.field) == (6, "model.name")
    assert "unknown model 'my-secret-model'" in err.message


def test_name_must_be_lowercase_and_short() -> None:
    err = error_of(MINIMAL.replace("name: petsnap-finetune", "name: PetSnap"))
    assert (err.line, err.field) == (2, "name")
    assert "got 'PetSnap'" in err.message
    long_name = "a" * 41
    err = error_of(MINIMAL.replace("name: petsnap-finetune", f"name: {long_name}"))
    assert err.message == f"expected at most 40 characters, got '{long_name}'"


def test_duplicate_keys_are_rejected() -> None:
    err = error_of(MINIMAL + "version: 1\n")
    assert "expected valid YAML" in err.message


def test_empty_file_and_non_mapping() -> None:
    assert error_of("").message == "expected a mapping of workload fields, got an empty file"
    assert "got a CommentedSeq" in error_of("- 1\n- 2\n").message


def test_invalid_email_and_timezone() -> None:
    err = error_of(MINIMAL + "guardrails:\n  budget: {emails: [not-an-email]}\n")
    assert err.field == "guardrails.budget.emails"
    assert err.message == "expected an email address, got 'not-an-email'"
    err = error_of(MINIMAL + "schedule: {timezone: Mars/Olympus}\n")
    assert err.message == "expected an IANA time zone such as Europe/Paris, got 'Mars/Olympus'"


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(WorkloadError) as info:
        load_workload(missing)
    assert str(info.value) == f"{missing}:1:1: error: expected a workload file, got no such file"


def test_non_utf8_file_names_the_byte_position(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(MINIMAL.encode() + "  note: caf\xe9\n".encode("latin-1"))
    with pytest.raises(WorkloadError) as info:
        load_workload(path)
    assert (info.value.line, info.value.col) == (9, 12)
    assert info.value.message == "expected UTF-8 text, got byte 0xe9"


def test_every_example_workload_validates() -> None:
    examples = sorted(Path("stacks").glob("*.yaml"))
    workloads = [p for p in examples if not p.name.startswith("Pulumi.")]
    assert len(workloads) >= 7
    for path in workloads:
        assert load_workload(path).version == 1
