"""The app's URLs plus one bare view, for bench_live.py: the same server, the same middleware."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from designer.urls import urlpatterns as app_urlpatterns


def bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [path("bench/bare", bare), *app_urlpatterns]
