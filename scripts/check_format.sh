#!/usr/bin/env bash
# Fails, naming each file, when a C++ or CUDA source differs from clang-format's output under
# .clang-format (Debian 12's clang-format 14). Fix with: clang-format -i <file>.
# Run by the CTest style/clang_format; usage: scripts/check_format.sh [clang-format]
set -uo pipefail
cd "$(dirname "$0")/.."
tool=${1:-clang-format}
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
else
  mapfile -t files < <(find app core gpu ui tests scripts \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \))
fi
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  "$tool" --dry-run -Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "clang-format: ${#bad[@]} of ${#files[@]} files are not formatted (clang-format -i FILE):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "clang-format: all ${#files[@]} files formatted"
