#!/usr/bin/env bash
# Make the secret files compose.yaml mounts: ./secrets/<name>, one per key or token (docs/DEPLOY.md,
# "Compose"). Safe to run again: an existing file is never overwritten.
#
#   scripts/compose-secrets.sh            # ./secrets/ beside compose.yaml
#   scripts/compose-secrets.sh DIR        # another folder (then point compose.yaml's secrets at it)
#
# - the folder is 0700: only you can enter it on the host;
# - the files are 0644: compose bind-mounts them as they are, and the containers run as uid 10001,
#   which must be able to read them (compose's uid/mode options do not apply outside Swarm);
# - every file exists, empty when unused: compose refuses to start a container whose secret file is
#   missing, and Heyan reads an empty one as an unset value;
# - Qdrant's API key is made here (random, 32 bytes); Heyan's encryption key is made with the image:
#   docker compose run --rm --no-deps bot keys generate > secrets/heyan_encryption_keys
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-$ROOT/secrets}
# the names of compose.yaml's secrets (tests/test_compose.py checks that the two lists agree)
NAMES=(heyan_encryption_keys qdrant_api_key llm_api_key embedding_api_key discord_token slack_bot_token
       slack_app_token slack_signing_secret slack_client_secret web_discord_client_secret web_slack_client_secret)

mkdir -p "$DIR"
chmod 700 "$DIR"
for name in "${NAMES[@]}"; do
    file="$DIR/$name"
    if [ ! -e "$file" ]; then
        : > "$file"
        if [ "$name" = qdrant_api_key ]; then
            head -c 32 /dev/urandom | base64 | tr -d '/+=\n' > "$file"
        fi
    fi
    chmod 644 "$file"
done

empty=()
for name in "${NAMES[@]}"; do
    if [ ! -s "$DIR/$name" ]; then empty+=("$name"); fi
done
echo "secrets in $DIR: ${#NAMES[@]} files; empty (unset): ${empty[*]:-none}"
case " ${empty[*]:-} " in
    *" heyan_encryption_keys "*)
        echo "next: docker compose run --rm --no-deps bot keys generate > $DIR/heyan_encryption_keys" \
             "(then back that file up: the stored data cannot be read without it)" ;;
esac
