#!/usr/bin/env bash
# check-doc-links.sh: every reference in the repository to a Markdown page
# (the README, docs/*.md, any other *.md) must name a file that exists in the
# repository and, when it names a section, a heading of that file. Links to
# this repository on GitHub (https://github.com/nodeslo/nodeslo-controller/blob/main/PATH,
# as the runbook's address of config/prometheus, the chart and the dashboard,
# and the alerts' tests, use) are checked as PATH.
#
#   bash hack/check-doc-links.sh     # exit 0: all resolve; 1: a list of what does not
#   bash hack/check-doc-links.sh -v  # also list every reference found
#
# What counts as a reference, and how it is resolved:
#   - a Markdown link [text](target) in a *.md file: target is relative to
#     the file's directory, as GitHub and editors resolve it;
#   - any other mention (Go comments, prose, link-free Markdown text):
#     a path relative to the repository root, e.g. docs/behaviour.md;
#   - a link to "#anchor" alone points into the same Markdown file;
#   - "#anchor" after the file name must be the GitHub anchor of one of its
#     headings (lower case, punctuation dropped, spaces turned into dashes);
#   - ', "Heading"' right after a bare file name must be one of its headings.
# Other URLs (http:// and https://) are not checked. Files are those git tracks or
# would track (untracked files not ignored), so new files count before a commit.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
cd "$root"
verbose=false
[[ ${1:-} == -v ]] && verbose=true

# anchors FILE: the GitHub anchors of FILE's headings, one per line.
anchors() {
	awk '
		/^[ \t]*(```|~~~)/ { fenced = !fenced; next }
		fenced { next }
		/^#+[ \t]/ {
			h = $0
			sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#+[ \t]*$/, "", h); sub(/[ \t]+$/, "", h)
			h = tolower(h)
			gsub(/[^a-z0-9 _-]/, "", h)
			gsub(/ /, "-", h)
			# GitHub numbers repeated headings: name, name-1, name-2, ...
			n = seen[h]++
			print (n ? h "-" n : h)
		}
	' "$1"
}

# references FILE...: one line per reference: file, line, kind (link|bare),
# target, heading. One awk for all files: a process per file costs seconds.
references() {
	awk '
		BEGIN { OFS = "\t"; names = "[A-Za-z0-9_-]+[.]md" }
		FNR == 1 { file = FILENAME; md = file ~ /[.]md$/; self = file; sub(/.*\//, "", self) }
		{
			line = $0
			# This repository on GitHub: the path after the prefix, from the root.
			gsub(/https:\/\/github[.]com\/nodeslo\/nodeslo-controller\/blob\/main\//, "@ROOT@/", line)
			gsub(/https?:\/\/[^ \t)>"`]*/, "", line)
			if (md) {
				# Markdown links: check targets naming our pages, then drop every
				# link (text included) so that its text is not read as a bare path.
				rest = line; line = ""
				while (match(rest, /\[[^]]*\]\([^)]*\)/)) {
					link = substr(rest, RSTART, RLENGTH)
					line = line substr(rest, 1, RSTART - 1) " "
					rest = substr(rest, RSTART + RLENGTH)
					target = link; sub(/^\[[^]]*\]\(/, "", target); sub(/\)$/, "", target)
					sub(/[ \t]+"[^"]*"$/, "", target) # a link title
					if (target ~ "^@ROOT@/") { sub(/^@ROOT@/, "", target); print file, FNR, "bare", target, "" }
					else if (target ~ names) print file, FNR, "link", target, ""
					else if (target ~ /^#/) print file, FNR, "link", self target, ""
				}
				line = line rest
			}
			while (match(line, "[A-Za-z0-9_./-]*" names "(#[A-Za-z0-9_-]+)?")) {
				target = substr(line, RSTART, RLENGTH)
				line = substr(line, RSTART + RLENGTH)
				heading = ""
				if (target !~ /#/ && match(line, /^,[ \t]*"[^"]+"/)) {
					heading = substr(line, 1, RLENGTH)
					sub(/^,[ \t]*"/, "", heading); sub(/"$/, "", heading)
				}
				print file, FNR, "bare", target, heading
			}
		}
	' "$@"
}

# normalize PATH: sets resolved to PATH relative to the repository root with
# . and .. folded, or a path starting with ../ when it leaves the repository.
# (A variable, not output: a command substitution per reference forks.)
normalize() {
	local part out=()
	local IFS=/
	for part in $1; do
		case $part in
		'' | .) ;;
		..) if ((${#out[@]} > 0)) && [[ ${out[-1]} != .. ]]; then unset 'out[-1]'; else out+=(..); fi ;;
		*) out+=("$part") ;;
		esac
	done
	resolved="${out[*]}"
}

# Each page's anchors are computed once, however often it is referenced.
declare -A anchors_of=()

errors=0
checked=0
fail() {
	echo "$1:$2: $3" >&2
	errors=$((errors + 1))
}

# The files that mention a page at all (grep skips binary ones).
mapfile -t files < <(git ls-files -z --cached --others --exclude-standard |
	xargs -0 grep -IlE '[A-Za-z0-9_-]\.md' -- 2>/dev/null || true)
while IFS=$'\t' read -r file line kind target heading; do
	checked=$((checked + 1))
	path=${target%%#*}
	anchor=""
	[[ $target == *#* ]] && anchor=${target#*#}
	if [[ $kind == link ]]; then
		dir=.
		[[ $file == */* ]] && dir=${file%/*}
		normalize "$dir/$path"
		how="link target $target (from $dir/)"
	else
		normalize "$path"
		how="$target (from the repository root)"
	fi
	$verbose && echo "$file:$line: $target${heading:+, \"$heading\"} -> $resolved"
	if [[ $resolved == ../* ]]; then
		fail "$file" "$line" "$how: points outside the repository"
		continue
	fi
	if [[ ! -f $resolved ]]; then
		fail "$file" "$line" "$how: no such file $resolved in the repository"
		continue
	fi
	[[ -v anchors_of[$resolved] ]] || anchors_of[$resolved]=$(anchors "$resolved")
	have=${anchors_of[$resolved]}
	if [[ -n $anchor && $'\n'$have$'\n' != *$'\n'"$anchor"$'\n'* ]]; then
		fail "$file" "$line" "$how: $resolved has no heading with anchor #$anchor"
	fi
	if [[ -n $heading ]]; then
		want=$(printf '# %s\n' "$heading" | anchors /dev/stdin)
		if [[ $'\n'$have$'\n' != *$'\n'"$want"$'\n'* ]]; then
			fail "$file" "$line" "$how: $resolved has no heading \"$heading\""
		fi
	fi
done < <(((${#files[@]} == 0)) || references "${files[@]}")

if ((errors > 0)); then
	echo "check-doc-links: $errors of $checked references to Markdown pages do not resolve" >&2
	exit 1
fi
echo "check-doc-links: all $checked references to Markdown pages resolve"
