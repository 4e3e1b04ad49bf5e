"""URLs of the reviewer: htmx pages, login, admin and a health check."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from reviewer import export_pages, member_pages, stats_pages, team_pages, views

urlpatterns = [
    path("", views.run_list, name="run_list"),
    path("runs/new/", views.upload, name="upload"),
    path("runs/<int:run_id>/", views.run_detail, name="run_detail"),
    path("runs/<int:run_id>/regrade/", views.run_regrade, name="run_regrade"),
    path("runs/<int:run_id>/stats/", stats_pages.run_stats, name="run_stats"),
    path("runs/compare/", stats_pages.runs_compare, name="runs_compare"),
    path("runs/<int:run_id>/assignments/", team_pages.run_assignments, name="run_assignments"),
    path("items/<int:item_id>/", views.item_detail, name="item_detail"),
    path("items/<int:item_id>/ruling/", team_pages.ruling_apply, name="ruling_apply"),
    path("rulings/<int:ruling_id>/undo/", team_pages.ruling_undo, name="ruling_undo"),
    path("runs/<int:run_id>/exports/", export_pages.export_create, name="export_create"),
    path("exports/<int:export_id>/", export_pages.export_detail, name="export_detail"),
    path("exports/<int:export_id>/<str:part>", export_pages.export_file, name="export_file"),
    path(
        "projects/<int:project_id>/members/",
        member_pages.project_members,
        name="project_members",
    ),
    path("projects/<int:project_id>/delete/", member_pages.project_delete, name="project_delete"),
    path("projects/<int:project_id>/audit/", team_pages.project_audit, name="project_audit"),
    path("api/", include("reviewer.api.urls")),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
]
