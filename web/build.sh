#!/usr/bin/env bash
# Builds the platformer demo for the web: the example for wasm32-unknown-unknown with the `web`
# feature, its JavaScript glue made by wasm-bindgen, the page and the assets, in one folder.
#
#     web/build.sh [folder]        (default: $CARGO_TARGET_DIR/web, or target/web)
#
# Then serve the folder, for example `python3 -m http.server --directory target/web 8000`, and
# open http://localhost:8000. The first run adds the wasm32 target with rustup and installs
# wasm-bindgen-cli (at the version Cargo.lock names) next to the build, not in ~/.cargo/bin.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-$PWD/target}"
out="${1:-$target/web}"

rustup target list --installed | grep -q '^wasm32-unknown-unknown$' \
    || rustup target add wasm32-unknown-unknown

# wasm-bindgen's command must be the version of the wasm-bindgen crate the build links.
version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
tools="$target/web-tools/$version"
if [ ! -x "$tools/bin/wasm-bindgen" ]; then
    # Not `--locked`: the lock file wasm-bindgen-cli ships names a webpki-roots release the
    # registry does not offer.
    cargo install wasm-bindgen-cli --version "$version" --root "$tools"
fi

cargo build --release --example platformer --target wasm32-unknown-unknown --features web

rm -rf "$out"
mkdir -p "$out/assets"
# Without the function names (a third of the file; panics still print their message).
"$tools/bin/wasm-bindgen" --target web --no-typescript --remove-name-section \
    --remove-producers-section --out-dir "$out" --out-name platformer \
    "$target/wasm32-unknown-unknown/release/examples/platformer.wasm"
cp web/index.html "$out/"
cp -r assets/levels assets/sprites "$out/assets/"
echo "built $out ($(du -sh "$out" | cut -f1)); serve it with:"
echo "    python3 -m http.server --directory $out 8000"
