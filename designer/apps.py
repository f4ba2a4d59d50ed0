from django.apps import AppConfig


class DesignerConfig(AppConfig):
    name = "designer"
    verbose_name = "Pod Resource Designer"
