"""/docs: the OpenAPI description rendered on our own page (no third-party scripts, strict CSP)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.web import render

router = APIRouter()


def _operations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    ops = []
    for path, methods in schema.get("paths", {}).items():
        for method, op in methods.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            ops.append({
                "method": method.upper(), "path": path, "summary": op.get("summary", ""),
                "description": op.get("description", ""), "tag": (op.get("tags") or ["other"])[0],
                "params": [p["name"] + (" (" + p["in"] + ")") for p in op.get("parameters", [])],
                "body": body.get("$ref", "").rsplit("/", 1)[-1] if body else None,
            })
    return sorted(ops, key=lambda o: (o["tag"], o["path"], o["method"]))


@router.get("/docs", include_in_schema=False)
def docs(request: Request) -> Response:
    schema = request.app.openapi()
    return render(request, "docs.html", {"operations": _operations(schema),
                                         "schemas": schema.get("components", {}).get("schemas", {})})
