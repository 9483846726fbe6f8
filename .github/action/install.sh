#!/usr/bin/env bash
# The action's install step: puts contourc, and contourc-engines beside it
# (contourc runs it for Helm charts and Flux Kustomizations), on the job's
# PATH, from the release archive for the runner's OS and architecture (its
# checksum checked against the release's checksums file), or built from the
# action's own checkout with `version: source`.
#
# Environment: INPUT_VERSION, ACTION_REF, ACTION_REPOSITORY, GITHUB_TOKEN,
# and the runner's RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH,
# GITHUB_SERVER_URL, GITHUB_API_URL, GITHUB_ACTION_PATH.
set -euo pipefail

fail() {
	echo "::error title=contourc install::$*"
	exit 1
}

case ${RUNNER_OS:-} in
Linux) os=linux ;;
macOS) os=darwin ;;
Windows) os=windows ;;
*) fail "no contourc release for runner OS '${RUNNER_OS:-}'; use version: source" ;;
esac
case ${RUNNER_ARCH:-} in
X64) arch=amd64 ;;
ARM64) arch=arm64 ;;
*) fail "no contourc release for runner architecture '${RUNNER_ARCH:-}'; use version: source" ;;
esac
exe=
ext=tar.gz
if [ "$os" = windows ]; then
	exe=.exe
	ext=zip
fi

dest=${RUNNER_TEMP:?}/contourc-bin
mkdir -p "$dest"

version=${INPUT_VERSION:-}
if [ -z "$version" ]; then
	# Used at a release tag (uses: contourc/contourc@v1.2.3), the action
	# installs that release, so its scripts and the binary agree.
	case ${ACTION_REF:-} in
	v[0-9]*) version=$ACTION_REF ;;
	*) version=latest ;;
	esac
fi

auth=()
if [ -n "${GITHUB_TOKEN:-}" ]; then
	auth=(-H "Authorization: Bearer $GITHUB_TOKEN")
fi

sha256() {
	if command -v sha256sum >/dev/null; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1 # macOS
	fi
}

programs=(contourc contourc-engines)
if [ "$version" = source ]; then
	for prog in "${programs[@]}"; do
		"${GITHUB_ACTION_PATH:?}/scripts/build.sh" "$dest/$prog$exe" "./cmd/$prog"
	done
else
	repo=${ACTION_REPOSITORY:-}
	repo=${repo:-contourc/contourc}
	api=${GITHUB_API_URL:-https://api.github.com}
	server=${GITHUB_SERVER_URL:-https://github.com}
	if [ "$version" = latest ]; then
		version=$(curl -fsSL ${auth[@]+"${auth[@]}"} "$api/repos/$repo/releases/latest" | jq -r .tag_name) ||
			fail "could not find the latest release of $repo"
	fi
	archive=contourc_${version}_${os}_${arch}.$ext
	sums=contourc_${version}_checksums.txt
	base=$server/$repo/releases/download/$version
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	curl -fsSL -o "$tmp/$archive" "$base/$archive" || fail "could not download $base/$archive"
	curl -fsSL -o "$tmp/$sums" "$base/$sums" || fail "could not download $base/$sums"
	want=$(awk -v name="$archive" '$2 == name { print $1 }' "$tmp/$sums")
	got=$(sha256 "$tmp/$archive")
	if [ -z "$want" ] || [ "$got" != "$want" ]; then
		fail "$archive: SHA-256 $got, but $sums says '${want:-nothing}'"
	fi
	members=("${programs[@]/%/$exe}")
	if [ "$ext" = zip ] && command -v unzip >/dev/null; then
		unzip -o -q "$tmp/$archive" "${members[@]}" -d "$dest"
	elif [ "$ext" = zip ]; then
		tar -xf "$tmp/$archive" -C "$dest" "${members[@]}" # Windows' bsdtar reads zips
	else
		tar -xzf "$tmp/$archive" -C "$dest" "${members[@]}"
	fi
fi

echo "$dest" >>"${GITHUB_PATH:?}"
"$dest/contourc$exe" version
