"""The OpenAPI 3.0 document served at ``/oozie/openapi.json``.

Written by hand rather than derived from the routes: Oozie's parameters are read from the raw
query string (raw or URL-encoded filters, both API versions on one path), which no decorator
describes, and the document doubles as the contract the fuzz tests (schemathesis) check every
reply against.
"""

from __future__ import annotations

from typing import Any

from bundletui import __version__

_ERROR_HEADERS = {
    "oozie-error-code": {
        "description": "Oozie's error code, e.g. E0604",
        "schema": {"type": "string"},
    },
    "oozie-error-message": {
        "description": "`<code>: <message>`, e.g. `E0604: Job does not exist [<id>]`",
        "schema": {"type": "string"},
    },
}
_ERROR_BODY = {
    "type": "object",
    "required": ["code", "message", "status"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "status": {"type": "integer"},
        "hint": {"type": "string"},
    },
}


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "headers": _ERROR_HEADERS,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


_TOO_LARGE = _error("Request body over 4 MiB (EB0703)")
_ERRORS = {
    "400": _error("Bad request or command error (unknown job: E0604)"),
    "401": _error("Missing or invalid bearer token (E0500)"),
    "403": _error("Without a token: a Host header naming another machine (E0500)"),
    "404": _error("Unknown URL or API version (E0301)"),
    "405": _error("A method this path does not take (E0301)"),
    "503": _error("System not in NORMAL mode (E0002), or the store is busy"),
}


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _q(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": schema or {"type": "string"},
    }


_VERSION = {
    "name": "version",
    "in": "path",
    "required": True,
    "description": "API version (v1 and v2 behave alike but for the default action page length)",
    "schema": {"type": "string", "enum": ["v1", "v2"]},
}
_JOB_ID = {
    "name": "job_id",
    "in": "path",
    "required": True,
    "description": "…-B bundle, …-C coordinator, …-C@n coordinator action, …-W workflow, …-W@node",
    "schema": {"type": "string", "minLength": 1},
}
_INT = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
_FILTER = "name=value pairs joined by `;` (raw or URL-encoded); same name = OR, different = AND"
_LISTING_PARAMS = [
    _q(
        "jobtype",
        "wf (default), coordinator or bundle",
        {"type": "string", "enum": ["wf", "coordinator", "bundle"]},
    ),
    _q("filter", _FILTER),
    _q("offset", "1-based (default 1)", _INT),
    _q("len", "page size (default 50)", _INT),
    _q("timezone", "time zone of the dates (default GMT)"),
]
_XML_BODY = {
    "description": "A Hadoop configuration: `<configuration><property><name>…</name><value>…</value></property>…</configuration>`",
    "content": {
        "application/xml": {"schema": {"type": "string"}},
    },
}

_LISTING = {
    "type": "object",
    "required": ["total", "offset", "len"],
    "properties": {
        "workflows": {"type": "array", "items": {"type": "object"}},
        "coordinatorjobs": {"type": "array", "items": {"type": "object"}},
        "bundlejobs": {"type": "array", "items": {"type": "object"}},
        "total": {"type": "integer"},
        "offset": {"type": "integer"},
        "len": {"type": "integer"},
    },
}
_ID = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}


def document() -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "bundletui — Oozie Web Services API",
            "version": __version__,
            "description": "Oozie's REST API (bundles, coordinators, workflows) over bundletui's "
            "store. Errors carry the `oozie-error-code` and `oozie-error-message` headers. With a "
            "token configured every request needs `Authorization: Bearer <token>`.",
        },
        "servers": [{"url": "/"}],
        "components": {
            "schemas": {"Error": _ERROR_BODY},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{}, {"bearer": []}],
        "paths": {
            "/oozie/versions": {
                "get": {
                    "operationId": "versions",
                    "summary": "Supported API versions: [0, 1, 2]",
                    "responses": {
                        "200": _json({"type": "array", "items": {"type": "integer"}}),
                        "401": _ERRORS["401"],
                        "403": _ERRORS["403"],
                    },
                }
            },
            "/oozie/openapi.json": {
                "get": {
                    "operationId": "openapi",
                    "summary": "This document",
                    "responses": {
                        "200": _json({"type": "object"}),
                        "401": _ERRORS["401"],
                        "403": _ERRORS["403"],
                    },
                }
            },
            "/oozie/{version}/admin/{resource}": {
                "parameters": [
                    _VERSION,
                    {
                        "name": "resource",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": ["status", "build-version"]},
                    },
                ],
                "get": {
                    "operationId": "adminGet",
                    "summary": 'status: {"systemMode": "NORMAL"}; build-version',
                    "responses": {"200": _json({"type": "object"}), **_ERRORS},
                },
                "put": {
                    "operationId": "adminPut",
                    "summary": "Set the system mode (status only); outside NORMAL, changes get 503",
                    "parameters": [
                        _q(
                            "systemmode",
                            "NORMAL, NOWEBSERVICE or SAFEMODE",
                            {"type": "string", "enum": ["NORMAL", "NOWEBSERVICE", "SAFEMODE"]},
                        )
                    ],
                    "responses": {"200": {"description": "Mode set"}, **_ERRORS},
                },
            },
            "/oozie/{version}/jobs": {
                "parameters": [_VERSION],
                "get": {
                    "operationId": "listJobs",
                    "summary": "List jobs newest first, or look a workflow up by external id",
                    "parameters": [
                        *_LISTING_PARAMS,
                        _q("external-id", 'answer {"id": <workflow id or "">} instead'),
                    ],
                    "responses": {
                        "200": _json({"oneOf": [_LISTING, _ID]}),
                        **_ERRORS,
                    },
                },
                "post": {
                    "operationId": "submitJob",
                    "summary": 'Submit the job a configuration names (201 {"id": …})',
                    "parameters": [
                        _q(
                            "action",
                            "start: submit and start; dryrun: check only",
                            {"type": "string", "enum": ["start", "dryrun"]},
                        )
                    ],
                    "requestBody": {**_XML_BODY, "required": True},
                    "responses": {"201": _json(_ID, "Submitted"), **_ERRORS, "413": _TOO_LARGE},
                },
                "put": {
                    "operationId": "bulkJobs",
                    "summary": "kill, suspend or resume every job of a listing page",
                    "parameters": [
                        _q(
                            "action",
                            "kill, suspend or resume",
                            {"type": "string", "enum": ["kill", "suspend", "resume"]},
                        ),
                        *_LISTING_PARAMS,
                    ],
                    "responses": {"200": _json(_LISTING, "The jobs acted on"), **_ERRORS},
                },
            },
            "/oozie/{version}/job/{job_id}": {
                "parameters": [_VERSION, _JOB_ID],
                "get": {
                    "operationId": "jobGet",
                    "summary": "Job info (Oozie's JSON), status, definition or log",
                    "parameters": [
                        _q(
                            "show",
                            "info (default), status, definition, log, errorlog, auditlog",
                            {
                                "type": "string",
                                "enum": [
                                    "info",
                                    "status",
                                    "definition",
                                    "log",
                                    "errorlog",
                                    "auditlog",
                                ],
                            },
                        ),
                        _q("offset", "coordinator actions: 1-based first action", _INT),
                        _q("len", "coordinator actions: page size (v1 default 1000, v2 0)", _INT),
                        _q("order", "asc or desc", {"type": "string", "enum": ["asc", "desc"]}),
                        _q("filter", "coordinator actions: status=…;nominaltime>=…"),
                        _q("timezone", "time zone of the dates (default GMT)"),
                    ],
                    "responses": {
                        "200": {
                            "description": "info/status: JSON; definition: XML; logs: text",
                            "content": {
                                "application/json": {"schema": {"type": "object"}},
                                "application/xml": {"schema": {"type": "string"}},
                                "text/plain": {"schema": {"type": "string"}},
                            },
                        },
                        **_ERRORS,
                    },
                },
                "put": {
                    "operationId": "jobPut",
                    "summary": "start, suspend, resume, kill, change, ignore, rerun, coord-rerun, bundle-rerun, dryrun",
                    "parameters": [
                        _q(
                            "action",
                            "the command",
                            {
                                "type": "string",
                                "enum": [
                                    "start",
                                    "suspend",
                                    "resume",
                                    "kill",
                                    "change",
                                    "ignore",
                                    "rerun",
                                    "coord-rerun",
                                    "bundle-rerun",
                                    "dryrun",
                                ],
                            },
                        ),
                        _q("value", "change: endtime=…;concurrency=…;pausetime=…;status=RUNNING"),
                        _q(
                            "type",
                            "kill/ignore/coord-rerun: action or date",
                            {"type": "string", "enum": ["action", "date"]},
                        ),
                        _q("scope", "type=action: 1,3-4; type=date: d1::d2,d3"),
                        _q(
                            "coord-scope",
                            "bundle-rerun: coordinator names c1,c2 (unknown ones are passed over)",
                        ),
                        _q("date-scope", "bundle-rerun: d1::d2"),
                        _q("refresh", "rerun: re-resolve inputs", {"type": "boolean"}),
                        _q("nocleanup", "rerun: keep outputs", {"type": "boolean"}),
                        _q("failed", "coord-rerun: failed nodes only", {"type": "boolean"}),
                    ],
                    "requestBody": {**_XML_BODY, "required": False},
                    "responses": {
                        "200": {
                            "description": 'Done: no body, or {"actions": […]} for action scopes, '
                            '{"id": …} for dryrun, {"warnings": […]} for a bundle-rerun '
                            "naming coordinators the bundle lacks (passed over, as Oozie does)",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        },
                        **_ERRORS,
                        "413": _TOO_LARGE,
                    },
                },
            },
        },
    }
