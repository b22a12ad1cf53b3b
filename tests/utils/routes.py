"""The app's registered routes, mounted routers included: what the matrix tests walk."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI


def registered_routes(app: FastAPI) -> Iterator[Any]:
    def walk(routes: Any) -> Iterator[Any]:
        for route in routes:
            yield route
            inner = getattr(getattr(route, "original_router", None), "routes", None)
            if inner:
                yield from walk(inner)

    yield from walk(app.router.routes)
