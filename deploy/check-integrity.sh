#!/bin/sh
# Refuses a downloaded tarball that is not the one pinned: the Dockerfile's build stage runs it
# on the Node and npm tarballs it ADDs (ADD itself checks nothing). INTEGRITY is npm's form,
# sha512-<base64>, what `npm view <package>@<version> dist.integrity` prints.
#
#   sh deploy/check-integrity.sh FILE INTEGRITY NAME
#
# NAME says in the error which tarball and which pin it was (a build argument's name).
set -eu

if [ $# -ne 3 ]; then
  echo "usage: sh deploy/check-integrity.sh FILE INTEGRITY NAME" >&2
  exit 2
fi
file=$1
integrity=$2
name=$3

case $integrity in
  sha512-*) ;;
  *)
    echo "check-integrity.sh: $name: '$integrity' is not an sha512- integrity (npm view ... dist.integrity)" >&2
    exit 2
    ;;
esac
expected=$(printf %s "${integrity#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')
actual=$(sha512sum "$file" | cut -d ' ' -f 1)
if [ "$actual" != "$expected" ]; then
  echo "check-integrity.sh: $name: the downloaded tarball's sha512 is not the pinned $integrity: refused" >&2
  exit 1
fi
