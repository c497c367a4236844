# Heyan (和言): one image for the bot process (`heyan run`, the default command) and the job workers
# (`heyan worker`). See docs/DEPLOY.md; scripts/build-image.sh builds it without a registry.
#
# BASE_IMAGE: any Debian-like image with Python >= 3.11 and its venv module. The default is the
# official slim image; scripts/build-image.sh passes a Debian base it made with debootstrap.
ARG BASE_IMAGE=python:3.11-slim-bookworm

FROM ${BASE_IMAGE} AS base
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/heyan \
    PATH=/opt/heyan/bin:$PATH
RUN python3 -m venv /opt/heyan

# Dependencies first, in a layer of their own: it is rebuilt only when pyproject.toml changes, not
# on every code change. The list comes from pyproject.toml itself (tomllib), so it cannot drift.
# The two optional secrets let a build behind a TLS-intercepting proxy reach PyPI (pip's settings and
# the CA bundle they name, see scripts/build-image.sh); they exist only during these RUN steps, in a
# stage the runtime image does not inherit. Without them (a normal registry) nothing is mounted.
FROM base AS build
WORKDIR /src
COPY pyproject.toml ./
RUN --mount=type=secret,id=pip_conf,target=/etc/pip.conf \
    --mount=type=secret,id=ca_bundle,target=/etc/ssl/certs/ca-certificates.crt \
    python3 -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install --no-cache-dir -r /tmp/requirements.txt
# Then the code, installed (not editable) into the venv, which is all the runtime stage copies.
COPY README.md ./
COPY bot ./bot
COPY memory ./memory
COPY jobs ./jobs
COPY adapters ./adapters
COPY prompts ./prompts
RUN --mount=type=secret,id=pip_conf,target=/etc/pip.conf \
    --mount=type=secret,id=ca_bundle,target=/etc/ssl/certs/ca-certificates.crt \
    pip install --no-cache-dir --no-deps .

FROM base AS runtime
COPY --from=build /opt/heyan /opt/heyan
# A fixed uid, so a volume's ownership is predictable on the host and in Kubernetes.
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/heyan heyan \
    && mkdir -p /data \
    && chown heyan:heyan /data
ENV HEYAN_DATA_DIR=/data \
    HEYAN_METRICS_PORT=9108
VOLUME ["/data"]
EXPOSE 9108
USER 10001:10001
WORKDIR /home/heyan
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-m", "adapters.healthcheck"]
ENTRYPOINT ["heyan"]
CMD ["run"]

# `podman build --target demo-test`: proves the image works where containers cannot be run — the
# embedded shape end to end (Qdrant Edge, embedded Valkey, in-process worker, a restart from disk).
FROM runtime AS demo-test
RUN HEYAN_DATA_DIR=/tmp/heyan-demo heyan demo \
    && rm -rf /tmp/heyan-demo

# The default target: the runtime image.
FROM runtime
