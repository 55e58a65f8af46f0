from django.apps import AppConfig


class TenancyConfig(AppConfig):
    """The bottom layer: tenants and the data every layer reads about them (end users, assistants, sessions,
    messages), and the scoping that keeps one tenant's rows from another's."""

    name = "tenancy"
    # The admin's section for these models, as before they moved here from the assistants app.
    verbose_name = "Tenants, assistants and conversations"
