"""Generation: a project's problem sets and endpoints, "test connection", generating a run,
its report, cancel and resume, and the LLM judge."""

from __future__ import annotations

from dataclasses import asdict

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from grading.llm import EndpointError
from reviewer import access
from reviewer.api.serializers import generation as g
from reviewer.api.views.base import ERROR, ApiView
from reviewer.generation_report import generation_report
from reviewer.models import Endpoint, ProblemSet
from reviewer.services import endpoints, generation, judging, problem_sets
from reviewer.services.upload_store import upload_store


def _invalid(field: str, message: str) -> ValidationError:
    return ValidationError({field: [message]})


class ProblemSetList(ApiView):
    serializer_class = g.ProblemSetUploadSerializer
    parser_classes = [MultiPartParser]

    @extend_schema(responses={200: g.ProblemSetSerializer(many=True), 404: ERROR})
    def get(self, request: Request, project_id: int) -> Response:
        """The project's problem sets, newest first."""
        project = access.project_for(request.user, project_id)
        return Response(g.ProblemSetSerializer(project.problem_sets.all(), many=True).data)

    @extend_schema(
        request={"multipart/form-data": g.ProblemSetUploadSerializer},
        responses={201: g.ProblemSetSerializer, 200: g.ProblemSetSerializer, 400: ERROR},
    )
    def post(self, request: Request, project_id: int) -> Response:
        """Upload problems with gold answers; the same file again returns the set with 200."""
        project = access.project_for(request.user, project_id, access.UPLOAD)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        stored = upload_store(file=serializer.validated_data["file"])
        uploaded = problem_sets.problem_set_upload(
            stored=stored,
            project_name=project.name,
            user=request.user,
            name=serializer.validated_data["name"],
        )
        code = status.HTTP_200_OK if uploaded.duplicate else status.HTTP_201_CREATED
        return Response(g.ProblemSetSerializer(uploaded.problem_set).data, status=code)


class EndpointList(ApiView):
    serializer_class = g.EndpointCreateSerializer

    @extend_schema(responses={200: g.EndpointSerializer(many=True), 404: ERROR})
    def get(self, request: Request, project_id: int) -> Response:
        """The project's saved endpoints; keys are never returned."""
        project = access.project_for(request.user, project_id, access.UPLOAD)
        return Response(g.EndpointSerializer(project.endpoints.all(), many=True).data)

    @extend_schema(responses={201: g.EndpointSerializer, 400: ERROR})
    def post(self, request: Request, project_id: int) -> Response:
        """Save a model server; the key (api_key) is stored encrypted and never shown again,
        or give api_key_env, the workers' environment variable that holds it."""
        project = access.project_for(request.user, project_id, access.UPLOAD)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            saved = endpoints.endpoint_create(
                project=project, user=request.user, **serializer.validated_data
            )
        except endpoints.EndpointSetupError as error:
            raise _invalid("non_field_errors", str(error)) from None
        return Response(g.EndpointSerializer(saved).data, status=status.HTTP_201_CREATED)


class EndpointTest(ApiView):
    serializer_class = g.EndpointTestSerializer

    @extend_schema(request=None, responses={200: g.EndpointTestSerializer, 404: ERROR})
    def post(self, request: Request, endpoint_id: int) -> Response:
        """Test connection: the models the server lists, or what went wrong (never the key)."""
        endpoint = get_object_or_404(Endpoint.objects.select_related("project"), pk=endpoint_id)
        access.require(request.user, endpoint.project, access.UPLOAD)
        try:
            return Response(
                {"ok": True, "models": list(endpoints.endpoint_test(endpoint=endpoint))}
            )
        except (EndpointError, endpoints.EndpointSetupError) as error:
            return Response({"ok": False, "models": [], "error": str(error)})


class RunGenerate(ApiView):
    serializer_class = g.GenerateSerializer
    parser_classes = [JSONParser]

    @extend_schema(responses={201: g.GenerationReportSerializer, 400: ERROR, 404: ERROR})
    def post(self, request: Request) -> Response:
        """Generate a run: every problem of the set, ``samples`` times, from the endpoint;
        each answer is stored as it lands and graded. Poll GET /api/runs/<id>/generation/."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        problem_set = ProblemSet.objects.filter(pk=data["problem_set"]).first()
        if problem_set is None:
            raise NotFound("No such problem set.")
        access.require(request.user, problem_set.project, access.UPLOAD)
        endpoint = Endpoint.objects.filter(pk=data["endpoint"], project=problem_set.project).first()
        if endpoint is None:
            raise _invalid("endpoint", "no endpoint with this id in the problem set's project")
        try:
            run = generation.generation_start(
                problem_set=problem_set,
                endpoint=endpoint,
                user=request.user,
                name=data["name"],
                model=data["model"],
                options=generation.GenerationOptions(
                    template=data["template"],
                    system_prompt=data["system_prompt"],
                    temperature=data.get("temperature"),
                    top_p=data.get("top_p"),
                    max_tokens=data.get("max_tokens"),
                    seed=data.get("seed"),
                    stop=tuple(data["stop"]),
                    samples=data["samples"],
                    timeout_s=data["timeout_s"],
                    concurrency=data["concurrency"],
                    evaluators=data.get("evaluators"),
                ),
            )
        except generation.GenerationSetupError as error:
            raise _invalid("non_field_errors", str(error)) from None
        return Response({"run": run.pk, **_report(run)}, status=status.HTTP_201_CREATED)


def _report(run) -> dict:
    report = generation_report(run=run)
    if report is None:
        raise NotFound("This run was uploaded, not generated.")
    data = asdict(report)
    data["cost"] = None if report.cost is None else float(report.cost)
    data.update(coverage=report.coverage, score=report.score, percent=report.percent)
    return data


class RunGeneration(ApiView):
    serializer_class = g.GenerationReportSerializer

    @extend_schema(responses={200: g.GenerationReportSerializer, 404: ERROR})
    def get(self, request: Request, run_id: int) -> Response:
        """The run's generation: progress, tokens, requests/s, errors by kind, answer
        coverage, truncation, mean completion tokens, score and cost."""
        return Response(_report(access.run_for(request.user, run_id)))


class RunGenerationAction(ApiView):
    serializer_class = g.GenerationReportSerializer

    @extend_schema(request=None, responses={202: g.GenerationReportSerializer, 404: ERROR})
    def post(self, request: Request, run_id: int, action: str) -> Response:
        """``cancel`` stops new requests; ``resume`` asks only for the missing pairs."""
        run = access.run_for(request.user, run_id, access.REGRADE)
        _report(run)  # 404 for an uploaded run
        if action == "cancel":
            generation.generation_cancel(run=run, user=request.user)
        elif action == "resume":
            generation.generation_resume(run=run, user=request.user)
        else:
            raise NotFound("Use .../generation/cancel/ or .../generation/resume/.")
        return Response(_report(run), status=status.HTTP_202_ACCEPTED)


class RunJudge(ApiView):
    serializer_class = g.JudgeSerializer

    @extend_schema(responses={202: OpenApiTypes.OBJECT, 400: ERROR, 404: ERROR})
    def post(self, request: Request, run_id: int) -> Response:
        """Ask the LLM judge (a saved endpoint) about the run's flagged rows, every row, or the
        spot check; its disagreement flags a row, it never changes a verdict."""
        run = access.run_for(request.user, run_id, access.REGRADE)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        endpoint = Endpoint.objects.filter(
            pk=serializer.validated_data["endpoint"], project_id=run.project_id
        ).first()
        if endpoint is None:
            raise _invalid("endpoint", "no endpoint with this id in the run's project")
        rows = judging.judge_enqueue(
            run=run, endpoint=endpoint, scope=serializer.validated_data["scope"], user=request.user
        )
        return Response({"rows": rows}, status=status.HTTP_202_ACCEPTED)
