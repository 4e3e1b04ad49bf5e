# One image for the web server and the Celery workers (docker-compose.yml shares it).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    MATHJURY_DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY grading ./grading
COPY reviewer ./reviewer
RUN pip install .
COPY . .
RUN useradd --create-home --uid 1000 mathjury && mkdir -p /data && chown mathjury /data
# collectstatic only reads files; a throwaway key keeps settings from refusing to load.
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput
USER mathjury
EXPOSE 8000
CMD ["gunicorn", "reviewer.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
