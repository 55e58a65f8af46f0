from django.conf import settings
from rest_framework.pagination import PageNumberPagination
from rest_framework.utils.urls import remove_query_param, replace_query_param


class ApiPagination(PageNumberPagination):
    """{"count", "next", "previous", "results"}; ?page=2&page_size=20 (at most 200)."""

    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request):
        self.page_size = settings.API_PAGE_SIZE
        return super().get_page_size(request)

    def _current_url(self) -> str:
        """This page's address with a user id kept percent-encoded (api.middleware routes on that path; the
        decoded request.path would turn team%2Feve into team/eve, another address)."""
        assert self.request is not None  # set by paginate_queryset, which runs before any link is built
        query = self.request.META.get("QUERY_STRING", "")
        return self.request.build_absolute_uri(self.request._request.path_info + (f"?{query}" if query else ""))

    def get_next_link(self):
        assert self.page is not None  # set by paginate_queryset
        if not self.page.has_next():
            return None
        return replace_query_param(self._current_url(), self.page_query_param, self.page.next_page_number())

    def get_previous_link(self):
        assert self.page is not None  # set by paginate_queryset
        if not self.page.has_previous():
            return None
        number = self.page.previous_page_number()
        if number == 1:
            return remove_query_param(self._current_url(), self.page_query_param)
        return replace_query_param(self._current_url(), self.page_query_param, number)
