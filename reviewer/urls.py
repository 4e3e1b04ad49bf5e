"""URLs of the reviewer: htmx pages, login, admin and a health check."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from reviewer import pages

urlpatterns = [
    path("", pages.run_list, name="run_list"),
    path("runs/new/", pages.upload, name="upload"),
    path("runs/<int:run_id>/skipped-lines.csv", pages.run_skipped_lines, name="run_skipped_lines"),
    path("runs/<int:run_id>/", pages.run_detail, name="run_detail"),
    path("runs/<int:run_id>/regrade/", pages.run_regrade, name="run_regrade"),
    path("runs/<int:run_id>/msu/", pages.run_msu_recompute, name="run_msu_recompute"),
    path("runs/<int:run_id>/stats/", pages.run_stats, name="run_stats"),
    path("runs/compare/", pages.runs_compare, name="runs_compare"),
    path("runs/<int:run_id>/assignments/", pages.run_assignments, name="run_assignments"),
    path("items/<int:item_id>/", pages.item_detail, name="item_detail"),
    path("items/<int:item_id>/ruling/", pages.ruling_apply, name="ruling_apply"),
    path("rulings/<int:ruling_id>/undo/", pages.ruling_undo, name="ruling_undo"),
    path("runs/<int:run_id>/exports/", pages.export_create, name="export_create"),
    path("exports/<int:export_id>/", pages.export_detail, name="export_detail"),
    path("exports/<int:export_id>/<str:part>", pages.export_file, name="export_file"),
    path(
        "projects/<int:project_id>/members/",
        pages.project_members,
        name="project_members",
    ),
    path("projects/<int:project_id>/delete/", pages.project_delete, name="project_delete"),
    path("projects/<int:project_id>/audit/", pages.project_audit, name="project_audit"),
    path("account/tokens/", pages.api_tokens, name="api_tokens"),
    path("account/tokens/<int:token_id>/revoke/", pages.api_token_revoke, name="api_token_revoke"),
    # Generating runs from model servers (reviewer.pages.generation).
    path("generate/", pages.generate, name="generate"),
    path("endpoints/<int:endpoint_id>/test/", pages.endpoint_test, name="endpoint_test"),
    path("runs/<int:run_id>/generation/", pages.run_generation, name="run_generation"),
    path(
        "runs/<int:run_id>/generation/<str:action>/",
        pages.run_generation_action,
        name="run_generation_action",
    ),
    path("api/", include("reviewer.api.urls")),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("healthz", pages.healthz, name="healthz"),
]
