"""The library's types against the live service's /openapi.json: a field the service adds to (or
drops from) a response, a request body or a list's query parameters fails here, until
`python clients/codegen/generate.py --openapi <url>` is run and the result committed."""
import pytest

from qafila import ERROR_FIELDS, types


def resolve(doc, node):
    while isinstance(node, dict) and "$ref" in node:
        cur = doc
        for part in node["$ref"][2:].split("/"):
            cur = cur[part]
        node = cur
    return node


def props_at(doc, method, path, where, segs):
    """Property names at a source, or None when the service has no such operation."""
    op = doc.get("paths", {}).get(path, {}).get(method.lower())
    if op is None:
        return None
    if where == "query":
        return {resolve(doc, p)["name"] for p in op.get("parameters", []) if resolve(doc, p).get("in") == "query"}
    if where == "request":
        body = resolve(doc, op.get("requestBody", {}))
        schema = resolve(doc, body.get("content", {}).get("application/json", {}).get("schema", {}))
    else:
        resp = resolve(doc, op.get("responses", {}).get(where, {}))
        schema = resolve(doc, resp.get("content", {}).get("application/json", {}).get("schema", {}))
    for seg in segs:
        schema = resolve(doc, (schema.get("properties") or {}).get(seg, {}))
        t = schema.get("type")
        if t == "array" or (isinstance(t, list) and "array" in t):
            schema = resolve(doc, schema.get("items", {}))
    return set((schema or {}).get("properties", {}))


def declared(name):
    cls = getattr(types, name)
    if hasattr(cls, "field_names"):
        return set(cls.field_names())
    return set(cls.__annotations__)          # TypedDict


@pytest.mark.parametrize("name", sorted(types.SCHEMA_SOURCES))
def test_type_matches_openapi(openapi, name):
    found = [props_at(openapi, *src) for src in types.SCHEMA_SOURCES[name]]
    present = [f for f in found if f is not None]
    if not present:
        pytest.skip(f"{name}: none of its operations is in /openapi.json yet "
                    f"({', '.join(s[0] + ' ' + s[1] for s in types.SCHEMA_SOURCES[name])})")
    missing_ops = [src for src, f in zip(types.SCHEMA_SOURCES[name], found) if f is None]
    assert not missing_ops, f"{name}: operations gone from the service: {missing_ops}"
    expected = set().union(*present)
    have = declared(name)
    assert expected - have == set(), f"{name}: the service has fields the library lacks: {sorted(expected - have)}"
    assert have - expected == set(), f"{name}: the library has fields the service dropped: {sorted(have - expected)}"


def test_error_fields_cover_openapi(openapi):
    err = resolve(openapi, openapi["components"]["schemas"]["Error"])["properties"]["error"]
    fields = set(resolve(openapi, err)["properties"])
    assert fields - set(ERROR_FIELDS) == set(), f"error fields the exceptions do not carry: {fields - set(ERROR_FIELDS)}"
