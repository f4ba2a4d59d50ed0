"""Designer pages whose address would be too long to travel (issue 12): kept in the
database, so ``?page=<id>`` opens on every replica."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("designer", "0004_stored_origin"),
    ]

    operations = [
        migrations.CreateModel(
            name="StoredPage",
            fields=[
                ("id", models.CharField(max_length=20, primary_key=True, serialize=False)),
                ("created", models.DateTimeField(db_index=True)),
                ("expires", models.DateTimeField(db_index=True)),
                ("size", models.PositiveIntegerField()),
                ("data", models.BinaryField()),
            ],
        ),
    ]
