#!/usr/bin/env bash
# Build Heyan's container image on a machine that cannot pull base images (no registry, no Docker
# engine): a Debian base made with debootstrap, imported into podman, then the Dockerfile built with
# `podman build --isolation chroot`. The `demo-test` stage runs `heyan demo` inside the image at build
# time, which proves the image where `podman run` is refused. Then it prints the image's layers with
# their sizes and, with HEYAN_MEASURE_REBUILD=1, rebuilds after a one-line code change and prints
# which layers changed. Commands and results: docs/DEPLOY.md ("Building the image").
#
#   sudo scripts/build-image.sh                                  # base (once) + demo-test + runtime image
#   sudo HEYAN_MEASURE_REBUILD=1 scripts/build-image.sh          # + the code-only rebuild, measured
#   HEYAN_IMAGE=localhost/heyan:dev sudo scripts/build-image.sh
#
# The machine's pip settings and CA bundle (needed to reach PyPI through this workplace's proxy)
# are mounted into the dependency RUN step only, as build secrets: they never land in a layer
# (checked at the end). The debootstrap tree is deleted once imported (HEYAN_KEEP_ROOTFS=1 keeps it).
# With a normal registry, plain `docker build .` or `podman build .` needs none of this.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${HEYAN_IMAGE_WORK:-/var/tmp/heyan-image}
SUITE=${DEBIAN_SUITE:-bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE=${HEYAN_BASE_IMAGE:-localhost/heyan-base:${SUITE}-python3}
IMAGE=${HEYAN_IMAGE:-localhost/heyan:latest}
CA=/etc/ssl/certs/ca-certificates.crt

log() { printf '\n== %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then
    echo "run as root: debootstrap and podman's chroot isolation need it" >&2
    exit 2
fi
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null; then
    log "installing podman and debootstrap from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman debootstrap
fi

# 1. The base: Debian with Python 3.11, its venv module, CA certificates and zone data.
if ! podman image exists "$BASE"; then
    if [ ! -x "$WORK/rootfs/usr/bin/python3" ]; then
        log "debootstrap $SUITE into $WORK/rootfs"
        rm -rf "$WORK/rootfs"
        mkdir -p "$WORK"
        debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates,tzdata \
            "$SUITE" "$WORK/rootfs" "$MIRROR"
    fi
    log "podman import -> $BASE"
    # apt lists, caches and the downloaded .debs (45 MB) are not needed in a base image
    rm -rf "$WORK/rootfs/var/lib/apt/lists/"* "$WORK/rootfs/var/cache/apt/"*.bin \
        "$WORK/rootfs/var/cache/apt/archives/"*.deb
    tar -C "$WORK/rootfs" -c . | podman import --change 'CMD ["python3"]' - "$BASE"
    if [ "${HEYAN_KEEP_ROOTFS:-0}" != 1 ]; then
        log "removing the temporary root filesystem $WORK/rootfs (imported as $BASE)"
        rm -rf "$WORK/rootfs"
    fi
fi

# 2. Build-time only: pip's settings and the CA bundle they name, as build secrets. The Dockerfile
#    mounts them in its pip RUN step only (a `--volume` would reach every RUN step and leave
#    empty mount points behind in the runtime image's layers).
secrets=()
if [ -e /etc/pip.conf ]; then secrets+=(--secret "id=pip_conf,src=/etc/pip.conf"); fi
if [ -e "$CA" ]; then secrets+=(--secret "id=ca_bundle,src=$CA"); fi

build() {
    podman build --isolation chroot --format docker --build-arg "BASE_IMAGE=$BASE" "${secrets[@]}" "$@" "$ROOT"
}

# 3. The test stage (runs `heyan demo` in a RUN step), then the runtime image (same cached layers).
log "podman build --target demo-test"
build --target demo-test --tag localhost/heyan-demo-test:latest
log "podman build -> $IMAGE"
build --tag "$IMAGE"

# 4. Proof that the build-time mounts stayed out of the image.
log "checking the image"
mnt=$(podman image mount "$IMAGE")
trap 'podman image unmount "$IMAGE" >/dev/null' EXIT
if [ -e "$mnt/etc/pip.conf" ]; then
    echo "FAIL: pip settings were copied into the image" >&2
    exit 1
fi
if [ -e "$CA" ] && cmp -s "$CA" "$mnt$CA"; then
    echo "note: the image's CA bundle equals this machine's (no extra CA here, or it was copied)" >&2
else
    echo "CA bundle: the image has its own (Debian's), not this machine's"
fi
echo "pip settings: not in the image"
podman image inspect "$IMAGE" --format \
    'user={{.Config.User}} entrypoint={{.Config.Entrypoint}} cmd={{.Config.Cmd}} volumes={{.Config.Volumes}} healthcheck={{.Config.Healthcheck.Test}}'
podman image ls --filter reference="$IMAGE" --format '{{.Repository}}:{{.Tag}} {{.ID}} {{.Size}}'
for banned in /opt/heyan/bin/pip /opt/heyan/lib/python3*/site-packages/pip /opt/heyan/lib/python3*/site-packages/setuptools \
        /opt/heyan/lib/python3*/site-packages/jieba /var/cache/apt/archives/*.deb; do
    # shellcheck disable=SC2086 # the globs are meant
    if compgen -G "$mnt$banned" >/dev/null; then echo "FAIL: $banned is in the image" >&2; exit 1; fi
done
echo "not in the image: pip, setuptools, jieba, .debs"

# 5. The layers, with the instruction that made each and its size.
layers() { podman history --no-trunc --format '{{.ID}} {{.Size}} {{.CreatedBy}}' "$1" | cut -c1-160; }
log "layers of $IMAGE (newest first)"
layers "$IMAGE"

# 6. Optional: a one-line code change, rebuilt from a copy of the tree; the layers that differ.
if [ "${HEYAN_MEASURE_REBUILD:-0}" = 1 ]; then
    probe=$(mktemp -d)
    trap 'podman image unmount "$IMAGE" >/dev/null; rm -rf "$probe"' EXIT
    cp -a "$ROOT/Dockerfile" "$ROOT/.dockerignore" "$ROOT/requirements.lock" "$ROOT/bot" "$ROOT/memory" \
        "$ROOT/jobs" "$ROOT/adapters" "$ROOT/prompts" "$probe/"
    echo "# a one-line code change (scripts/build-image.sh HEYAN_MEASURE_REBUILD)" >> "$probe/adapters/cli/app.py"
    log "rebuilding after a one-line change to adapters/cli/app.py"
    podman build --isolation chroot --format docker --build-arg "BASE_IMAGE=$BASE" "${secrets[@]}" \
        --tag localhost/heyan:rebuild-probe "$probe"
    before=$(podman image inspect "$IMAGE" --format '{{range .RootFS.Layers}}{{println .}}{{end}}')
    after=$(podman image inspect localhost/heyan:rebuild-probe --format '{{range .RootFS.Layers}}{{println .}}{{end}}')
    changed=$(comm -13 <(sort <<<"$before") <(sort <<<"$after") | grep -c . || true)
    echo "layers: $(grep -c . <<<"$after") in all, $changed new after the code change"
    log "layers of the rebuilt image (newest first)"
    layers localhost/heyan:rebuild-probe
    podman rmi localhost/heyan:rebuild-probe >/dev/null
fi
