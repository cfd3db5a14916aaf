#!/usr/bin/env bash
# Builds the container image $IMAGE (default novagraph:dev) without any
# registry: the Go binaries are built here (CGO, linking this machine's
# librocksdb dynamically), a root filesystem is assembled from them and
# every shared library ldd says they need, and `docker build` turns it into
# a FROM scratch image. Work files go to deploy/.build/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

IMAGE=${IMAGE:-novagraph:dev}
GO=${GO:-go}
BUILD=${BUILD_DIR:-deploy/.build}
BINARIES="metad storaged graphd nova-console nova-importer nova-bench nova-healthcheck nova-diskfill nova-certs nova-br"
UID_GID=10001

die() { echo "make image: $*" >&2; exit 1; }
command -v docker >/dev/null 2>&1 || die "docker is not installed (or not on PATH); install Docker 20.10 or newer"
docker info >/dev/null 2>&1 || die "cannot reach the Docker daemon (is it running, and may $(id -un) use it?)"
command -v ldd >/dev/null 2>&1 || die "ldd is missing (Debian package libc-bin)"
dpkg -s librocksdb-dev >/dev/null 2>&1 || die "librocksdb-dev is missing; run make deps"

echo "building binaries into $BUILD/bin"
mkdir -p "$BUILD/bin"
pkgs=""
for b in $BINARIES; do pkgs="$pkgs ./cmd/$b"; done
# shellcheck disable=SC2086
# --version and novagraph_build_info (internal/buildinfo).
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
commit=$(git rev-parse HEAD 2>/dev/null || true)
if [ -n "$commit" ] && ! git diff --quiet HEAD 2>/dev/null; then commit="$commit-dirty"; fi
bi=github.com/novagraph/novagraph/internal/buildinfo
CGO_ENABLED=1 "$GO" build -trimpath -ldflags="-s -w -X $bi.version=$version -X $bi.commit=$commit" -o "$BUILD/bin/" $pkgs

ctx="$BUILD/image"
rm -rf "$ctx"
root="$ctx/rootfs"
mkdir -p "$root/bin" "$root/etc" "$ctx/data" "$ctx/home"
mkdir -m 1777 "$root/tmp"

# Binaries, and every library they load, at the path the loader finds it
# (ldd's resolved path; the loader itself at the path in PT_INTERP, e.g.
# /lib64/ld-linux-x86-64.so.2). cp -L stores the library under its soname
# path with the symlink's target's contents.
declare -A libs=()
for b in $BINARIES; do
	cp "$BUILD/bin/$b" "$root/bin/$b"
	out=$(ldd "$BUILD/bin/$b" 2>&1) || { [[ $out == *"not a dynamic executable"* ]] && continue; die "ldd $b: $out"; }
	[[ $out == *"not found"* ]] && die "ldd $b: a library is missing:"$'\n'"$out"
	while read -r path; do
		libs[$path]=1
	done < <(awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$out")
done
for lib in "${!libs[@]}"; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
interp=$(readelf -l "$BUILD/bin/storaged" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p' || true)
if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
	mkdir -p "$root$(dirname "$interp")"
	cp -L "$interp" "$root$interp"
fi

cat >"$root/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/sbin/nologin
nova:x:$UID_GID:$UID_GID:novagraph:/home/nova:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
PASSWD
cat >"$root/etc/group" <<GROUP
root:x:0:
nova:x:$UID_GID:
nogroup:x:65534:
GROUP
echo 'hosts: files dns' >"$root/etc/nsswitch.conf"
chmod 0644 "$root/etc/passwd" "$root/etc/group" "$root/etc/nsswitch.conf"

cp deploy/image/Dockerfile "$ctx/Dockerfile"
echo "root filesystem: $(du -sh "$root" | cut -f1), libraries: ${#libs[@]}"
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
docker build --build-arg "REVISION=$rev" -t "$IMAGE" "$ctx"
docker image inspect "$IMAGE" --format "built $IMAGE: {{.Id}} $(docker image ls "$IMAGE" --format '{{.Size}}')"
# The image this build replaced (now untagged) is only disk space.
docker image prune -f --filter "label=org.opencontainers.image.title=novagraph" >/dev/null
