FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    UV_PROJECT_ENVIRONMENT=/app/.venv UV_PYTHON_DOWNLOADS=never UV_SYSTEM_CERTS=1 PATH=/app/.venv/bin:$PATH
COPY . .
# Exactly the lock (uv.lock; docs/DEVELOPING.md): the pinned uv (with its hashes) installs the runtime and the
# hosted extras; editable, so templates/, static/ and migrations/ are read from /app, next to the package.
RUN pip install --no-cache-dir --require-hashes --no-deps -r tools/uv-requirements.txt \
    && uv sync --locked --no-cache --python python3 --extra postgres --extra redis --extra s3 \
    && pip uninstall -y -q uv
EXPOSE 8000
# Migrations run on start; then one uvicorn worker per container (scale out with more containers + Redis).
# app/serve.py: uvicorn with bounded request heads (docs/LIMITS.md), no proxy headers of its own, TCP_NODELAY.
CMD ["sh", "-c", "alembic upgrade head && python -m app.serve --host 0.0.0.0 --port 8000 --workers 1"]
