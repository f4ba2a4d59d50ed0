"""The objects designs are opened from (issue 11): kept in the database, so the designer's
address and share links work on every replica."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("designer", "0003_sharedcluster"),
    ]

    operations = [
        migrations.CreateModel(
            name="StoredOrigin",
            fields=[
                ("id", models.CharField(max_length=20, primary_key=True, serialize=False)),
                ("created", models.DateTimeField(db_index=True)),
                ("expires", models.DateTimeField(db_index=True)),
                ("size", models.PositiveIntegerField()),
                ("data", models.BinaryField()),
            ],
        ),
    ]
