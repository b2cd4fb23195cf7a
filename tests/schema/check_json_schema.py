#!/usr/bin/python3
"""Validate JSON files against a JSON Schema (draft 2020-12).

Usage:
    check_json_schema.py SCHEMA FILE [FILE ...] [--expect valid|invalid]

The schema is first checked against the draft 2020-12 metaschema.  Each FILE
is then validated and one line is printed per file:

    FILE: valid
    FILE: invalid: <json pointer>: <message>     (the most relevant error)
    FILE: error: <reason>                        (JSON that cannot be parsed)

The JSON pointer is RFC 6901 (empty for the document root).  Parsing is
strict: NaN/Infinity literals and duplicate object keys are rejected.

Exit status:
    0  every file matched the expectation (default: valid)
    1  at least one file did not match
    2  usage error, unreadable/unparsable/invalid schema, a FILE that cannot
       be read, or a FILE that is not parsable JSON when valid was expected
       (with --expect invalid an unparsable FILE counts as invalid)

Needs only the Python standard library and python3-jsonschema (>= 4.0).
"""

import argparse
import json
import sys

try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError, best_match
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"check_json_schema.py: cannot import jsonschema: {exc}", file=sys.stderr)
    sys.exit(2)

MAX_MESSAGE = 240


class JsonLoadError(Exception):
    """The file exists but does not hold strict JSON."""


def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate object key {key!r}")
        obj[key] = value
    return obj


def load_json(path):
    """Return the parsed document; OSError if unreadable, JsonLoadError if not JSON."""
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8-sig")
        return json.loads(text, parse_constant=_reject_constant,
                          object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as exc:
        raise JsonLoadError(f"not UTF-8: {exc}") from None
    except json.JSONDecodeError as exc:
        raise JsonLoadError(f"line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise JsonLoadError(str(exc)) from None


def json_pointer(path):
    """RFC 6901 pointer for a sequence of keys/indices."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def one_line(text):
    text = " ".join(str(text).split())
    if len(text) > MAX_MESSAGE:
        text = text[:MAX_MESSAGE - 3] + "..."
    return text


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="check_json_schema.py",
        description="Validate JSON files against a draft 2020-12 JSON Schema.")
    parser.add_argument("schema", metavar="SCHEMA", help="JSON Schema file")
    parser.add_argument("files", metavar="FILE", nargs="+", help="JSON document(s) to validate")
    parser.add_argument("--expect", choices=("valid", "invalid"), default="valid",
                        help="expected outcome for every FILE (default: valid)")
    return parser.parse_intermixed_args(argv)  # argparse exits with 2 on usage errors


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)

    try:
        schema = load_json(args.schema)
    except (OSError, JsonLoadError) as exc:
        print(f"{args.schema}: error: cannot load schema: {one_line(exc)}", file=sys.stderr)
        return 2
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        print(f"{args.schema}: error: not a valid draft 2020-12 schema: "
              f"{json_pointer(exc.absolute_path)}: {one_line(exc.message)}", file=sys.stderr)
        return 2
    validator = Draft202012Validator(schema)

    expect_valid = args.expect == "valid"
    mismatches = 0
    hard_errors = 0
    for path in args.files:
        try:
            doc = load_json(path)
        except OSError as exc:
            print(f"{path}: error: cannot read: {one_line(exc.strerror or exc)}")
            hard_errors += 1
            continue
        except JsonLoadError as exc:
            print(f"{path}: error: unparsable JSON: {one_line(exc)}")
            if expect_valid:
                hard_errors += 1
            continue

        error = best_match(validator.iter_errors(doc))
        if error is None:
            print(f"{path}: valid")
            if not expect_valid:
                mismatches += 1
        else:
            print(f"{path}: invalid: {json_pointer(error.absolute_path)}: {one_line(error.message)}")
            if expect_valid:
                mismatches += 1

    if hard_errors:
        return 2
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
