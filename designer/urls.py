from django.urls import include, path

from designer import views

urlpatterns = [
    path("", views.index, name="index"),
    path("export.yaml", views.export_yaml, name="export-yaml"),
    path("share", views.share, name="share"),
    path("s/<str:share_id>", views.shared_design, name="shared-design"),
    # The language switch in the header posts to Django's set_language view.
    path("i18n/", include("django.conf.urls.i18n")),
]

# The Analyze page and the HTTP API (issue #4).
from designer import analyze  # noqa: E402
from designer.api import api, api_docs  # noqa: E402

urlpatterns += [
    path("analyze", analyze.analyze_page, name="analyze"),
    path("analyze/r/<str:analysis_id>", analyze.analysis, name="analysis"),
    path("analyze/open", analyze.open_in_designer, name="analyze-open"),
    path("api/", api_docs, name="api-docs"),
    path("api/v1/", api.urls),
]
