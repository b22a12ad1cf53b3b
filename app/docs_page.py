"""/docs: the OpenAPI description rendered on our own page (no third-party scripts, strict CSP); /help: the rules;
/help/notation: docs/NOTATION.md (or its German or Danish version, by the reader's language) as a page."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from markdown_it import MarkdownIt
from markupsafe import Markup
from starlette.responses import Response

from app.deps import MaybeUser
from app.i18n import get_locale
from app.systems import SYSTEMS
from app.web import render

DOCS = Path(__file__).resolve().parent.parent / "docs"
NOTATION = {"en": "NOTATION.md", "de": "NOTATION.de.md", "da": "NOTATION.da.md"}

router = APIRouter()


def _operations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    ops = []
    for path, methods in schema.get("paths", {}).items():
        for method, op in methods.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            ops.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "tag": (op.get("tags") or ["other"])[0],
                    "params": [p["name"] + (" (" + p["in"] + ")") for p in op.get("parameters", [])],
                    "body": body.get("$ref", "").rsplit("/", 1)[-1] if body else None,
                }
            )
    return sorted(ops, key=lambda o: (o["tag"], o["path"], o["method"]))


def type_name(spec: dict[str, Any]) -> str:
    """A schema's type in words: "string", "integer or null", "array of string", "Credentials"."""
    if "$ref" in spec:
        return str(spec["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in spec:
        return " or ".join(type_name(s) for s in spec["anyOf"])
    if spec.get("type") == "array":
        return "array of " + type_name(spec.get("items", {}))
    return str(spec.get("type", "any"))


def _schemas(schema: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for name, spec in schema.get("components", {}).get("schemas", {}).items():
        required = set(spec.get("required", []))
        out[name] = [
            {"name": field, "type": type_name(f), "required": field in required}
            for field, f in spec.get("properties", {}).items()
        ]
    return out


@router.get("/help", include_in_schema=False)
def help_page(request: Request, user: MaybeUser) -> Response:
    """How the server rules: every system's notation and the rulings it implements."""
    return render(request, "help.html", {"systems": SYSTEMS})


@cache
def notation_html(locale: str) -> Markup:
    """The notation reference in `locale` as HTML. Raw HTML in the Markdown is escaped (html=False); links to the
    sibling files point at this page in that language."""
    text = (DOCS / NOTATION.get(locale, NOTATION["en"])).read_text("utf-8")
    for lang, name in NOTATION.items():
        text = text.replace(f"]({name})", f"](/help/notation?lang={lang})")
    return Markup(MarkdownIt("commonmark", {"html": False}).enable("table").render(text))


@router.get("/help/notation", include_in_schema=False)
def notation_page(request: Request, user: MaybeUser, lang: str = "") -> Response:
    """Every operator of the dice notation with an example, in the reader's language (or `lang`)."""
    locale = lang if lang in NOTATION else get_locale()
    return render(request, "help_notation.html", {"notation": notation_html(locale), "notation_lang": locale})


@router.get("/docs", include_in_schema=False)
def docs(request: Request, user: MaybeUser) -> Response:
    schema = request.app.openapi()
    return render(request, "docs.html", {"operations": _operations(schema), "schemas": _schemas(schema)})
