#!/usr/bin/python3
"""The installed xiwctl schema (BUILD/tools/xiwctl.schema.json, made by
tools/CMakeLists.txt) against the strict copy the tests use: a valid JSON
Schema 2020-12, and the same as the strict copy less every
"additionalProperties": false. Exit 0 if so."""
import json
import os
import sys

import jsonschema

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def loosen(node):
    """node without any "additionalProperties": false, at any depth."""
    if isinstance(node, dict):
        return {k: loosen(v) for k, v in node.items()
                if not (k == "additionalProperties" and v is False)}
    if isinstance(node, list):
        return [loosen(v) for v in node]
    return node


def main(build):
    with open(os.path.join(TOP, "tools", "xiwctl", "xiwctl.schema.json")) as f:
        strict = json.load(f)
    with open(os.path.join(build, "tools", "xiwctl.schema.json")) as f:
        installed = json.load(f)
    jsonschema.Draft202012Validator.check_schema(installed)
    if installed != loosen(strict):
        print("installed schema is not the strict copy loosened",
              file=sys.stderr)
        return 1
    if "additionalProperties\": false" in json.dumps(installed):
        print("installed schema refuses unknown keys", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
