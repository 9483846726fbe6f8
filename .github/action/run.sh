#!/usr/bin/env bash
# The action's run step: runs the command of the inputs, prints check's
# and lint's findings as workflow annotations (-o github), writes a job
# summary, and sets the outputs exit-code, changed and report.
#
# Environment: INPUT_COMMAND, INPUT_PATH, INPUT_BASE_REF, INPUT_FAIL_ON, and
# the runner's GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, GITHUB_BASE_REF.
set -uo pipefail

command=${INPUT_COMMAND:-check}
fail_on=${INPUT_FAIL_ON:-}
# The paths are words of one input; none means the repository config's.
# (${paths[@]+...}: bash 3, macOS's, calls an empty array unset.)
read -r -a paths <<<"${INPUT_PATH:-}"
report=${RUNNER_TEMP:?}/contourc-$command.md
changed=
code=0

# unescape undoes a workflow command's escapes (%25 last: it escapes %).
unescape() {
	local s=$1
	s=${s//%0A/ }
	s=${s//%0D/}
	s=${s//%3A/:}
	s=${s//%2C/,}
	printf '%s' "${s//%25/%}"
}

# summarize turns -o github's annotation lines into a Markdown list:
# "- **error** manifests/app.yaml:12 HTTPProxy default/app is invalid: ...".
summarize() {
	local line level props msg prop file lineno title
	while IFS= read -r line; do
		[[ $line =~ ^::(error|warning|notice)\ ?([^:]*)::(.*)$ ]] || continue
		level=${BASH_REMATCH[1]} props=${BASH_REMATCH[2]} msg=${BASH_REMATCH[3]}
		file= lineno= title=
		IFS=, read -r -a props <<<"$props"
		for prop in ${props[@]+"${props[@]}"}; do
			case $prop in
			file=*) file=$(unescape "${prop#file=}") ;;
			line=*) lineno=:${prop#line=} ;;
			title=*) title="$(unescape "${prop#title=}"): " ;;
			esac
		done
		echo "- **$level** ${file:+\`$file$lineno\` }$title$(unescape "$msg")"
	done
}

case $command in
check | lint)
	args=("$command" -o github)
	if [ -n "$fail_on" ]; then
		args+=(--fail-on "$fail_on")
	fi
	# Annotations are workflow commands: the runner reads them from stdout.
	contourc "${args[@]}" ${paths[@]+"${paths[@]}"} | tee "$report.log"
	code=${PIPESTATUS[0]}
	{
		echo "### contourc $command: exit $code"
		echo
		summarize <"$report.log"
	} >"$report"
	;;
diff)
	base=${INPUT_BASE_REF:-}
	if [ -z "$base" ] && [ -n "${GITHUB_BASE_REF:-}" ]; then
		base=origin/$GITHUB_BASE_REF
	fi
	if [ -z "$base" ]; then
		echo "::error title=contourc diff::no base-ref, and not a pull request (GITHUB_BASE_REF is empty)"
		exit 2
	fi
	contourc diff -o markdown --base-ref "$base" ${paths[@]+"${paths[@]}"} >"$report"
	code=$?
	case $code in
	0) changed=false ;;
	1)
		# A change is what diff reports, not a failure, unless asked.
		changed=true
		if [ "$fail_on" != change ]; then
			code=0
		fi
		;;
	esac
	;;
test)
	{
		echo "### contourc test"
		echo
		echo '```'
	} >"$report"
	contourc test ${paths[@]+"${paths[@]}"} | tee -a "$report"
	code=${PIPESTATUS[0]}
	echo '```' >>"$report"
	;;
*)
	echo "::error title=contourc::command '$command': want check, lint, diff or test"
	exit 2
	;;
esac

cat "$report" >>"${GITHUB_STEP_SUMMARY:?}"
{
	echo "exit-code=$code"
	echo "changed=$changed"
	echo "report=$report"
} >>"${GITHUB_OUTPUT:?}"
exit "$code"
