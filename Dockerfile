# gpumatch: the same steps as `make run` — install, migrate, seed, serve — in a slim image.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    GPUMATCH_HOST=0.0.0.0 GPUMATCH_PORT=8000 \
    GPUMATCH_DATABASE_URL=sqlite:////data/gpumatch.db

RUN useradd --create-home --uid 10001 gpumatch && mkdir /data && chown gpumatch /data
WORKDIR /app

COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
# Editable install: templates/, static/, migrations/ and seed_data/ are read from /app beside the package.
RUN pip install -e ".[postgres]"
COPY migrations ./migrations
COPY seed_data ./seed_data
COPY templates ./templates
COPY static ./static
COPY docs ./docs

USER gpumatch
EXPOSE 8000
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)" || exit 1
# `gpumatch serve` migrates to head and loads the seed (idempotent) before uvicorn starts.
ENTRYPOINT ["gpumatch", "serve", "--behind-proxy"]
