"""List filters that are search boxes: a tenant or an end user is picked by typing, with Django's own
admin autocomplete (select2, the same widget `autocomplete_fields` uses), instead of a list of every tenant or
every user on the platform.

Django has no autocomplete list filter, and the package that adds one (django-admin-autocomplete-filter) was last
released in 2021, before Django 4.0, so this is the small part of one that is needed. The suggestions come from the
admin's autocomplete view, which asks the related model's admin (`get_queryset`, `get_search_results`): a tenant's
staff are offered only what that admin lets them see. The filter itself narrows the changelist's queryset, which
is already scoped to the staff member's tenants; an id of someone else's row simply matches nothing.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class _FilterBox(AutocompleteSelect):
    """Django's autocomplete box with a placeholder: select2 names its box by the text it shows (aria-labelledby),
    and Django's empty placeholder left an unchosen box without an accessible name (axe-core: aria-input-field-name)."""

    def __init__(self, field, admin_site, *, placeholder: str, attrs=None):
        super().__init__(field, admin_site, attrs=attrs)
        self.placeholder = placeholder

    def build_attrs(self, base_attrs, extra_attrs=None):
        attrs = super().build_attrs(base_attrs, extra_attrs=extra_attrs)
        attrs["data-placeholder"] = self.placeholder
        return attrs


class AutocompleteListFilter(admin.SimpleListFilter):
    """Filter the changelist by one foreign key (`field_name`), picked in an autocomplete box. The related model's
    admin must have `search_fields`."""

    field_name = ""
    template = "admin/autocomplete_filter.html"

    def __init__(self, request, params, model, model_admin):
        self.parameter_name = f"{self.field_name}__id__exact"
        self.request = request
        self.field = model._meta.get_field(self.field_name)
        super().__init__(request, params, model, model_admin)
        self.admin_site = model_admin.admin_site

    def lookups(self, request, model_admin):
        return (("", ""),)  # one entry, so the filter shows; the template draws the box instead

    def _selected_id(self) -> int | None:
        value = self.value()
        return int(value) if value and str(value).isdigit() else None

    def queryset(self, request, queryset):
        selected = self._selected_id()
        if selected is None:
            return queryset
        return queryset.filter(**{f"{self.field_name}_id": selected})

    def _media(self, changelist, box) -> forms.Media | str:
        """select2's scripts, once per page: the first box on the page brings them (twice, select2 drew every box
        twice)."""
        boxes = [spec for spec in changelist.filter_specs if isinstance(spec, AutocompleteListFilter)]
        if boxes and boxes[0] is not self:
            return ""
        extra = forms.Media(css={"all": ["admin/autocomplete_filter.css"]}, js=["admin/autocomplete_filter.js"])
        return box.widget.media + extra

    def choices(self, changelist):
        related_admin = self.admin_site._registry[self.field.remote_field.model]
        box = forms.ModelChoiceField(
            queryset=related_admin.get_queryset(self.request),  # the chosen one is shown only if theirs to see
            widget=_FilterBox(
                self.field,
                self.admin_site,
                placeholder=gettext("Any %(thing)s") % {"thing": self.title},
                attrs={"id": f"filter-{self.field_name}"},
            ),
            required=False,
        )
        kept = {k: v for k, v in changelist.get_filters_params().items() if k != self.parameter_name}
        yield {
            "box": box.widget.render(self.parameter_name, self._selected_id()),
            "media": self._media(changelist, box),
            "hidden": [(k, v[-1] if isinstance(v, list) else v) for k, v in kept.items()],
            "box_id": f"filter-{self.field_name}",
            "clear": changelist.get_query_string(remove=[self.parameter_name]),
            "selected": self._selected_id() is not None,
        }


class TenantAutocompleteFilter(AutocompleteListFilter):
    title = _("tenant")
    field_name = "tenant"


class EndUserAutocompleteFilter(AutocompleteListFilter):
    title = _("end user")
    field_name = "end_user"
