"""The workload file's JSON Schema, for editors (yaml-language-server) and other tools."""

from __future__ import annotations

import json

from infra_gen.spec import Workload

SCHEMA_ID = "https://infra-gen.dev/schema/workload-v1.json"


def workload_json_schema() -> str:
    schema = Workload.model_json_schema(mode="validation")
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
    }
    return json.dumps(schema, indent=2, sort_keys=True)
