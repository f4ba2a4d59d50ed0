"""Share links keep the cluster (Kubernetes version, namespace policy) beside the design
(issue #12)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("designer", "0002_shared_design_text_and_analyses"),
    ]

    operations = [
        migrations.CreateModel(
            name="SharedCluster",
            fields=[
                ("id", models.CharField(max_length=12, primary_key=True, serialize=False)),
                ("kubernetes_version", models.CharField(max_length=10)),
                ("namespace_policy", models.TextField(blank=True)),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "design",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="designer.shareddesign",
                    ),
                ),
            ],
        ),
    ]
