from django.conf import settings
from rest_framework.pagination import PageNumberPagination


class ApiPagination(PageNumberPagination):
    """{"count", "next", "previous", "results"}; ?page=2&page_size=20 (at most 200)."""

    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request):
        self.page_size = settings.API_PAGE_SIZE
        return super().get_page_size(request)
