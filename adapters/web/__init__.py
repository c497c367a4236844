"""The web console and REST API (FastAPI) over the moderation service: the only package that imports
FastAPI, Starlette, Jinja2 and httpx. ``heyan web`` (``adapters.web.cli``) serves it; ``heyan run``
serves it beside the platforms when ``HEYAN_WEB_PORT`` is set. Modules, one idea each:

* ``app`` — the FastAPI app: routers, static files, security headers; ``server`` — serving it (uvicorn)
* ``api`` — ``/api/v1``: one moderation-service call per route; ``schemas`` — what it sends and accepts
* ``pages`` — the server-rendered pages and their forms (``templates/``, htmx in ``static/``)
* ``login`` — Discord OAuth2 and Sign in with Slack; ``platforms`` — the calls to Discord and Slack
* ``auth`` — who is asking (token, session cookie, local operator), CSRF and cross-site checks
* ``gate`` — a caller and a tenant → the ``Actor`` the service checks (platform answers cached briefly)
* ``sessions`` and ``tokens`` — sign-in sessions and API tokens in Redis, sealed
* ``errors`` — refusals as status codes; ``i18n`` — zh/en; ``links`` — links to platform messages;
  ``chart`` — the commitments chart as inline SVG

Importing this package (or ``cli``, ``sessions``, ``tokens``) does not import FastAPI.
"""
