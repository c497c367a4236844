"""The REST API under ``/api/v1``: its routes and the JSON shapes they answer with."""
