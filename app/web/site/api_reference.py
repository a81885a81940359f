"""The API reference as plain data, read from the app's own OpenAPI schema: per tag, per endpoint, its parameters,
body fields, an example request, response fields (one level of nested objects) and its errors. /docs renders it,
so the reference reads without JavaScript; Swagger UI stays the interactive layer."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from markupsafe import Markup

from app.web.site.doc_text import blocks_html, inline_html
from app.web.site.schema_words import Schema, branches, default_text, limits_text, ref_name, resolve, type_text

SUCCESS = re.compile(r"2\d\d")


@dataclass(frozen=True)
class FieldDoc:
    name: str
    type_text: str
    required: bool
    default: str | None
    limits: str
    description: Markup
    deprecated: bool = False
    location: str = ""  # a parameter's: query or path
    fields: tuple[FieldDoc, ...] = ()  # an object field's own fields, one level down


@dataclass(frozen=True)
class ResponseDoc:
    status: str
    description: Markup
    type_text: str
    fields: tuple[FieldDoc, ...]
    example_json: str | None


@dataclass(frozen=True)
class EndpointDoc:
    method: str
    path: str
    anchor: str
    summary: str
    description: Markup
    deprecated: bool
    parameters: tuple[FieldDoc, ...]
    body_type: str | None
    body_fields: tuple[FieldDoc, ...]
    example_json: str | None  # the POST's example body, pretty-printed
    example_path: str  # the path with its parameters written as PLACEHOLDERS
    responses: tuple[ResponseDoc, ...]  # 2xx/3xx: fields; errors: the shared Error shape


@dataclass(frozen=True)
class TagDoc:
    name: str
    anchor: str
    endpoints: tuple[EndpointDoc, ...]


@dataclass(frozen=True)
class ApiReference:
    title: str
    version: str
    summary: str
    introduction: Markup
    error_fields: tuple[FieldDoc, ...]
    error_example: str | None  # the first 422's example body
    tags: tuple[TagDoc, ...]

    @property
    def endpoints(self) -> tuple[EndpointDoc, ...]:
        return tuple(endpoint for tag in self.tags for endpoint in tag.endpoints)


def anchor(*words: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", " ".join(words).lower()).strip("-")


class _Reader:
    def __init__(self, schema: Schema) -> None:
        self.components: dict[str, Schema] = schema.get("components", {}).get("schemas", {})

    def object_schema(self, schema: Schema) -> Schema | None:
        """The object a field holds (through a $ref, Optional, or an array's items), if it has properties."""
        for option in branches(schema):
            option = resolve(option, self.components)
            if option.get("type") == "array" and isinstance(option.get("items"), dict):
                option = resolve(option["items"], self.components)
            if option.get("properties"):
                return option
        return None

    def fields(self, schema: Schema, depth: int = 1) -> tuple[FieldDoc, ...]:
        target = self.object_schema(schema) or {}
        required = set(target.get("required", []))
        return tuple(
            self.field(name, spec, name in required, depth) for name, spec in target.get("properties", {}).items()
        )

    def field(self, name: str, spec: Schema, required: bool, depth: int) -> FieldDoc:
        nested = self.fields(spec, depth - 1) if depth > 0 else ()
        return FieldDoc(
            name=name,
            type_text=type_text(spec),
            required=required,
            default=default_text(spec),
            limits=limits_text(spec),
            description=inline_html(spec.get("description") or spec.get("title") or ""),
            deprecated=bool(spec.get("deprecated")),
            fields=nested,
        )

    def parameter(self, parameter: Schema) -> FieldDoc:
        spec = {**parameter.get("schema", {}), "description": parameter.get("description", "")}
        doc = self.field(parameter["name"], spec, bool(parameter.get("required")), depth=0)
        return replace(doc, location=parameter.get("in", ""))

    def response(self, status: str, response: Schema) -> ResponseDoc:
        content = response.get("content", {}).get("application/json", {})
        schema = content.get("schema", {})
        success = bool(SUCCESS.fullmatch(status))
        example = content.get("example")
        return ResponseDoc(
            status=status,
            description=inline_html(response.get("description", "")),
            type_text=type_text(schema) if schema else "",
            fields=self.fields(schema) if success else (),
            example_json=json.dumps(example, indent=2, ensure_ascii=False) if example is not None else None,
        )

    def endpoint(self, method: str, path: str, operation: Schema) -> EndpointDoc:
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        body_schema = body.get("schema", {})
        parameters = tuple(self.parameter(parameter) for parameter in operation.get("parameters", []))
        return EndpointDoc(
            method=method.upper(),
            path=path,
            anchor=anchor(method, path),
            summary=operation.get("summary", ""),
            description=blocks_html(operation.get("description", "")),
            deprecated=bool(operation.get("deprecated")),
            parameters=parameters,
            body_type=(ref_name(body_schema) or type_text(body_schema)) if body_schema else None,
            body_fields=self.fields(body_schema) if body_schema else (),
            example_json=json.dumps(body["example"], indent=2, ensure_ascii=False) if "example" in body else None,
            example_path=re.sub(r"\{(\w+)\}", lambda match: match.group(1).upper(), path),
            responses=tuple(self.response(status, response) for status, response in operation["responses"].items()),
        )


def build_reference(schema: Schema) -> ApiReference:
    reader = _Reader(schema)
    grouped: dict[str, list[EndpointDoc]] = {}
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            tag = (operation.get("tags") or ["other"])[0]
            grouped.setdefault(tag, []).append(reader.endpoint(method, path, operation))
    info: dict[str, Any] = schema.get("info", {})
    endpoints = [endpoint for group in grouped.values() for endpoint in group]
    invalid = [response.example_json for e in endpoints for response in e.responses if response.status == "422"]
    return ApiReference(
        title=info.get("title", ""),
        version=info.get("version", ""),
        summary=info.get("summary", ""),
        introduction=blocks_html(info.get("description", "")),
        error_fields=reader.fields({"$ref": "#/components/schemas/Error"}),
        error_example=next((example for example in invalid if example), None),
        tags=tuple(TagDoc(name, anchor("tag", name), tuple(endpoints)) for name, endpoints in grouped.items()),
    )
