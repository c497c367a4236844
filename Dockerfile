# Heyan (和言): one image for every process: the bot (`heyan run`, the default command), the job
# workers (`heyan worker`) and the web console (`heyan web`). Guide: docs/DEPLOY.md;
# scripts/build-image.sh builds it without a registry and measures its layers.
#
# The runtime image's layers, bottom to top:
#   1. the base image            (BASE_IMAGE)
#   2. the heyan user and /data  (tiny)
#   3. /opt/heyan                the locked dependencies: rebuilt only when requirements.lock changes
#   4. /app                      Heyan's code, byte-compiled: the only layer a code change rebuilds
#
# BASE_IMAGE: any Debian-like image with Python >= 3.11 and its venv module. The default is the
# official slim image; scripts/build-image.sh passes a Debian base it made with debootstrap.
ARG BASE_IMAGE=python:3.11-slim-bookworm

FROM ${BASE_IMAGE} AS base
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VIRTUAL_ENV=/opt/heyan \
    PATH=/opt/heyan/bin:$PATH

# Layer 3: the dependencies. This stage sees requirements.lock and nothing else of the tree, so only a
# new lock rebuilds it. pip installs exactly the locked versions (--no-deps: the lock is complete and
# nothing is resolved anew) and checks every hash, `pip check` proves the set consistent; then pip and
# setuptools themselves and the test suites some packages ship are removed (the runtime stage copies
# this venv as it is). The two optional secrets let a build behind a TLS-intercepting proxy reach
# PyPI (pip's settings and the CA bundle they name, see scripts/build-image.sh); they exist only
# during this RUN step. Without them (a normal registry) nothing is mounted.
FROM base AS deps
COPY requirements.lock /tmp/requirements.lock
RUN --mount=type=secret,id=pip_conf,target=/etc/pip.conf \
    --mount=type=secret,id=ca_bundle,target=/etc/ssl/certs/ca-certificates.crt \
    python3 -m venv /opt/heyan \
    && /opt/heyan/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps --require-hashes \
        -r /tmp/requirements.lock \
    && /opt/heyan/bin/pip check --disable-pip-version-check \
    && /opt/heyan/bin/pip uninstall --yes --disable-pip-version-check pip setuptools \
    && find /opt/heyan/lib -mindepth 4 -type d -name tests -prune -exec rm -rf {} + \
    && rm -f /opt/heyan/bin/activate* /opt/heyan/bin/Activate.ps1

# Layer 4: the code. Plain packages on PYTHONPATH (no pip, no build backend): compiled to bytecode
# here, because the runtime user may not write next to the sources. `heyan` is the same entry
# point as pyproject.toml's [project.scripts].
FROM base AS app
WORKDIR /app
COPY bot ./bot
COPY memory ./memory
COPY jobs ./jobs
COPY adapters ./adapters
COPY prompts ./prompts
RUN python3 -m compileall -q -j 0 --invalidation-mode unchecked-hash /app \
    && mkdir /app/bin \
    && printf '%s\n' '#!/opt/heyan/bin/python' 'import sys' 'from adapters.cli.app import main' 'sys.exit(main())' \
        > /app/bin/heyan \
    && chmod 755 /app/bin/heyan

FROM base AS runtime
# A fixed uid and gid, so a volume's ownership is predictable on the host (chown 10001) and in
# Kubernetes (runAsUser/fsGroup 10001).
RUN groupadd --system --gid 10001 heyan \
    && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /home/heyan heyan \
    && mkdir -p /data \
    && chown 10001:10001 /data
ENV PATH=/app/bin:$PATH \
    PYTHONPATH=/app \
    HEYAN_DATA_DIR=/data \
    HEYAN_METRICS_PORT=9108
COPY --from=deps /opt/heyan /opt/heyan
COPY --from=app /app /app
VOLUME ["/data"]
# 9108: /metrics and /healthz (HEYAN_METRICS_PORT); 3000: Slack's HTTP mode (HEYAN_SLACK_HTTP_PORT);
# 8080: the web console (`heyan web`, HEYAN_WEB_PORT)
EXPOSE 9108 3000 8080
USER 10001:10001
WORKDIR /home/heyan
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-m", "adapters.runtime.healthcheck"]
ENTRYPOINT ["heyan"]
CMD ["run"]

# `podman build --target demo-test`: proves the image works where containers cannot be run — the
# embedded shape end to end (Qdrant Edge, embedded Valkey, in-process worker, a restart from disk).
FROM runtime AS demo-test
RUN HEYAN_DATA_DIR=/tmp/heyan-demo heyan demo \
    && rm -rf /tmp/heyan-demo

# The default target: the runtime image.
FROM runtime
