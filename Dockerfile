FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY . .
# Editable install: templates/, static/ and migrations/ are read from /app, next to the package.
RUN pip install --no-cache-dir -e '.[postgres,redis,s3]'
EXPOSE 8000
# Migrations run on start; then one uvicorn worker per container (scale out with more containers + Redis).
# app/serve.py: uvicorn with bounded request heads (docs/LIMITS.md), no proxy headers of its own, TCP_NODELAY.
CMD ["sh", "-c", "alembic upgrade head && python -m app.serve --host 0.0.0.0 --port 8000 --workers 1"]
