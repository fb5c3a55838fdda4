#!/bin/sh
# Makes the image the Dockerfile starts from (its BASE_IMAGE, debian:bookworm-slim) from Debian's
# own packages, for a host that reaches no image registry (docs/deploy.md, "A container image"):
# mmdebstrap's minbase of bookworm, with its updates and security suites, imported into podman
# under the registry's name, so `podman build` finds it and pulls nothing. Run it as root (or
# as a user mmdebstrap can unshare for). test/container/podman.ts makes the tests' base with it.
#
#   sh deploy/base-image.sh [IMAGE]
#
# IMAGE defaults to the Dockerfile's. MIRROR, when set, is the Debian mirror to use (a URI, or
# a whole "deb ..." line); PODMAN, the podman to import with. An image already there is kept.
set -eu

image=${1:-docker.io/library/debian:bookworm-slim}
podman=${PODMAN:-podman}

for tool in mmdebstrap "$podman"; do
  if ! command -v "$tool" >/dev/null; then
    echo "base-image.sh: $tool is missing: apt-get install podman runc mmdebstrap" >&2
    exit 1
  fi
done

if "$podman" image exists "$image"; then
  echo "base-image.sh: $image is there already; podman image rm it to make it again."
  exit 0
fi

tarball=$(mktemp "${TMPDIR:-/var/tmp}/base-image.XXXXXX.tar")
trap 'rm -f "$tarball"' EXIT
# Without MIRROR, mmdebstrap takes deb.debian.org and adds bookworm's updates and security.
mmdebstrap --variant=minbase --quiet bookworm "$tarball" ${MIRROR:+"$MIRROR"}
"$podman" import --quiet "$tarball" "$image" >/dev/null
echo "base-image.sh: made $image with mmdebstrap (bookworm, minbase)."
