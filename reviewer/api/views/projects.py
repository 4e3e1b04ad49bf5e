"""Projects and their members."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from reviewer import access, services
from reviewer.api import serializers as s
from reviewer.api.pagination import (
    NewestFirstPagination,
)
from reviewer.api.views.base import ERROR, ApiView
from reviewer.models import Membership


class ProjectList(ApiView):
    serializer_class = s.ProjectSerializer
    pagination_class = NewestFirstPagination

    def get_queryset(self):
        return access.projects_with_role(self.request.user)

    @extend_schema(operation_id="projects_list")
    def get(self, request: Request) -> Response:
        """The projects you can see, newest first."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request=s.ProjectCreateSerializer,
        responses={201: s.ProjectSerializer, 200: s.ProjectSerializer, 400: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Create a project (or get the one with this name: 200)."""
        serializer = s.ProjectCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        name = serializer.validated_data["name"]
        existed = access.projects_for(request.user).filter(name=name.strip()).exists()
        project = services.project_get_or_create(name=name, user=request.user)
        return Response(
            s.ProjectSerializer(access.project_for(request.user, project.pk)).data,
            status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED,
        )


class ProjectDetail(ApiView):
    serializer_class = s.ProjectSerializer

    @extend_schema(responses={200: s.ProjectSerializer, 404: ERROR})
    def get(self, request: Request, project_id: int) -> Response:
        """One project, with your role in it."""
        return Response(s.ProjectSerializer(access.project_for(request.user, project_id)).data)

    @extend_schema(responses={204: None, 403: ERROR, 404: ERROR})
    def delete(self, request: Request, project_id: int) -> Response:
        """Delete the project with its runs, reviews and exports (owners only)."""
        project = access.project_for(request.user, project_id, access.MANAGE)
        services.project_delete(project=project, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProjectMembers(ApiView):
    serializer_class = s.MembershipSerializer
    pagination_class = None

    @extend_schema(responses={200: s.MembershipSerializer(many=True), 404: ERROR})
    def get(self, request: Request, project_id: int) -> Response:
        """The project's members and their roles."""
        project = access.project_for(request.user, project_id)
        members = Membership.objects.filter(project=project).select_related("user")
        return Response(self.get_serializer(members, many=True).data)

    @extend_schema(
        request=s.MembershipSerializer,
        responses={200: s.MembershipSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, project_id: int) -> Response:
        """Add a member with a role, or change a member's role (owners only)."""
        project = access.project_for(request.user, project_id, access.MANAGE)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = services.membership_set(
            project=project,
            user=serializer.validated_data["user"],
            role=serializer.validated_data["role"],
            by=request.user,
        )
        return Response(self.get_serializer(membership).data)


class ProjectMember(ApiView):
    serializer_class = s.MembershipSerializer

    @extend_schema(responses={204: None, 403: ERROR, 404: ERROR, 409: ERROR})
    def delete(self, request: Request, project_id: int, username: str) -> Response:
        """Take a member out of the project (owners only; never its last owner)."""
        project = access.project_for(request.user, project_id, access.MANAGE)
        member = Membership.objects.filter(project=project, user__username=username).first()
        if member is None:
            raise Http404(f"{username} is not a member of this project.")
        services.membership_remove(project=project, user=member.user, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
