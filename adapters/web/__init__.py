"""The web console and REST API (FastAPI) over the moderation service: the only package that imports
FastAPI, Starlette, Jinja2 and httpx.

``heyan web`` (``adapters.web.cli``) serves it; ``heyan run`` serves it beside the platforms when
``HEYAN_WEB_PORT`` is set. Importing this package (or ``cli``, ``access.sessions``, ``access.tokens``) does
not import FastAPI. Its modules: docs/ARCHITECTURE.md, "The map".
"""
