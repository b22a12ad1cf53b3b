"""The app's registered routes, mounted routers included: what the matrix tests walk."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from fastapi import FastAPI
from starlette.routing import BaseRoute


def registered_routes(app: FastAPI) -> Iterator[BaseRoute]:
    def walk(routes: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
        for route in routes:
            yield route
            inner = getattr(getattr(route, "original_router", None), "routes", None)
            if inner:
                yield from walk(inner)

    yield from walk(app.router.routes)
