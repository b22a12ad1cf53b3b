FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY . .
# Editable install: templates/, static/ and migrations/ are read from /app, next to the package.
RUN pip install --no-cache-dir -e '.[postgres,redis,s3]'
EXPOSE 8000
# Migrations run on start; then one uvicorn worker per container (scale out with more containers + Redis).
CMD ["sh", "-c", "alembic upgrade head && uvicorn app.asgi:app --host 0.0.0.0 --port 8000 --no-proxy-headers --timeout-graceful-shutdown 3"]
