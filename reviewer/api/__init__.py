"""The REST API (Django REST framework): the same services and selectors as the pages."""
