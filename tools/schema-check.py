#!/usr/bin/env python3
"""Check result documents against one of linerate's JSON Schemas.

    python3 tools/schema-check.py doc/schema/run.json result.json [more.json...]

Every schema of the schema's directory is loaded under its `$id` (an
absolute name, https://linerate.invalid/schema/NAME.json: a name, never
fetched), so that the `$ref`s between them ("common.json#/$defs/task")
resolve offline with both Debian 12's python3-jsonschema (4.10: RefResolver
and its store) and jsonschema 4.18 or later (the referencing library's
registry). Prints each error with its path; exit 0 when every document is
valid, 1 when one is not, 2 on bad arguments or unreadable files.
"""
import json
import pathlib
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def validator_for(schema_path):
    from jsonschema import Draft202012Validator
    schema_path = pathlib.Path(schema_path)
    schemas = [load(p) for p in sorted(schema_path.parent.glob("*.json"))]
    root = load(schema_path)
    try:
        from referencing import Registry, Resource
    except ImportError:
        # jsonschema before 4.18: RefResolver with every schema in its
        # store, by $id.
        from jsonschema import RefResolver
        store = {s["$id"]: s for s in schemas if "$id" in s}
        return Draft202012Validator(root, resolver=RefResolver.from_schema(root, store=store))
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas if "$id" in s)
    return Draft202012Validator(root, registry=registry)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    try:
        v = validator_for(argv[1])
        docs = [(p, load(p)) for p in argv[2:]]
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write("schema-check: %s\n" % e)
        return 2
    bad = 0
    for path, doc in docs:
        errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errs:
            print("%s: /%s: %s" % (path, "/".join(map(str, e.absolute_path)),
                                   e.message[:300]))
        bad += bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
