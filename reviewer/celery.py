"""The Celery app; its configuration is the CELERY_* names in reviewer.settings."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewer.settings")

app = Celery("reviewer")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
