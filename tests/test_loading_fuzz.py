"""Fuzzing the workload loader: any text ends in a Workload or a one-line WorkloadError."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from infra_gen.errors import WorkloadError
from infra_gen.loading import parse_workload

ERROR_LINE = re.compile(r"^fuzz\.yaml:\d+:\d+: error: [^\n]+$")

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=4),
    max_leaves=12,
)
FIELDS = ["version", "name", "type", "owner", "model", "training", "inference", "batch",
          "schedule", "placement", "purchasing", "guardrails"]
documents = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), values, max_size=8)


def _dump(document: object) -> str:
    import io

    stream = io.StringIO()
    YAML(typ="safe").dump(document, stream)
    return stream.getvalue()


def _outcome(text: str) -> None:
    try:
        parse_workload(text, "fuzz.yaml")
    except WorkloadError as err:
        assert ERROR_LINE.match(str(err)), str(err)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_arbitrary_text_never_escapes_as_another_exception(text: str) -> None:
    _outcome(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_random_documents_never_escape_as_another_exception(document: dict[str, object]) -> None:
    _outcome(_dump(document))


VALID_BASE = {
    "version": 1, "name": "fuzz", "type": "inference",
    "owner": {"team": "t", "project": "p", "cost_center": "c"},
    "model": {"parameters_b": 7},
}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["model", "inference", "schedule", "placement", "guardrails"]),
       st.dictionaries(st.text(min_size=1, max_size=25), values, max_size=3))
def test_mutated_valid_documents_end_cleanly(section: str, patch: dict[str, object]) -> None:
    document = dict(VALID_BASE)
    document[section] = patch
    _outcome(_dump(document))
