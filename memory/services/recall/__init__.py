"""Recall: ranking notes and past messages for a query, the chat turn's memory context, recall feedback."""
