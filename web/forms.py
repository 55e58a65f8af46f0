from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _


class NoteCorrectionForm(forms.Form):
    content = forms.CharField(
        label=_("Correct this note"), max_length=2000, strip=True, widget=forms.Textarea(attrs={"rows": 2})
    )
    # The note's version when the page was drawn (memory.services.notes.note_versions): a correction made from a stale
    # page (another tab, another device changed the note since) is refused instead of overwriting that change.
    version = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


class LoginForm(AuthenticationForm):
    """Django's login form, with autocomplete hints for password managers and phones."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].widget.attrs.update({"autocomplete": "username", "autocapitalize": "none"})
        self.fields["password"].widget.attrs.update({"autocomplete": "current-password"})
