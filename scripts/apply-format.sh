#!/usr/bin/env bash
# Reformats the whole tree once, in a commit of its own: Biome's formatter and import sorting (no lint fixes,
# no other change), then records that commit in .git-blame-ignore-revs (a second commit) so that `git blame`
# skips it. Run from a clean work tree on the branch that should carry the formatting:
#
#   bash scripts/apply-format.sh
#
# Afterwards `npm run format:check` and `npm run lint` (as .ci/run runs them) pass.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "apply-format: the work tree has changes: commit or stash them first" >&2
  exit 1
fi

# A second pass settles the few member chains that Biome's first pass leaves for a second to join.
for pass in 1 2 3; do
  npx biome check --write --linter-enabled=false . >/dev/null 2>&1 || true
  if npx biome check --linter-enabled=false . >/dev/null 2>&1; then break; fi
  if [ "$pass" = 3 ]; then npx biome check --linter-enabled=false .; exit 1; fi
done
if [ -z "$(git status --porcelain --untracked-files=no)" ]; then
  echo "apply-format: the tree is already formatted"
  exit 0
fi
changed=$(git status --porcelain --untracked-files=no | wc -l)
git commit --quiet --no-verify -am "Apply Biome's formatter and import sorting to the whole tree (formatting only, $changed files)"
rev=$(git rev-parse HEAD)

printf '# Formatting-only commits, skipped by `git blame` (git config blame.ignoreRevsFile .git-blame-ignore-revs).\n' \
  > .git-blame-ignore-revs.tmp
{ [ -f .git-blame-ignore-revs ] && grep -v '^#' .git-blame-ignore-revs || true; echo "$rev"; } >> .git-blame-ignore-revs.tmp
mv .git-blame-ignore-revs.tmp .git-blame-ignore-revs
git add .git-blame-ignore-revs
git commit --quiet --no-verify -m "git blame skips the formatting commit $rev"

echo "apply-format: formatted $changed files in $rev"
npm run --silent format:check
npm run --silent lint
