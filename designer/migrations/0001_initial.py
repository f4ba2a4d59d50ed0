from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="SharedDesign",
            fields=[
                ("id", models.CharField(max_length=12, primary_key=True, serialize=False)),
                ("design", models.JSONField()),
                ("created", models.DateTimeField(auto_now_add=True)),
            ],
        ),
    ]
