"""The MathJury web app. The Celery app is loaded with Django so tasks bind to it."""

from reviewer.celery import app as celery_app

__all__ = ["celery_app"]
