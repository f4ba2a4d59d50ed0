"""Analyses move from the replica's temp directory into the database (every replica sees
them); share links keep their design as ASCII JSON text, which PostgreSQL stores with NUL
characters too (jsonb refuses them). On PostgreSQL the column is converted in place
(jsonb::text is the same JSON)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("designer", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="StoredAnalysis",
            fields=[
                ("id", models.CharField(max_length=22, primary_key=True, serialize=False)),
                ("created", models.DateTimeField(db_index=True)),
                ("expires", models.DateTimeField(db_index=True)),
                ("size", models.PositiveIntegerField()),
                ("data", models.BinaryField()),
            ],
        ),
        migrations.AlterField(
            model_name="shareddesign",
            name="design",
            field=models.TextField(),
        ),
    ]
