#!/usr/bin/env bash
# The action's comment step: keeps one comment on the pull request with
# diff's markdown report, found again on later runs by a hidden marker (one
# per path input, so two uses of the action keep two comments), and
# edited rather than posted anew. A token that may not comment (a pull
# request from a fork) gets a warning, not a failed job.
#
# Environment: REPORT, PR_NUMBER, INPUT_PATH, GITHUB_TOKEN, and the runner's
# GITHUB_API_URL and GITHUB_REPOSITORY.
set -euo pipefail

if [ -z "${PR_NUMBER:-}" ]; then
	echo "not a pull request: no comment"
	exit 0
fi
api=${GITHUB_API_URL:-https://api.github.com}
repo=${GITHUB_REPOSITORY:?}
marker="<!-- contourc diff ${INPUT_PATH:-} -->"
body="$marker
$(cat "${REPORT:?}")"
# GitHub refuses comments over 65,536 characters.
limit=60000
if [ "${#body}" -gt "$limit" ]; then
	body="${body:0:$limit}

… (cut: the whole report is in the job summary)"
fi

curl_api() {
	curl -fsS -H "Authorization: Bearer ${GITHUB_TOKEN:-}" \
		-H "Accept: application/vnd.github+json" \
		-H "X-GitHub-Api-Version: 2022-11-28" "$@"
}

warn() {
	echo "::warning title=contourc comment::$* (a pull request from a fork gets a read-only token; see docs/ci.md)"
	exit 0
}

id=
page=1
while :; do
	comments=$(curl_api "$api/repos/$repo/issues/$PR_NUMBER/comments?per_page=100&page=$page") ||
		warn "could not list the comments of pull request $PR_NUMBER"
	id=$(jq -r --arg m "$marker" 'map(select(.body | startswith($m))) | .[0].id // empty' <<<"$comments")
	if [ -n "$id" ] || [ "$(jq length <<<"$comments")" -lt 100 ]; then
		break
	fi
	page=$((page + 1))
done

payload=$(jq -n --arg body "$body" '{body: $body}')
if [ -n "$id" ]; then
	curl_api -X PATCH -d "$payload" "$api/repos/$repo/issues/comments/$id" >/dev/null ||
		warn "could not update comment $id"
	echo "updated comment $id"
else
	curl_api -X POST -d "$payload" "$api/repos/$repo/issues/$PR_NUMBER/comments" >/dev/null ||
		warn "could not comment on pull request $PR_NUMBER"
	echo "commented on pull request $PR_NUMBER"
fi
