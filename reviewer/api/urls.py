"""URLs of the API, under /api/ (namespace ``api``)."""

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib.auth.decorators import login_not_required
from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from reviewer.api import errors, views

app_name = "api"


urlpatterns = [
    path("token/", views.TokenView.as_view(), name="token"),
    path("projects/", views.ProjectList.as_view(), name="project_list"),
    path("projects/<int:project_id>/", views.ProjectDetail.as_view(), name="project_detail"),
    path(
        "projects/<int:project_id>/members/",
        views.ProjectMembers.as_view(),
        name="project_members",
    ),
    path(
        "projects/<int:project_id>/members/<str:username>/",
        views.ProjectMember.as_view(),
        name="project_member",
    ),
    # Generation (reviewer.api.views.generation).
    path(
        "projects/<int:project_id>/problem-sets/",
        views.ProblemSetList.as_view(),
        name="problem_set_list",
    ),
    path(
        "projects/<int:project_id>/endpoints/", views.EndpointList.as_view(), name="endpoint_list"
    ),
    path("endpoints/<int:endpoint_id>/test/", views.EndpointTest.as_view(), name="endpoint_test"),
    path("runs/generate/", views.RunGenerate.as_view(), name="run_generate"),
    path("runs/<int:run_id>/generation/", views.RunGeneration.as_view(), name="run_generation"),
    path(
        "runs/<int:run_id>/generation/<str:action>/",
        views.RunGenerationAction.as_view(),
        name="run_generation_action",
    ),
    path("runs/<int:run_id>/judge/", views.RunJudge.as_view(), name="run_judge"),
    path("runs/", views.RunList.as_view(), name="run_list"),
    path("runs/compare/", views.RunCompareView.as_view(), name="run_compare"),
    path("runs/<int:run_id>/", views.RunDetail.as_view(), name="run_detail"),
    path("runs/<int:run_id>/stats/", views.RunStatsView.as_view(), name="run_stats"),
    path("runs/<int:run_id>/regrade/", views.RunRegrade.as_view(), name="run_regrade"),
    path("runs/<int:run_id>/items/", views.ItemList.as_view(), name="item_list"),
    path(
        "runs/<int:run_id>/assignments/",
        views.RunAssignments.as_view(),
        name="run_assignments",
    ),
    path("runs/<int:run_id>/exports/", views.RunExports.as_view(), name="run_exports"),
    path("runs/<int:run_id>/export/", views.RunExportStream.as_view(), name="run_export_stream"),
    path("items/<int:item_id>/", views.ItemDetail.as_view(), name="item_detail"),
    path("items/<int:item_id>/reviews/", views.ItemReviews.as_view(), name="item_reviews"),
    path("items/<int:item_id>/ruling/", views.ItemRuling.as_view(), name="item_ruling"),
    path("rulings/<int:ruling_id>/undo/", views.RulingUndo.as_view(), name="ruling_undo"),
    path(
        "projects/<int:project_id>/rulings/",
        views.ProjectRulings.as_view(),
        name="project_rulings",
    ),
    path("projects/<int:project_id>/audit/", views.ProjectAudit.as_view(), name="project_audit"),
    path("exports/<int:export_id>/", views.ExportDetail.as_view(), name="export_detail"),
    path(
        "exports/<int:export_id>/download/",
        views.ExportDownload.as_view(),
        name="export_download",
    ),
    # The schema and its docs page hold no data: readable without logging in.
    path(
        "schema/",
        login_not_required(
            SpectacularAPIView.as_view(permission_classes=[], authentication_classes=[])
        ),
        name="schema",
    ),
    path(
        "docs/",
        login_not_required(
            # Swagger UI's page has one inline <style> element; its scripts are our static files.
            csp_update({"style-src-elem": [SELF, UNSAFE_INLINE]})(
                SpectacularSwaggerSplitView.as_view(
                    url_name="api:schema", permission_classes=[], authentication_classes=[]
                )
            )
        ),
        name="docs",
    ),
    re_path(r"^(?P<path>.*)$", login_not_required(errors.not_found)),
]
