"""xiwctl's JSON output against tools/xiwctl/xiwctl.schema.json (validated on
the host: the guest only runs xiwctl)."""
import json
import os

import jsonschema

from conftest import TOP

with open(os.path.join(TOP, "tools", "xiwctl", "xiwctl.schema.json")) as f:
    SCHEMA = json.load(f)


def check(instance, what):
    """Raise jsonschema.ValidationError unless instance is what the schema
    says xiwctl's `what` output ($defs/what) is; return instance."""
    jsonschema.Draft202012Validator(
        {"$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{what}"}).validate(
            instance)
    return instance
