"""Vectors: embedding texts with the tenant's encoder, and the search terms stored beside them."""
