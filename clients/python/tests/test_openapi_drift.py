"""The client's operations against the service's own /openapi.json: every route, parameter and body field it uses
exists there, and every API route of the document is wrapped."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any, Iterator

import pytest

from session_ledger.operations import OPERATIONS, Operation

@pytest.fixture(scope="module")
def document(ledger_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{ledger_url}/openapi.json") as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def resolve(document: dict[str, Any], schema: Any) -> Any:
    """Follows a local ``$ref`` (``#/components/schemas/X``)."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/"):
        target: Any = document
        for part in schema["$ref"][2:].split("/"):
            target = target[part]
        schema = target
    return schema


def object_schemas(document: dict[str, Any], schema: Any) -> Iterator[dict[str, Any]]:
    """The object schemas a value may hold: itself, its array's items, each branch of a union."""
    schema = resolve(document, schema)
    if not isinstance(schema, dict):
        return
    if "properties" in schema:
        yield schema
    if "items" in schema:
        yield from object_schemas(document, schema["items"])
    for union in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(union, []):
            yield from object_schemas(document, branch)


def documented(document: dict[str, Any], operation: Operation) -> dict[str, Any]:
    found = document["paths"].get(operation.path, {}).get(operation.method.lower())
    assert found is not None, f"{operation.method} {operation.path} is not in the document"
    return found  # type: ignore[no-any-return]


def parameters(document: dict[str, Any], found: dict[str, Any], where: str) -> set[str]:
    return {resolve(document, parameter)["name"] for parameter in found.get("parameters", []) if resolve(document, parameter)["in"] == where}


def test_every_operation_exists_with_its_method_and_path_parameters(document: dict[str, Any]) -> None:
    for name, operation in OPERATIONS.items():
        found = documented(document, operation)
        assert parameters(document, found, "path") == set(re.findall(r"\{(\w+)\}", operation.path)), name


def test_bodies_send_only_documented_fields_and_every_required_one(document: dict[str, Any]) -> None:
    for name, operation in OPERATIONS.items():
        body = documented(document, operation).get("requestBody")
        schema = resolve(document, body)["content"]["application/json"]["schema"] if body else None
        candidates = list(object_schemas(document, schema))
        if not operation.body:
            assert all(not candidate.get("required") for candidate in candidates), f"{name} sends no body fields"
            continue
        assert candidates, f"{name} has a documented body"
        known = {field for candidate in candidates for field in candidate["properties"]}
        assert set(operation.body) <= known, f"{name}: {set(operation.body) - known} are not in the document"
        required = set.intersection(*(set(candidate.get("required", [])) for candidate in candidates))
        assert required <= set(operation.body), f"{name}: required {required - set(operation.body)}"
        for field, fields in operation.nested.items():
            nested = [
                found
                for candidate in candidates
                if field in candidate["properties"]
                for found in object_schemas(document, candidate["properties"][field])
            ]
            assert nested, f"{name}.{field} is an object (or a list of them)"
            nested_known = {inner for candidate in nested for inner in candidate["properties"]}
            assert set(fields) <= nested_known, f"{name}.{field}: {set(fields) - nested_known}"
            assert set(nested[0].get("required", [])) <= set(fields), f"{name}.{field}: required fields"


def test_query_parameters_are_documented(document: dict[str, Any]) -> None:
    for name, operation in OPERATIONS.items():
        listed = parameters(document, documented(document, operation), "query")
        missing = set(operation.query) - listed
        assert not missing, f"{name}: {missing} are not query parameters of {operation.path}"


def test_every_api_route_is_wrapped(document: dict[str, Any]) -> None:
    wrapped = {f"{operation.method} {operation.path}" for operation in OPERATIONS.values()}
    routes = {f"{method.upper()} {path}" for path, methods in document["paths"].items() for method in methods if method != "parameters"}
    api_routes = {route for route in routes if " /v1/" in route}
    assert len(api_routes) > 50
    assert api_routes - wrapped == set()
