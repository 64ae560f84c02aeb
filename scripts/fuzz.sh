#!/usr/bin/env bash
# Fuzzing campaigns with libFuzzer (clang, ASan + UBSan; preset `fuzz`). Not part of CI.
#   scripts/fuzz.sh [--seconds N] [--runs N] [TARGET...]
# TARGETs are fuzz/<name>_fuzz.cc names (default: all). Each target runs from a copy of its committed
# corpus (fuzz/corpus/<name>) for N seconds (default 600) or N executions, whichever comes first;
# new inputs that add coverage are merged back into fuzz/corpus/<name> (minimised, so the corpus
# stays small), and every crash, leak or timeout is copied there too, where the fuzz_replay ctest
# replays it from then on. Prints one line per target and appends it to build/fuzz/campaigns.tsv:
#   date, target, executions, seconds, exec/s, corpus files, crashes, commit, CPU
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
runs=-1
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if ((${#targets[@]} == 0)); then
  for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" _fuzz.cc)"); done
fi
for t in "${targets[@]}"; do
  [ -f "fuzz/${t}_fuzz.cc" ] || { echo "fuzz.sh: no target fuzz/${t}_fuzz.cc" >&2; exit 2; }
done

if ! command -v clang++ >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends clang
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "${targets[@]/%/_fuzz}"

out=build/fuzz/campaigns
mkdir -p "$out"
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
commit=$(git rev-parse --short HEAD)
status=0
for t in "${targets[@]}"; do
  work="$out/$t"
  rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
  cp fuzz/corpus/"$t"/* "$work/corpus/" 2>/dev/null || true
  log="$work/fuzz.log"
  t0=$SECONDS
  set +e
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "build/fuzz/fuzz/${t}_fuzz" "$work/corpus" -max_total_time="$seconds" -runs="$runs" -timeout=25 -rss_limit_mb=4096 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" >"$log" 2>&1
  rc=$?
  set -e
  elapsed=$((SECONDS - t0))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s+=$1} END {print s+0}')
  crashes=$(find "$work/artifacts" -type f | wc -l)
  # Minimise the corpus back into the repository (merge keeps only inputs that add coverage).
  mkdir -p "$work/merged"
  "build/fuzz/fuzz/${t}_fuzz" -merge=1 "$work/merged" fuzz/corpus/"$t" "$work/corpus" >"$work/merge.log" 2>&1 || true
  # Files named by libFuzzer (40 hex digits) are replaced by the merged set; hand-written seeds and
  # regression-* files (crashes found earlier) are never removed.
  if [ -n "$(ls -A "$work/merged")" ]; then
    find fuzz/corpus/"$t" -maxdepth 1 -type f -regextype posix-extended -regex '.*/[0-9a-f]{40}' -delete
    for m in "$work/merged"/*; do
      [ -e "fuzz/corpus/$t/$(basename "$m")" ] || cp "$m" fuzz/corpus/"$t"/
    done
  fi
  for a in "$work"/artifacts/*; do
    [ -f "$a" ] && cp "$a" "fuzz/corpus/$t/regression-$(basename "$a")"
  done
  files=$(ls fuzz/corpus/"$t" | wc -l)
  rate=$(awk -v e="$execs" -v s="$elapsed" 'BEGIN { printf "%.0f", (s > 0 ? e / s : 0) }')
  line="$(date -u +%F)	$t	$execs	$elapsed	$rate	$files	$crashes	$commit	$cpu"
  echo "$line" | tee -a "$out/../campaigns.tsv"
  if ((rc != 0 || crashes > 0)); then
    echo "fuzz.sh: $t found a problem (exit $rc); see $log and $work/artifacts" >&2
    status=1
  fi
done
exit $status
